"""SubagentStop: capture a deliberation agent's report; send an invalid one back once.

The answer goes to the SUBAGENT: a block makes it continue with our reason (fix the report).
Gate results for the main agent travel otherwise: a foreground agent's through PostToolUse
(which fires next), a background agent's as a queued notice delivered once every result it
follows from has reached the main agent (task notifications), or at Stop. A resumed agent
(SendMessage) reports in the background; its record was reopened, so this report replaces its
earlier one. The model the agent ran on is read from its transcript when the launch did not say
it (a Workflow's agents).
"""

from __future__ import annotations

from deliberation.core import engine
from deliberation.wire import hookio
from deliberation.core import lineage as lin
from deliberation.core.capture import capture
from deliberation.app.handlers.common import (Ctx, budget_view, deliver, record_for_agent, transcript_model)


def handle(ctx: Ctx, event: hookio.SubagentStop) -> hookio.Answer:
    spawn = _settle(ctx, event)
    delib, rec = record_for_agent(ctx, event.agent_id, event.agent_type)
    spawn = spawn or lin.find_by_agent(ctx.tx.lineage, event.agent_id)
    if spawn is not None and not spawn.model:
        spawn.model = transcript_model(event.agent_transcript_path)
    if rec is not None and not rec.model and spawn is not None:
        rec.model = spawn.model
    if rec is not None and delib is not None:
        from deliberation.app import transcripts
        from deliberation.core import token_usage

        # background agents (the client's default) report no totalTokens anywhere else
        if event.agent_transcript_path:
            rec.transcript = event.agent_transcript_path
        if token_usage.count(delib, rec, transcripts.read_transcript(event.agent_transcript_path), "transcript"):
            ctx.notes.append(f"tokens {rec.tokens} from the transcript")
    if spawn is not None and spawn.checkpoint:
        from deliberation.app.handlers import plugin_workflow

        plugin_workflow.checkpoint_stopped(ctx, spawn, event.agent_transcript_path)
    if rec is not None and delib is not None and rec.channel == "workflow":
        from deliberation.app.handlers import plugin_workflow

        lin.mark_finished(ctx.tx.lineage, agent_id=event.agent_id, now=ctx.now)
        plugin_workflow.stopped(ctx, delib, rec)  # its report came through StructuredOutput
        return hookio.Answer()
    if rec is not None and delib is not None and rec.status in ("spawned", "running"):
        d = ctx.cfg.deliberation
        outcome = capture(delib, rec, event.last_assistant_message,
                          stop_hook_active=event.stop_hook_active, max_bytes=d.max_report_bytes,
                          retries=d.report_retries,
                          dimensions=[x.name for x in ctx.cfg.ranking.dimensions], now=ctx.now)
        delib.updated_at = ctx.now
        ctx.notes.append(f"report {outcome.status}")
        if outcome.send_back:
            return hookio.Answer.block(outcome.send_back)
    lin.mark_finished(ctx.tx.lineage, agent_id=event.agent_id, now=ctx.now)
    if rec is None or delib is None or not rec.background:
        return hookio.Answer()
    step = engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now)
    return deliver(ctx, step, delib, background=True)


def _settle(ctx: Ctx, event: hookio.SubagentStop):
    """The lineage spawn of this agent; a Workflow agent (its transcript lives under the run's
    folder) is recorded as one even when its start was taken for an Agent request."""
    spawn = lin.find_by_agent(ctx.tx.lineage, event.agent_id)
    run_id = lin.workflow_run_of_transcript(event.agent_transcript_path)
    if run_id and spawn is not None and spawn.channel != "workflow":
        spawn = lin.settle_workflow_agent(ctx.tx.lineage, spawn, run_id, ctx.now)
        ctx.notes.append(f"agent {event.agent_id} ran in workflow run {run_id}")
    return spawn
