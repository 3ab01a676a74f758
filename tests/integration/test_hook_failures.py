"""Every hook script fails open: garbage on stdin or an internal error → exit 0, no block, one
visible warning line, the traceback in errors.log; `"strict": true` turns internal errors into a
bounded block. Real subprocesses through the `hook` fixture."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import payloads as P
from tests.helpers.children import lock_holder, stop
from tests.helpers.project import write_config
from tests.conftest import HOOK_FLAGS, HOOK_SCRIPTS, HOOKS, LIB, HookResult
from tests.helpers.factories import approve_config
from tests.helpers.factories import write_state

SID = "5e1f0c2a-0000-4000-8000-000000000001"
EVENTS = list(HOOK_SCRIPTS)


def sample(event: str, sid: str = SID) -> dict:
    """A well-formed payload of `event`, shaped like the real client's."""
    if event == "SessionStart":
        return {**P.base(sid, "SessionStart"), "source": "startup"}
    if event == "UserPromptSubmit":
        return P.prompt(sid, "rename the helper variable in utils.py")
    if event == "PreToolUse":
        return P.pre_agent(sid, "toolu_f1", "security-analyst", "Research the question.", background=False)
    if event == "PostToolUse":
        return P.post_agent_async(sid, "toolu_f1", "a0000000000000f1", "security-analyst", "Research.")
    if event == "PostToolUseFailure":
        return P.base(
            sid,
            "PostToolUseFailure",
            tool_name="Agent",
            tool_use_id="toolu_f1",
            tool_input={
                "description": "security review",
                "prompt": "Research.",
                "subagent_type": "security-analyst",
                "run_in_background": False,
            },
            error="Agent type 'security-analyst' not found.",
        )
    if event == "SubagentStart":
        return P.subagent_start(sid, "a0000000000000f1", "security-analyst")
    if event == "SubagentStop":
        return P.subagent_stop(sid, "a0000000000000f1", "security-analyst", "no report")
    if event == "Stop":
        return P.stop(sid)
    raise AssertionError(event)


def other_event(event: str) -> str:
    return "Stop" if event != "Stop" else "PreToolUse"


GARBAGE = {
    "empty stdin": lambda ev: b"",
    "whitespace": lambda ev: b"  \n\t",
    "invalid JSON": lambda ev: b'{"session_id": "x", ',
    "binary": lambda ev: b"\xff\xfe\x00garbage",
    "JSON array": lambda ev: json.dumps([sample(ev)]).encode(),
    "JSON string": lambda ev: b'"hello"',
    "session_id a number": lambda ev: json.dumps({**sample(ev), "session_id": 12345}).encode(),
    "session_id missing": lambda ev: json.dumps({k: v for k, v in sample(ev).items() if k != "session_id"}).encode(),
    "session_id a path": lambda ev: json.dumps({**sample(ev), "session_id": "../../etc"}).encode(),
    "another event's payload": lambda ev: json.dumps(sample(other_event(ev))).encode(),
}


def state(project):
    return project / ".claude" / "deliberation"


def assert_fail_open(res, *expect_in_message):
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert res.json is not None, "a warning must be printed"
    assert res.decision is None, res.json
    assert "decision" not in res.json and "hookSpecificOutput" not in res.json
    msg = res.system_message
    assert isinstance(msg, str) and msg.startswith("deliberation plugin: ")
    assert "\n" not in msg, msg
    for text in expect_in_message:
        assert text in msg, msg
    return msg


@pytest.mark.parametrize("garbage", list(GARBAGE))
@pytest.mark.parametrize("event", EVENTS)
def test_garbage_on_stdin_fails_open_with_one_warning_line(project, hook, event, garbage):
    res = hook(event, GARBAGE[garbage](event))
    assert_fail_open(res)
    assert not (state(project) / "errors.log").exists()  # a bad payload is not an internal error
    assert not (state(project) / "sessions").exists()


@pytest.mark.parametrize("event", EVENTS)
def test_garbage_never_blocks_even_in_strict_mode(project, hook, event):
    write_config(project, {"strict": True})
    approve_config(project)  # strict waits for this user's approval (consent.py)
    for garbage in ("empty stdin", "invalid JSON", "another event's payload"):
        assert_fail_open(hook(event, GARBAGE[garbage](event)))


def test_messages_say_what_was_wrong(hook):
    assert "empty stdin" in hook("Stop", b"").system_message
    assert "not JSON" in hook("Stop", b"{").system_message
    assert "JSON list, not an object" in hook("Stop", b"[]").system_message
    assert "no session_id" in hook("Stop", json.dumps({**P.stop(SID), "session_id": 7})).system_message
    assert "payload is for 'PreToolUse', this hook handles 'Stop'" in hook("Stop", sample("PreToolUse")).system_message
    assert "invalid session_id '../../etc'" in hook("Stop", GARBAGE["session_id a path"]("Stop")).system_message


# -- internal errors ----------------------------------------------------------------------------


def corrupt_config_cache(project, cfg: dict, key=None) -> None:
    """config.json plus a cache entry keyed to it (by default with this version's key) whose
    content does not validate: edited by hand, or left by another build."""
    from deliberation.state import consent, plain_reads
    from deliberation.state.paths import Layout

    write_config(project, cfg)
    st = os.stat(state(project) / "config.json")
    (state(project) / "cache").mkdir(exist_ok=True)
    bad = {**cfg, "spawn_budget": {"max_active_children": "many"}}
    # as the plugin writes it: keyed to this user's approvals too, and sealed (a cache the plugin
    # did not write is not believed at all: test_hostile_project)
    write_state(
        state(project) / "cache" / "config.resolved.json",
        json.dumps({"key": key or plain_reads.cache_key(st, consent.stamp(Layout(str(project)))), "config": bad, "problems": []}),
    )


# A bug, as far as the hook can tell: the real hook script, in a process whose slow path raises.
FAULT = r"""
import runpy, sys
sys.path.insert(0, sys.argv[1])
import deliberation.runtime.hook_runner as runner
def slow_answer(*args, **kwargs):
    raise RuntimeError("injected fault: a bug on the slow path")
runner.slow_answer = slow_answer
script = sys.argv[2]
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""


@pytest.fixture
def faulty(project):
    def run(event: str, payload: dict) -> HookResult:
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "DELIBERATION_WORKER": "0"}
        proc = subprocess.run(
            [sys.executable, *HOOK_FLAGS, "-c", FAULT, str(LIB), str(HOOKS / HOOK_SCRIPTS[event])],
            input=json.dumps(payload),
            capture_output=True,
            env=env,
            cwd=str(project),
            timeout=60,
            text=True,
        )
        return HookResult(proc, event)

    return run


def active_session(project, sid: str = SID) -> None:
    """A session with an open deliberation, so every hook (SessionStart included) takes the slow path."""
    d = state(project) / "sessions" / sid
    d.mkdir(parents=True, exist_ok=True)
    write_state(
        d / "session.json",
        json.dumps(
            {"schema_version": 1, "session_id": sid, "active_deliberation": "d-5e1f0c2a-1", "deliberations": ["d-5e1f0c2a-1"]}
        ),
    )


def errors_log(project) -> str:
    p = state(project) / "errors.log"
    return p.read_text() if p.exists() else ""


@pytest.mark.parametrize("event", EVENTS)
def test_internal_error_fails_open_and_is_logged(project, faulty, event):
    write_config(project, {"depth": {"posture": "off"}})
    active_session(project)
    session_before = (state(project) / "sessions" / SID / "session.json").read_text()
    res = faulty(event, sample(event))
    msg = assert_fail_open(res, "RuntimeError", "details in ", "errors.log", "continuing without deliberation checks")
    log = errors_log(project)
    assert f"hook {event}" in log and "Traceback (most recent call last)" in log
    assert "injected fault: a bug on the slow path" in log
    assert str(state(project) / "errors.log") in msg
    # nothing half-done: the session state is untouched
    assert (state(project) / "sessions" / SID / "session.json").read_text() == session_before


@pytest.mark.parametrize("key", ["this version's", "an older version's"])
def test_a_config_cache_that_does_not_validate_is_rebuilt(project, hook, key):
    """A cache keyed to this config.json whose content is wrong no longer disables the checks
    until config.json changes: the slow path resolves config.json again and rewrites it."""
    st_key = None
    if key != "this version's":
        write_config(project, {"depth": {"posture": "off"}})
        st = os.stat(state(project) / "config.json")
        st_key = [st.st_size, st.st_mtime_ns]  # the key before the plugin version was part of it
    corrupt_config_cache(project, {"depth": {"posture": "off"}}, key=st_key)
    res = hook("PreToolUse", sample("PreToolUse"))
    assert res.returncode == 0 and res.decision is None, res.json
    if key == "this version's":
        assert "the cached config did not validate (1 error(s)); rebuilt from config.json" in res.system_message
    else:
        assert res.json is None  # a stale cache is simply resolved again
    cache = json.loads((state(project) / "cache" / "config.resolved.json").read_text())
    assert cache["config"]["spawn_budget"]["max_active_children"] == 12 and cache["config"]["depth"]["posture"] == "off"
    lineage = json.loads((state(project) / "sessions" / SID / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 1  # the spawn went through the checks
    assert errors_log(project) == ""
    again = hook("PreToolUse", P.pre_agent(SID, "toolu_f2", "cost-analyst", "Research the question."))
    assert again.json is None or "did not validate" not in (again.system_message or "")


@pytest.mark.parametrize("event", [e for e in EVENTS if e not in ("SessionStart", "Stop")])
def test_internal_error_when_the_sessions_dir_is_a_file(project, hook, event):
    """A botched copy left `sessions` as a regular file: writing any session state fails."""
    state(project).mkdir(parents=True)
    (state(project) / "sessions").write_text("not a directory")
    res = hook(event, sample(event))
    msg = assert_fail_open(res, "details in ")
    assert "FileExistsError" in msg or "NotADirectoryError" in msg, msg
    assert f"hook {event}" in errors_log(project)
    assert (state(project) / "sessions").read_text() == "not a directory"


@pytest.mark.parametrize("event", ["SessionStart", "Stop"])
def test_events_of_plain_work_that_write_nothing_do_not_fail_on_a_broken_sessions_dir(project, hook, event):
    """A session start and a plain turn's Stop write no session state (docs/STORAGE.md)."""
    state(project).mkdir(parents=True)
    (state(project) / "sessions").write_text("not a directory")
    res = hook(event, sample(event))
    if event == "SessionStart":  # its answer is the self-rating instruction, and nothing else
        from deliberation.text import self_rating

        assert res.returncode == 0 and res.context == self_rating.text() and not res.system_message
    else:
        assert res.returncode == 0 and res.json in (None, {})
    assert errors_log(project) == ""
    assert (state(project) / "sessions").read_text() == "not a directory"


def test_each_internal_error_appends_its_own_log_entry(project, faulty):
    active_session(project)
    for event in ("Stop", "PreToolUse", "Stop"):
        faulty(event, sample(event))
    log = errors_log(project)
    assert log.count("--- ") == 3
    assert log.count("hook Stop") == 2 and log.count("hook PreToolUse") == 1
    assert oct(os.stat(state(project) / "errors.log").st_mode & 0o777) == "0o600"


def test_lock_timeout_fails_open_without_hanging(project, hook):
    """Another hook holds the session lock longer than lock_timeout_s: warn, do not hang."""
    import time

    write_config(project, {"lock_timeout_s": 0.5, "depth": {"posture": "off"}})
    holder = lock_holder(str(state(project) / "sessions" / SID / "session"))
    try:
        t0 = time.monotonic()
        res = hook("PreToolUse", sample("PreToolUse"))
        took = time.monotonic() - t0
    finally:
        stop(holder)
    assert_fail_open(res, "LockTimeout", "more than 0.5s")
    assert took < 10
    assert errors_log(project) == ""  # a known failure: one clear line, no traceback pointer


# -- strict mode ----------------------------------------------------------------------------------


def test_strict_internal_error_denies_a_spawn(project, faulty):
    write_config(project, {"strict": True})
    approve_config(project)  # strict waits for this user's approval (consent.py)
    active_session(project)
    res = faulty("PreToolUse", sample("PreToolUse"))
    assert res.returncode == 0
    assert res.decision == "deny"
    assert "strict mode blocks until this is fixed" in res.reason
    assert "RuntimeError" in res.reason
    assert "hook PreToolUse" in errors_log(project)


def test_strict_internal_error_blocks_stop_once_then_lets_it_through(project, faulty):
    write_config(project, {"strict": True})
    approve_config(project)  # strict waits for this user's approval (consent.py)
    active_session(project)
    first = faulty("Stop", P.stop(SID, active=False))
    assert first.returncode == 0
    assert first.decision == "block" and "decision" not in first.json  # the hold is said as context
    assert "strict mode blocks until this is fixed" in first.reason
    # the model reads no path of the plugin; the user's line names the log
    assert "errors.log" not in first.reason and str(project) not in first.reason, first.reason
    assert "details in" in first.system_message and "Next: tell the user" in first.reason
    second = faulty("Stop", P.stop(SID, active=True))  # the client's retry after our block
    assert second.returncode == 0
    assert second.decision is None
    assert second.system_message.startswith("deliberation plugin: ")
    assert "continuing without deliberation checks" in second.system_message


def test_strict_internal_error_blocks_subagent_stop_once(project, faulty):
    write_config(project, {"strict": True})
    approve_config(project)  # strict waits for this user's approval (consent.py)
    active_session(project)
    payload = sample("SubagentStop")
    assert faulty("SubagentStop", payload).decision == "block"
    assert faulty("SubagentStop", {**payload, "stop_hook_active": True}).decision is None


def test_strict_mode_off_by_default_and_false_is_fail_open(project, faulty):
    write_config(project, {"strict": False})
    active_session(project)
    assert faulty("PreToolUse", sample("PreToolUse")).decision is None
    assert faulty("Stop", P.stop(SID)).decision is None


# -- state dir links ------------------------------------------------------------------------------

UNUSABLE = "cannot be this project's state folder"  # text/switch.state_unusable


@pytest.mark.parametrize("event", EVENTS)
def test_symlinked_state_dir_writes_nothing_outside(project, hook, tmp_path, event):
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".claude").mkdir()
    os.symlink(outside, state(project))
    active_session(project)  # written through the link on purpose: a state the attacker prepared
    before = sorted(os.listdir(outside / "sessions" / SID))
    res = hook(event, sample(event))
    assert res.returncode == 0 and res.decision is None
    # stricter, not blind: the event is answered from itself, the person told which link to remove
    assert UNUSABLE in (res.system_message or "") and "rm .claude/deliberation" in res.system_message, res.json
    assert sorted(os.listdir(outside)) == ["sessions"]
    assert sorted(os.listdir(outside / "sessions" / SID)) == before


@pytest.mark.parametrize("event", ["Stop", "UserPromptSubmit", "PreToolUse"])
def test_symlinked_event_log_is_not_written_through(project, hook, tmp_path, event):
    outside = tmp_path / "outside"
    outside.mkdir()
    sdir = state(project) / "sessions" / SID
    sdir.mkdir(parents=True)
    if event != "PreToolUse":
        active_session(project)  # a prompt or a Stop of plain work logs nothing: in a deliberation they do
    os.symlink(outside / "stolen.jsonl", sdir / "events.jsonl")
    res = hook(event, sample(event))
    assert res.returncode == 0 and res.decision is None
    assert UNUSABLE in (res.system_message or "") and "events.jsonl" in res.system_message, res.json
    assert os.listdir(outside) == []


def test_symlinked_pending_prompt_is_not_written_through(project, hook, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    sdir = state(project) / "sessions" / SID
    sdir.mkdir(parents=True)
    os.symlink(outside / "stolen.json", sdir / "prompt.json")
    res = hook("UserPromptSubmit", sample("UserPromptSubmit"))
    assert res.returncode == 0 and res.decision is None
    assert UNUSABLE in (res.system_message or "") and "prompt.json" in res.system_message, res.json
    assert os.listdir(outside) == []


def test_symlinked_errors_log_is_not_written_through(project, faulty, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    active_session(project)
    os.symlink(outside / "errors.log", state(project) / "errors.log")
    res = faulty("Stop", sample("Stop"))
    assert_fail_open(res, "RuntimeError")
    assert "details in" not in res.system_message  # it could not be written, so it is not promised
    assert os.listdir(outside) == []


def test_corrupt_state_file_is_quarantined_and_the_user_warned(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    sdir = state(project) / "sessions" / SID
    sdir.mkdir(parents=True)
    (sdir / "lineage.json").write_text('{"schema_version": 1, "session_id": "x", "spawns": [}')
    res = hook("PreToolUse", sample("PreToolUse"))
    assert res.returncode == 0 and res.decision is None
    msg = res.system_message
    assert "corrupt state file .claude/deliberation/sessions/" in msg and "lineage.json" in msg
    assert "moved aside to lineage.json.corrupt-" in msg
    [aside] = sdir.glob("lineage.json.corrupt-*")
    assert aside.read_text() == '{"schema_version": 1, "session_id": "x", "spawns": [}'
    assert len(json.loads((sdir / "lineage.json").read_text())["spawns"]) == 1  # fresh, with this spawn
    assert errors_log(project) == ""


def test_newer_schema_version_is_refused_visibly_and_left_alone(project, hook):
    sdir = state(project) / "sessions" / SID
    sdir.mkdir(parents=True)
    write_state(sdir / "session.json", json.dumps({"schema_version": 99, "session_id": SID, "active_deliberation": "d-x"}))
    body = (sdir / "session.json").read_text()  # written by a newer plugin of this user: sealed
    res = hook("Stop", sample("Stop"))
    assert_fail_open(res, "SchemaVersionError", "schema_version 99, newer than this plugin's 1", "upgrade the plugin")
    assert (sdir / "session.json").read_text() == body
    assert not list(sdir.glob("session.json.corrupt-*"))
