"""spawn_budget: at most N active children per parent; deliberation agents inherit depth."""

from __future__ import annotations

from deliberation.core import lineage as lin
from deliberation.core import spawn_budget
from deliberation.state.config import SpawnBudgetConfig
from deliberation.state.models import Lineage

STALE = 1800


def lineage_with(n_active: int, parent="main", n_done=0, n_stale=0) -> Lineage:
    l = Lineage(session_id="s")
    for i in range(n_active):
        lin.record_request(
            l,
            tool_use_id=f"a{i}",
            parent=parent,
            subagent_type="security-analyst",
            kind="persona",
            deliberation_id="d",
            depth=1,
            background=True,
            now=1000,
        )
    for i in range(n_done):
        lin.record_request(
            l,
            tool_use_id=f"d{i}",
            parent=parent,
            subagent_type="cost-analyst",
            kind="persona",
            deliberation_id="d",
            depth=1,
            background=True,
            now=1000,
        )
        lin.mark_finished(l, tool_use_id=f"d{i}", now=1001)
    for i in range(n_stale):
        lin.record_request(
            l,
            tool_use_id=f"s{i}",
            parent=parent,
            subagent_type="ux-advocate",
            kind="persona",
            deliberation_id="d",
            depth=1,
            background=True,
            now=0,
        )
    return l


def limits(max_active=12, max_depth=3, max_total=10000):
    """The spawn_budget section with these limits (10000, the largest total: none in effect), not
    validated: a test may set a limit the config file could not (max_depth 0)."""
    return SpawnBudgetConfig.model_construct(
        max_active_children=max_active, max_depth=max_depth, max_session_total=max_total, stale_after_s=STALE
    )


def decide(l, parent="main", typ="security-analyst", delib=True, max_active=12, max_depth=3, now=1500):
    return spawn_budget.decide(l, parent, typ, delib, limits(max_active, max_depth), now)


def test_eleven_active_allows_the_twelfth():
    v = decide(lineage_with(11))
    assert v.allowed and v.active == 11 and v.depth == 1 and v.reason == ""


def test_twelve_active_denies_with_counts_and_what_to_do():
    v = decide(lineage_with(12))
    assert not v.allowed and v.rule == "budget" and v.active == 12
    assert v.reason == (
        "Spawn budget: the main agent already has 12 of 12 active subagents (security-analyst). "
        "Wait for some to finish (their reports arrive as they complete), then spawn again — or raise "
        "spawn_budget.max_active_children in .claude/deliberation/config.json."
    )


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
        lin.record_request(
            l,
            tool_use_id=f"t{i}",
            parent=parent,
            subagent_type="general-purpose",
            kind=None,
            deliberation_id=None,
            depth=depth,
            background=True,
            now=1000,
        )
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


# --------------------------------------------------------------------------- the session total


def finished_tree(n: int) -> Lineage:
    """n children that started and finished: none active, all counted in the session total."""
    l = Lineage(session_id="s")
    for i in range(n):
        lin.record_request(
            l,
            tool_use_id=f"f{i}",
            parent="main",
            subagent_type="general-purpose",
            kind=None,
            deliberation_id=None,
            depth=1,
            background=True,
            now=1000,
        )
        lin.link(l, f"f{i}", f"ag-f{i}")
        lin.mark_finished(l, agent_id=f"ag-f{i}", now=1001)
    return l


def test_the_session_total_counts_finished_children_too():
    l = finished_tree(59)
    assert decide(l, max_active=12).allowed  # no total given: the per-parent rule alone
    v = spawn_budget.decide(l, "main", "general-purpose", False, limits(12, 3, 59), 1500)
    assert not v.allowed and v.rule == "session_total"
    assert v.reason == (
        "Spawn budget: this session has started 59 of the 59 subagents it may start in all, so a new "
        "subagent is refused. Do the remaining work in this agent without spawning, or ask the user to raise "
        "spawn_budget.max_session_total in .claude/deliberation/config.json (resuming a finished agent with "
        "SendMessage is not a new subagent)."
    )
    assert spawn_budget.decide(l, "main", "general-purpose", False, limits(12, 3, 60), 1500).allowed


def test_a_tree_growing_sideways_and_down_stops_at_the_total():
    """Per parent only, 12 per level down to depth 3 would allow 12 + 144 + 1728: the total caps the tree."""
    l = Lineage(session_id="s")
    allowed, frontier, n = 0, ["main"], 0
    for depth in (1, 2, 3):
        nxt = []
        for parent in frontier:
            for _ in range(12):
                v = spawn_budget.decide(l, parent, "general-purpose", False, limits(12, 3, 60), 1500)
                if not v.allowed:
                    assert v.rule == "session_total"
                    continue
                n += 1
                lin.record_request(
                    l,
                    tool_use_id=f"t{n}",
                    parent=parent,
                    subagent_type="general-purpose",
                    kind=None,
                    deliberation_id=None,
                    depth=v.depth,
                    background=True,
                    now=1000,
                )
                lin.link(l, f"t{n}", f"ag-{n}")
                allowed += 1
                nxt.append(f"ag-{n}")
        frontier = nxt
    assert allowed == 60


def test_refused_and_stale_requests_do_not_count_toward_the_total():
    l = finished_tree(5)
    lin.record_request(
        l,
        tool_use_id="gone",
        parent="main",
        subagent_type="x",
        kind=None,
        deliberation_id=None,
        depth=1,
        background=True,
        now=1000,
    )
    lin.mark_finished(l, tool_use_id="gone", now=1001, failed=True)  # PostToolUseFailure: never started
    lin.record_request(
        l, tool_use_id="stale", parent="main", subagent_type="x", kind=None, deliberation_id=None, depth=1, background=True, now=0
    )
    assert spawn_budget.usage(l, "main", 1500, STALE).session_used == 6  # 5 finished + the stale one, not yet stale
    assert spawn_budget.usage(l, "main", 5000, STALE).session_used == 5


# --------------------------------------------------------------------------- workflows


def with_workflow(bound, agents_started=0, status="running", parent="main") -> Lineage:
    l = Lineage(session_id="s")
    run = lin.record_workflow(
        l, tool_use_id="wf1", parent=parent, deliberation_id=None, bound=bound, bound_detail="", agent_types=[], now=1000
    )
    run.status = status
    for i in range(agents_started):
        lin.attach_to_workflow(l, run, f"wa{i}", "workflow-subagent", 1001)
    return l


def test_a_running_workflow_holds_what_it_may_still_start():
    l = with_workflow(bound=10, agents_started=3)
    use = spawn_budget.usage(l, "main", 1500, STALE)
    assert (use.active, use.reserved, use.session_used, use.session_reserved) == (10, 7, 10, 7)
    v = decide(l, max_active=10)
    assert not v.allowed and v.reason.startswith(
        "Spawn budget: the main agent already has 10 of 10 active subagents (workflow, workflow-subagent, "
        "7 of them held for a running workflow)."
    )
    assert decide(l, max_active=11).allowed
    l.workflows[0].status = "completed"
    for s in l.spawns:
        s.status = "completed"
    assert spawn_budget.usage(l, "main", 1500, STALE).session_used == 3  # what really started


def test_inside_a_deliberation_a_workflow_must_fit_the_budget_before_it_runs():
    l = lineage_with(4)
    kw = dict(strict=True, limits=limits(12, max_total=60), now=1500)
    assert spawn_budget.decide_workflow(l, "main", 8, "8 calls", **kw).allowed
    v = spawn_budget.decide_workflow(l, "main", 9, "line 3: × 9", **kw)
    assert not v.allowed and v.rule == "budget"
    assert v.reason == (
        "it can start up to 9 agents (line 3: × 9); 8 spawn slot(s) are left (the main agent: "
        "4 of 12 active; this session: 4 of 60 started or held)"
    )
    v = spawn_budget.decide_workflow(l, "main", None, "line 4: an agent() call inside a while loop", **kw)
    assert not v.allowed and v.rule == "workflow_unbounded"
    assert v.reason.startswith("its agent count cannot be bounded before it runs (line 4: an agent() call inside")
    v = spawn_budget.decide_workflow(finished_tree(55), "main", 6, "6", **kw)
    assert not v.allowed and v.rule == "session_total" and "5 spawn slot(s) are left" in v.reason


def test_outside_a_deliberation_a_workflow_is_refused_only_when_nothing_is_left():
    kw = dict(strict=False, limits=limits(12, max_total=60), now=1500)
    assert spawn_budget.decide_workflow(lineage_with(11), "main", 15, "15", **kw).allowed
    assert spawn_budget.decide_workflow(lineage_with(11), "main", None, "none", **kw).allowed
    v = spawn_budget.decide_workflow(lineage_with(12), "main", 1, "1", **kw)
    assert not v.allowed and v.rule == "budget"
    v = spawn_budget.decide_workflow(finished_tree(60), "main", 1, "1", **kw)
    assert not v.allowed and v.rule == "session_total" and "so a workflow is refused" in v.reason


def test_overrun_counts_agents_that_really_run_not_reservations():
    l = with_workflow(bound=None, agents_started=12)
    assert spawn_budget.overrun(l, "main", limits(12, max_total=60), 1500) is None
    lin.attach_to_workflow(l, l.workflows[0], "wa12", "workflow-subagent", 1002)
    assert (
        spawn_budget.overrun(l, "main", limits(12, max_total=60), 1500)
        == "the main agent has 13 subagents running at once (budget 12)"
    )
    assert (
        spawn_budget.overrun(l, "main", limits(20, max_total=10), 1500)
        == "this session has started 13 subagents (budget 10 in all)"
    )
