"""The spawn tree of a session (pure operations over `state.Lineage`).

Who spawned whom: the parent is the calling subagent's `agent_id` from the PreToolUse payload,
or "main" when absent. The child's `agentId` is linked through PostToolUse's `tool_use_id`
(exact) or, earlier, through SubagentStart (which carries the agent type but no tool_use_id:
the oldest unlinked request of that type is taken, and PostToolUse corrects it).
A child is active from its request until it finishes (SubagentStop, or a completed
PostToolUse); a request never seen to start stops counting after `stale_after_s`.

The client's other channels (docs/CLIENT_CHANNELS.md):
- a Workflow call is a `WorkflowRun`; its agents fire SubagentStart with no request before it
  (type `workflow-subagent`, or the script's `agentType`) and are recorded as children of the
  workflow's caller, `channel="workflow"`; the run ends with its task notification (or when a
  Stop no longer lists it as a running background task);
- a SendMessage to a finished agent resumes it: the same agent id starts again (`restart`),
  counted in `resumes`, not as a new agent;
- a start no hook announced (hooks installed mid-session, an old matcher) is still recorded,
  `channel="unlinked"`, so it counts.
"""

from __future__ import annotations

import hashlib

from deliberation.core.personas import normalise_agent_type
from deliberation.state.models import AgentKind, Lineage, Resume, Spawn, WorkflowRun
from deliberation.text import budget as words

MAIN = "main"
ACTIVE = ("requested", "running")
WORKFLOW_AGENT_TYPE = "workflow-subagent"  # the client's type for an agent() call with no agentType
WORKFLOW_TRANSCRIPTS = "/subagents/workflows/"  # a workflow agent's transcript lives under this


def find_by_tool_use(lineage: Lineage, tool_use_id: "str | None") -> "Spawn | None":
    if not tool_use_id:
        return None
    for spawn in lineage.spawns:
        if spawn.tool_use_id == tool_use_id:
            return spawn
    return None


def find_by_agent(lineage: Lineage, agent_id: "str | None") -> "Spawn | None":
    if not agent_id:
        return None
    for spawn in lineage.spawns:
        if spawn.agent_id == agent_id:
            return spawn
    return None


def depth_of(lineage: Lineage, agent_id: "str | None") -> int:
    """Depth of an agent: main is 0; unknown agents count as depth 1."""
    if not agent_id or agent_id == MAIN:
        return 0
    spawn = find_by_agent(lineage, agent_id)
    return spawn.depth if spawn else 1


def is_active(spawn: Spawn, now: float, stale_after_s: float) -> bool:
    if spawn.status not in ACTIVE:
        return False
    if spawn.status == "requested" and now - spawn.requested_at > stale_after_s:
        return False
    return True


def active_children(lineage: Lineage, parent: str, now: float, stale_after_s: float) -> "list[Spawn]":
    return [s for s in lineage.spawns if s.parent == parent and is_active(s, now, stale_after_s)]


def record_request(
    lineage: Lineage,
    *,
    tool_use_id: "str | None",
    parent: str,
    subagent_type: str,
    kind: "AgentKind | None",
    deliberation_id: "str | None",
    depth: int,
    background: bool,
    now: float,
) -> Spawn:
    spawn = Spawn(
        tool_use_id=tool_use_id,
        parent=parent,
        subagent_type=subagent_type,
        kind=kind,
        deliberation_id=deliberation_id,
        depth=depth,
        background=background,
        requested_at=now,
    )
    lineage.spawns.append(spawn)
    return spawn


def link(lineage: Lineage, tool_use_id: "str | None", agent_id: "str | None") -> "Spawn | None":
    """PostToolUse: the exact tool_use_id → agentId link. Moves a guessed link if needed."""
    spawn = find_by_tool_use(lineage, tool_use_id)
    if spawn is None or not agent_id:
        return spawn
    if spawn.agent_id != agent_id:
        other = find_by_agent(lineage, agent_id)
        if other is not None and other is not spawn:
            # SubagentStart guessed the wrong request of the same type: swap the guesses
            other.agent_id, spawn.agent_id = spawn.agent_id, agent_id
            other.status, spawn.status = spawn.status, other.status
            other.started_at, spawn.started_at = spawn.started_at, other.started_at
        else:
            spawn.agent_id = agent_id
    return spawn


def mark_started(lineage: Lineage, agent_id: "str | None", agent_type: "str | None", now: float) -> "Spawn | None":
    """SubagentStart: link to the oldest unlinked request of the same type, mark it running."""
    if not agent_id:
        return None
    spawn = find_by_agent(lineage, agent_id)
    if spawn is None:
        wanted = normalise_agent_type(agent_type)
        for candidate in lineage.spawns:
            if (
                candidate.agent_id is None
                and candidate.status == "requested"
                and normalise_agent_type(candidate.subagent_type) == wanted
            ):
                spawn = candidate
                spawn.agent_id = agent_id
                break
    if spawn is not None and spawn.status == "requested":
        spawn.status = "running"
        spawn.started_at = now
    return spawn


def mark_finished(
    lineage: Lineage, *, agent_id: "str | None" = None, tool_use_id: "str | None" = None, now: float, failed: bool = False
) -> "Spawn | None":
    spawn = find_by_agent(lineage, agent_id) or find_by_tool_use(lineage, tool_use_id)
    if spawn is not None and spawn.status in ACTIVE:
        spawn.status = "failed" if failed else "completed"
        spawn.finished_at = now
    return spawn


def counts_toward_total(spawn: Spawn, now: float, stale_after_s: float) -> bool:
    """A spawn the session total counts: it started, or it was allowed and may still start.
    A request the client refused after our hook (PostToolUseFailure) or never seen to start
    within `stale_after_s` does not count."""
    return spawn.started_at is not None or spawn.agent_id is not None or is_active(spawn, now, stale_after_s)


# ---------------------------------------------------------------------------------------------
# workflows


def find_workflow(
    lineage: Lineage, *, tool_use_id: "str | None" = None, task_id: "str | None" = None, run_id: "str | None" = None
) -> "WorkflowRun | None":
    for run in lineage.workflows:
        if (
            (tool_use_id and run.tool_use_id == tool_use_id)
            or (task_id and run.task_id == task_id)
            or (run_id and run.run_id == run_id)
        ):
            return run
    return None


def workflow_is_active(run: WorkflowRun, now: float, stale_after_s: float) -> bool:
    if run.status == "running":
        return True
    return run.status == "requested" and now - run.requested_at <= stale_after_s


def active_workflows(lineage: Lineage, now: float, stale_after_s: float, parent: "str | None" = None) -> "list[WorkflowRun]":
    return [w for w in lineage.workflows if workflow_is_active(w, now, stale_after_s) and (parent is None or w.parent == parent)]


def workflow_reserve(run: WorkflowRun) -> int:
    """Agents an active workflow may still start: its bound minus the agents seen starting
    (0 for a run with no bound — each of its agents counts as it starts)."""
    return max(0, run.bound - run.agents) if run.bound is not None else 0


def record_workflow(
    lineage: Lineage,
    *,
    tool_use_id: "str | None",
    parent: str,
    deliberation_id: "str | None",
    bound: "int | None",
    bound_detail: str,
    agent_types: "list[str]",
    now: float,
) -> WorkflowRun:
    run = WorkflowRun(
        tool_use_id=tool_use_id,
        parent=parent,
        deliberation_id=deliberation_id,
        bound=bound,
        bound_detail=bound_detail[:500],
        agent_types=agent_types[:50],
        requested_at=now,
    )
    lineage.workflows.append(run)
    return run


def workflow_launched(
    lineage: Lineage, tool_use_id: "str | None", *, task_id: "str | None", run_id: "str | None", name: str, now: float
) -> "WorkflowRun | None":
    """PostToolUse of the Workflow call: the client launched it in the background."""
    run = find_workflow(lineage, tool_use_id=tool_use_id)
    if run is None:
        return None
    run.task_id, run.run_id, run.name = task_id or run.task_id, run_id or run.run_id, (name or run.name)[:200]
    if run.status == "requested":
        run.status, run.started_at = "running", now
    return run


def workflow_finished(lineage: Lineage, run: WorkflowRun, now: float, failed: bool = False) -> None:
    """The run ended: so did every agent of it (one whose SubagentStop was lost stops counting)."""
    if run.status in ("requested", "running"):
        run.status = "failed" if failed else "completed"
        run.finished_at = now
    for spawn in lineage.spawns:
        if spawn.workflow == run.tool_use_id and spawn.channel == "workflow" and spawn.status in ACTIVE:
            spawn.status, spawn.finished_at = "completed", now


def close_unlisted_starts(lineage: Lineage, running_ids: "list[str]", now: float) -> "list[Spawn]":
    """A Stop lists the running background tasks: an agent whose start no hook announced and that
    is not among them has ended (its SubagentStop was not seen) and stops counting as active."""
    closed = []
    for spawn in lineage.spawns:
        if spawn.channel == "unlinked" and spawn.status == "running" and spawn.agent_id not in running_ids:
            spawn.status, spawn.finished_at = "completed", now
            closed.append(spawn)
    return closed


def close_missing_workflows(lineage: Lineage, running_task_ids: "list[str]", now: float) -> "list[WorkflowRun]":
    """A Stop lists the session's running background tasks: a launched workflow not among them
    has finished (its notification may still be on its way); one never launched was not run
    (denied by a permission after our hook allowed it)."""
    closed = []
    for run in lineage.workflows:
        if run.status == "running" and run.task_id and run.task_id not in running_task_ids:
            workflow_finished(lineage, run, now)
            closed.append(run)
        elif run.status == "requested":
            run.status, run.finished_at = "not_launched", now
            closed.append(run)
    return closed


def _running_workflow_for(lineage: Lineage, agent_type: "str | None", now: float, stale_after_s: float) -> "WorkflowRun | None":
    runs = active_workflows(lineage, now, stale_after_s)
    if not runs:
        return None
    wanted = normalise_agent_type(agent_type)
    if wanted and wanted != WORKFLOW_AGENT_TYPE:
        named = [w for w in runs if wanted in {normalise_agent_type(t) for t in w.agent_types}]
        runs = named or runs
    # the oldest run that may still start agents, else the newest
    open_runs = [w for w in runs if w.bound is None or w.agents < w.bound]
    return (open_runs or runs)[0] if open_runs else runs[-1]


# ---------------------------------------------------------------------------------------------
# SubagentStart: which start is this?


def start(
    lineage: Lineage, agent_id: "str | None", agent_type: "str | None", now: float, stale_after_s: float
) -> "tuple[Spawn | None, str]":
    """Record a SubagentStart. Returns (spawn, what): 'started' (an Agent spawn, linked),
    'restarted' (a finished agent running again: a SendMessage resume), 'workflow' (an agent of
    a Workflow run), 'unlinked' (nothing announced it), or 'ignored' (no agent id)."""
    if not agent_id:
        return None, "ignored"
    spawn = find_by_agent(lineage, agent_id)
    if spawn is not None:
        if spawn.status == "requested":
            spawn.status, spawn.started_at = "running", now
            return spawn, "started"
        if restart(spawn):
            return spawn, "restarted"
        return spawn, "started"
    if normalise_agent_type(agent_type) != WORKFLOW_AGENT_TYPE:
        linked = mark_started(lineage, agent_id, agent_type, now)
        if linked is not None:
            return linked, "started"
    run = _running_workflow_for(lineage, agent_type, now, stale_after_s)
    if run is not None:
        return attach_to_workflow(lineage, run, agent_id, agent_type, now), "workflow"
    spawn = Spawn(
        agent_id=agent_id,
        parent=MAIN,
        subagent_type=agent_type or "unknown",
        depth=1,
        status="running",
        requested_at=now,
        started_at=now,
        channel="unlinked",
    )
    lineage.spawns.append(spawn)
    return spawn, "unlinked"


def attach_to_workflow(lineage: Lineage, run: WorkflowRun, agent_id: str, agent_type: "str | None", now: float) -> Spawn:
    spawn = Spawn(
        agent_id=agent_id,
        parent=run.parent,
        subagent_type=agent_type or WORKFLOW_AGENT_TYPE,
        depth=1,
        background=True,
        status="running",
        requested_at=now,
        started_at=now,
        channel="workflow",
        workflow=run.tool_use_id,
    )
    lineage.spawns.append(spawn)
    run.agents += 1
    if run.status == "requested":
        run.status, run.started_at = "running", now
    return spawn


def workflow_run_of_transcript(path: "str | None") -> "str | None":
    """`…/subagents/workflows/<runId>/agent-<id>.jsonl` → runId (None for any other agent)."""
    if not path or WORKFLOW_TRANSCRIPTS not in path:
        return None
    rest = path.split(WORKFLOW_TRANSCRIPTS, 1)[1]
    run_id = rest.split("/", 1)[0]
    return run_id or None


def settle_workflow_agent(lineage: Lineage, spawn: Spawn, run_id: str, now: float) -> Spawn:
    """SubagentStop's transcript path proves `spawn`'s agent ran in workflow `run_id`. A start
    first taken for an Agent request of the same type (the two are alike at SubagentStart) is
    given back to the request, and the agent is recorded under its workflow."""
    run = find_workflow(lineage, run_id=run_id)
    if spawn.channel == "workflow":
        if run is not None and spawn.workflow != run.tool_use_id:
            spawn.workflow = run.tool_use_id
        return spawn
    agent_id = spawn.agent_id or ""
    if spawn.channel == "agent" and spawn.tool_use_id:
        # the request is still waiting for its own agent: put it back
        spawn.agent_id, spawn.status, spawn.started_at = None, "requested", None
        target = None
    else:
        target = spawn  # an unlinked start: it simply becomes a workflow agent
    if target is None:
        if run is None:
            run = WorkflowRun(run_id=run_id, status="running", requested_at=now, started_at=now, bound_detail=words.UNSEEN_RUN)
            lineage.workflows.append(run)
        return attach_to_workflow(lineage, run, agent_id, spawn.subagent_type, now)
    target.channel = "workflow"
    if run is not None:
        target.workflow = run.tool_use_id
        run.agents += 1
    return target


# ---------------------------------------------------------------------------------------------
# SendMessage


def record_resume(
    lineage: Lineage,
    *,
    tool_use_id: "str | None",
    agent_id: str,
    sender: str,
    deliberation_id: "str | None",
    rule: str,
    why: str,
    message: str,
    now: float,
) -> Resume:
    resume = Resume(
        tool_use_id=tool_use_id,
        agent_id=agent_id,
        sender=sender,
        deliberation_id=deliberation_id,
        rule=rule,
        why=why,
        at=now,
        message_chars=len(message),
        message_sha256=hashlib.sha256(message.encode("utf-8", "surrogatepass")).hexdigest(),
    )
    lineage.resumes.append(resume)
    return resume


def find_resume(lineage: Lineage, tool_use_id: "str | None") -> "Resume | None":
    if not tool_use_id:
        return None
    return next((r for r in reversed(lineage.resumes) if r.tool_use_id == tool_use_id), None)


def pending_resume(lineage: Lineage, agent_id: "str | None") -> "Resume | None":
    """The newest SendMessage to `agent_id` that was allowed and whose resume has not started
    (a message queued for a running agent resumes it when that agent finishes first)."""
    if not agent_id:
        return None
    return next(
        (r for r in reversed(lineage.resumes) if r.agent_id == agent_id and r.status in ("requested", "resumed", "delivered")),
        None,
    )


def restart(spawn: Spawn) -> bool:
    """A finished agent runs again (a SendMessage resume); True when this call changed it."""
    if spawn.status in ACTIVE:
        return False
    spawn.status, spawn.finished_at = "running", None
    spawn.resumes += 1
    return True
