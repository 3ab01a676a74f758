"""PostToolUse (`Task|Agent|Workflow|SendMessage`): link the spawn to its agent id and the model
the client resolved for it; foreground reports and Gate 1. (Workflow and SendMessage: their
modules record the launch and the resume.)

Background launches (`async_launched`) only link and report progress — once per parallel
launch, not once per agent; the report arrives in SubagentStop. A completed foreground agent's report is captured here if SubagentStop did not
already record it (each report exactly once), then the engine decides what the main agent hears
— a gate result, a depth-axis instruction or the progress note — said once per parallel batch:
the client fires a PostToolUse as each agent of the batch finishes but hands the model all their
results in one request, so the progress note waits for the batch's last result.
"""

from __future__ import annotations

from deliberation.core import engine, phases
from deliberation.wire import hookio
from deliberation.core import lineage as lin
from deliberation.core.capture import capture
from deliberation.app.handlers.common import (Ctx, budget_view, deliver, find_record, link_record, say_once)


def handle(ctx: Ctx, event: hookio.PostToolUse) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        from deliberation.app.handlers import workflow_tool

        return workflow_tool.post(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        from deliberation.app.handlers import send_message_tool

        return send_message_tool.post(ctx, event)
    if event.tool_name == hookio.REPORT_TOOL:
        from deliberation.app.handlers import plugin_workflow

        return plugin_workflow.report_post(ctx, event)
    if not event.is_subagent_tool:
        return hookio.Answer()
    spawn = lin.link(ctx.tx.lineage, event.tool_use_id, event.child_agent_id)
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn and spawn.deliberation_id else None
    rec = find_record(delib, tool_use_id=event.tool_use_id) if delib else None
    if rec is not None:
        link_record(rec, event.child_agent_id)
    model = event.resolved_model
    if model:
        if spawn is not None:
            spawn.model = model
        if rec is not None:
            rec.model = model
    status = event.status
    if status == "async_launched":
        if spawn is not None and spawn.status == "requested":
            spawn.status = "running"
            spawn.started_at = ctx.now
        if rec is not None and rec.status == "spawned":
            rec.status = "running"
        if delib is None:
            return hookio.Answer()
        return say_once(ctx, delib, hookio.Answer(context=engine.progress_text(delib, ctx.cfg)))
    lin.mark_finished(ctx.tx.lineage, agent_id=event.child_agent_id, tool_use_id=event.tool_use_id,
                      now=ctx.now, failed=status != "completed")
    if rec is None or delib is None:
        return hookio.Answer()
    if event.total_tokens:
        from deliberation.core import token_usage

        token_usage.count(delib, rec, event.total_tokens, "totalTokens")
    if rec.status in ("spawned", "running"):
        if status == "completed":
            d = ctx.cfg.deliberation
            capture(delib, rec, event.report_text, stop_hook_active=True, max_bytes=d.max_report_bytes,
                    retries=d.report_retries, dimensions=[x.name for x in ctx.cfg.ranking.dimensions],
                    now=ctx.now)
        else:
            rec.status = "invalid"
            rec.problem = f"the agent ended with status {status!r} and no report"
    delib.updated_at = ctx.now
    step = engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now)
    siblings = [a for a in phases.pending(delib) if not a.background]
    if step.progress and siblings:
        # the client hands the main agent a parallel batch's results together, in one request:
        # the batch's last PostToolUse gives its note, counting them all
        ctx.notes.append(f"progress left to the batch's last result ({len(siblings)} still running)")
        return hookio.Answer()
    return deliver(ctx, step, delib, background=False)
