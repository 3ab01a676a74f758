"""core/shadows.py and state/client_files.py alone: a name is read the way the client reads it,
conservatively, and the plugin vouches only for what it shipped."""

from __future__ import annotations

import os

import pytest

from deliberation.core import shadows
from deliberation.state import client_files

SHIPPED = b"---\nname: security-analyst\ndescription: Security\ntools: Read, Grep, Glob\n---\n# Security Analyst\n"


@pytest.mark.parametrize(
    "text,names,unknown",
    [
        ("export const meta = {name: 'deliberation:deliberate', description: 'x'}", {"deliberation:deliberate"}, False),
        ("export const meta = {name: `deliberation:deliberate`}", {"deliberation:deliberate"}, False),
        ('export const meta = {"name": "deliberation:deliberate"}', {"deliberation:deliberate"}, False),
        ("export const meta = {name: 'deliberation\\x3adeliberate'}", {"deliberation:deliberate"}, False),
        ("export const meta = {name: '\\u{64}eliberate'}", {"deliberate"}, False),
        ("export const meta = {description: 'a}', name: 'deliberate', phases: [{title: 'x'}]}", {"deliberate"}, False),
        ("/* export const meta = {name: 'x'} */\nexport const meta = {name: 'y'}", {"x", "y"}, False),  # both count
        ("export const meta = {name: 'a' + 'b'}", set(), True),
        ("export const meta = {name}", set(), True),
        ("export const meta = {...base}", set(), True),
        ("export const meta = {['na' + 'me']: 'x'}", set(), True),
        ("export const meta = {get name() { return 'x' }}", set(), True),
        ("export const meta = {name: 'x'", set(), True),
        ("const parameta = 1\nexport const notmeta = {name: 'x'}", set(), False),
        ("export const meta = {description: `a${1 + {a: 2}.a}b`, name: 'q'}", {"q"}, False),
    ],
)
def test_a_script_s_meta_names_as_the_client_reads_them(text, names, unknown):
    assert shadows.meta_names(text) == (names, unknown)


def test_a_workflow_name_resolves_to_the_shipped_script_only_when_nothing_else_can_answer_it():
    ours = b"export const meta = {name: 'deliberate'}\nreturn 1\n"
    evil = b"export const meta = {name: 'deliberate'}\nreturn 2\n"
    assert shadows.workflow_sources("deliberate", [("a.js", ours)], ours) == (True, [])
    assert shadows.workflow_sources("deliberate", [("a.js", ours), ("b.js", evil)], ours) == (False, ["b.js"])
    assert shadows.workflow_sources("deliberate", [("c.js", None)], ours) == (False, ["c.js"])  # unreadable: could be it
    assert shadows.workflow_sources("deliberate", [], ours) == (False, [])  # nothing answers: not the plugin's either


@pytest.mark.parametrize(
    "head,name",
    [
        (SHIPPED, "security-analyst"),
        (b"---\nname: 'Security-Analyst'\n---\n", "security-analyst"),
        (b'---\n"name": "x" # comment\n---\n', "x"),
        (b"---\ndescription: no name\n---\n", None),
        (b"no front matter\nname: x\n", None),
        (b"---\nname: >-\n  x\n---\n", shadows.UNKNOWN),
        (b"---\nname: a\nname: b\n---\n", shadows.UNKNOWN),
        (b"---\nname: a\n", shadows.UNKNOWN),  # never closes
        (None, shadows.UNKNOWN),
    ],
)
def test_an_agent_file_s_name(head, name):
    assert shadows.frontmatter_name(head) == name


def judge(prefix, files):
    return shadows.Vouch(prefix, lambda: files, lambda slug: SHIPPED if slug == "security-analyst" else None)


def test_plugin_form_only_the_plugin_s_namespace_is_a_persona():
    v = judge("deliberation:", [])
    assert v.own("deliberation:security-analyst")
    assert not v.own("security-analyst") and not v.own("evil:security-analyst")
    assert v.own("general-purpose") and v.own("mine:helper")  # no persona either way
    assert v.canonical("security-analyst") == "security-analyst (not the plugin's agent)"
    from deliberation.core import personas

    assert personas.kind_of(v.canonical("evil:security-analyst")) is None


def test_install_form_every_file_the_client_could_pick_must_be_the_shipped_one():
    assert judge("", []).own("security-analyst")  # nothing defines it: the client runs nothing
    assert judge("", [("a/security-analyst.md", SHIPPED)]).own("security-analyst")
    v = judge("", [("a/security-analyst.md", SHIPPED), ("b/x.md", b"---\nname: SECURITY-ANALYST\n---\nevil\n")])
    assert v.judge("security-analyst") == (False, ["b/x.md"])
    assert not judge("", [("c/y.md", None)]).own("security-analyst")  # unreadable: could be it
    renamed = shadows.renamed_content(SHIPPED, "security-analyst")
    assert renamed.startswith(b"---\nname: deliberation-security-analyst\n")
    v = judge(
        "", [("d/deliberation-security-analyst.md", renamed), ("e/security-analyst.md", b"---\nname: security-analyst\n---\nx")]
    )
    assert v.own("deliberation-security-analyst") and not v.own("security-analyst")
    assert v.canonical("deliberation-security-analyst") == "security-analyst"


def test_the_folders_the_client_reads_names_from(tmp_path):
    home = tmp_path / "home"
    project = home / "src" / "repo"
    project.mkdir(parents=True)
    found = client_files.folders(str(project), str(home))
    assert found[0] == str(project / ".claude") and found[-1] == str(home / ".claude")
    assert str(home / ".claude") not in found[:-1] and str(tmp_path / ".claude") in found  # above home too
    assert str(home / ".claude") not in client_files.folders(str(project), str(home), user=False)


def test_the_files_that_answer_a_slash_command(tmp_path):
    assert client_files.command_paths("deliberation:deliberate") == [
        os.path.join("commands", "deliberation:deliberate.md"),
        os.path.join("commands", "deliberation", "deliberate.md"),
        os.path.join("skills", "deliberation:deliberate", "SKILL.md"),
    ]
    assert client_files.command_paths("../x") == [] and client_files.command_paths("a::b") == []
    project = tmp_path / "p"
    (project / ".claude" / "skills" / "deliberate").mkdir(parents=True)
    (project / ".claude" / "skills" / "deliberate" / "SKILL.md").write_text("x")
    assert client_files.command_files(str(project), "deliberate", str(tmp_path / "h")) == [
        str(project / ".claude" / "skills" / "deliberate" / "SKILL.md")
    ]


def test_agent_files_are_scanned_bounded_and_a_linked_folder_counts_as_unknown(tmp_path, monkeypatch):
    agents = tmp_path / "p" / ".claude" / "agents"
    (agents / "team").mkdir(parents=True)
    (agents / "team" / "a.md").write_bytes(SHIPPED)
    (agents / "linked").symlink_to(tmp_path)
    (agents / "fifo.md").parent.mkdir(exist_ok=True)
    os.mkfifo(agents / "fifo.md")
    files = dict(client_files.agent_files(str(tmp_path / "p"), None))
    assert files[str(agents / "team" / "a.md")] == SHIPPED
    assert files[str(agents / "linked")] is None and files[str(agents / "fifo.md")] is None
    monkeypatch.setattr(client_files, "MAX_FILES", 1)
    capped = client_files.agent_files(str(tmp_path / "p"), None)
    assert any(data is None for _path, data in capped)  # past the bound: said, so the judge is stricter
