"""The state folder's .gitignore: written with the folder, shares config.json and reversals.json
with git and nothing else (asked of git itself), never overwrites the user's own."""

from __future__ import annotations

import os
import subprocess

import pytest

from deliberation.state import paths
from deliberation.state.paths import Layout, ensure_gitignore, make_dirs

RUNTIME = (
    "sessions/0c1d/events.jsonl",
    "sessions/0c1d/session.json",
    "sessions/0c1d/session.lock",
    "sessions/0c1d/prompt.json",
    "deliberations/d-0c1d-1.json",
    "records/d-0c1d-1.md",
    "records/d-0c1d-1.html",
    "cache/config.resolved.json",
    "cache/retention.json",
    "errors.log",
    "escalations.json",
    "adjudications.jsonl",
    "install-manifest.json",
    "escalations.json.lock",
    "config.json.corrupt-20260101T000000",
    "reversals.json.tmp-12-34",
    ".gitignore",
)
SHARED = ("config.json", "reversals.json")


def git(cwd, *args) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=str(cwd),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
    ).stdout


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def untracked(repo) -> "set[str]":
    out = git(repo, "status", "--porcelain", "--untracked-files=all")
    return {line[3:] for line in out.splitlines() if line.startswith("?? ")}


def test_the_folder_is_created_with_its_gitignore_and_git_sees_only_the_shared_files(repo):
    layout = Layout(str(repo))
    make_dirs(layout.session_dir("0c1d"))
    with open(layout.gitignore, encoding="utf-8") as fh:
        assert fh.read() == paths.GITIGNORE
    assert untracked(repo) == set()  # the folder alone: git status shows nothing of it
    for rel in RUNTIME + SHARED:
        path = os.path.join(layout.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path):
            with open(path, "w") as fh:
                fh.write("{}")
    assert untracked(repo) == {f".claude/deliberation/{name}" for name in SHARED}
    git(repo, "add", "-A")
    staged = set(git(repo, "diff", "--cached", "--name-only").splitlines())
    assert staged == {f".claude/deliberation/{name}" for name in SHARED}


def test_a_folder_without_one_gets_it_at_session_start_and_an_edited_one_is_kept(repo):
    layout = Layout(str(repo))
    os.makedirs(layout.root)  # what a clone that committed config.json leaves
    with open(layout.config, "w") as fh:
        fh.write("{}")
    assert ensure_gitignore(layout) is True
    assert ensure_gitignore(layout) is False  # one lstat when it is there
    with open(layout.gitignore, "w") as fh:
        fh.write("sessions/\n")
    assert ensure_gitignore(layout) is False
    with open(layout.gitignore) as fh:
        assert fh.read() == "sessions/\n"


def test_no_gitignore_through_a_link_nor_without_the_folder(tmp_path):
    layout = Layout(str(tmp_path / "p"))
    assert ensure_gitignore(layout) is False and not os.path.exists(layout.root)  # no folder: none made
    os.makedirs(layout.root)
    target = tmp_path / "elsewhere"
    os.symlink(target, layout.gitignore)
    assert ensure_gitignore(layout) is False
    assert not target.exists()
