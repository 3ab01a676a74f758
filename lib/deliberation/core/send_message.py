"""The SendMessage tool: a message to a running subagent, or the resume of a finished one (pure).

PreToolUse: a message to an agent of this session's lineage is checked like a spawn — resuming a
finished agent makes it active again (the per-parent budget), and a deliberation agent's message
goes through the rules of its stage (resume.py: phase order, research isolation, a ranker's
independence, one-pass roles). Messages to "main", to teammates or to other sessions are not ours.
PostToolUse: the client's answer says whether the agent was resumed (`resumedAgentId`) or the
message queued for a running agent; a resumed deliberation agent's record is reopened, so its
new report replaces the old one when it arrives (resume.restart).
"""

from __future__ import annotations

from deliberation.core import agent_status, plugin_workflow, resume, spawn_budget
from deliberation.core import lineage as lin
from deliberation.core.turn import Turn, find_record
from deliberation.state.models import Spawn
from deliberation.text import budget as words
from deliberation.wire import hookio


def requested(turn: Turn, event: hookio.PreToolUse) -> hookio.Answer:
    to, sender = event.message_to, event.agent_id or lin.MAIN
    lineage = turn.tx.lineage
    spawn = lin.find_by_agent(lineage, to) if to and to != lin.MAIN else None
    if spawn is None:
        if to and to != lin.MAIN:
            lin.record_resume(
                lineage,
                tool_use_id=event.tool_use_id,
                agent_id=to[:128],
                sender=sender,
                deliberation_id=None,
                rule="unknown_target",
                why="",
                message=event.message_text,
                now=turn.now,
            )
        return hookio.Answer()
    refused = plugin_workflow.message_refusal(turn, spawn)
    if refused:
        return _refuse(turn, event, sender, spawn.subagent_type, "workflow_agent", refused)
    label = f"{spawn.subagent_type} (agent {spawn.agent_id})"
    sb = turn.cfg.spawn_budget
    if spawn.status not in lin.ACTIVE:
        use = spawn_budget.usage(lineage, spawn.parent, turn.now, sb.stale_after_s)
        if use.active >= sb.max_active_children:
            return _refuse(
                turn,
                event,
                sender,
                spawn.subagent_type,
                "budget",
                words.resume_refusal(label, spawn.parent, use.active, sb.max_active_children),
            )
    delib = turn.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    rec = find_record(delib, agent_id=spawn.agent_id, tool_use_id=spawn.tool_use_id) if delib else None
    sender_rec = None
    if delib is not None and sender != lin.MAIN:
        sender_rec = find_record(delib, agent_id=sender)
    iso = turn.cfg.isolation
    decision = resume.decide(
        delib,
        rec,
        event.message_text,
        sender=sender_rec,
        isolation_enabled=iso.enabled,
        leak_threshold=iso.leak_threshold,
        blind_ranking=iso.blind_ranking,
        dimensions=[d.name for d in turn.cfg.ranking.dimensions],
    )
    if not decision.allowed:
        if delib is not None and decision.rule in ("phase", "closed", "one_pass"):
            delib.refused_transitions.append(decision.reason.splitlines()[0][:300])
            delib.updated_at = turn.now
        return _refuse(turn, event, sender, spawn.subagent_type, decision.rule, decision.reason)
    lin.record_resume(
        lineage,
        tool_use_id=event.tool_use_id,
        agent_id=spawn.agent_id or to,
        sender=sender,
        deliberation_id=delib.id if delib else None,
        rule=decision.rule,
        why=decision.why,
        message=event.message_text,
        now=turn.now,
    )
    turn.notes.append(f"message to {label}: {decision.rule}")
    return hookio.Answer()


def _refuse(turn: Turn, event: hookio.PreToolUse, sender: str, subagent_type: str, rule: str, reason: str) -> hookio.Answer:
    turn.refuse(event.tool_use_id, sender, subagent_type, rule, reason)
    return hookio.Answer.deny(reason)


def answered(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    lineage = turn.tx.lineage
    entry = lin.find_resume(lineage, event.tool_use_id)
    if entry is None:
        return hookio.Answer()
    resumed = event.resumed_agent_id
    agent_status.message_answered(entry, event.message_sent, bool(resumed))
    if not event.message_sent or not resumed:
        return hookio.Answer()
    spawn = lin.find_by_agent(lineage, resumed)
    if spawn is not None:
        lin.restart(spawn)
        reopen(turn, spawn, entry.why or "resumed by a SendMessage")
    return hookio.Answer()


def not_sent(turn: Turn, event: hookio.PostToolUseFailure) -> hookio.Answer:
    agent_status.message_failed(lin.find_resume(turn.tx.lineage, event.tool_use_id))
    return hookio.Answer()


def reopen(turn: Turn, spawn: Spawn, why: str) -> None:
    """A resumed deliberation agent: its record runs again; the next report replaces the old."""
    if not spawn.deliberation_id:
        return
    delib = turn.tx.deliberation(spawn.deliberation_id)
    rec = find_record(delib, agent_id=spawn.agent_id, tool_use_id=spawn.tool_use_id) if delib else None
    if delib is None or rec is None or rec.status not in ("reported", "invalid"):
        return
    resume.restart(delib, rec, why, turn.now)
    turn.notes.append(f"{rec.persona} resumed: its next report replaces the earlier one ({why[:80]})")
