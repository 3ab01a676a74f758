"""Stop while finished background reports are still on their way to the main agent.

The real client (2.1.328, seen in tests/e2e/test_e2e_deliberation.py) hands the task
notifications of finished background agents to the main agent one turn at a time, each turn
ending in a Stop, and none while a Stop block keeps the turn open. A Stop that judged the
deliberation then would block on a phase the main agent has not seen and starve the remaining
notifications until the block limit failed the deliberation. Such a Stop must go through.
"""

from __future__ import annotations

import json

from tests.helpers import payloads as P
from tests.helpers.flows import launch_background
from tests.helpers.flows import CACHE_APPROACHES as APPROACHES
from tests.helpers.flows import CACHE_PANEL as PANEL
from tests.helpers.flows import CACHE_QUESTION as QUESTION
from tests.helpers.project import only_delib as load_delib


def events(project, sid: str) -> "list[dict]":
    path = project / ".claude" / "deliberation" / "sessions" / sid / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_stop_goes_through_until_every_finished_report_was_announced(project, hook):
    s, launched = launch_background(project, hook, QUESTION, PANEL)
    # all three finish; their reports are recorded from SubagentStop
    messages = {}
    for persona, tuid, aid in launched:
        messages[aid] = P.research_report(persona, [PANEL[persona]], APPROACHES)
        assert s.hook("SubagentStop", P.subagent_stop(s.sid, aid, persona, messages[aid])).decision is None
    assert [a["status"] for a in load_delib(project)["agents"]] == ["reported"] * 3
    # the main agent has seen one notification: its Stop goes through, twice (one per turn)
    first_persona, first_tuid, first_aid = launched[0]
    s.hook("UserPromptSubmit", P.task_notification(s.sid, first_aid, first_tuid, messages[first_aid]))
    assert s.stop().decision is None
    _, tuid, aid = launched[1]
    s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, messages[aid]))
    assert s.stop().decision is None
    d = load_delib(project)
    assert (d["phase"], d["stop_blocks"], d["failure_reasons"]) == ("RESEARCH", 0, [])
    assert [a["notified"] for a in d["agents"]] == [True, True, False]
    notes = [e["notes"] for e in events(project, s.sid) if e["event"] == "Stop"]
    assert notes == [
        ["2 background report(s) not yet announced to the main agent: no verdict yet"],
        ["1 background report(s) not yet announced to the main agent: no verdict yet"],
    ]
    # the last notification: now the Stop judges (research only → Gate 1 blocks with the next step)
    _, tuid, aid = launched[2]
    s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, messages[aid]))
    final = s.stop()
    assert final.decision == "block"
    assert "is not finished (phase RESEARCH)" in final.reason and "Reports you have: research 3 of 3" in final.reason
    assert "Next: spawn `synthesis-lead` and `debate-moderator`" in final.reason
    assert load_delib(project)["stop_blocks"] == 1
