"""spawn_budget: at most N active children per parent; deliberation agents inherit depth."""

from __future__ import annotations

from deliberation import lineage as lin
from deliberation import spawn_budget
from deliberation.state import Lineage

STALE = 1800


def lineage_with(n_active: int, parent="main", n_done=0, n_stale=0) -> Lineage:
    l = Lineage(session_id="s")
    for i in range(n_active):
        lin.record_request(l, tool_use_id=f"a{i}", parent=parent, subagent_type="security-analyst",
                           kind="persona", deliberation_id="d", depth=1, background=True, now=1000)
    for i in range(n_done):
        lin.record_request(l, tool_use_id=f"d{i}", parent=parent, subagent_type="cost-analyst",
                           kind="persona", deliberation_id="d", depth=1, background=True, now=1000)
        lin.mark_finished(l, tool_use_id=f"d{i}", now=1001)
    for i in range(n_stale):
        lin.record_request(l, tool_use_id=f"s{i}", parent=parent, subagent_type="ux-advocate",
                           kind="persona", deliberation_id="d", depth=1, background=True, now=0)
    return l


def decide(l, parent="main", typ="security-analyst", delib=True, max_active=12, max_depth=3, now=1500):
    return spawn_budget.decide(l, parent, typ, delib, max_active, max_depth, STALE, now)


def test_eleven_active_allows_the_twelfth():
    v = decide(lineage_with(11))
    assert v.allowed and v.active == 11 and v.depth == 1 and v.reason == ""


def test_twelve_active_denies_with_counts_and_what_to_do():
    v = decide(lineage_with(12))
    assert not v.allowed and v.rule == "budget" and v.active == 12
    assert v.reason == (
        "Spawn budget: the main agent already has 12 of 12 active subagents (security-analyst). "
        "Wait for some to finish (their reports arrive as they complete), then spawn again — or raise "
        "spawn_budget.max_active_children in .claude/deliberation/config.json.")


def test_finished_and_stale_children_do_not_count():
    assert decide(lineage_with(11, n_done=5, n_stale=5), now=2000).allowed
    assert not decide(lineage_with(11, n_done=5, n_stale=5), now=1700).allowed  # the 5 are not stale yet


def test_the_budget_is_per_parent():
    l = lineage_with(12, parent="ag-parent")
    v = decide(l, parent="ag-parent")
    assert not v.allowed and "agent ag-parent already has 12 of 12" in v.reason
    assert decide(l, parent="main").allowed


def test_budget_is_configurable():
    assert not decide(lineage_with(3), max_active=3).allowed
    assert decide(lineage_with(39), max_active=40).allowed


def test_deliberation_agents_inherit_their_parents_depth():
    l = Lineage(session_id="s")
    for i, (parent, depth) in enumerate([("main", 1), ("ag-0", 2), ("ag-1", 3)]):
        lin.record_request(l, tool_use_id=f"t{i}", parent=parent, subagent_type="general-purpose", kind=None,
                           deliberation_id=None, depth=depth, background=True, now=1000)
        lin.link(l, f"t{i}", f"ag-{i}")
    # from the main agent: depth 1
    assert decide(l, "main").depth == 1
    # a deliberation agent spawned at depth 3 stays at 3 (no increment) and is allowed
    v = decide(l, "ag-2", delib=True)
    assert v.allowed and v.depth == 3
    # any other agent there would be at depth 4 > 3
    v = decide(l, "ag-2", typ="general-purpose", delib=False)
    assert not v.allowed and v.rule == "depth" and v.depth == 4
    assert v.reason.startswith("Nesting limit: a general-purpose subagent here would be at depth 4 > 3.")
    assert decide(l, "ag-1", typ="general-purpose", delib=False).allowed  # depth 3 is fine


def test_budget_applies_to_deliberation_agents_and_is_checked_before_depth():
    l = lineage_with(12)
    v = decide(l, delib=False, typ="general-purpose", max_depth=0)
    assert v.rule == "budget"
