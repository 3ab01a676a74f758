"""Reports handed back with SubagentHandback (auto mode), through the real hook scripts.

In an auto-mode session every subagent reports by calling `SubagentHandback({message})`: the hooks
see the report at that call's PreToolUse and PostToolUse, the main agent reads it in an
`<agent-message from="<agent id>">` turn (a UserPromptSubmit), and the agent's SubagentStop
carries no final message (docs/CLIENT_CHANNELS.md; the client's orders of those three events
vary, so each order is played here). A report to send back is refused at the call itself; an
accepted one is recorded once; the agent's message is never scored as the user's prompt.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import payloads as P
from tests.helpers.flows import CACHE_APPROACHES as APPROACHES
from tests.helpers.flows import CACHE_PANEL as PANEL
from tests.helpers.flows import CACHE_QUESTION as QUESTION
from tests.helpers.flows import launch_background
from tests.helpers.project import only_delib


def launch(project, hook, config: "dict | None" = None):
    return launch_background(project, hook, QUESTION, PANEL, config)


def report_of(persona: str) -> str:
    return P.research_report(persona, [PANEL[persona]], APPROACHES)


def hand_back(s, persona: str, aid: str, message: str, order: str = "post-message-stop", n: int = 1) -> dict:
    """The agent's SubagentHandback call goes through (PreToolUse allowed), then its PostToolUse,
    the main agent's agent-message turn and its SubagentStop in `order`. Returns the answers."""
    tuid = f"toolu_hb_{aid}_{n}"
    out = {"pre": s.hook("PreToolUse", P.pre_handback(s.sid, aid, persona, message, tuid))}
    assert out["pre"].decision is None, out["pre"].json
    steps = {
        "post": lambda: s.hook("PostToolUse", P.post_handback(s.sid, aid, persona, message, tuid)),
        "message": lambda: s.hook("UserPromptSubmit", P.agent_message(s.sid, aid, message)),
        "stop": lambda: s.hook("SubagentStop", P.handback_stop(s.sid, aid, persona)),
    }
    for step in order.split("-"):
        out[step] = steps[step]()
    return out


def agents(project) -> "dict[str, dict]":
    return {a["persona"]: a for a in only_delib(project)["agents"]}


@pytest.mark.parametrize("order", ["post-message-stop", "post-stop-message", "message-post-stop", "stop-post-message"])
def test_each_report_handed_back_is_recorded_once_and_the_last_gives_the_next_step(project, hook, order):
    s, launched = launch(project, hook)
    said = []
    for persona, _tuid, aid in launched:
        out = hand_back(s, persona, aid, report_of(persona), order)
        assert out["post"].json is None  # nothing reaches anyone after a hand-back (measured)
        assert out["stop"].json is None, out["stop"].json  # no "no fenced JSON report" send-back
        said.append((out["message"].json or {}).get("hookSpecificOutput", {}).get("additionalContext", ""))
    recorded = agents(project)
    assert {p: (a["status"], a["handed_back"], a["notified"], a["send_backs"]) for p, a in recorded.items()} == {
        p: ("reported", True, True, 0) for p in PANEL
    }
    assert [a["report"]["findings"][0]["claim"] for a in recorded.values()] == [PANEL[p] for p in PANEL]
    # the agent-message turn is the agent's report arriving: progress, then the next step
    assert "Reports you have: research 3 of 3" in said[-1] and "Next: spawn `synthesis-lead`" in said[-1], said[-1]
    assert all("DELIBERATION PROTOCOL" not in t for t in said)
    assert only_delib(project)["warnings"] == []


def test_a_report_to_send_back_is_refused_at_the_hand_back_call_and_the_fixed_one_accepted(project, hook):
    s, launched = launch(project, hook)
    persona, _tuid, aid = launched[0]
    broken = "Here is my analysis, but I forgot the JSON block."
    refused = s.hook("PreToolUse", P.pre_handback(s.sid, aid, persona, broken, "toolu_hb_1"))
    assert refused.decision == "deny"
    reason = refused.reason
    assert reason.startswith(
        "Deliberation plugin: your report was not accepted. Your SubagentHandback message has no fenced JSON"
    )
    assert "Call SubagentHandback again with your whole report as its message" in reason
    assert agents(project)[persona]["status"] == "running" and agents(project)[persona]["send_backs"] == 1
    out = hand_back(s, persona, aid, report_of(persona), n=2)
    assert out["stop"].json is None
    rec = agents(project)[persona]
    assert (rec["status"], rec["send_backs"], rec["problem"]) == ("reported", 1, None)


def test_a_hand_back_still_invalid_after_the_retries_goes_through_and_is_recorded_invalid(project, hook):
    s, launched = launch(project, hook, {"deliberation": {"report_retries": 1}})
    persona, _tuid, aid = launched[0]
    assert s.hook("PreToolUse", P.pre_handback(s.sid, aid, persona, "no report", "toolu_hb_1")).decision == "deny"
    # the client sets no cap on refused hand-backs (measured): the plugin's own bound lets it through
    out = hand_back(s, persona, aid, "still no report", n=2)
    assert out["stop"].json is None
    rec = agents(project)[persona]
    assert rec["status"] == "invalid" and "SubagentHandback message has no fenced JSON report" in rec["problem"]
    assert any("report recorded as invalid after 1 send-back(s)" in w for w in only_delib(project)["warnings"])


def test_an_agent_message_is_never_the_users_prompt(project, hook):
    s, launched = launch(project, hook)
    persona, _tuid, aid = launched[0]
    # an agent whose report reads like a request for a deliberation: no protocol, no new deliberation
    lure = "DELIBERATE: should we drop the pricing database entirely? This is irreversible and risky.\n\n" + report_of(persona)
    out = hand_back(s, persona, aid, lure)
    context = (out["message"].json or {}).get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "DELIBERATION PROTOCOL" not in context
    events = [
        json.loads(line) for line in (project / ".claude/deliberation/sessions" / s.sid / "events.jsonl").read_text().splitlines()
    ]
    ups = [e for e in events if e["event"] == "UserPromptSubmit"]
    assert "trigger" not in ups[-1], ups[-1]
    delibs = list((project / ".claude/deliberation/deliberations").glob("*.json"))
    assert len(delibs) == 1


def test_without_a_deliberation_an_agent_message_gets_no_protocol(project, hook):
    """The fast path: no deliberation in the session, a hand-back that reads like a risky request."""
    sid = "0c0c0c0c-1111-2222-3333-444455556666"
    text = "DELIBERATE: migrate every customer to the new billing schema tonight? It cannot be undone."
    answer = hook("UserPromptSubmit", P.agent_message(sid, "a1234567890abcdef", text))
    assert answer.json is None, answer.json
    assert not (project / ".claude/deliberation/sessions" / sid / "prompt.json").exists()


def test_a_notification_about_a_hand_back_carries_no_report(project, hook):
    """The client's task notifications of auto mode say where the report went instead of holding
    it: 'delivered … as a message' (nothing to file) or 'ended without delivering a report' (the
    agent will not report: recorded invalid with that reason, no Stop waits for it)."""
    s, launched = launch(project, hook)
    (p1, t1, a1), (p2, t2, a2) = launched[0], launched[1]
    delivered = (
        f'This agent\'s report was delivered to you as a message from "{a1}" (its SubagentHandback call). '
        "Read it there; it is not repeated here."
    )
    s.hook("UserPromptSubmit", P.task_notification(s.sid, a1, t1, delivered))
    assert agents(project)[p1]["status"] == "running"  # its message brings the report
    hand_back(s, p1, a1, report_of(p1), "message-post-stop")
    assert agents(project)[p1]["status"] == "reported"
    lost = (
        "The subagent ended without delivering a report through SubagentHandback, so no report was delivered. "
        "Its unsent text is not shown. Send the agent a message (SendMessage) to ask it to deliver its report."
    )
    s.hook("UserPromptSubmit", P.task_notification(s.sid, a2, t2, lost))
    rec = agents(project)[p2]
    assert rec["status"] == "invalid" and "without handing a report back" in rec["problem"]


def test_an_auto_mode_agent_that_ends_with_text_is_asked_for_the_hand_back(project, hook):
    """The agent has the tool but ended with text: the text is read as its report (the plugin sees
    it at SubagentStop); a send-back asks for the report through SubagentHandback, since in auto
    mode a final message reaches no one."""
    s, launched = launch(project, hook)
    persona, _tuid, aid = launched[0]
    stop = P.subagent_stop(s.sid, aid, persona, "My analysis, without the block.")
    stop["permission_mode"] = "auto"
    held = s.hook("SubagentStop", stop)
    assert held.decision == "block"
    assert "Deliver your whole report with SubagentHandback (its message)" in held.reason
    # the agent then hands the report back: accepted at the call, recorded once
    out = hand_back(s, persona, aid, report_of(persona))
    assert out["stop"].json is None
    assert agents(project)[persona]["status"] == "reported"
