"""lineage: who spawned whom, the exact tool_use_id → agentId link, activity and depth."""

from __future__ import annotations

from deliberation import lineage as lin
from deliberation.state import Lineage

STALE = 1800


def req(l, tuid, typ="security-analyst", parent="main", depth=1, now=0.0, kind="persona"):
    return lin.record_request(l, tool_use_id=tuid, parent=parent, subagent_type=typ, kind=kind,
                              deliberation_id="d-1", depth=depth, background=True, now=now)


def test_record_request_appends_a_requested_spawn():
    l = Lineage(session_id="s")
    s = req(l, "t1", now=5.0)
    assert l.spawns == [s]
    assert (s.tool_use_id, s.parent, s.status, s.requested_at, s.agent_id) == ("t1", "main", "requested", 5.0, None)
    assert lin.find_by_tool_use(l, "t1") is s and lin.find_by_tool_use(l, None) is None


def test_subagent_start_links_the_oldest_unlinked_request_of_its_type():
    l = Lineage(session_id="s")
    a = req(l, "t1", "P:security-analyst", now=1)
    b = req(l, "t2", "cost-analyst", now=2)
    c = req(l, "t3", "security-analyst", now=3)
    got = lin.mark_started(l, "ag-1", "security-analyst", now=10)
    assert got is a and a.agent_id == "ag-1" and a.status == "running" and a.started_at == 10
    assert lin.mark_started(l, "ag-2", "security-analyst", now=11) is c
    assert lin.mark_started(l, "ag-3", "cost-analyst", now=12) is b
    assert lin.mark_started(l, "ag-4", "cost-analyst", now=13) is None  # nothing left of that type
    assert lin.mark_started(l, None, "cost-analyst", now=13) is None
    assert lin.mark_started(l, "ag-1", "security-analyst", now=20).started_at == 10  # idempotent


def test_post_tool_use_corrects_a_wrong_guess_by_swapping():
    l = Lineage(session_id="s")
    first = req(l, "t1", now=1)
    second = req(l, "t2", now=2)
    lin.mark_started(l, "ag-late", "security-analyst", now=5)   # really t2's child, guessed as t1
    assert first.agent_id == "ag-late"
    lin.link(l, "t2", "ag-late")
    assert second.agent_id == "ag-late" and second.status == "running" and second.started_at == 5
    assert first.agent_id is None and first.status == "requested" and first.started_at is None
    lin.link(l, "t1", "ag-early")
    assert first.agent_id == "ag-early"
    assert lin.find_by_agent(l, "ag-early") is first and lin.find_by_agent(l, "ag-late") is second


def test_link_without_spawn_or_agent_id():
    l = Lineage(session_id="s")
    assert lin.link(l, "nope", "ag") is None
    s = req(l, "t1")
    assert lin.link(l, "t1", None) is s and s.agent_id is None


def test_mark_finished_by_agent_or_tool_use_and_only_once():
    l = Lineage(session_id="s")
    a, b = req(l, "t1"), req(l, "t2")
    lin.link(l, "t1", "ag-1")
    assert lin.mark_finished(l, agent_id="ag-1", now=7) is a
    assert (a.status, a.finished_at) == ("completed", 7)
    assert lin.mark_finished(l, tool_use_id="t2", now=8, failed=True) is b and b.status == "failed"
    lin.mark_finished(l, agent_id="ag-1", now=99)
    assert a.finished_at == 7


def test_active_children_per_parent_with_stale_requests_expiring():
    l = Lineage(session_id="s")
    r1 = req(l, "t1", now=0)        # requested, will go stale
    r2 = req(l, "t2", now=1000)     # requested, fresh
    r3 = req(l, "t3", now=0)
    lin.link(l, "t3", "ag-3")
    lin.mark_started(l, "ag-3", "security-analyst", now=1)  # running: never stale
    r4 = req(l, "t4", now=0)
    lin.mark_finished(l, tool_use_id="t4", now=5)
    req(l, "t5", parent="ag-3", now=1000)
    now = 1500
    assert [s.tool_use_id for s in lin.active_children(l, "main", now, STALE)] == ["t1", "t2", "t3"]
    now = 0 + STALE + 1
    assert not lin.is_active(r1, now, STALE) and lin.is_active(r2, now, STALE)
    assert lin.is_active(r3, now, STALE) and not lin.is_active(r4, now, STALE)
    assert [s.tool_use_id for s in lin.active_children(l, "ag-3", now, STALE)] == ["t5"]


def test_depth_of():
    l = Lineage(session_id="s")
    req(l, "t1", depth=1)
    lin.link(l, "t1", "ag-1")
    req(l, "t2", parent="ag-1", depth=2, kind=None)
    lin.link(l, "t2", "ag-2")
    assert lin.depth_of(l, None) == 0 and lin.depth_of(l, "main") == 0
    assert lin.depth_of(l, "ag-1") == 1 and lin.depth_of(l, "ag-2") == 2
    assert lin.depth_of(l, "unknown-agent") == 1
