"""The Workflow tool: a script whose agent() calls start subagents no later hook can refuse (pure;
the shell reads the script).

PreToolUse on the Workflow call is the one moment the plugin can stop a workflow's agents
(docs/CLIENT_CHANNELS.md: they fire no PreToolUse, and a SubagentStart hook cannot stop them).
So:
- the plugin's own deliberation workflow, and any other workflow while a deliberation is
  requested or open (refused, the plugin's named), are plugin_workflow.py's (docs/WORKFLOW.md);
- any other workflow is refused only when the budget is already spent (as one more spawn would
  be); its agent bound is read from its text (workflow_plan.py), and a bound that passes what is
  left is said at once, to the user and the model; its agents are counted as they start
  (starts.py says loudly when they pass it).
The allowed run is recorded in the lineage; its bound is held against the budget until it ends.
PostToolUse records the launch (task id, run id); the run ends with its task notification or
when a Stop no longer lists it as running.
"""

from __future__ import annotations

from deliberation.core import agent_status, personas, plugin_workflow, spawn_budget, workflow_plan
from deliberation.core import lineage as lin
from deliberation.core.turn import Turn
from deliberation.state.models import WorkflowRun
from deliberation.text import budget as words
from deliberation.wire import hookio


def requested(turn: Turn, event: hookio.PreToolUse, script: "str | None", source: str, prefix: str) -> hookio.Answer:
    """PreToolUse of a Workflow call whose script the shell read (None: it could not; `source`
    says where it came from, or why not); `prefix`: the plugin's agent namespace ('' when the
    hooks do not run as the plugin)."""
    decided = plugin_workflow.requested(turn, event, prefix)
    if decided is not None:
        return decided
    parent = event.agent_id or lin.MAIN
    plan = workflow_plan.plan(script or "", event.workflow_args)
    why = plan.describe()
    if script is None:
        why = f"no bound: {source}"
    elif event.tool_input.get("resumeFromRunId"):
        why += words.RESUMED_RUN
    bound = plan.bound if script is not None else None
    named = [t for t in plan.agent_types if personas.is_deliberation_agent(t)]
    turn.notes.append(f"workflow {why[:160]}")
    sb = turn.cfg.spawn_budget
    verdict = spawn_budget.decide_workflow(turn.tx.lineage, parent, bound, why, strict=False, limits=sb, now=turn.now)
    if not verdict.allowed:
        return _refuse(turn, event, parent, verdict.rule, verdict.reason)
    left = spawn_budget.usage(turn.tx.lineage, parent, turn.now, sb.stale_after_s).left(
        sb.max_active_children, sb.max_session_total
    )
    run = lin.record_workflow(
        turn.tx.lineage,
        tool_use_id=event.tool_use_id,
        parent=parent,
        deliberation_id=None,
        bound=bound,
        bound_detail=why,
        agent_types=plan.agent_types,
        now=turn.now,
    )
    resumed = event.tool_input.get("resumeFromRunId")
    run.resumed_from = resumed[:200] if isinstance(resumed, str) else None
    key = run.tool_use_id or f"workflow-{len(turn.tx.lineage.workflows)}"
    if key not in turn.tx.session.open_workflows:
        turn.tx.session.open_workflows.append(key)
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
    run = lin.workflow_launched(
        turn.tx.lineage,
        event.tool_use_id,
        task_id=launch["taskId"] or None,
        run_id=launch["runId"] or None,
        name=launch["workflowName"],
        now=turn.now,
    )
    if run is None:
        return hookio.Answer()
    turn.notes.append(f"workflow launched: task {run.task_id}, run {run.run_id}")
    folder = event.tool_response.get("transcriptDir")
    if isinstance(folder, str):
        run.transcript_dir = folder[:1000]  # its journal says which agents a resumed run replayed
    if run.plugin:
        return plugin_workflow.launched(turn, event, run)
    return hookio.Answer()


def not_launched(turn: Turn, event: hookio.PostToolUseFailure) -> hookio.Answer:
    """The client did not run a workflow our hook allowed: its reservation goes."""
    run = lin.find_workflow(turn.tx.lineage, tool_use_id=event.tool_use_id)
    if agent_status.workflow_not_launched(run, turn.now) and run is not None:
        close(turn, run)
        if run.plugin:
            plugin_workflow.not_launched(turn, run)
    return hookio.Answer()


def close(turn: Turn, run: WorkflowRun) -> None:
    """Forget a finished run in the session's open list (the fast path stops routing to us)."""
    key = run.tool_use_id
    turn.tx.session.open_workflows = [k for k in turn.tx.session.open_workflows if k != key]


def finished(turn: Turn, task_id: str, status: str, notification: str = "") -> "tuple[str | None, str | None]":
    """A <task-notification> for a workflow: close the run. Returns (the overrun summary if it
    passed the budget, the outcome for the main agent of a plugin run) — each None when there is none."""
    run = lin.find_workflow(turn.tx.lineage, task_id=task_id)
    if run is None:
        return None, None
    lin.workflow_finished(turn.tx.lineage, run, turn.now, failed=status not in ("completed", ""))
    close(turn, run)
    turn.notes.append(f"workflow {run.name or run.task_id} {run.status}: {run.agents} agent(s)")
    outcome = plugin_workflow.finished(turn, run, notification)
    if not run.overrun:
        return None, outcome
    sb = turn.cfg.spawn_budget
    return words.workflow_finished(
        run.name or run.task_id or "", run.overrun, run.agents, sb.max_active_children, sb.max_session_total
    ), outcome


def reconcile(turn: Turn, running_task_ids: "list[str]") -> None:
    """At Stop: runs the client no longer lists as running have ended; a run never launched
    (a permission refused it after our hook) frees its reservation."""
    for run in lin.close_missing_workflows(turn.tx.lineage, running_task_ids, turn.now):
        close(turn, run)
        if run.plugin and run.status == "not_launched":
            plugin_workflow.not_launched(turn, run)
    known = {w.tool_use_id for w in turn.tx.lineage.workflows if w.status in ("requested", "running")}
    turn.tx.session.open_workflows = [k for k in turn.tx.session.open_workflows if k in known]
