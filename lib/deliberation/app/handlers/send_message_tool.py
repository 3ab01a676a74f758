"""The SendMessage tool: a message to a running subagent, or the resume of a finished one.

PreToolUse: a message to an agent of this session's lineage is checked like a spawn — resuming a
finished agent makes it active again (the per-parent budget), and a deliberation agent's message
goes through the rules of its stage (resume.py: phase order, research isolation, a ranker's
independence, one-pass roles). Messages to "main", to teammates or to other sessions are not ours.
PostToolUse: the client's answer says whether the agent was resumed (`resumedAgentId`) or the
message queued for a running agent; a resumed deliberation agent's record is reopened, so its
new report replaces the old one when it arrives (resume.restart).
"""

from __future__ import annotations

from deliberation.wire import hookio
from deliberation.core import resume, spawn_budget
from deliberation.core import lineage as lin
from deliberation.app.handlers.common import Ctx, deny, find_record


def pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    to, sender = event.message_to, event.agent_id or lin.MAIN
    lineage = ctx.tx.lineage
    spawn = lin.find_by_agent(lineage, to) if to and to != lin.MAIN else None
    if spawn is None:
        if to and to != lin.MAIN:
            lin.record_resume(lineage, tool_use_id=event.tool_use_id, agent_id=to[:128], sender=sender,
                              deliberation_id=None, rule="unknown_target", why="", message=event.message_text,
                              now=ctx.now)
        return hookio.Answer()
    from deliberation.app.handlers.plugin_workflow import refuse_message

    refused = refuse_message(ctx, spawn)
    if refused:
        return deny(ctx, event, sender, "workflow_agent", refused, spawn.subagent_type)
    label = f"{spawn.subagent_type} (agent {spawn.agent_id})"
    sb = ctx.cfg.spawn_budget
    if spawn.status not in lin.ACTIVE:
        use = spawn_budget.usage(lineage, spawn.parent, ctx.now, sb.stale_after_s)
        if use.active >= sb.max_active_children:
            return deny(ctx, event, sender, "budget",
                        f"Spawn budget: resuming {label} would make it active again, but "
                        f"{spawn_budget.who(spawn.parent)} already has {use.active} of {sb.max_active_children} "
                        "active subagents. Wait for some to finish (their reports arrive as they complete), then "
                        "send the message again.", spawn.subagent_type)
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    rec = find_record(delib, agent_id=spawn.agent_id, tool_use_id=spawn.tool_use_id) if delib else None
    sender_rec = None
    if delib is not None and sender != lin.MAIN:
        sender_rec = find_record(delib, agent_id=sender)
    decision = resume.decide(delib, rec, event.message_text, sender=sender_rec,
                             isolation_enabled=ctx.cfg.isolation.enabled,
                             leak_threshold=ctx.cfg.isolation.leak_threshold,
                             blind_ranking=ctx.cfg.isolation.blind_ranking)
    if not decision.allowed:
        if delib is not None and decision.rule in ("phase", "closed", "one_pass"):
            delib.refused_transitions.append(decision.reason.splitlines()[0][:300])
            delib.updated_at = ctx.now
        return deny(ctx, event, sender, decision.rule, decision.reason, spawn.subagent_type)
    lin.record_resume(lineage, tool_use_id=event.tool_use_id, agent_id=spawn.agent_id or to, sender=sender,
                      deliberation_id=delib.id if delib else None, rule=decision.rule, why=decision.why,
                      message=event.message_text, now=ctx.now)
    ctx.notes.append(f"message to {label}: {decision.rule}")
    return hookio.Answer()


def post(ctx: Ctx, event: hookio.PostToolUse) -> hookio.Answer:
    lineage = ctx.tx.lineage
    entry = lin.find_resume(lineage, event.tool_use_id)
    if entry is None:
        return hookio.Answer()
    resumed = event.resumed_agent_id
    if not event.message_sent:
        if entry.status == "requested":
            entry.status = "failed"
        return hookio.Answer()
    if not resumed:
        if entry.status == "requested":
            entry.status = "delivered"  # queued for a running agent (it resumes if it finishes first)
        return hookio.Answer()
    if entry.status == "requested":  # its SubagentStart may have come first and marked it started
        entry.status = "resumed"
    spawn = lin.find_by_agent(lineage, resumed)
    if spawn is not None:
        lin.restart(spawn)
        reopen(ctx, spawn, entry.why or "resumed by a SendMessage")
    return hookio.Answer()


def failed(ctx: Ctx, event: hookio.PostToolUseFailure) -> hookio.Answer:
    entry = lin.find_resume(ctx.tx.lineage, event.tool_use_id)
    if entry is not None and entry.status == "requested":
        entry.status = "failed"
    return hookio.Answer()


def reopen(ctx: Ctx, spawn, why: str) -> None:
    """A resumed deliberation agent: its record runs again; the next report replaces the old."""
    if not spawn.deliberation_id:
        return
    delib = ctx.tx.deliberation(spawn.deliberation_id)
    rec = find_record(delib, agent_id=spawn.agent_id, tool_use_id=spawn.tool_use_id) if delib else None
    if delib is None or rec is None or rec.status not in ("reported", "invalid"):
        return
    resume.restart(delib, rec, why, ctx.now)
    ctx.notes.append(f"{rec.persona} resumed: its next report replaces the earlier one ({why[:80]})")
