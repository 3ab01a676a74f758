"""The spawn budget: at most N ACTIVE children per parent (default 12), at most T subagents per
session in all (default 60), nesting limited.

A depth limit alone misses the real failure (23 agents in 7 minutes, all at depth 1): agents
grow sideways. So the budget counts active children per parent. A tree of non-deliberation
agents can still grow 12 per level down to depth 3, so the session total caps the whole tree.
Deliberation agents inherit their parent's depth instead of incrementing it; other agents may
nest to `max_depth`.

Every channel that starts a subagent counts (docs/CLIENT_CHANNELS.md): Agent spawns from their
request, a Workflow's agents as they start — and, while the workflow runs, the agents its script
may still start (its bound from `workflow_plan`) are held against both limits. A SendMessage
resume makes a finished agent active again; it is not a new agent for the total.

Pure: the caller holds the session lock around decide → record, so parallel PreToolUse hooks
cannot race past either limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import lineage as lin
from deliberation.state.models import Lineage, WorkflowRun

CONFIG_HINT = ".claude/deliberation/config.json"


@dataclass
class Verdict:
    allowed: bool
    depth: int
    rule: str = ""
    reason: str = ""
    active: int = 0


@dataclass
class Usage:
    """What one parent and the session use of the budget now."""
    active: int                 # the parent's active children, reservations included
    active_types: "list[str]"
    reserved: int               # of which: agents its running workflows may still start
    session_used: int           # agents the session started or may still start
    session_reserved: int

    def left(self, max_active: int, max_total: int) -> int:
        """Spawn slots left: the smaller of the parent's and the session's."""
        return max(0, min(max_active - self.active, max_total - self.session_used))


def usage(lineage: Lineage, parent: str, now: float, stale_after_s: float) -> Usage:
    children = lin.active_children(lineage, parent, now, stale_after_s)
    runs = lin.active_workflows(lineage, now, stale_after_s)
    reserved = sum(lin.workflow_reserve(w) for w in runs if w.parent == parent)
    types = sorted({s.subagent_type for s in children} | ({"workflow"} if reserved else set()))
    session_reserved = sum(lin.workflow_reserve(w) for w in runs)
    started = sum(1 for s in lineage.spawns if lin.counts_toward_total(s, now, stale_after_s))
    return Usage(len(children) + reserved, types, reserved, started + session_reserved, session_reserved)


def who(parent: str) -> str:
    return "the main agent" if parent == lin.MAIN else f"agent {parent}"


def _active_reason(parent: str, use: Usage, max_active: int) -> str:
    held = f", {use.reserved} of them held for a running workflow" if use.reserved else ""
    return (f"Spawn budget: {who(parent)} already has {use.active} of {max_active} active subagents "
            f"({', '.join(use.active_types)}{held}). Wait for some to finish (their reports arrive as "
            "they complete), then spawn again — or raise spawn_budget.max_active_children in "
            f"{CONFIG_HINT}.")


def _total_reason(use: Usage, max_total: int, what: str = "a new subagent") -> str:
    held = f", {use.session_reserved} held for running workflows" if use.session_reserved else ""
    return (f"Spawn budget: this session has started {use.session_used} of the {max_total} subagents it "
            f"may start in all{held}, so {what} is refused. Do the remaining work in this agent without "
            "spawning, or ask the user to raise spawn_budget.max_session_total in "
            f"{CONFIG_HINT} (resuming a finished agent with SendMessage is not a new subagent).")


def decide(lineage: Lineage, parent: str, subagent_type: str, is_deliberation: bool,
           max_active: int, max_depth: int, stale_after_s: float, now: float,
           max_total: "int | None" = None) -> Verdict:
    """May `parent` spawn one more subagent of `subagent_type` now (the Agent tool)?"""
    parent_depth = lin.depth_of(lineage, parent)
    depth = parent_depth if (is_deliberation and parent_depth > 0) else parent_depth + 1
    use = usage(lineage, parent, now, stale_after_s)
    if use.active >= max_active:
        return Verdict(False, depth, "budget", _active_reason(parent, use, max_active), use.active)
    if max_total is not None and use.session_used >= max_total:
        return Verdict(False, depth, "session_total", _total_reason(use, max_total), use.active)
    if not is_deliberation and depth > max_depth:
        return Verdict(False, depth, "depth",
                       f"Nesting limit: a {subagent_type} subagent here would be at depth {depth} > "
                       f"{max_depth}. Do this work in the current agent instead of spawning, or raise "
                       f"spawn_budget.max_depth in {CONFIG_HINT}.", use.active)
    return Verdict(True, depth, active=use.active)


def decide_workflow(lineage: Lineage, parent: str, bound: "int | None", bound_why: str, *,
                    strict: bool, max_active: int, max_total: int, stale_after_s: float,
                    now: float) -> Verdict:
    """May `parent` launch a Workflow whose script can start `bound` agents (None: no bound)?

    `strict` (inside a deliberation): the whole bound must fit what is left of both limits,
    since no hook can stop a workflow's agents once it runs. Otherwise the workflow is refused
    only when nothing is left (as one more spawn would be); what it starts beyond the budget is
    counted and said loudly (`overrun`)."""
    use = usage(lineage, parent, now, stale_after_s)
    left = use.left(max_active, max_total)
    if not strict or bound == 0:
        if use.active >= max_active:
            return Verdict(False, 1, "budget", _active_reason(parent, use, max_active), use.active)
        if use.session_used >= max_total:
            return Verdict(False, 1, "session_total", _total_reason(use, max_total, "a workflow"), use.active)
        return Verdict(True, 1, active=use.active)
    slots = (f"{left} spawn slot(s) are left ({who(parent)}: {use.active} of {max_active} active; "
             f"this session: {use.session_used} of {max_total} started or held)")
    if bound is None:
        return Verdict(False, 1, "workflow_unbounded",
                       f"its agent count cannot be bounded before it runs ({bound_why}); {slots}", use.active)
    if bound > left:
        rule = "budget" if max_active - use.active <= max_total - use.session_used else "session_total"
        return Verdict(False, 1, rule, f"it can start up to {bound} agents ({bound_why}); {slots}", use.active)
    return Verdict(True, 1, active=use.active)


def overrun(lineage: Lineage, parent: str, max_active: int, max_total: int, now: float,
            stale_after_s: float) -> "str | None":
    """After an agent no hook could refuse has started: is a limit passed? The figures count
    agents that really run or started (not what a workflow might still start)."""
    running = sum(1 for s in lineage.spawns if s.parent == parent and s.status == "running")
    started = sum(1 for s in lineage.spawns if lin.counts_toward_total(s, now, stale_after_s))
    passed = []
    if running > max_active:
        passed.append(f"{who(parent)} has {running} subagents running at once (budget {max_active})")
    if started > max_total:
        passed.append(f"this session has started {started} subagents (budget {max_total} in all)")
    return "; ".join(passed) or None


def workflow_overrun_text(run: WorkflowRun, passed: str) -> str:
    name = f"workflow {run.name!r}" if run.name else "a workflow"
    return (f"⚠ SPAWN BUDGET PASSED by {name}: {passed}. Its agents were started by the workflow "
            "script, which no hook can stop once it runs; they are counted in the lineage. New Agent "
            "spawns and workflows are refused while the budget is passed (running agents free their slots as "
            "they finish; the session total does not come back).")
