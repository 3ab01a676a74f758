"""A deliberation agent's report arrives: SubagentStop, the Agent tool's PostToolUse, the
task notification of a background agent, or a hand-back (core/handback.py: the SubagentHandback
call, and the main agent's `<agent-message>` turn) (pure; the shell passes what it read from files).

Each report is captured exactly once (capture.py); an invalid one is sent back to the subagent
once. Then the engine decides what follows (engine.after_report) and the news is delivered:
a foreground agent's in its PostToolUse, a background agent's queued until its task
notification has reached the main agent (delivery.py). The model an agent ran on and its token
figure are taken from what the client reported, else from its transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from deliberation.core import agent_status, drafter_call, drafting, engine, phases, plugin_workflow, token_usage
from deliberation.core import lineage as lin
from deliberation.core.capture import Outcome, capture
from deliberation.core.delivery import deliver, queue, say_once
from deliberation.core.turn import Turn, find_record, link_record
from deliberation.state.models import AgentRecord, Deliberation
from deliberation.wire import hookio


def file_report(
    turn: Turn,
    delib: Deliberation,
    rec: AgentRecord,
    text: str,
    *,
    stop_hook_active: bool,
    handback: bool = False,
    can_hand_back: bool = False,
) -> Outcome:
    """Capture `text` as `rec`'s report with the config's limits (size, send-backs, dimensions);
    `handback`: the text came through a SubagentHandback call (core/handback.py); `can_hand_back`:
    the agent has that tool (auto mode), so a send-back asks for it."""
    d = turn.cfg.deliberation
    return capture(
        delib,
        rec,
        text,
        stop_hook_active=stop_hook_active,
        max_bytes=d.max_report_bytes,
        retries=d.report_retries,
        dimensions=[x.name for x in turn.cfg.ranking.dimensions],
        now=turn.now,
        handback=handback,
        can_hand_back=can_hand_back,
        weights=turn.weights(),
    )


@dataclass(frozen=True)
class Transcripts:
    """How the shell reads a subagent's transcript: its token figure, the model it ran on."""

    tokens: "Callable[[str | None], int | None]"
    model: "Callable[[str | None], str | None]"


def subagent_stopped(turn: Turn, event: hookio.SubagentStop, read: Transcripts) -> hookio.Answer:
    """SubagentStop — the answer goes to the SUBAGENT: a block makes it continue with our reason
    (fix the report). A background agent's news for the main agent is queued."""
    spawn = _settle(turn, event)
    delib, rec = turn.record_for_agent(event.agent_id, event.agent_type)
    spawn = spawn or lin.find_by_agent(turn.tx.lineage, event.agent_id)
    if spawn is not None and not spawn.model:
        spawn.model = read.model(event.agent_transcript_path)
    if rec is not None and not rec.model and spawn is not None:
        rec.model = spawn.model
    if spawn is not None and (spawn.checkpoint or (spawn.workflow and drafting.is_drafter(event.agent_type))):
        # the workflow's own steps (checkpoints, the drafter): their calls are part of the cost
        plugin_workflow.checkpoint_stopped(turn, spawn, event.agent_transcript_path)
    if rec is None and drafting.is_drafter(event.agent_type) and not (spawn is not None and spawn.workflow):
        answer = drafter_call.stopped(turn, event)  # the turn-by-turn drafter: its document
        if answer.decision is None:
            lin.mark_finished(turn.tx.lineage, agent_id=event.agent_id, now=turn.now)
        return answer
    if rec is None or delib is None:
        lin.mark_finished(turn.tx.lineage, agent_id=event.agent_id, now=turn.now)
        return hookio.Answer()
    # background agents (the client's default) report no totalTokens anywhere else
    if event.agent_transcript_path:
        rec.transcript = event.agent_transcript_path
    if token_usage.count(delib, rec, read.tokens(event.agent_transcript_path), "transcript"):
        turn.notes.append(f"tokens {rec.tokens} from the transcript")
    if rec.channel == "workflow":  # its report came through StructuredOutput
        lin.mark_finished(turn.tx.lineage, agent_id=event.agent_id, now=turn.now)
        plugin_workflow.stopped(turn, delib, rec)
        return hookio.Answer()
    if rec.handed_back and not event.last_assistant_message:
        # its report came through the SubagentHandback call, filed and its news queued there (or
        # by the agent-message turn): this stop has no final message and nothing more to say
        lin.mark_finished(turn.tx.lineage, agent_id=event.agent_id, now=turn.now)
        turn.notes.append(f"report by hand-back ({rec.status})")
        return hookio.Answer()
    if rec.status in agent_status.RUNNING:
        outcome = file_report(
            turn,
            delib,
            rec,
            event.last_assistant_message,
            stop_hook_active=event.stop_hook_active,
            can_hand_back=event.permission_mode == hookio.AUTO_MODE,
        )
        delib.updated_at = turn.now
        turn.notes.append(f"report {outcome.status}")
        if outcome.send_back:
            return hookio.Answer.block(outcome.send_back)
    lin.mark_finished(turn.tx.lineage, agent_id=event.agent_id, now=turn.now)
    if not rec.background:
        return hookio.Answer()
    return deliver(
        turn, engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals), delib, background=True
    )


def _settle(turn: Turn, event: hookio.SubagentStop) -> "lin.Spawn | None":
    """The lineage spawn of this agent; a Workflow agent (its transcript lives under the run's
    folder) is recorded as one even when its start was taken for an Agent request."""
    spawn = lin.find_by_agent(turn.tx.lineage, event.agent_id)
    run_id = lin.workflow_run_of_transcript(event.agent_transcript_path)
    if run_id and spawn is not None and spawn.channel != "workflow":
        spawn = lin.settle_workflow_agent(turn.tx.lineage, spawn, run_id, turn.now)
        turn.notes.append(f"agent {event.agent_id} ran in workflow run {run_id}")
    return spawn


def agent_returned(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    """The Agent tool's PostToolUse: link the spawn to its agent and the model the client
    resolved; a background launch says progress once per parallel launch; a foreground agent's
    report is captured if SubagentStop did not record it, and the engine's news follows — once
    per parallel batch: the client fires a PostToolUse as each agent of the batch finishes but
    hands the model all their results in one request, so the progress note waits for the
    batch's last result."""
    spawn = lin.link(turn.tx.lineage, event.tool_use_id, event.child_agent_id)
    delib = turn.tx.deliberation(spawn.deliberation_id) if spawn and spawn.deliberation_id else None
    rec = find_record(delib, tool_use_id=event.tool_use_id) if delib else None
    if rec is not None:
        link_record(rec, event.child_agent_id)
    if event.resolved_model:
        if spawn is not None:
            spawn.model = event.resolved_model
        if rec is not None:
            rec.model = event.resolved_model
    if event.status == "async_launched":
        agent_status.launched(spawn, rec, turn.now)
        if delib is None:
            return hookio.Answer()
        return say_once(turn, delib, hookio.Answer(context=engine.progress_text(delib, turn.cfg)))
    lin.mark_finished(
        turn.tx.lineage,
        agent_id=event.child_agent_id,
        tool_use_id=event.tool_use_id,
        now=turn.now,
        failed=event.status != "completed",
    )
    if rec is None or delib is None:
        return hookio.Answer()
    if event.total_tokens:
        token_usage.count(delib, rec, event.total_tokens, "totalTokens")
    if rec.status in agent_status.RUNNING:
        if event.status == "completed":
            file_report(turn, delib, rec, event.report_text, stop_hook_active=True)
        else:
            agent_status.ended_without_report(rec, event.status)
    delib.updated_at = turn.now
    step = engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals)
    siblings = [a for a in phases.pending(delib) if not a.background]
    if step.progress and siblings:
        # the client hands the main agent a parallel batch's results together, in one request:
        # the batch's last PostToolUse gives its note, counting them all
        turn.notes.append(f"progress left to the batch's last result ({len(siblings)} still running)")
        return hookio.Answer()
    return deliver(turn, step, delib, background=False)


@dataclass(frozen=True)
class Notified:
    """The deliberation agent a task notification announced (None, None: none), and whether its
    result had reached the main agent before (a resumed agent, a notification sent again)."""

    delib: "Deliberation | None" = None
    rec: "AgentRecord | None" = None
    repeat: bool = False


def notified(
    turn: Turn, task_id: "str | None", result: "str | None", tokens: "int | None", *, handback: bool = False
) -> Notified:
    """A task notification or a hand-back message (`handback`: an `<agent-message>` turn)
    reached the main agent: the agent's result now counts as given to it (`notified`); a report
    it carries is captured if no earlier channel recorded it, and the engine's news is queued.
    A notification whose result is the client's sentence about a hand-back carries no report: an
    agent of an auto-mode session that ended without handing one back will not report."""
    if not task_id:
        return Notified()
    delib, rec = turn.record_for_agent(task_id, None)
    if rec is None or delib is None:
        return Notified()
    repeat = rec.notified
    rec.notified = True  # the main agent has this agent's result (notes and Stop count on it)
    token_usage.count(delib, rec, tokens, "task-notification")
    if handback:
        rec.handed_back = True
    elif result is not None and hookio.is_handback_result(result):
        if rec.status in agent_status.RUNNING and not hookio.handed_back_result(result):
            agent_status.not_handed_back(rec, turn.now)
            turn.notes.append(f"{rec.persona} ended without handing a report back")
            queue(turn, engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals), delib)
        return Notified(delib, rec, repeat)
    if result is None or rec.status not in agent_status.RUNNING:
        return Notified(delib, rec, repeat)
    outcome = file_report(turn, delib, rec, result, stop_hook_active=True, handback=handback)
    turn.notes.append(f"report from {'hand-back message' if handback else 'task notification'}: {outcome.status}")
    queue(turn, engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals), delib)
    return Notified(delib, rec, repeat)
