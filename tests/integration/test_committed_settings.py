"""Committed settings that switch a catch off or make the prune delete sooner, through the real
hook scripts: the mid-task net's mode, the trigger's switch, the self-rating, the retention limits.
Until this user approves the committed value (`deliberation trust`), the default applies, the
session start says what waits, and `deliberation doctor` names it with the command that approves
it; once approved, it takes effect. A value that only makes the plugin stricter, or keep more,
applies as committed (tests/reliability/test_hostile_project.py: the narrowing settings)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from tests.conftest import LIB
from tests.helpers import payloads as P
from tests.helpers.factories import approve_config, write_state
from tests.helpers.project import write_config
from deliberation.text import self_rating

SID = "f0f0f0f0-0000-4000-8000-000000000043"
ROUTINE = "rename the helper in utils.py"
FORCE_PUSH = {"command": "git push --force origin main", "description": "push"}
DAY = 24 * 3600


def state(project):
    return project / ".claude" / "deliberation"


def doctor(project) -> str:
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    env.pop("DELIBERATION", None)
    res = subprocess.run(
        [sys.executable, "-m", "deliberation", "doctor", "--project", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return res.stdout + res.stderr


def start(hook, sid=SID):
    return hook("SessionStart", {**P.base(sid, "SessionStart"), "source": "startup"})


def says_it_waits(text: "str | None", name: str, project) -> bool:
    flat = " ".join((text or "").split())  # the CLI wraps its lines at 100 columns, between words
    return bool(flat) and name in flat and f"deliberation trust --project {project}" in flat


def net_speaks(hook, n: int) -> bool:
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    out = hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, f"toolu_c{n}"))
    return bool(out.context or out.decision)  # the default holds it (ask); note mode speaks after it


@pytest.mark.parametrize(
    "cfg,name",
    [({"trigger": {"tool_net": "off"}}, "trigger.tool_net"), ({"trigger": {"enabled": False}}, "trigger.enabled")],
    ids=["tool_net-off", "trigger-off"],
)
def test_a_committed_switch_that_turns_the_net_off_waits_for_approval(project, hook, cfg, name):
    write_config(project, cfg, approve=False)
    assert net_speaks(hook, 1), f"a committed {name} switched the mid-task net off without approval"
    assert says_it_waits(start(hook).system_message, name, project)
    out = doctor(project)
    assert says_it_waits(out, name, project) and "no problems found" not in out, out

    approve_config(project)  # this user's `deliberation trust`
    assert not net_speaks(hook, 2), f"an approved {name} did not take effect"
    assert not start(hook).system_message
    out = doctor(project)
    assert f"({name} approved by you)" in out and "awaiting your approval" not in out, out


def test_a_committed_self_rating_off_waits_for_approval(project, hook):
    write_config(project, {"trigger": {"self_rating": False}}, approve=False)
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))  # the slow path validates the changed config
    first = start(hook)
    assert first.context == self_rating.text(), "a committed self_rating: false took effect without approval"
    assert says_it_waits(first.system_message, "trigger.self_rating", project)
    assert says_it_waits(doctor(project), "trigger.self_rating", project)
    approve_config(project)
    assert start(hook).json is None


def session_folder(project, age_days: float, size: int = 4096) -> str:
    sid = str(uuid.uuid4())
    folder = state(project) / "sessions" / sid
    folder.mkdir(parents=True)
    write_state(folder / "lineage.json", {"schema_version": 1, "session_id": sid, "spawns": []})
    (folder / "events.jsonl").write_bytes(b"x" * size)
    when = time.time() - age_days * DAY
    for p in [*folder.iterdir(), folder]:
        os.utime(p, (when, when))
    return sid


def an_hour_passes(project) -> None:
    stamp = state(project) / "cache" / "retention.json"
    if stamp.exists():
        when = time.time() - 2 * 3600
        os.utime(stamp, (when, when))


@pytest.mark.parametrize(
    "retention,age_days", [({"max_age_days": 1}, 5), ({"max_total_mb": 0.001}, 3)], ids=["max_age_days", "max_total_mb"]
)
def test_a_committed_retention_that_deletes_sooner_waits_for_approval(project, hook, retention, age_days):
    (name,) = [f"retention.{k}" for k in retention]
    write_config(project, {"retention": retention}, approve=False)
    hook("UserPromptSubmit", P.prompt(str(uuid.uuid4()), "hi"))  # the slow path validates the changed config
    kept = session_folder(project, age_days)
    said = start(hook, str(uuid.uuid4())).system_message
    assert kept in os.listdir(state(project) / "sessions"), f"a committed {name} deleted a session folder"
    assert says_it_waits(said, name, project)
    assert says_it_waits(doctor(project), name, project)

    approve_config(project)
    hook("UserPromptSubmit", P.prompt(str(uuid.uuid4()), "hi"))  # the approval is a change: validated first
    an_hour_passes(project)  # the session start prunes at most once an hour
    start(hook, str(uuid.uuid4()))
    assert kept not in os.listdir(state(project) / "sessions"), f"an approved {name} did not take effect"
