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
from deliberation.state.config import SpawnBudgetConfig
from deliberation.state.models import Lineage
from deliberation.text import budget as words
from deliberation.text.budget import CONFIG_HINT as CONFIG_HINT
from deliberation.text.budget import who as who


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

    active: int  # the parent's active children, reservations included
    active_types: "list[str]"
    reserved: int  # of which: agents its running workflows may still start
    session_used: int  # agents the session started or may still start
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


def decide(
    lineage: Lineage, parent: str, subagent_type: str, is_deliberation: bool, limits: SpawnBudgetConfig, now: float
) -> Verdict:
    """May `parent` spawn one more subagent of `subagent_type` now (the Agent tool)?"""
    max_active, max_total, max_depth = limits.max_active_children, limits.max_session_total, limits.max_depth
    parent_depth = lin.depth_of(lineage, parent)
    depth = parent_depth if (is_deliberation and parent_depth > 0) else parent_depth + 1
    use = usage(lineage, parent, now, limits.stale_after_s)
    if use.active >= max_active:
        return Verdict(False, depth, "budget", _active(parent, use, max_active), use.active)
    if use.session_used >= max_total:
        return Verdict(False, depth, "session_total", _total(use, max_total), use.active)
    if not is_deliberation and depth > max_depth:
        return Verdict(False, depth, "depth", words.depth_refusal(subagent_type, depth, max_depth), use.active)
    return Verdict(True, depth, active=use.active)


def _active(parent: str, use: Usage, max_active: int) -> str:
    return words.active_refusal(parent, use.active, max_active, use.active_types, use.reserved)


def _total(use: Usage, max_total: int, what: str = "a new subagent") -> str:
    return words.total_refusal(use.session_used, max_total, use.session_reserved, what)


def decide_workflow(
    lineage: Lineage, parent: str, bound: "int | None", bound_why: str, *, strict: bool, limits: SpawnBudgetConfig, now: float
) -> Verdict:
    """May `parent` launch a Workflow whose script can start `bound` agents (None: no bound)?

    `strict` (inside a deliberation): the whole bound must fit what is left of both limits,
    since no hook can stop a workflow's agents once it runs. Otherwise the workflow is refused
    only when nothing is left (as one more spawn would be); what it starts beyond the budget is
    counted and said loudly (`overrun`)."""
    max_active, max_total = limits.max_active_children, limits.max_session_total
    use = usage(lineage, parent, now, limits.stale_after_s)
    left = use.left(max_active, max_total)
    if not strict or bound == 0:
        if use.active >= max_active:
            return Verdict(False, 1, "budget", _active(parent, use, max_active), use.active)
        if use.session_used >= max_total:
            return Verdict(False, 1, "session_total", _total(use, max_total, "a workflow"), use.active)
        return Verdict(True, 1, active=use.active)
    slots = words.slots_left(parent, left, use.active, max_active, use.session_used, max_total)
    if bound is None:
        return Verdict(False, 1, "workflow_unbounded", words.workflow_unbounded(bound_why, slots), use.active)
    if bound > left:
        rule = "budget" if max_active - use.active <= max_total - use.session_used else "session_total"
        return Verdict(False, 1, rule, words.workflow_too_big(bound, bound_why, slots), use.active)
    return Verdict(True, 1, active=use.active)


def overrun(lineage: Lineage, parent: str, limits: SpawnBudgetConfig, now: float) -> "str | None":
    """After an agent no hook could refuse has started: is a limit passed? The figures count
    agents that really run or started (not what a workflow might still start)."""
    running = sum(1 for s in lineage.spawns if s.parent == parent and s.status == "running")
    started = sum(1 for s in lineage.spawns if lin.counts_toward_total(s, now, limits.stale_after_s))
    passed = []
    if running > limits.max_active_children:
        passed.append(words.passed_running(parent, running, limits.max_active_children))
    if started > limits.max_session_total:
        passed.append(words.passed_total(started, limits.max_session_total))
    return "; ".join(passed) or None
