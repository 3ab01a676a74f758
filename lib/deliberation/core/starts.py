"""SubagentStart: the child runs (pure). Linked to its spawn by type until PostToolUse.

A start with no request before it is a Workflow's agent (or one no hook announced): it is
recorded and counted, and since no hook can stop it, the first one that passes the spawn budget
is said loudly. The client does not show a SubagentStart's systemMessage (docs/CLIENT_CHANNELS.md),
so the notice is queued: the user sees it with the next task notification, prompt or Stop, the
main agent with the next UserPromptSubmit. A finished agent starting again is a SendMessage
resume: its deliberation record reopens (resume.py).
"""

from __future__ import annotations

from deliberation.core import agent_status, personas, plugin_workflow, send_message, spawn_budget
from deliberation.core import lineage as lin
from deliberation.core.turn import Turn
from deliberation.state.models import Spawn
from deliberation.text import budget as words
from deliberation.text import messages, refusals
from deliberation.wire import hookio


def started(turn: Turn, event: hookio.SubagentStart) -> hookio.Answer:
    sb = turn.cfg.spawn_budget
    spawn, what = lin.start(turn.tx.lineage, event.agent_id, event.agent_type, turn.now, sb.stale_after_s)
    if what == "restarted" and spawn is not None:
        _restarted(turn, spawn)
    elif spawn is not None and spawn.resumes:
        agent_status.resume_started(lin.pending_resume(turn.tx.lineage, spawn.agent_id))
    if what == "workflow" and spawn is not None:
        plugin_workflow.started(turn, spawn, event.agent_type)  # a wave agent of the plugin's workflow
    _delib, rec = turn.record_for_agent(event.agent_id, event.agent_type)
    agent_status.started(rec)
    answer = hookio.Answer()
    if what in ("workflow", "unlinked") and spawn is not None:
        answer = _unrefusable_start(turn, spawn, what)
    if rec is not None or personas.is_deliberation_agent(event.agent_type):
        # the state folder is refused to a deliberation agent (core/state_guard.py): say so first
        answer.context = refusals.state_folder_ahead()
    return answer


def _restarted(turn: Turn, spawn: Spawn) -> None:
    pending = lin.pending_resume(turn.tx.lineage, spawn.agent_id)
    agent_status.restart_started(pending)
    if pending is not None:
        why = pending.why or "resumed by a SendMessage"
    else:
        why = messages.UNSEEN_RESUME
    turn.notes.append(f"{spawn.subagent_type} restarted ({why[:60]})")
    send_message.reopen(turn, spawn, why)


def _unrefusable_start(turn: Turn, spawn: Spawn, what: str) -> hookio.Answer:
    run = lin.find_workflow(turn.tx.lineage, tool_use_id=spawn.workflow) if spawn.workflow else None
    turn.notes.append(f"{what} agent {spawn.subagent_type}" + (f" of workflow {run.name or run.task_id}" if run else ""))
    passed = spawn_budget.overrun(turn.tx.lineage, spawn.parent, turn.cfg.spawn_budget, turn.now)
    if not passed:
        return hookio.Answer()
    spawn.over_budget = True
    if run is not None:
        run.overrun += 1
        if run.overrun_told:
            return hookio.Answer()
        run.overrun_told = True
        text = words.workflow_overrun(run.name or "", passed)
    else:
        text = words.unannounced_overrun(passed, spawn.subagent_type)
    turn.notify_budget(text)
    return hookio.Answer(system_message=text)
