"""Task notifications through the real hook scripts: one that changes nothing asks for no turn
(`continue: false` with its stop reason), the last of the wave gives the turn with the progress
note, and nothing is quiet while the main agent's turn is open or with the switch off."""

from __future__ import annotations


from tests.helpers import payloads as P
from tests.helpers.flows import launch_background
from tests.helpers.flows import CACHE_APPROACHES as APPROACHES
from tests.helpers.flows import CACHE_PANEL as PANEL
from tests.helpers.flows import CACHE_QUESTION as QUESTION
from tests.helpers.project import only_delib as load_delib


def launch(project, hook, config: "dict | None" = None):
    """Three background research agents launched; the main agent's turn ends (a Stop listing them)."""
    return launch_background(project, hook, QUESTION, PANEL, config)


def running(launched) -> list:
    return [{"id": aid, "type": "subagent", "status": "running", "description": p, "agent_type": p} for p, _t, aid in launched]


def finish(s, persona: str, tuid: str, aid: str):
    """The agent stops (its report recorded) and its task notification arrives: the raw answer."""
    message = P.research_report(persona, [PANEL[persona]], APPROACHES)
    assert s.hook("SubagentStop", P.subagent_stop(s.sid, aid, persona, message)).decision is None
    return s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, message))


def test_notifications_that_change_nothing_ask_for_no_turn_and_the_last_gives_it(project, hook):
    s, launched = launch(project, hook)
    assert s.stop(background_tasks=running(launched)).decision is None
    first = finish(s, *launched[0])
    assert first.json == {
        "continue": False,
        "stopReason": (
            f"Deliberation {load_delib(project)['id']}: security-analyst's research report is in (1 of 3); "
            "performance-engineer and cost-analyst still to report. No turn needed now: their task notifications "
            "come by themselves, and the last one brings the next step."
        ),
    }
    second = finish(s, *launched[1])
    assert second.json["continue"] is False and "cost-analyst still to report" in second.json["stopReason"]
    last = finish(s, *launched[2])
    assert "continue" not in last.json
    context = last.json["hookSpecificOutput"]["additionalContext"]
    assert "Reports you have: research 3 of 3" in context and "Next: spawn `synthesis-lead`" in context
    d = load_delib(project)
    assert [a["notified"] for a in d["agents"]] == [True, True, True]
    # the turn the last one gave ends in the Stop that judges the research phase
    assert "Reports you have: research 3 of 3" in s.stop().reason


def test_while_the_main_agents_turn_is_open_every_notification_is_a_turn(project, hook):
    s, launched = launch(project, hook)  # no Stop yet: the launching turn is still open
    answer = finish(s, *launched[0])
    assert "continue" not in answer.json
    assert "Still to arrive: performance-engineer, cost-analyst" in answer.json["hookSpecificOutput"]["additionalContext"]


def test_a_repeated_notification_and_one_the_client_did_not_list_running_are_turns(project, hook):
    s, launched = launch(project, hook)
    s.stop(background_tasks=running(launched)[:2])  # cost-analyst not listed as running
    answer = finish(s, *launched[0])
    assert "continue" not in answer.json  # nothing sure to come from cost-analyst
    persona, tuid, aid = launched[0]
    again = s.hook(
        "UserPromptSubmit", P.task_notification(s.sid, aid, tuid, P.research_report(persona, [PANEL[persona]], APPROACHES))
    )
    assert "continue" not in again.json


def test_with_the_switch_off_every_notification_is_a_turn(project, hook):
    s, launched = launch(project, hook, {"deliberation": {"quiet_waiting": False}})
    s.stop(background_tasks=running(launched))
    for agent in launched:
        answer = finish(s, *agent)
        assert "continue" not in answer.json and answer.json["hookSpecificOutput"]["additionalContext"]
