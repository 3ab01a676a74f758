"""SubagentStart: lineage — the child is running (linked to its spawn by type until PostToolUse).

A start with no request before it is a Workflow's agent (or one no hook announced): it is
recorded and counted, and since no hook can stop it, the first one that passes the spawn budget
is said loudly. The client does not show a SubagentStart's systemMessage (docs/CLIENT_CHANNELS.md),
so the notice is queued: the user sees it with the next task notification, prompt or Stop, the
main agent with the next UserPromptSubmit. A finished agent starting again is a SendMessage
resume: its deliberation record reopens (resume.py).
"""

from __future__ import annotations

from deliberation.wire import hookio
from deliberation.app.handlers.common import Ctx, record_for_agent


def handle(ctx: Ctx, event: hookio.SubagentStart) -> hookio.Answer:
    from deliberation.core import lineage as lin

    sb = ctx.cfg.spawn_budget
    spawn, what = lin.start(ctx.tx.lineage, event.agent_id, event.agent_type, ctx.now, sb.stale_after_s)
    if what == "restarted" and spawn is not None:
        _restarted(ctx, spawn)
    elif spawn is not None and spawn.resumes:
        pending = lin.pending_resume(ctx.tx.lineage, spawn.agent_id)
        if pending is not None and pending.status == "resumed":
            pending.status = "started"  # the resume PostToolUse announced has begun
    if what == "workflow" and spawn is not None:
        from deliberation.app.handlers import plugin_workflow

        plugin_workflow.started(ctx, spawn, event.agent_type)
    delib, rec = record_for_agent(ctx, event.agent_id, event.agent_type)
    if rec is not None and rec.status == "spawned":
        rec.status = "running"
    if what in ("workflow", "unlinked") and spawn is not None:
        return _unrefusable_start(ctx, spawn, what)
    return hookio.Answer()


def _restarted(ctx: Ctx, spawn) -> None:
    from deliberation.core import lineage as lin
    from deliberation.app.handlers.send_message_tool import reopen

    pending = lin.pending_resume(ctx.tx.lineage, spawn.agent_id)
    if pending is not None:
        pending.status = "started"
        why = pending.why or "resumed by a SendMessage"
    else:
        why = ("resumed without the plugin seeing a SendMessage (its hook does not match that tool): "
               "recorded as a revision")
    ctx.notes.append(f"{spawn.subagent_type} restarted ({why[:60]})")
    reopen(ctx, spawn, why)


def _unrefusable_start(ctx: Ctx, spawn, what: str) -> hookio.Answer:
    from deliberation.core import lineage as lin
    from deliberation.core import spawn_budget

    sb = ctx.cfg.spawn_budget
    run = lin.find_workflow(ctx.tx.lineage, tool_use_id=spawn.workflow) if spawn.workflow else None
    ctx.notes.append(f"{what} agent {spawn.subagent_type}" + (f" of workflow {run.name or run.task_id}" if run else ""))
    passed = spawn_budget.overrun(ctx.tx.lineage, spawn.parent, sb.max_active_children, sb.max_session_total,
                                  ctx.now, sb.stale_after_s)
    if not passed:
        return hookio.Answer()
    spawn.over_budget = True
    if run is not None:
        run.overrun += 1
        if run.overrun_told:
            return hookio.Answer()
        run.overrun_told = True
        text = spawn_budget.workflow_overrun_text(run, passed)
    else:
        text = (f"⚠ SPAWN BUDGET PASSED: {passed}, by a subagent ({spawn.subagent_type}) whose start no hook "
                "announced, so none could refuse it. It is counted in the lineage; new spawns are refused "
                "while the budget is passed.")
    ctx.notify_budget(text)
    return hookio.Answer(system_message=text)
