"""PostToolUseFailure (`Task|Agent|Workflow|SendMessage`): a call PreToolUse allowed did not happen.

The client refused it after our hook (an unknown agent type — e.g. a plugin agent written
without its namespace — or an invalid input). The spawn leaves the lineage's active set and its
deliberation record is marked refused, so the budget is freed, a Stop does not wait for an
agent that will never report, and a corrected retry is not counted twice.
"""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import agent_status, send_message, workflows
from deliberation.core import lineage as lin
from deliberation.core.turn import find_record
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.PostToolUseFailure) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        return workflows.not_launched(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        return send_message.not_sent(ctx, event)
    if not event.is_subagent_tool:
        return hookio.Answer()
    spawn = lin.find_by_tool_use(ctx.tx.lineage, event.tool_use_id)
    lin.mark_finished(ctx.tx.lineage, tool_use_id=event.tool_use_id, now=ctx.now, failed=True)
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn is not None and spawn.deliberation_id else None
    rec = find_record(delib, tool_use_id=event.tool_use_id) if delib else None
    if delib is not None and rec is not None and agent_status.spawn_failed(delib, rec, event.error, ctx.now):
        ctx.notes.append(f"spawn failed: {rec.persona}")
    return hookio.Answer()
