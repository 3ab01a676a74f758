"""install_settings: the pure merge/unmerge of settings.json and the copy plans of install.sh."""

from __future__ import annotations

import copy
import json

import pytest

from deliberation.cli import install_settings as ins
from deliberation.wire import hookio

PLUGIN = "/opt/my plugins/deliberation-0.1.0"
PY = "/opt/my plugins/deliberation-0.1.0/.venv/bin/python"
TEMPLATE = {
    "Stop": [{"hooks": [{"type": "command", "command": "@PYTHON@ @PLUGIN@/hooks/stop.py", "timeout": 300}]}],
    "PreToolUse": [
        {"matcher": "Task|Agent", "hooks": [{"type": "command", "command": "@PYTHON@ @PLUGIN@/hooks/pre_tool_use.py"}]},
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "@PYTHON@ @PLUGIN@/hooks/pre_tool_use.py"}]},
    ],
}
STOP_CMD = "'/opt/my plugins/deliberation-0.1.0/.venv/bin/python' '/opt/my plugins/deliberation-0.1.0/hooks/stop.py'"
USER_STOP = {"hooks": [{"type": "command", "command": "echo bye"}]}


def ours():
    return ins.render_hooks(TEMPLATE, PY, PLUGIN)


def pred(known=()):
    return ins.ours_predicate(PLUGIN, known)


def test_render_quotes_paths_with_spaces():
    assert ours()["Stop"][0]["hooks"][0]["command"] == STOP_CMD
    assert ours()["Stop"][0]["hooks"][0]["timeout"] == 300
    assert ins.render_command("@PYTHON@ @PLUGIN@/hooks/x.py", "/usr/bin/python3", "/p") == "/usr/bin/python3 /p/hooks/x.py"
    # a quote inside a path survives a round trip through the shell's word splitting
    cmd = ins.render_command("@PYTHON@ @PLUGIN@/hooks/x.py", "/py", "/it's here")
    import shlex

    assert shlex.split(cmd) == ["/py", "/it's here/hooks/x.py"]


def test_is_ours_by_hooks_dir_or_known_command():
    assert ins.is_ours({"command": STOP_CMD}, PLUGIN)
    assert not ins.is_ours({"command": "echo bye"}, PLUGIN)
    assert not ins.is_ours({"command": "python /opt/other/hooks/stop.py"}, PLUGIN)
    # a path that only looks like it starts inside the plugin's hooks dir
    assert not ins.is_ours({"command": f"python '{PLUGIN}/hooks/../../evil.py'"}, PLUGIN)
    assert not ins.is_ours({"command": f"python '{PLUGIN}/hooksmith/x.py'"}, PLUGIN)
    assert not ins.is_ours({"command": "unbalanced 'quote"}, PLUGIN)
    assert not ins.is_ours("not a dict", PLUGIN)
    moved = "/old/place/.venv/bin/python /old/place/hooks/stop.py"
    assert not ins.is_ours({"command": moved}, PLUGIN)
    assert ins.is_ours({"command": moved}, PLUGIN, [moved])


def test_merge_into_empty_creates_hooks_and_keys():
    merged = ins.merge({}, ours(), pred())
    assert merged == {"hooks": ours()}
    assert ins.created_keys({}, ours()) == ["hooks", "hooks.Stop", "hooks.PreToolUse"]


def test_merge_keeps_other_keys_and_hooks_in_order():
    settings = {"model": "opus", "hooks": {"Stop": [USER_STOP], "Notification": [USER_STOP]}, "env": {"A": "1"}}
    merged = ins.merge(settings, ours(), pred())
    assert list(merged) == ["model", "hooks", "env"]
    assert merged["hooks"]["Stop"] == [USER_STOP, ours()["Stop"][0]]
    assert merged["hooks"]["Notification"] == [USER_STOP]
    assert merged["hooks"]["PreToolUse"] == ours()["PreToolUse"]
    assert settings["hooks"]["Stop"] == [USER_STOP]  # input untouched
    assert ins.created_keys(settings, ours()) == ["hooks.PreToolUse"]


def test_merge_is_idempotent_and_leaves_position():
    once = ins.merge({"hooks": {"Stop": [USER_STOP]}}, ours(), pred())
    # the user adds a hook after ours: a re-install must not move anything
    once["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "echo later"}]})
    twice = ins.merge(once, ours(), pred())
    assert twice == once
    assert ins.dumps(twice) == ins.dumps(once)


def test_merge_replaces_stale_entries_of_a_moved_venv():
    old = ins.render_hooks(TEMPLATE, "/old/venv/bin/python", PLUGIN)
    settings = ins.merge({"hooks": {"Stop": [USER_STOP]}}, old, pred())
    merged = ins.merge(settings, ours(), pred())
    assert merged["hooks"]["Stop"] == [USER_STOP, ours()["Stop"][0]]
    assert len(merged["hooks"]["PreToolUse"]) == 2


def test_merge_splits_a_mixed_group_and_drops_events_we_no_longer_use():
    mixed = {
        "matcher": "Task|Agent",
        "hooks": [{"type": "command", "command": "echo mine"}, {"type": "command", "command": STOP_CMD}],
    }
    settings = {"hooks": {"PreToolUse": [mixed], "SessionEnd": [{"hooks": [{"type": "command", "command": STOP_CMD}]}]}}
    merged = ins.merge(settings, ours(), pred())
    assert merged["hooks"]["PreToolUse"][0] == {"matcher": "Task|Agent", "hooks": [{"type": "command", "command": "echo mine"}]}
    assert merged["hooks"]["PreToolUse"][1:] == ours()["PreToolUse"]
    assert merged["hooks"]["SessionEnd"] == []


@pytest.mark.parametrize(
    "bad, where",
    [
        ([], "list"),
        ({"hooks": []}, "'hooks'"),
        ({"hooks": {"Stop": {}}}, "'hooks.Stop'"),
        ("x", "str"),
    ],
)
def test_merge_refuses_shapes_it_cannot_merge(bad, where):
    with pytest.raises(ins.SettingsError, match=where):
        ins.merge(bad, ours(), pred())


def test_unmerge_restores_original_exactly():
    for original in ({}, {"model": "x"}, {"hooks": {}}, {"hooks": {"Stop": []}}, {"hooks": {"Stop": [USER_STOP]}, "z": [1, 2]}):
        merged = ins.merge(original, ours(), pred())
        keys = ins.created_keys(original, ours())
        assert ins.unmerge(merged, pred(), keys) == original, original


def test_unmerge_keeps_keys_it_did_not_create():
    merged = {"hooks": {"Stop": [ours()["Stop"][0]]}}
    assert ins.unmerge(merged, pred(), []) == {"hooks": {"Stop": []}}
    assert ins.unmerge(merged, pred(), ["hooks.Stop"]) == {"hooks": {}}
    assert ins.unmerge(merged, pred(), ["hooks", "hooks.Stop"]) == {}


def test_commands_of_lists_each_command_once():
    assert ins.commands_of(ours()) == [
        STOP_CMD,
        "'/opt/my plugins/deliberation-0.1.0/.venv/bin/python' '/opt/my plugins/deliberation-0.1.0/hooks/pre_tool_use.py'",
    ]


def test_restore_choice():
    original = {"hooks": {"Stop": [USER_STOP]}}
    merged = ins.merge(original, ours(), pred())
    keys = ins.created_keys(original, ours())
    assert ins.restore_choice(merged, pred(), keys, False, original)[0] == "restore-backup"
    edited = copy.deepcopy(merged)
    edited["model"] = "new"
    choice, doc = ins.restore_choice(edited, pred(), keys, False, original)
    assert (choice, doc) == ("write", {"hooks": {"Stop": [USER_STOP]}, "model": "new"})
    created = ins.merge({}, ours(), pred())
    assert ins.restore_choice(created, pred(), ins.created_keys({}, ours()), True, None) == ("delete", {})
    assert ins.restore_choice(original, pred(), [], False, None) == ("keep", original)


def test_plan_copies_respects_user_changes():
    sources = {"a.md": "s1", "b.md": "s2", "c.md": "s3", "d.md": "s4", "e.md": "s5"}
    dests = {
        "a.md": None,  # new → copy
        "b.md": "s2-old",  # ours, unchanged since install, plugin updated → update
        "c.md": "mine",  # ours, changed by the user → keep, keep old record
        "d.md": "s4",  # the user's identical file, not ours → present, unmanaged
        "e.md": "other",  # the user's own file → keep
        "gone.md": "g1",  # ours, no longer shipped, unchanged → remove
        "edited-gone.md": "x",
    }  # ours, no longer shipped, changed → forget
    managed = {"b.md": "s2-old", "c.md": "c-orig", "gone.md": "g1", "edited-gone.md": "eg"}
    actions, new = ins.plan_copies(sources, dests, managed)
    kinds = {a.path: a.kind for a in actions}
    assert kinds == {
        "a.md": "copy",
        "b.md": "update",
        "c.md": "keep-user",
        "d.md": "present",
        "e.md": "keep-user",
        "gone.md": "remove",
        "edited-gone.md": "forget",
    }
    assert new == {"a.md": "s1", "b.md": "s2", "c.md": "c-orig"}
    # second run after applying: nothing to do
    dests2 = {"a.md": "s1", "b.md": "s2", "c.md": "mine", "d.md": "s4", "e.md": "other"}
    actions2, new2 = ins.plan_copies(sources, dests2, new)
    assert [a.kind for a in actions2] == ["unchanged", "unchanged", "keep-user", "present", "keep-user"]
    assert new2 == new


def test_plan_removals_only_unchanged_files():
    acts = ins.plan_removals({"a.md": "s1", "b.md": "changed", "c.md": None}, {"a.md": "s1", "b.md": "s2", "c.md": "s3"})
    assert [(a.kind, a.path) for a in acts] == [("remove", "a.md"), ("forget", "b.md")]


def test_gitignore_is_the_one_the_hooks_write():
    from deliberation.state import paths

    files = ins.plugin_files(str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    assert files[ins.GITIGNORE_REL] == paths.GITIGNORE.encode()


def test_commands_without_the_plugin_name_get_a_prefix_in_a_project():
    assert ins.installed_name("commands", "off.md") == "deliberation-off.md"
    assert ins.installed_name("commands", "on.md") == "deliberation-on.md"
    assert ins.installed_name("commands", "deliberate.md") == "deliberate.md"
    assert ins.installed_name("commands", "deliberation-status.md") == "deliberation-status.md"
    assert ins.installed_name("agents", "cost-analyst.md") == "cost-analyst.md"


def test_template_file_matches_the_hook_scripts():
    """settings.example.json and hooks/hooks.json wire the same events to existing scripts."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    example = json.loads((root / "settings.example.json").read_text())["hooks"]
    plugin = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]

    def wiring(hooks):
        return [
            (ev, g.get("matcher"), h["command"].split()[-1].rsplit("/", 1)[-1], h.get("timeout"))
            for ev, groups in hooks.items()
            for g in groups
            for h in g["hooks"]
        ]

    # the plugin form alone sets up its own environment at session start (install.sh builds
    # <plugin>/.venv for the settings form)
    plugin_only = [w for w in wiring(plugin) if w[2] == "session_start_env.py"]
    assert plugin_only == [("SessionStart", None, "session_start_env.py", None)]
    assert wiring(example) == [w for w in wiring(plugin) if w not in plugin_only]
    pre = [m for ev, m, _, _ in wiring(example) if ev == "PreToolUse"]
    # every tool that starts or resumes a subagent (docs/CLIENT_CHANNELS.md), the report tool of
    # the plugin's workflow (docs/WORKFLOW.md) and the hand-back tool of auto mode, then the risky
    # tools, then the Skill tool (the agent starts a deliberation mid-task through the plugin's command)
    channels = "Task|Agent|Workflow|SendMessage|" + hookio.REPORT_TOOL + "|" + hookio.HANDBACK_TOOL
    assert pre == [channels, hookio.RISKY_TOOLS, "Skill", "Read|Grep|Glob"]  # the one list of risky tools
    assert [m for ev, m, _, _ in wiring(example) if ev == "PostToolUse"] == [channels]
    assert [m for ev, m, _, _ in wiring(example) if ev == "PostToolUseFailure"] == ["Task|Agent|Workflow|SendMessage"]
    for _, _, script, _ in wiring(example):
        assert (root / "hooks" / script).is_file(), script
    for groups in plugin.values():
        for g in groups:
            # /bin/sh, not `sh`: the client looks `sh` up on a PATH the project's settings may set (measured)
            assert g["hooks"][0]["command"].startswith('/bin/sh "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh" ')


def test_read_tolerates_a_bom_and_refuses_garbage(tmp_path):
    p = tmp_path / "settings.json"
    p.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert ins.read_json_file(str(p), "settings") == ({"a": 1}, b'\xef\xbb\xbf{"a": 1}')
    p.write_bytes(b'{"a": 1,}')
    with pytest.raises(ins.SettingsError, match="is not valid JSON .*Nothing was changed"):
        ins.read_json_file(str(p), "settings")
    assert ins.read_json_file(str(tmp_path / "absent.json"), "settings") is None
