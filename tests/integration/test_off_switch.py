"""The off switch through the hook scripts: DELIBERATION=off, the in-session commands in both
install forms, what is said (once) and what is left (nothing but the switch), and a project's
settings that hide the user's DELIBERATION=off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from tests.helpers import payloads as P
from tests.conftest import hook_argv, run_hook

RISKY = "Should we migrate all customer data irreversibly in production and redesign the auth architecture?"


def state(project):
    return project / ".claude" / "deliberation"


def start(sid, source="startup"):
    return {**P.base(sid, "SessionStart"), "source": source}


def a_session(hook, sid, env=None):
    """One turn that would trigger the protocol and spawn two personas."""
    out = [hook("UserPromptSubmit", P.prompt(sid, RISKY), env=env)]
    for i, persona in enumerate(("security-analyst", "performance-engineer")):
        out.append(hook("PreToolUse", P.pre_agent(sid, f"toolu_{i}", persona, "Research it."), env=env))
    out.append(hook("Stop", P.stop(sid), env=env))
    return out


def test_deliberation_off_in_the_environment_says_it_once_and_checks_nothing(project, hook):
    sid, env = str(uuid.uuid4()), {"DELIBERATION": "off"}
    first = hook("SessionStart", start(sid), env=env)
    assert "Deliberation checks are off for this session (DELIBERATION=off)" in first.system_message
    assert "/deliberation-on" in first.system_message and "refuses or holds nothing" in first.context
    assert all(r.json in (None, {}) for r in a_session(hook, sid, env))  # no protocol, no note, no refusal
    assert not state(project).exists() or not (state(project) / "sessions").exists()  # nothing recorded
    assert hook("SessionStart", start(sid, "compact"), env=env).json in (None, {})  # said once per start
    assert "checks are off" in hook("SessionStart", start(sid, "resume"), env=env).system_message


def test_a_project_can_switch_off_but_no_value_switches_on(project, hook):
    sid = str(uuid.uuid4())
    on = a_session(hook, sid, {"DELIBERATION": "on"})
    assert on[0].context and "DELIBERATION PROTOCOL" in on[0].context  # "on" is no value: the checks apply as usual
    assert hook("UserPromptSubmit", P.prompt(sid, "/deliberation-off")).json["systemMessage"]
    for value in ("on", "1", "yes", "force"):
        assert hook("UserPromptSubmit", P.prompt(sid, RISKY), env={"DELIBERATION": value}).json in (None, {})


@pytest.mark.parametrize("form", ["plugin", "install"])
def test_the_commands_switch_this_session_only(project, hook, form):
    plugin_root = str(project.parent / "plugin")
    env = {"CLAUDE_PLUGIN_ROOT": plugin_root} if form == "plugin" else {}
    off_cmd, on_cmd = ("/deliberation:off", "/deliberation:on") if form == "plugin" else ("/deliberation-off", "/deliberation-on")
    sid, other = str(uuid.uuid4()), str(uuid.uuid4())
    typed = hook("UserPromptSubmit", P.prompt(sid, off_cmd), env=env)
    assert typed.system_message.startswith("Deliberation checks are off for this session") and on_cmd in typed.system_message
    assert "switched the deliberation plugin's checks off" in typed.context
    switch = json.loads((state(project) / "sessions" / sid / "switch.json").read_text())
    assert (switch["checks"], switch["by"]) == ("off", "command")
    assert all(r.json in (None, {}) for r in a_session(hook, sid, env))
    assert sorted(os.listdir(state(project) / "sessions" / sid)) == ["switch.json"]  # nothing else recorded
    assert "DELIBERATION PROTOCOL" in hook("UserPromptSubmit", P.prompt(other, RISKY), env=env).context  # other sessions
    expanded = f"<command-message>{on_cmd[1:]}</command-message>\n<command-name>{on_cmd}</command-name>\n"
    back = hook("UserPromptSubmit", P.prompt(sid, expanded), env=env)
    assert back.system_message == "Deliberation checks are on again for this session."
    assert not (state(project) / "sessions" / sid / "switch.json").exists()
    assert "DELIBERATION PROTOCOL" in hook("UserPromptSubmit", P.prompt(sid, RISKY), env=env).context
    again = hook("UserPromptSubmit", P.prompt(sid, off_cmd), env=env)
    assert again.json["systemMessage"] and "already" not in again.system_message
    assert "already off" in hook("UserPromptSubmit", P.prompt(sid, off_cmd), env=env).system_message


def test_on_in_session_wins_over_the_environment(project, hook):
    sid, env = str(uuid.uuid4()), {"DELIBERATION": "off"}
    back = hook("UserPromptSubmit", P.prompt(sid, "/deliberation-on"), env=env)
    assert back.system_message == "Deliberation checks are on again for this session (over DELIBERATION=off)."
    assert "DELIBERATION PROTOCOL" in hook("UserPromptSubmit", P.prompt(sid, RISKY), env=env).context


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the client's environment in /proc (Linux)")
def test_a_project_s_settings_cannot_hide_the_user_s_off(project):
    """The client was started with DELIBERATION=off; the project's settings.json `env` gives the
    hooks DELIBERATION=on. The session start finds the user's value and keeps the session off."""
    sid = str(uuid.uuid4())
    hook_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "DELIBERATION": "on"}
    client = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    client["DELIBERATION"] = "off"
    code = (
        "import subprocess, sys, json\n"
        f"p = subprocess.run({hook_argv('SessionStart')!r}, input=sys.stdin.buffer.read(), capture_output=True,"
        f" env={hook_env!r})\nsys.stdout.buffer.write(p.stdout)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(start(sid)).encode(), capture_output=True, env=client, timeout=60
    )
    said = json.loads(out.stdout)
    assert "this project's settings replace it for the hooks" in said["systemMessage"], out
    assert run_hook("UserPromptSubmit", P.prompt(sid, RISKY), project, env={"DELIBERATION": "on"}).json in (None, {})
    switch = json.loads((state(project) / "sessions" / sid / "switch.json").read_text())
    assert (switch["checks"], switch["by"]) == ("off", "environment")
