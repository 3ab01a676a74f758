"""lineage: who spawned whom, the exact tool_use_id → agentId link, activity and depth."""

from __future__ import annotations

from deliberation.core import lineage as lin
from deliberation.state.models import Lineage

STALE = 1800


def req(l, tuid, typ="security-analyst", parent="main", depth=1, now=0.0, kind="persona"):
    return lin.record_request(
        l,
        tool_use_id=tuid,
        parent=parent,
        subagent_type=typ,
        kind=kind,
        deliberation_id="d-1",
        depth=depth,
        background=True,
        now=now,
    )


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
    lin.mark_started(l, "ag-late", "security-analyst", now=5)  # really t2's child, guessed as t1
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
    r1 = req(l, "t1", now=0)  # requested, will go stale
    r2 = req(l, "t2", now=1000)  # requested, fresh
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


# --------------------------------------------------------------------------- the client's other channels


def workflow(l, tuid="wf1", bound=3, types=()):
    return lin.record_workflow(
        l, tool_use_id=tuid, parent="main", deliberation_id=None, bound=bound, bound_detail="", agent_types=list(types), now=1.0
    )


def test_a_workflow_agent_is_recorded_under_its_run_and_counted():
    l = Lineage(session_id="s")
    run = workflow(l)
    lin.workflow_launched(l, "wf1", task_id="w123", run_id="wf_abc", name="fanout", now=2.0)
    spawn, what = lin.start(l, "ag-w1", "workflow-subagent", 3.0, STALE)
    assert what == "workflow" and spawn.channel == "workflow" and spawn.workflow == "wf1"
    assert (spawn.parent, spawn.status, run.agents, run.status) == ("main", "running", 1, "running")
    assert lin.workflow_reserve(run) == 2


def test_an_agent_type_of_the_script_starts_under_the_workflow_unless_a_request_waits_for_it():
    l = Lineage(session_id="s")
    workflow(l, types=["security-analyst"])
    waiting = req(l, "t1", "security-analyst", now=2)
    spawn, what = lin.start(l, "ag-1", "security-analyst", 3.0, STALE)
    assert what == "started" and spawn is waiting  # the Agent request first (PostToolUse corrects a wrong guess)
    spawn, what = lin.start(l, "ag-2", "security-analyst", 4.0, STALE)
    assert what == "workflow" and spawn.channel == "workflow"


def test_a_start_nothing_announced_is_still_recorded():
    l = Lineage(session_id="s")
    spawn, what = lin.start(l, "ag-x", "Explore", 3.0, STALE)
    assert what == "unlinked" and spawn.channel == "unlinked" and spawn.status == "running"
    assert lin.counts_toward_total(spawn, 3.0, STALE)
    assert lin.start(l, None, "Explore", 3.0, STALE) == (None, "ignored")


def test_a_finished_agent_starting_again_is_a_resume_not_a_new_agent():
    l = Lineage(session_id="s")
    req(l, "t1")
    lin.link(l, "t1", "ag-1")
    lin.mark_finished(l, agent_id="ag-1", now=5.0)
    spawn, what = lin.start(l, "ag-1", "security-analyst", 6.0, STALE)
    assert what == "restarted" and spawn.status == "running" and spawn.resumes == 1 and spawn.finished_at is None
    assert len(l.spawns) == 1
    assert lin.start(l, "ag-1", "security-analyst", 6.5, STALE)[1] == "started"  # already running: no 2nd count
    assert not lin.restart(spawn) and spawn.resumes == 1


def test_the_transcript_path_proves_a_workflow_agent_and_gives_the_request_back():
    l = Lineage(session_id="s")
    workflow(l, types=["security-analyst"])
    lin.workflow_launched(l, "wf1", task_id="w1", run_id="wf_abc-123", name="x", now=2.0)
    waiting = req(l, "t1", "security-analyst", now=2)
    taken, _ = lin.start(l, "ag-w", "security-analyst", 3.0, STALE)  # taken for the Agent request
    assert taken is waiting
    path = "/home/u/.claude/projects/p/sid/subagents/workflows/wf_abc-123/agent-ag-w.jsonl"
    assert lin.workflow_run_of_transcript(path) == "wf_abc-123"
    assert lin.workflow_run_of_transcript("/home/u/.claude/projects/p/sid/subagents/agent-ag-1.jsonl") is None
    settled = lin.settle_workflow_agent(l, taken, "wf_abc-123", 4.0)
    assert settled.channel == "workflow" and settled.agent_id == "ag-w" and settled.workflow == "wf1"
    assert (waiting.agent_id, waiting.status, waiting.started_at) == (None, "requested", None)


def test_a_stop_closes_runs_it_no_longer_lists_and_frees_runs_never_launched():
    l = Lineage(session_id="s")
    a = workflow(l, "wfA")
    lin.workflow_launched(l, "wfA", task_id="wA", run_id="r1", name="a", now=2.0)
    b = workflow(l, "wfB")
    lin.workflow_launched(l, "wfB", task_id="wB", run_id="r2", name="b", now=2.0)
    never = workflow(l, "wfC")
    closed = lin.close_missing_workflows(l, ["wB"], 9.0)
    assert closed == [a, never]
    assert (a.status, b.status, never.status) == ("completed", "running", "not_launched")
    assert lin.active_workflows(l, 9.0, STALE) == [b]


def test_resumes_are_kept_and_the_pending_one_found():
    l = Lineage(session_id="s")
    r1 = lin.record_resume(
        l,
        tool_use_id="s1",
        agent_id="ag-1",
        sender="main",
        deliberation_id="d",
        rule="revision",
        why="w",
        message="hello",
        now=1.0,
    )
    assert r1.message_chars == 5 and len(r1.message_sha256) == 64 and r1.status == "requested"
    assert lin.find_resume(l, "s1") is r1 and lin.pending_resume(l, "ag-1") is r1
    r1.status = "started"
    assert lin.pending_resume(l, "ag-1") is None


def test_a_finished_run_ends_its_agents_and_a_stop_ends_unlisted_unannounced_starts():
    l = Lineage(session_id="s")
    run = workflow(l)
    lin.workflow_launched(l, "wf1", task_id="w1", run_id="r1", name="x", now=2.0)
    agent, _ = lin.start(l, "ag-w", "workflow-subagent", 3.0, STALE)  # its SubagentStop is lost
    lin.workflow_finished(l, run, 9.0)
    assert (agent.status, agent.finished_at) == ("completed", 9.0)
    a, _ = lin.start(l, "ag-x", "Explore", 3.0, STALE)
    b, _ = lin.start(l, "ag-y", "Explore", 3.0, STALE)
    assert lin.close_unlisted_starts(l, ["ag-y"], 10.0) == [a]
    assert (a.status, b.status) == ("completed", "running")
