"""The Workflow tool: a script whose agent() calls start subagents no later hook can refuse (pure;
the shell reads the script).

PreToolUse on the Workflow call is the one moment the plugin can stop a workflow's agents
(docs/CLIENT_CHANNELS.md: they fire no PreToolUse, and a SubagentStart hook cannot stop them).
So the script's agent bound is read from its text (workflow_plan.py) and:
- inside an open deliberation, a workflow that names the deliberation's persona or role agents is
  refused (those are spawned one by one with the Agent tool, where phase order and isolation are
  checked), and one whose bound could pass what is left of the budget — or has no bound — is
  refused with what to do instead;
- outside one, the workflow is refused only when the budget is already spent (as one more spawn
  would be); a bound that passes what is left is said at once, to the user and the model, and
  its agents are counted as they start (starts.py says loudly when they pass it).
The allowed run is recorded in the lineage; its bound is held against the budget until it ends.
PostToolUse records the launch (task id, run id); the run ends with its task notification or
when a Stop no longer lists it as running.
"""

from __future__ import annotations

from deliberation.core import agent_status, personas, phases, spawn_budget, workflow_plan
from deliberation.core import lineage as lin
from deliberation.core.turn import Turn
from deliberation.state.models import WorkflowRun
from deliberation.text import budget as words
from deliberation.wire import hookio


def requested(turn: Turn, event: hookio.PreToolUse, script: "str | None", source: str) -> hookio.Answer:
    """PreToolUse of a Workflow call whose script the shell read (None: it could not; `source`
    says where it came from, or why not)."""
    parent = event.agent_id or lin.MAIN
    plan = workflow_plan.plan(script or "", event.workflow_args)
    why = plan.describe()
    if script is None:
        why = f"no bound: {source}"
    elif event.tool_input.get("resumeFromRunId"):
        why += " (a resumed run: agents it replays from its cache count too)"
    bound = plan.bound if script is not None else None
    active = turn.active()
    delib = active if active is not None and active.phase not in phases.CLOSED else None
    named = [t for t in plan.agent_types if personas.is_deliberation_agent(t)]
    turn.notes.append(f"workflow {why[:160]}")
    if delib is not None and named:
        slugs = ", ".join(sorted({personas.normalise_agent_type(t) for t in named}))
        return _refuse(turn, event, parent, "workflow_personas", words.workflow_personas_refusal(delib.id, delib.phase, slugs))
    sb = turn.cfg.spawn_budget
    verdict = spawn_budget.decide_workflow(turn.tx.lineage, parent, bound, why, strict=delib is not None,
                                           limits=sb, now=turn.now)
    if not verdict.allowed:
        reason = verdict.reason if delib is None else words.workflow_inside_refusal(delib.id, delib.phase, verdict.reason)
        return _refuse(turn, event, parent, verdict.rule, reason)
    left = spawn_budget.usage(turn.tx.lineage, parent, turn.now, sb.stale_after_s).left(
        sb.max_active_children, sb.max_session_total)
    run = lin.record_workflow(turn.tx.lineage, tool_use_id=event.tool_use_id, parent=parent,
                              deliberation_id=delib.id if delib is not None else None, bound=bound, bound_detail=why,
                              agent_types=plan.agent_types, now=turn.now)
    key = run.tool_use_id or f"workflow-{len(turn.tx.lineage.workflows)}"
    if key not in turn.tx.session.open_workflows:
        turn.tx.session.open_workflows.append(key)
    if delib is not None:
        return hookio.Answer()
    notes = []
    if bound is None or bound > left:
        notes.append(words.workflow_size_warning(bound, why, left))
    if named:
        notes.append(words.workflow_named_agents(named))
    if not notes:
        return hookio.Answer()
    text = "\n".join(notes)
    return hookio.Answer(context=text, system_message=text if notes[0].startswith("⚠") else None)


def _refuse(turn: Turn, event: hookio.PreToolUse, parent: str, rule: str, reason: str) -> hookio.Answer:
    turn.refuse(event.tool_use_id, parent, "Workflow", rule, reason)
    return hookio.Answer.deny(reason)


def launched(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    launch = event.workflow_launch
    run = lin.workflow_launched(turn.tx.lineage, event.tool_use_id, task_id=launch["taskId"] or None,
                                run_id=launch["runId"] or None, name=launch["workflowName"], now=turn.now)
    if run is not None:
        turn.notes.append(f"workflow launched: task {run.task_id}, run {run.run_id}")
    return hookio.Answer()


def not_launched(turn: Turn, event: hookio.PostToolUseFailure) -> hookio.Answer:
    """The client did not run a workflow our hook allowed: its reservation goes."""
    run = lin.find_workflow(turn.tx.lineage, tool_use_id=event.tool_use_id)
    if agent_status.workflow_not_launched(run, turn.now) and run is not None:
        close(turn, run)
    return hookio.Answer()


def close(turn: Turn, run: WorkflowRun) -> None:
    """Forget a finished run in the session's open list (the fast path stops routing to us)."""
    key = run.tool_use_id
    turn.tx.session.open_workflows = [k for k in turn.tx.session.open_workflows if k != key]


def finished(turn: Turn, task_id: str, status: str) -> "str | None":
    """A <task-notification> for a workflow: close the run; the overrun summary if it passed
    the budget (None otherwise)."""
    run = lin.find_workflow(turn.tx.lineage, task_id=task_id)
    if run is None:
        return None
    lin.workflow_finished(turn.tx.lineage, run, turn.now, failed=status not in ("completed", ""))
    close(turn, run)
    turn.notes.append(f"workflow {run.name or run.task_id} {run.status}: {run.agents} agent(s)")
    if not run.overrun:
        return None
    sb = turn.cfg.spawn_budget
    return words.workflow_finished(run.name or run.task_id or "", run.overrun, run.agents,
                                   sb.max_active_children, sb.max_session_total)


def reconcile(turn: Turn, running_task_ids: "list[str]") -> None:
    """At Stop: runs the client no longer lists as running have ended; a run never launched
    (a permission refused it after our hook) frees its reservation."""
    for run in lin.close_missing_workflows(turn.tx.lineage, running_task_ids, turn.now):
        close(turn, run)
    known = {w.tool_use_id for w in turn.tx.lineage.workflows if w.status in ("requested", "running")}
    turn.tx.session.open_workflows = [k for k in turn.tx.session.open_workflows if k in known]
