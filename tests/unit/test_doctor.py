"""deliberation doctor: one line per problem, exit 1 on any, --json for machines."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from deliberation.cli.doctor import NOT_OURS
from deliberation.cli import install_settings as ins
from deliberation.cli import doctor

ROOT = Path(__file__).resolve().parents[2]


def run_doctor(project, capsys, *extra):
    parser = argparse.ArgumentParser()
    parser.add_argument("--project")
    parser.add_argument("--json", action="store_true")
    doctor.add_arguments(parser, "doctor")
    code = doctor.run(parser.parse_args(["--project", str(project), *extra]))
    return code, capsys.readouterr().out


def problems(out: str) -> "list[str]":
    return [line.split(None, 2)[2] for line in out.splitlines() if line.startswith("PROBLEM")]


@pytest.fixture
def installed(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    ins.apply(ins.Project(str(proj)), ins.plan_install(ins.Project(str(proj)), str(ROOT), sys.executable))
    return proj


def state(proj: Path) -> Path:
    return proj / ".claude" / "deliberation"


def test_clean_install_has_no_problems(installed, capsys):
    code, out = run_doctor(installed, capsys)
    assert problems(out) == [], out
    assert code == 0
    assert out.splitlines()[-1] == "no problems found"
    assert "wires 11 hook handler(s)" in out


def test_each_problem_on_its_own_line(installed, capsys):
    settings_path = installed / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    del settings["hooks"]["SubagentStop"]
    settings["hooks"]["Stop"].append(settings["hooks"]["Stop"][0])  # wired twice
    settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] = f"{sys.executable} {ROOT}/hooks/gone.py"
    settings_path.write_text(json.dumps(settings))
    sdir = state(installed)
    (sdir / "config.json").write_text(json.dumps({"gates": {"stop_block_limit": 99}, "nonsense": 1}))
    (sdir / "sessions" / "s-1").mkdir(parents=True)
    (sdir / "sessions" / "s-1" / "lineage.json").write_text(json.dumps({"session_id": "s-1", "spawns": [{"x": 1}]}))
    (sdir / "sessions" / "s-1" / "events.jsonl").write_text(
        '{"at": 1.0, "event": "Stop", "payload": {}}\n\n{broken\n{"at": "later", "event": "Stop", "payload": {}}\n'
    )
    (sdir / "deliberations").mkdir()
    (sdir / "deliberations" / "d-1.json").write_text("[]")
    (sdir / "deliberations" / "d-1.json.corrupt-20261129T000000").write_text("garbage")
    (sdir / "deliberations" / "d-1.json.lock").write_text("")
    code, out = run_doctor(installed, capsys)
    assert code == 1
    got = problems(out)
    again = f"re-run {shlex.quote(str(ROOT / 'install.sh'))} {shlex.quote(str(installed))}"  # runs as printed, from anywhere
    assert got == [
        f".claude/settings.json: no UserPromptSubmit hook runs hooks/user_prompt_submit.py: {again}",
        f".claude/settings.json: no SubagentStop hook runs hooks/subagent_stop.py: {again}",
        f".claude/settings.json: Stop runs hooks/stop.py 2 times: {again}",
        f".claude/settings.json: the UserPromptSubmit hook uses {ROOT}/hooks/gone.py, which does not exist: {again}",
        "config key 'gates.stop_block_limit': Input should be less than or equal to 7 — using the default",
        "config key 'nonsense': Extra inputs are not permitted — using the default",
        f"deliberations/d-1.json: {NOT_OURS}",  # written by hand, not by this user's plugin: no seal
        "deliberations/d-1.json: at /: [] is not of type 'object'",
        "deliberations/d-1.json.corrupt-20261129T000000: quarantined after it failed to parse or validate; inspect it, then delete it",
        f"sessions/s-1/events.jsonl line 1: {NOT_OURS}",
        "sessions/s-1/events.jsonl line 3: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        "sessions/s-1/events.jsonl line 4: at /at: 'later' is not of type 'number'",
        f"sessions/s-1/lineage.json: {NOT_OURS}",
        "sessions/s-1/lineage.json: at /spawns/0: 'requested_at' is a required property",
        "sessions/s-1/lineage.json: at /spawns/0: 'subagent_type' is a required property",
        "sessions/s-1/lineage.json: at /spawns/0: Additional properties are not allowed ('x' was unexpected)",
    ]
    assert out.splitlines()[-1] == f"{len(got)} problem(s)"


def test_json_output(installed, capsys):
    (state(installed) / "reversals.json").write_text(json.dumps({"schema_version": 9, "classes": {}}))
    code, out = run_doctor(installed, capsys, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["problems"] == 1
    bad = [f for f in doc["findings"] if f["status"] == "problem"]
    assert bad == [
        {
            "area": "state",
            "status": "problem",
            "message": "reversals.json: schema_version 9 is newer than this plugin's 1: upgrade the plugin",
        }
    ]
    assert {f["area"] for f in doc["findings"]} == {"install", "settings", "names", "config", "state"}


def test_not_installed(tmp_path, capsys):
    code, out = run_doctor(tmp_path, capsys, "--plugin", str(ROOT))
    assert code == 1
    assert any(p.startswith("no .claude/settings.json: the hooks are not installed") for p in problems(out))


def test_settings_that_are_not_json(tmp_path, capsys):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{oops")
    code, out = run_doctor(tmp_path, capsys)
    assert code == 1
    assert any("settings.json is not valid JSON" in p for p in problems(out))


def test_missing_dependencies_names_them(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/sh\nexec {sys.executable} -S -I "$@"\n')  # -S: no site-packages
    fake.chmod(0o755)
    msg = doctor.missing_dependencies(str(fake))
    assert msg is not None and "pydantic (ModuleNotFoundError)" in msg
    assert doctor.missing_dependencies(sys.executable) is None


def test_settings_without_any_of_our_hooks_is_one_problem(tmp_path, capsys):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"hooks": {"Stop": []}}')
    code, out = run_doctor(tmp_path, capsys, "--plugin", str(ROOT))
    settings_problems = [p for p in problems(out) if "settings.json" in p]
    assert settings_problems == [
        f".claude/settings.json has no deliberation hooks: run {ROOT}/install.sh "
        f"{tmp_path} (or load the plugin with claude --plugin-dir)"
    ]
    assert code == 1


def test_doctor_reports_probe_problems_by_name(tmp_path):
    from deliberation.cli.doctor import check_config
    from deliberation.state.paths import Layout

    state = tmp_path / ".claude" / "deliberation"
    state.mkdir(parents=True)
    probe = {"name": "recount", "command": ["python3", "recount.py"], "inputs": [".claude/deliberation/x.json"]}
    (state / "config.json").write_text(json.dumps({"escalation": {"probes": [probe, probe]}}))
    found = check_config(Layout(str(tmp_path)))
    text = "\n".join(f.message for f in found)
    assert "probe 'recount' is configured twice" in text


# -- one test per install form: install.sh (above), claude --plugin-dir, a marketplace install --


def executable(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def plugin_data(home: Path, folder: str, plugin: Path, with_env: bool = True) -> Path:
    """A data folder as the plugin's session start leaves it: `root` naming the plugin's lib/,
    and (with_env) a finished environment in `current` whose python has the dependencies."""
    data = home / ".claude" / "plugins" / "data" / folder
    data.mkdir(parents=True)
    (data / "root").write_text(f"{plugin / 'lib'}\n")
    if with_env:
        name = f"{'a' * 16}-1"
        executable(data / "envs" / name / "bin" / "python", f'exec {sys.executable} "$@"')
        (data / "current").write_text(f"envs/{name}\n")
    return data


def form_env(home: Path, path_python: Path) -> "dict[str, str]":
    """A terminal's environment: HOME, and a PATH whose python3 lacks the dependencies."""
    return {"HOME": str(home), "PATH": f"{path_python.parent}:/usr/bin:/bin"}


def bare_python3(tmp_path: Path) -> Path:
    return executable(tmp_path / "bin" / "python3", f'exec {sys.executable} -S -I "$@"')


FALSE_ALARMS = ("does not exist: run", "no .claude/settings.json", "the hooks are not installed")


def test_plugin_dir_form_has_no_false_problems(tmp_path, capsys):
    from tests.helpers.project import copy_plugin

    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    # a copy: this checkout may hold the .venv the test command made, which the plugin-dir form uses
    root = copy_plugin(tmp_path / "checkout", "deliberation")
    plugin_data(home, "deliberation-inline", root)
    env = form_env(home, bare_python3(tmp_path))
    _, plugin, findings = doctor.diagnose(str(project), str(root), env)
    assert plugin == str(root)
    assert [f.message for f in findings if f.status == "problem"] == []
    text = " ".join(f.message for f in findings)
    assert "plugin-dir form" in text and "hooks/hooks.json wires the hooks" in text
    assert not any(alarm in text for alarm in FALSE_ALARMS)
    # a session's own variables say the same without a data folder's `root`
    _, _, findings = doctor.diagnose(
        str(project), str(root), {**form_env(tmp_path / "other", bare_python3(tmp_path)), "CLAUDE_PLUGIN_ROOT": str(root)}
    )
    assert "plugin-dir form" in findings[0].message
    assert [f.message for f in findings if f.status == "problem"] == [
        f"missing in {tmp_path / 'bin' / 'python3'}: pydantic (ModuleNotFoundError), orjson (ModuleNotFoundError), "
        "jsonschema (ModuleNotFoundError): the plugin's environment is not set up yet; it is set up at the start "
        "of a Claude Code session with the plugin enabled"
    ]


def test_marketplace_form_before_and_after_its_set_up(tmp_path, capsys):
    from tests.helpers.project import copy_plugin

    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    cache = home / ".claude" / "plugins" / "cache" / "deliberation-gates" / "deliberation"
    plugin = copy_plugin(cache, "0.1.0")
    env = form_env(home, bare_python3(tmp_path))
    _, _, findings = doctor.diagnose(str(project), str(plugin), env)
    assert findings[0].message == f"marketplace form: the client runs hooks/hooks.json of {plugin}"
    bad = [f.message for f in findings if f.status == "problem"]
    assert len(bad) == 1 and "the plugin's environment is not set up yet" in bad[0], bad
    assert not any(alarm in m for m in bad for alarm in FALSE_ALARMS)
    data = plugin_data(home, "deliberation-deliberation-gates", plugin)
    (data / "setup.json").write_text(json.dumps({"state": "ready"}))
    _, _, findings = doctor.diagnose(str(project), str(plugin), env)
    assert [f.message for f in findings if f.status == "problem"] == []
    assert any(f"the plugin's environment in {data}" in f.message for f in findings if f.status == "ok")
    # a failed set-up says why
    (data / "current").unlink()
    (data / "setup.json").write_text(json.dumps({"state": "failed", "reason": "pip could not reach the index"}))
    _, _, findings = doctor.diagnose(str(project), str(plugin), env)
    assert ["could not be set up: pip could not reach the index" in f.message for f in findings if f.status == "problem"] == [
        True
    ]


def test_plugin_form_with_the_hooks_also_in_settings_is_wired_twice(tmp_path, capsys):
    from tests.helpers.project import copy_plugin

    home, project, clone = tmp_path / "home", tmp_path / "proj", tmp_path / "clone"
    project.mkdir()
    plugin = copy_plugin(home / ".claude" / "plugins" / "cache" / "deliberation-gates" / "deliberation", "0.1.0")
    plugin_data(home, "deliberation-deliberation-gates", plugin)
    # settings.json wired to another copy (a clone), without its manifest: both forms run
    other = copy_plugin(clone, "deliberation")
    proj = ins.Project(str(project))
    ins.apply(proj, ins.plan_install(proj, str(other), sys.executable))
    Path(proj.manifest).unlink()
    _, _, findings = doctor.diagnose(str(project), str(plugin), form_env(home, bare_python3(tmp_path)))
    bad = [f.message for f in findings if f.status == "problem"]
    assert len(bad) == 1 and "every hook runs twice" in bad[0] and "install.sh --uninstall" in bad[0], bad


def test_in_the_plugin_s_own_clone_it_says_so_and_what_to_check_instead(capsys, tmp_path, monkeypatch):
    """Where a newcomer is after the demo: nothing is wrong there (exit 0); it names
    `doctor --project DIR` and the demo's project, as commands that run from here, and never
    advises install.sh into the clone (which install.sh refuses)."""
    demo = tmp_path / "deliberation-demo-abc" / "project"
    demo.mkdir(parents=True)
    monkeypatch.setattr(doctor, "demo_projects", lambda tmp=None: [str(demo)])
    code, out = run_doctor(ROOT, capsys)
    assert code == 0, out
    assert "this is the plugin's own folder (its clone), not a project" in out
    joined = re.sub(r" \\\n\s+", " ", out)  # a command's continuation lines joined
    assert "doctor --project DIR" in joined and f"doctor --project {demo}" in joined
    assert f"install.sh {ROOT}" not in out and "PROBLEM" not in out
    assert max(len(line) for line in out.splitlines()) <= 100
    code, out = run_doctor(ROOT, capsys, "--json")
    assert code == 0 and json.loads(out)["plugin_folder"] is True


def test_marketplace_from_a_local_folder_names_the_folder_the_client_runs(tmp_path):
    """A marketplace added from a local folder: the client runs that folder's hooks, not its cache
    copy's (measured on 2.1.332; the session start records it in the data folder's `root`), so
    the cache copy's doctor says which folder ran and how to check it."""
    from tests.helpers.project import copy_plugin

    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    plugin = copy_plugin(home / ".claude" / "plugins" / "cache" / "deliberation-gates" / "deliberation", "0.1.0")
    source = copy_plugin(tmp_path / "src", "deliberation")
    plugin_data(home, "deliberation-deliberation-gates", source)
    _, _, findings = doctor.diagnose(str(project), str(plugin), form_env(home, bare_python3(tmp_path)))
    assert findings[0].message == (
        f"marketplace form: the client's last session ran hooks/hooks.json of {source}, not of this copy "
        f"({plugin}); `{source / 'bin' / 'deliberation'} doctor` checks that one"
    )
    # a `root` that is not a plugin's lib/ names nothing
    (home / ".claude" / "plugins" / "data" / "deliberation-deliberation-gates" / "root").write_text("relative/lib\n")
    _, _, findings = doctor.diagnose(str(project), str(plugin), form_env(home, bare_python3(tmp_path)))
    assert findings[0].message == f"marketplace form: the client runs hooks/hooks.json of {plugin}"
