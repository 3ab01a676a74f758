"""paths: state is anchored at CLAUDE_PROJECT_DIR; ids are checked and symlinks cannot lead out."""

from __future__ import annotations

import os

import pytest

from deliberation.state.ids import InvalidId
from deliberation.state.paths import Layout, UnsafePath, project_root
from deliberation.state.models import SessionState
from deliberation.state.store import Store

UNSAFE = ["../x", "/etc/passwd", "", "a" * 129, "a/b", "a\x00b", "..", "../../../../tmp/evil"]


def tree(root) -> "set[str]":
    """Every path under `root`, relative (to prove nothing was written)."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, n), root))
    return out


def test_project_root_prefers_explicit_then_env_then_cwd(project, tmp_path, monkeypatch):
    assert project_root() == str(project)
    assert project_root(str(tmp_path)) == str(tmp_path)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")
    monkeypatch.chdir(tmp_path)
    assert project_root() == str(tmp_path)


def test_layout_is_anchored_at_the_project_not_cwd(project, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    lay = Layout()
    assert lay.root == str(project / ".claude" / "deliberation")
    assert lay.session_state("s1") == str(project / ".claude/deliberation/sessions/s1/session.json")
    assert lay.lineage("s1").endswith("sessions/s1/lineage.json")
    assert lay.events("s1").endswith("sessions/s1/events.jsonl")
    assert lay.deliberation("d-1") == str(project / ".claude/deliberation/deliberations/d-1.json")
    assert lay.record("d-1") == str(project / ".claude/deliberation/records/d-1.md")
    assert lay.config_cache == str(project / ".claude/deliberation/cache/config.resolved.json")


@pytest.mark.parametrize("bad", UNSAFE, ids=repr)
def test_unsafe_ids_never_become_paths(project, bad):
    lay = Layout()
    before = tree(project.parent)
    for build in (lay.session_dir, lay.session_state, lay.lineage, lay.events):
        with pytest.raises(InvalidId):
            build(bad)
    for build in (lay.deliberation, lay.record):
        with pytest.raises(InvalidId):
            build(bad)
    assert tree(project.parent) == before


def test_symlinked_state_dir_is_refused_and_nothing_is_written_outside(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".claude").mkdir()
    os.symlink(outside, project / ".claude" / "deliberation")
    lay = Layout()
    with pytest.raises(UnsafePath, match="is a link to"):
        lay.session_state("s1")
    store = Store(lay)
    with pytest.raises(UnsafePath):
        store.save(lay.config_cache, SessionState(session_id="s1"))
    assert tree(outside) == set()


def test_symlinked_sessions_dir_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    state = project / ".claude" / "deliberation"
    state.mkdir(parents=True)
    os.symlink(outside, state / "sessions")
    with pytest.raises(UnsafePath, match="resolves to"):
        Layout().session_dir("s1")
    assert tree(outside) == set()


@pytest.mark.parametrize("dangling", [True, False])
def test_symlinked_state_file_pointing_outside_is_refused(project, tmp_path, dangling):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "victim.json"
    if not dangling:
        target.write_text('{"keep": "me"}')
    sdir = project / ".claude" / "deliberation" / "sessions" / "s1"
    sdir.mkdir(parents=True)
    os.symlink(target, sdir / "session.json")
    lay = Layout()
    store = Store(lay)
    with pytest.raises(UnsafePath):
        store.save(lay.session_state("s1"), SessionState(session_id="s1"))
    with pytest.raises(UnsafePath):
        store.load(lay.session_state("s1"), SessionState)
    with pytest.raises(UnsafePath):
        store.update(lay.session_state("s1"), SessionState, lambda: SessionState(session_id="s1"), lambda s: None)
    with pytest.raises(UnsafePath):
        store.append(lay.events("s1").replace("events.jsonl", "session.json"), {"x": 1})
    if dangling:
        assert tree(outside) == set()
    else:
        assert target.read_text() == '{"keep": "me"}'
        assert tree(outside) == {"victim.json"}


def test_checked_accepts_plain_files_inside(project):
    lay = Layout()
    assert lay.checked(lay.config) == lay.config
    assert lay.checked(lay.errors_log) == lay.errors_log


def test_find_project_walks_up_to_the_nearest_state_folder_or_git_root(tmp_path):
    from deliberation.state.paths import find_project

    outer = tmp_path / "work"
    inner = outer / "repo" / "src" / "auth"
    inner.mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".claude" / "deliberation").mkdir(parents=True)
    # nothing marks a project: the folder itself
    assert find_project(str(inner), home=str(home)) == str(inner)
    (outer / "repo" / ".git").mkdir()
    assert find_project(str(inner), home=str(home)) == str(outer / "repo")
    # a state folder further up never wins over a nearer git root: in a shared folder it may be
    # another user's (their .claude/deliberation above everyone's clones)
    (outer / ".claude" / "deliberation").mkdir(parents=True)
    assert find_project(str(inner), home=str(home)) == str(outer / "repo")
    (outer / "repo" / ".claude" / "deliberation").mkdir(parents=True)
    assert find_project(str(inner), home=str(home)) == str(outer / "repo")
    # the home folder's .claude/ is the client's configuration: found only from home itself
    below_home = home / "notes" / "x"
    below_home.mkdir(parents=True)
    assert find_project(str(below_home), home=str(home)) == str(below_home)
    assert find_project(str(home), home=str(home)) == str(home)
