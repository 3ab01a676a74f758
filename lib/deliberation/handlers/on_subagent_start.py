"""SubagentStart: lineage — the child is running (linked to its spawn by type until PostToolUse)."""

from __future__ import annotations

from deliberation import hookio
from deliberation.handlers.common import Ctx, record_for_agent


def handle(ctx: Ctx, event: hookio.SubagentStart) -> hookio.Answer:
    from deliberation import lineage as lin

    lin.mark_started(ctx.tx.lineage, event.agent_id, event.agent_type, ctx.now)
    delib, rec = record_for_agent(ctx, event.agent_id, event.agent_type)
    if rec is not None and rec.status == "spawned":
        rec.status = "running"
    return hookio.Answer()
