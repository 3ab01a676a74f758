"""PostToolUseFailure (`Task|Agent|Workflow|SendMessage`): a spawn PreToolUse allowed did not happen.

The client refused it after our hook (an unknown agent type — e.g. a plugin agent written
without its namespace — or an invalid input). The spawn leaves the lineage's active set and its
deliberation record is marked refused, so the budget is freed, a Stop does not wait for an
agent that will never report, and a corrected retry is not counted twice.
"""

from __future__ import annotations

from deliberation.wire import hookio
from deliberation.core import lineage as lin
from deliberation.app.handlers.common import Ctx, find_record


def handle(ctx: Ctx, event: hookio.PostToolUseFailure) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        from deliberation.app.handlers import workflow_tool

        return workflow_tool.failed(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        from deliberation.app.handlers import send_message_tool

        return send_message_tool.failed(ctx, event)
    if not event.is_subagent_tool:
        return hookio.Answer()
    spawn = lin.find_by_tool_use(ctx.tx.lineage, event.tool_use_id)
    lin.mark_finished(ctx.tx.lineage, tool_use_id=event.tool_use_id, now=ctx.now, failed=True)
    if spawn is None or not spawn.deliberation_id:
        return hookio.Answer()
    delib = ctx.tx.deliberation(spawn.deliberation_id)
    rec = find_record(delib, tool_use_id=event.tool_use_id) if delib else None
    if rec is None or rec.status not in ("spawned", "running"):
        return hookio.Answer()
    rec.status = "refused"
    rec.problem = f"the spawn failed: {event.error.strip()[:300] or 'no error text'}"
    delib.updated_at = ctx.now
    ctx.notes.append(f"spawn failed: {rec.persona}")
    if rec.tier == 2:
        from deliberation.core.depth import axis as depth_axis

        depth_axis.refresh_counts(delib, check=False)
    return hookio.Answer()
