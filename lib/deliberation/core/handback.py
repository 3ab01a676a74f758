"""A deliberation agent's report handed back with the SubagentHandback tool (pure).

In a session whose permission mode is auto — interactive sessions start in it — the client
offers every subagent `SubagentHandback({message})`: the call delivers the message to the main
agent as an `<agent-message from="<agent id>">` turn and ends the agent's run; its final text is
not delivered, and its SubagentStop carries none (measured: docs/CLIENT_CHANNELS.md). So the
plugin reads the report at the call, as it reads a workflow agent's StructuredOutput:

- PreToolUse: a report that must be sent back is refused there with what to fix; the agent
  reads it as the call's error and calls again. The client sets no cap on refused hand-backs, so
  the plugin refuses at most `deliberation.report_retries` times, then lets the call through
  and records the report invalid — never a loop;
- PostToolUse: the report the client accepted is filed, once, and what follows is queued for the
  agent-message turn that brings it to the main agent (core/news.py says it there);
- the agent-message turn files it instead when it reaches the hooks first (arrival.notified);
- SubagentStop, which comes after the call, says nothing more (arrival.subagent_stopped).

A report that reaches the main agent some other way (a final text the plugin read at SubagentStop,
a second hand-back) is recorded once: the first channel files it, the others find it filed.
"""

from __future__ import annotations

from deliberation.core import agent_status, engine
from deliberation.core.arrival import file_report
from deliberation.core.capture import check_text, first_look
from deliberation.core.delivery import queue
from deliberation.core.turn import Turn
from deliberation.state.agent_report import again
from deliberation.state.models import AgentRecord, Deliberation
from deliberation.text import reports as words
from deliberation.wire import hookio


def _owner(turn: Turn, event: hookio.ToolEvent) -> "tuple[Deliberation | None, AgentRecord | None]":
    """The deliberation record of the agent handing back (None, None: not a deliberation agent's,
    or a workflow agent's, which reports with StructuredOutput)."""
    delib, rec = turn.record_for_agent(event.agent_id, event.agent_type)
    if delib is None or rec is None or rec.channel == "workflow":
        return None, None
    return delib, rec


def checked(turn: Turn, event: hookio.PreToolUse) -> hookio.Answer:
    """PreToolUse SubagentHandback: the report is checked before the client delivers it; one that
    must be sent back is refused with the fix (at most `report_retries` times)."""
    delib, rec = _owner(turn, event)
    if delib is None or rec is None or rec.status not in agent_status.RUNNING:
        return hookio.Answer()
    rec.handed_back = True  # its SubagentStop will carry no final message
    d = turn.cfg.deliberation
    report, _ignored, problem = check_text(
        rec, event.handback_message, max_bytes=d.max_report_bytes, dimensions=_dimensions(turn), handback=True
    )
    if problem is None:
        ballot = first_look(rec, report, turn.weights(), may_ask=d.report_retries > 0)
        problem = f"{ballot}\n{again(True, True)}" if ballot else None
    if problem is None:
        return hookio.Answer()
    if rec.send_backs >= d.report_retries:
        turn.notes.append(f"hand-back of {rec.persona} let through after {rec.send_backs} refusal(s): recorded invalid")
        return hookio.Answer()
    rec.send_backs += 1
    rec.problem = problem
    delib.updated_at = turn.now
    turn.notes.append(f"hand-back of {rec.persona} refused ({rec.send_backs})")
    return hookio.Answer.deny(words.send_back(problem))


def delivered(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    """PostToolUse SubagentHandback: the delivered report is filed (once) and what follows is
    queued for the main agent's agent-message turn. Nothing is answered: the hand-back ended
    the agent's run, so no answer here reaches anyone (measured)."""
    delib, rec = _owner(turn, event)
    if delib is None or rec is None:
        return hookio.Answer()
    rec.handed_back = True
    if rec.status not in agent_status.RUNNING:
        return hookio.Answer()  # the agent-message turn (or a final text) filed it first
    outcome = file_report(turn, delib, rec, event.handback_message, stop_hook_active=True, handback=True)
    delib.updated_at = turn.now
    turn.notes.append(f"report by hand-back: {outcome.status}")
    queue(turn, engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals), delib)
    return hookio.Answer()


def _dimensions(turn: Turn) -> "list[str]":
    return [x.name for x in turn.cfg.ranking.dimensions]
