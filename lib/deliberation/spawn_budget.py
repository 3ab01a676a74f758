"""The spawn budget: at most N ACTIVE children per parent (default 12), nesting limited.

A depth limit alone misses the real failure (23 agents in 7 minutes, all at depth 1): agents
grow sideways. So the budget counts active children per parent. Deliberation agents inherit
their parent's depth instead of incrementing it; other agents may nest to `max_depth`.

Pure: the caller holds the session lock around decide → record, so parallel PreToolUse hooks
cannot race past the budget.
"""

from __future__ import annotations

from deliberation import lineage as lin
from deliberation.state import Lineage


class Verdict:
    __slots__ = ("allowed", "depth", "rule", "reason", "active")

    def __init__(self, allowed: bool, depth: int, rule: str = "", reason: str = "", active: int = 0) -> None:
        self.allowed = allowed
        self.depth = depth
        self.rule = rule
        self.reason = reason
        self.active = active


def decide(lineage: Lineage, parent: str, subagent_type: str, is_deliberation: bool,
           max_active: int, max_depth: int, stale_after_s: float, now: float) -> Verdict:
    parent_depth = lin.depth_of(lineage, parent)
    depth = parent_depth if (is_deliberation and parent_depth > 0) else parent_depth + 1
    active = lin.active_children(lineage, parent, now, stale_after_s)
    who = "the main agent" if parent == lin.MAIN else f"agent {parent}"
    if len(active) >= max_active:
        running = ", ".join(sorted({s.subagent_type for s in active}))
        return Verdict(False, depth, "budget",
                       f"Spawn budget: {who} already has {len(active)} of {max_active} active subagents "
                       f"({running}). Wait for some to finish (their reports arrive as they complete), "
                       f"then spawn again — or raise spawn_budget.max_active_children in "
                       f".claude/deliberation/config.json.", len(active))
    if not is_deliberation and depth > max_depth:
        return Verdict(False, depth, "depth",
                       f"Nesting limit: a {subagent_type} subagent here would be at depth {depth} > "
                       f"{max_depth}. Do this work in the current agent instead of spawning, or raise "
                       f"spawn_budget.max_depth in .claude/deliberation/config.json.", len(active))
    return Verdict(True, depth, active=len(active))
