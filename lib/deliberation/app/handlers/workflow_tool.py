"""The Workflow tool: a script whose agent() calls start subagents no later hook can refuse.

PreToolUse on the Workflow call is the one moment the plugin can stop a workflow's agents
(docs/CLIENT_CHANNELS.md: they fire no PreToolUse, and a SubagentStart hook cannot stop them).
- The plugin's own deliberation workflow, and any other workflow while a deliberation is
  requested or open (refused, the plugin's named), are plugin_workflow's (docs/WORKFLOW.md).
- Any other workflow is refused only when the budget is already spent (as one more spawn would
  be); its agent bound is read from its text (workflow_plan.py), and a bound that passes what is
  left is said at once, to the user and the model; its agents are counted as they start
  (on_subagent_start says loudly when they pass it).
The allowed run is recorded in the lineage; its bound is held against the budget until it ends.
PostToolUse records the launch (task id, run id); the run ends with its task notification or
when a Stop no longer lists it as running.
"""

from __future__ import annotations

import os

from deliberation.wire import hookio
from deliberation.core import personas, spawn_budget
from deliberation.core import lineage as lin
from deliberation.app.handlers.common import Ctx, deny

MAX_SCRIPT_BYTES = 512 * 1024


def pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    from deliberation.app.handlers import plugin_workflow
    from deliberation.core import workflow_plan
    from deliberation.state.paths import plugin_agent_prefix

    decided = plugin_workflow.pre(ctx, event, plugin_agent_prefix())
    if decided is not None:
        return decided
    parent = event.agent_id or lin.MAIN
    script, source = _script(ctx, event)
    plan = workflow_plan.plan(script or "", event.workflow_args)
    why = plan.describe()
    if script is None:
        why = f"no bound: {source}"
    elif event.tool_input.get("resumeFromRunId"):
        why += " (a resumed run: agents it replays from its cache count too)"
    bound = plan.bound if script is not None else None
    named = [t for t in plan.agent_types if personas.is_deliberation_agent(t)]
    ctx.notes.append(f"workflow {why[:160]}")
    sb = ctx.cfg.spawn_budget
    verdict = spawn_budget.decide_workflow(
        ctx.tx.lineage, parent, bound, why, strict=False, max_active=sb.max_active_children,
        max_total=sb.max_session_total, stale_after_s=sb.stale_after_s, now=ctx.now)
    if not verdict.allowed:
        return deny(ctx, event, parent, verdict.rule, verdict.reason, "Workflow")
    left = spawn_budget.usage(ctx.tx.lineage, parent, ctx.now, sb.stale_after_s).left(
        sb.max_active_children, sb.max_session_total)
    run = lin.record_workflow(ctx.tx.lineage, tool_use_id=event.tool_use_id, parent=parent, deliberation_id=None,
                              bound=bound, bound_detail=why, agent_types=plan.agent_types, now=ctx.now)
    resumed = event.tool_input.get("resumeFromRunId")
    run.resumed_from = resumed[:200] if isinstance(resumed, str) else None
    key = run.tool_use_id or f"workflow-{len(ctx.tx.lineage.workflows)}"
    if key not in ctx.tx.session.open_workflows:
        ctx.tx.session.open_workflows.append(key)
    notes = []
    if bound is None or bound > left:
        size = f"up to {bound} agents" if bound is not None else "any number of agents (the client stops at 1000)"
        notes.append(f"⚠ Spawn budget: this workflow can start {size} ({why}) and {left} spawn slot(s) are "
                     "left. Its agents run even past the budget — no hook can stop a workflow's agents — and "
                     "each is counted; if they pass it, new spawns are refused and you will be told.")
    if named:
        notes.append(f"Note: its agents of type {', '.join(named)} are not part of any deliberation (their "
                     "reports are not recorded); to deliberate, spawn the personas with the Agent tool.")
    if not notes:
        return hookio.Answer()
    text = "\n".join(notes)
    return hookio.Answer(context=text, system_message=text if notes[0].startswith("⚠") else None)


def post(ctx: Ctx, event: hookio.PostToolUse) -> hookio.Answer:
    launch = event.workflow_launch
    run = lin.workflow_launched(ctx.tx.lineage, event.tool_use_id, task_id=launch["taskId"] or None,
                                run_id=launch["runId"] or None, name=launch["workflowName"], now=ctx.now)
    if run is not None:
        ctx.notes.append(f"workflow launched: task {run.task_id}, run {run.run_id}")
        folder = event.tool_response.get("transcriptDir")
        if isinstance(folder, str):
            run.transcript_dir = folder[:1000]  # its journal says which agents a resumed run replayed
        if run.plugin:
            from deliberation.app.handlers import plugin_workflow

            return plugin_workflow.post(ctx, event, run)
    return hookio.Answer()


def failed(ctx: Ctx, event: hookio.PostToolUseFailure) -> hookio.Answer:
    """The client did not run a workflow our hook allowed: its reservation goes."""
    run = lin.find_workflow(ctx.tx.lineage, tool_use_id=event.tool_use_id)
    if run is not None and run.status in ("requested", "running"):
        run.status, run.finished_at = "not_launched", ctx.now
        close(ctx, run)
        if run.plugin:
            from deliberation.app.handlers import plugin_workflow

            plugin_workflow.not_launched(ctx, run)
    return hookio.Answer()


def close(ctx: Ctx, run) -> None:
    """Forget a finished run in the session's open list (the fast path stops routing to us)."""
    key = run.tool_use_id
    ctx.tx.session.open_workflows = [k for k in ctx.tx.session.open_workflows if k != key]


def finished_notice(ctx: Ctx, task_id: str, status: str, notification: str = "") -> "tuple[str | None, str | None]":
    """A <task-notification> for a workflow: close the run. Returns (the overrun summary if it
    passed the budget, the outcome for the main agent of a plugin run) — each None when there is none."""
    run = lin.find_workflow(ctx.tx.lineage, task_id=task_id)
    if run is None:
        return None, None
    lin.workflow_finished(ctx.tx.lineage, run, ctx.now, failed=status not in ("completed", ""))
    close(ctx, run)
    ctx.notes.append(f"workflow {run.name or run.task_id} {run.status}: {run.agents} agent(s)")
    from deliberation.app.handlers import plugin_workflow

    outcome = plugin_workflow.finished(ctx, run, notification)
    if not run.overrun:
        return None, outcome
    sb = ctx.cfg.spawn_budget
    return (f"⚠ Spawn budget: workflow {run.name or run.task_id!r} finished; {run.overrun} of its {run.agents} "
            f"agents started past the budget ({sb.max_active_children} active per parent, "
            f"{sb.max_session_total} per session). They are recorded in the lineage; keep further work "
            "within the budget."), outcome


def reconcile(ctx: Ctx, running_task_ids: "list[str]") -> None:
    """At Stop: runs the client no longer lists as running have ended; a run never launched
    (a permission refused it after our hook) frees its reservation."""
    for run in lin.close_missing_workflows(ctx.tx.lineage, running_task_ids, ctx.now):
        close(ctx, run)
        if run.plugin and run.status == "not_launched":
            from deliberation.app.handlers import plugin_workflow

            plugin_workflow.not_launched(ctx, run)
    known = {w.tool_use_id for w in ctx.tx.lineage.workflows if w.status in ("requested", "running")}
    ctx.tx.session.open_workflows = [k for k in ctx.tx.session.open_workflows if k in known]


# ---------------------------------------------------------------------------------------------


def _script(ctx: Ctx, event: hookio.PreToolUse) -> "tuple[str | None, str]":
    """The script the call will run: inline, from `scriptPath`, or a saved workflow of the
    project (`.claude/workflows/<name>.js`). (None, why) when it cannot be read."""
    if event.workflow_script_path:
        return _read(event.workflow_script_path, "the script file")
    if event.workflow_script:
        return event.workflow_script, "inline"
    name = event.workflow_name
    if name and "/" not in name and not name.startswith("."):
        for folder in (os.path.join(ctx.layout.project, ".claude", "workflows"),):
            for ext in (".js", ".mjs"):
                path = os.path.join(folder, name + ext)
                if os.path.isfile(path):
                    return _read(path, f"saved workflow {name!r}")
        return None, f"workflow {name!r} is a saved or built-in workflow whose script the plugin cannot read"
    return None, "the call names no script"


def _read(path: str, what: str) -> "tuple[str | None, str]":
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SCRIPT_BYTES + 1)
    except OSError as exc:
        return None, f"{what} could not be read ({exc.strerror or exc})"
    if len(data) > MAX_SCRIPT_BYTES:
        return None, f"{what} is larger than {MAX_SCRIPT_BYTES} bytes"
    return data.decode("utf-8", "replace"), what
