"""Parallel spawns cannot race past the budget: simultaneous PreToolUse hook processes (real
processes, released together) against a budget of 12 allow exactly 12.

The client runs at most 10 concurrency-safe tool calls of one agent at once (2.1.328:
min(CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY ?? 10, 10)), so a burst larger than that reaches the
hooks in waves. 15 at once is beyond the client; 40 as four waves of 10 is the most a main agent
asking for 40 spawns in one message can produce. 40 at once is not tested: it is 40 interpreter
starts (~0.42 CPU-s each) on the machine's CPUs before the first decision, which on a loaded
2-CPU machine passes the hook's 52 s commit deadline, where every hook fails open by design."""

from __future__ import annotations

import json

import pytest

from deliberation.core.personas import RESEARCH_PERSONAS
from tests.helpers import payloads as P
from tests.helpers.factories import approve_config

SID = "b0d9e7a4-1c2d-4e5f-8a9b-000000000040"
PERSONAS = list(RESEARCH_PERSONAS)
BUDGET_REASON = "Spawn budget: the main agent already has 12 of 12 active subagents"


def state(project):
    return project / ".claude" / "deliberation"


def spawn_payloads(n: int) -> "list[dict]":
    return [
        P.pre_agent(
            SID,
            f"toolu_race_{i:02d}",
            PERSONAS[i % len(PERSONAS)],
            f"Research the migration question as {PERSONAS[i % len(PERSONAS)]} (#{i}).",
            background=True,
        )
        for i in range(n)
    ]


CLIENT_CONCURRENCY = 10


@pytest.mark.parametrize("n,allowed,wave", [(40, 12, CLIENT_CONCURRENCY), (15, 12, 15)])
def test_parallel_spawns_allow_exactly_the_budget(project, n, allowed, wave):
    state(project).mkdir(parents=True)
    (state(project) / "config.json").write_text(json.dumps({"depth": {"posture": "off"}}))
    approve_config(project)  # depth off loosens: this user approves their own config (consent.py)
    payloads, results, wall = spawn_payloads(n), [], 0.0
    for start in range(0, n, wave):
        got, took = P.fire_at_once("PreToolUse", payloads[start : start + wave], project)
        results += got
        wall += took
    print(f"\n{n} PreToolUse spawn hooks, {wave} at once, against a budget of 12: {wall:.2f}s wall")
    assert all(r.returncode == 0 and r.stderr == "" for r in results), [r.stderr for r in results]
    ok = [i for i, r in enumerate(results) if r.decision is None]
    denied = [r for r in results if r.decision == "deny"]
    # a hook that ran out of time fails open (no decision, a warning): say so, with the wall time
    failed_open = sorted(
        {
            (r.json or {}).get("systemMessage", "")[:90]
            for r in results
            if r.decision is None and "deliberation plugin:" in (r.json or {}).get("systemMessage", "")
        }
    )
    assert len(ok) == allowed, (f"{wall:.1f}s wall", failed_open)
    assert len(denied) == n - allowed
    assert len(ok) + len(denied) == n
    for r in denied:
        assert r.reason.startswith(BUDGET_REASON), r.reason
        assert "raise spawn_budget.max_active_children" in r.reason

    lineage = json.loads((state(project) / "sessions" / SID / "lineage.json").read_text())
    assert len(lineage["spawns"]) == allowed
    assert len(lineage["denied"]) == n - allowed
    assert {d["rule"] for d in lineage["denied"]} == {"budget"}
    allowed_ids = {f"toolu_race_{i:02d}" for i in ok}
    assert {s["tool_use_id"] for s in lineage["spawns"]} == allowed_ids
    assert {d["tool_use_id"] for d in lineage["denied"]} == {f"toolu_race_{i:02d}" for i in range(n)} - allowed_ids
    assert all(s["status"] == "requested" and s["parent"] == "main" for s in lineage["spawns"])

    [delib_file] = (state(project) / "deliberations").glob("*.json")
    delib = json.loads(delib_file.read_text())
    assert delib["phase"] == "RESEARCH"
    assert {a["tool_use_id"] for a in delib["agents"]} == allowed_ids  # one deliberation, 12 agents
    events = [json.loads(l) for l in (state(project) / "sessions" / SID / "events.jsonl").read_text().splitlines()]
    assert [e["event"] for e in events].count("PreToolUse") == n


def test_budget_frees_up_as_children_finish(project, hook):
    state(project).mkdir(parents=True)
    (state(project) / "config.json").write_text(json.dumps({"depth": {"posture": "off"}}))
    approve_config(project)  # depth off loosens: this user approves their own config (consent.py)
    results, _ = P.fire_at_once("PreToolUse", spawn_payloads(13), project)
    assert sum(r.decision == "deny" for r in results) == 1
    first_ok = next(i for i, r in enumerate(results) if r.decision is None)
    persona = PERSONAS[first_ok % len(PERSONAS)]
    aid = "a00000000000000f1"
    hook("PostToolUse", P.post_agent_async(SID, f"toolu_race_{first_ok:02d}", aid, persona, "x"))
    hook("SubagentStop", P.subagent_stop(SID, aid, persona, P.research_report(persona, ["a finding"])))
    again = hook("PreToolUse", P.pre_agent(SID, "toolu_race_late", "ux-advocate", "Research it.", background=True))
    assert again.decision is None, again.reason
    blocked = hook("PreToolUse", P.pre_agent(SID, "toolu_race_later", "ux-advocate", "Research it.", background=True))
    assert blocked.decision == "deny" and blocked.reason.startswith(BUDGET_REASON)


# --------------------------------------------------------------------------- the session total

TOTAL_SID = "b0d9e7a4-1c2d-4e5f-8a9b-000000000041"


def helper_spawns(n: int, prefix: str) -> "list[dict]":
    """Non-deliberation spawns (no phase rule in the way): only the budget decides."""
    return [
        P.pre_agent(TOTAL_SID, f"toolu_{prefix}_{i:02d}", "general-purpose", f"Scan module {i}.", background=True)
        for i in range(n)
    ]


@pytest.mark.parametrize("total", [17, 40])
def test_parallel_spawns_allow_exactly_the_session_total(project, total):
    """40 simultaneous spawn requests against a session total (the per-parent limit out of the way)
    → exactly the total allowed, whatever the interleaving of the 40 hook processes."""
    state(project).mkdir(parents=True)
    (state(project) / "config.json").write_text(
        json.dumps({"spawn_budget": {"max_active_children": 100, "max_session_total": total}})
    )
    approve_config(project)  # budgets above the defaults wait for this user's approval (consent.py)
    results, wall = P.fire_at_once("PreToolUse", helper_spawns(40, "tot"), project)
    print(f"\n40 simultaneous PreToolUse spawn hooks against a session total of {total}: {wall:.2f}s wall")
    assert all(r.returncode == 0 and r.stderr == "" for r in results), [r.stderr for r in results]
    ok = [r for r in results if r.decision is None]
    denied = [r for r in results if r.decision == "deny"]
    assert (len(ok), len(denied)) == (total, 40 - total)
    for r in denied:
        assert r.reason.startswith(f"Spawn budget: this session has started {total} of the {total} subagents"), r.reason
        assert "raise spawn_budget.max_session_total" in r.reason
    lineage = json.loads((state(project) / "sessions" / TOTAL_SID / "lineage.json").read_text())
    assert len(lineage["spawns"]) == total
    assert {d["rule"] for d in lineage["denied"]} == ({"session_total"} if total < 40 else set())


def test_finished_children_still_count_toward_the_session_total(project, hook):
    """Per parent only, finished children free their slot; the total remembers them."""
    state(project).mkdir(parents=True)
    (state(project) / "config.json").write_text(json.dumps({"spawn_budget": {"max_session_total": 5}}))
    for i, payload in enumerate(helper_spawns(5, "seq")):
        assert hook("PreToolUse", payload).decision is None
        aid = f"a0000000000000{i:03d}"
        hook("SubagentStart", P.subagent_start(TOTAL_SID, aid, "general-purpose"))
        hook("PostToolUse", P.post_agent_async(TOTAL_SID, payload["tool_use_id"], aid, "general-purpose", "x"))
        hook("SubagentStop", P.subagent_stop(TOTAL_SID, aid, "general-purpose", "done"))
    late = hook("PreToolUse", helper_spawns(6, "late")[5])
    assert late.decision == "deny" and late.reason.startswith(
        "Spawn budget: this session has started 5 of the 5 subagents it may start in all"
    )
