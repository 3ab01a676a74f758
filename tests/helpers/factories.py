"""Builders of realistic state objects for tests: deliberations, lineages, event logs, projects.

Everything is deterministic (a seeded RNG, fixed clock starting at `T0`), so tests can assert
exact figures. The shapes follow what the hooks write: each research persona appears twice
(research report, then ranking report), a red-team pass and tier-2 lens workers belong to
DELIBERATION, the ranking is computed by the library's own `ranking.rank`.

Main entry points:
    make_deliberation(n_personas=5, n_approaches=3, ...) -> state.Deliberation
    make_lineage(delib, ...)                            -> state.Lineage
    make_events(delib, lineage)                         -> list[state.EventRecord]
    write_project(project_dir, delibs, lineages, events) -> paths.Layout
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Iterable, cast

from deliberation import defaults
from deliberation.core import ranking
from deliberation.state.config import DEFAULT_DIMENSIONS
from deliberation.state.paths import Layout
from deliberation.core.personas import LENSES, RED_TEAM, RESEARCH_PERSONAS
from deliberation.state.agent_report import AgentReport
from deliberation.core.prd import DecisionDocument
from deliberation.state.models import (
    AgentRecord,
    Check,
    ConformityWarning,
    DeniedSpawn,
    Deliberation,
    DepthOverride,
    DepthState,
    EventRecord,
    GateResult,
    HotSpot,
    Lineage,
    PhaseChange,
    PrdState,
    ProbeRun,
    Route,
    RouteRule,
    SessionState,
    Spawn,
    TokenUsage,
)
from deliberation.state.store import Store

T0 = 1767258000.0  # 2026-01-01 09:00:00 UTC
PERSONAS = tuple(RESEARCH_PERSONAS)
WEIGHTS = {d["name"]: d["weight"] for d in DEFAULT_DIMENSIONS}
THRESHOLDS = defaults.CONFIG["task_types"]["thresholds"]

APPROACHES = (
    (
        "A",
        "Postgres outbox with a relay worker",
        "Write events to an outbox table in the same transaction; a worker relays them to the bus.",
    ),
    ("B", "Dual write to database and bus", "Write to the database, then publish; retry the publish on failure."),
    ("C", "Change data capture from the WAL", "Stream committed rows from the write-ahead log with a CDC connector."),
    ("D", "Keep the status quo", "Leave the synchronous webhook calls as they are."),
    ("E", "Event store as source of truth", "Move the order aggregate to an append-only event store."),
    ("F", "Nightly reconciliation job", "Publish best-effort and reconcile missed events every night."),
)
# base quality of each approach on each dimension (correctness, risk, maintainability, performance, cost)
_BASE = {
    "A": (8.5, 8.0, 7.5, 7.0, 6.5),
    "B": (6.0, 5.0, 7.0, 8.0, 8.0),
    "C": (7.5, 6.5, 5.5, 8.5, 5.0),
    "D": (4.0, 6.0, 8.0, 6.0, 9.0),
    "E": (8.0, 5.5, 4.5, 6.5, 3.5),
    "F": (5.5, 6.0, 6.5, 7.5, 7.5),
}


def agent_id(persona: str, stage: str, tier: int = 1) -> str:
    """A stable, realistic-looking agent id (hex, like the client's)."""
    return "a" + hashlib.sha1(f"{persona}:{stage}:{tier}".encode()).hexdigest()[:15]


def _clamp(x: float) -> float:
    return max(0.0, min(10.0, round(x * 2) / 2))


def make_scores(
    personas: "list[str]", approach_ids: "list[str]", seed: int = 7, jitter: float = 1.5
) -> "dict[str, dict[str, dict[str, float]]]":
    """persona → approach → dimension → 0-10, each persona with its own seeded bias."""
    rng = random.Random(seed)
    dims = list(WEIGHTS)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for persona in personas:
        out[persona] = {}
        for aid in approach_ids:
            base = _BASE.get(aid, (6.0,) * 5)
            level = sum(base) / len(base)  # a dimension beyond the base's: the approach's mean
            out[persona][aid] = {
                d: _clamp((base[i] if i < len(base) else level) + rng.uniform(-jitter, jitter)) for i, d in enumerate(dims)
            }
    return out


def make_report(phase: str = "research", **kw) -> AgentReport:
    """An AgentReport; keyword arguments override the fields (lists of dicts are accepted)."""
    return AgentReport.model_validate({"phase": phase, **kw})


def _agent(
    persona: str,
    kind: str,
    stage: str,
    report: AgentReport,
    at: float,
    *,
    tier: int = 1,
    red_team_round: "int | None" = None,
    tokens: int = 18000,
    hot_spots: "list[str] | None" = None,
) -> AgentRecord:
    aid = agent_id(persona, stage, tier)
    n = int(aid[1:5], 16) % 7  # a stable spread of calls and tokens per agent
    usage = TokenUsage(
        calls=2 + n % 3,
        input_tokens=900 + 37 * n,
        cache_creation_input_tokens=6000 + 410 * n,
        cache_read_input_tokens=14000 + 1900 * n,
        output_tokens=700 + 90 * n,
    )
    rec = AgentRecord(
        key=aid,
        agent_id=aid,
        tool_use_id=f"toolu_{aid[1:9]}",
        persona=persona,
        kind=cast(Any, kind),
        stage=cast(Any, stage),
        tier=cast(Any, tier),
        red_team_round=red_team_round,
        status="reported",
        spawned_at=at,
        reported_at=at + 95.0,
        report=report,
        tokens=tokens,
        usage=usage,
        transcript=f"/home/dev/.claude/projects/-home-dev-myproject/s/subagents/agent-{aid}.jsonl",
    )
    rec.given.prompt_chars = 1800 + 40 * len(persona)
    rec.given.hot_spots = list(hot_spots or [])
    rec.given.isolation = "clean"
    return rec


def _research_report(persona: str, approaches: "list[tuple[str, str, str]]", inject: str) -> AgentReport:
    title = RESEARCH_PERSONAS[persona][0]
    claim = f"{title}: the current webhook path loses events when the bus is down"
    if inject:
        claim = f"{claim} {inject}"
    return make_report(
        "research",
        summary=f"{title} view of the event-delivery problem.",
        findings=[
            {"id": "F1", "claim": claim, "evidence": "src/orders/publish.py:88", "severity": "high"},
            {"id": "F2", "claim": f"{title}: retries are unbounded", "evidence": "ops runbook §4", "severity": "medium"},
        ],
        approaches=[{"id": a, "title": t, "summary": s} for a, t, s in approaches],
        confidence=0.55,
    )


def _ranking_report(
    persona: str, scores: "dict[str, dict[str, float]]", verdict: str, preferred: str, dissent: "list[dict]", confidence: float
) -> AgentReport:
    title = RESEARCH_PERSONAS[persona][0]
    return make_report(
        "ranking",
        summary=f"{title} ranking.",
        scores=scores,
        verdict=verdict,
        preferred_approach=preferred,
        rationale=f"From the {title.lower()} side, {preferred} balances the priorities best.",
        dissent=dissent,
        confidence=confidence,
    )


def _gate1(delib: Deliberation, at: float) -> GateResult:
    r = delib.ranking
    done = sum(1 for a in delib.agents if a.stage == "ranking" and a.status == "reported")
    ok = r is not None and r.consensus >= delib.threshold
    figure = f"{r.consensus:.2f} {'>=' if ok else '<'} {delib.threshold:.2f}" if r else "no ranking"
    checks = [
        Check(name="phase_reached", passed=True, figure="RANKING >= RANKING"),
        Check(name="agents_completed", passed=done >= 2, figure=f"{done} >= 2"),
        Check(name="consensus_threshold", passed=ok, figure=figure, detail=f"task type {delib.task_type}"),
        Check(name="dissent_documented", passed=True, figure="1 of 1 dissenting agents documented"),
    ]
    return GateResult(
        gate="consensus",
        passed=all(c.passed for c in checks),
        checks=checks,
        at=at,
        next_step="" if ok else "re-run ranking after addressing the dissent, or override the task type",
    )


def _gate2(delib: Deliberation, at: float) -> GateResult:
    r = delib.ranking
    personas = sorted({a.persona for a in delib.agents if a.kind == "persona"})
    band = ranking.band(r.consensus, defaults.CONFIG["gates"]["strong"], defaults.CONFIG["gates"]["moderate"]) if r else "weak"
    final = r.consensus if r else 0.0
    checks = [
        Check(name="method_diversity", passed=len(personas) >= 2, figure=f"{len(personas)} distinct personas >= 2"),
        Check(name="contradiction_transparency", passed=True, figure="2 of 2 dissents have reasons"),
        Check(
            name="complexity_handling",
            passed=len(r.approaches) >= 2 if r else False,
            figure=f"{len(r.approaches) if r else 0} alternatives >= 2",
        ),
        Check(name="consensus_confidence", passed=band != "weak", figure=f"{final:.2f} is {band}"),
        Check(
            name="improvement_evidence",
            passed=final > (delib.initial_confidence or 0),
            figure=f"{final:.2f} > {delib.initial_confidence or 0:.2f} initial",
        ),
    ]
    return GateResult(gate="quality", passed=all(c.passed for c in checks), checks=checks, at=at)


def make_deliberation(
    n_personas: int = 5,
    n_approaches: int = 3,
    *,
    deliberation_id: str = "d-20260101-ab12",
    session_id: str = "s-20260101-0001",
    question: str = "",
    task_type: str = "default",
    threshold: "float | None" = None,
    phase: str = "COMPLETE",
    seed: int = 7,
    jitter: float = 1.5,
    scores: "dict[str, dict[str, dict[str, float]]] | None" = None,
    conformity: bool = True,
    depth: bool = True,
    route: "str | None" = "human-review",
    gates: bool = True,
    inject: str = "",
    t0: float = T0,
) -> Deliberation:
    """A complete, realistic deliberation of `n_personas` × `n_approaches`.

    `scores` (persona → approach → dimension → value) replaces the seeded scores; `inject` is
    appended to model-written texts (question, a finding, a dissent, an approach title, a
    warning) to test escaping; `phase` earlier than RANKING leaves ranking and gates out.
    """
    if not 1 <= n_personas <= len(PERSONAS):
        raise ValueError(f"n_personas must be 1..{len(PERSONAS)}")
    if not 1 <= n_approaches <= len(APPROACHES):
        raise ValueError(f"n_approaches must be 1..{len(APPROACHES)}")
    personas = list(PERSONAS[:n_personas])
    approaches = [(a, t + (f" {inject}" if inject and a == "B" else ""), s) for a, t, s in APPROACHES[:n_approaches]]
    ids = [a for a, _, _ in approaches]
    table = scores or make_scores(personas, ids, seed=seed, jitter=jitter)
    threshold = THRESHOLDS.get(task_type, 0.70) if threshold is None else threshold
    q = question or "How should order events reach the message bus without losing any when it is down?"
    if inject:
        q = f"{q} {inject}"
    d = Deliberation(
        id=deliberation_id,
        session_id=session_id,
        question=q,
        task_type=task_type,
        threshold=threshold,
        created_at=t0,
        updated_at=t0,
        initial_confidence=0.42,
    )

    # RESEARCH
    t = t0 + 5
    for i, persona in enumerate(personas):
        d.agents.append(
            _agent(
                persona,
                "persona",
                "research",
                _research_report(persona, approaches if i % 2 == 0 else approaches[:2], inject if i == 0 else ""),
                t + i,
            )
        )
    # DELIBERATION: red team (tier 1) and, with depth, tier-2 lenses and red team 2
    t = t0 + 300
    rt = make_report(
        "deliberation",
        summary="Red-team pass over the converged points.",
        refutations=[
            {
                "target": f"{personas[0]}:F1",
                "verdict": "weakened",
                "claim": "The loss only happens when retries are exhausted.",
                "evidence": "incident log 2025-11-03",
            }
        ],
        missed_angles=["ordering guarantees across partitions"],
        confidence=0.6,
    )
    d.agents.append(_agent(RED_TEAM, "red-team", "deliberation", rt, t, red_team_round=1))
    if depth:
        _add_depth(d, personas, ids, t + 120)
    # RANKING
    t = t0 + 900
    ranked_ids = sorted(ids)
    for i, persona in enumerate(personas):
        per = table[persona]
        best = max(per, key=lambda a: (ranking.weighted_score(per[a], WEIGHTS) or 0, -ord(a[0])))
        dissent: list[dict] = []
        verdict = "approve"
        if persona == "devils-advocate" or (i == n_personas - 1 and n_personas >= 3):
            verdict = "reject"
            dissent.append(
                {
                    "target": best if best != ranked_ids[0] else ranked_ids[0],
                    "concern": "The relay worker is a new single point of failure." + (f" {inject}" if inject else ""),
                    "reason": "No failover is specified; a stuck relay delays every event.",
                }
            )
        elif i == 1 and len(ids) > 1:
            dissent.append(
                {
                    "target": ids[1],
                    "concern": "Dual write can publish events for rolled-back orders.",
                    "reason": "The publish happens outside the transaction.",
                }
            )
        d.agents.append(
            _agent(
                persona, "persona", "ranking", _ranking_report(persona, per, verdict, best, dissent, 0.6 + 0.05 * (i % 4)), t + i
            )
        )
    _set_phases(d, phase, t0)
    if d.phase in ("RANKING", "PRD_GENERATION", "COMPLETE", "FAILED"):
        d.ranking = ranking.rank(d.agents, WEIGHTS)
        if gates:
            d.gate1 = _gate1(d, t0 + 1000)
            if d.phase in ("COMPLETE", "FAILED"):
                d.gate2 = _gate2(d, t0 + 1200)
        if conformity:
            d.conformity = [
                ConformityWarning(
                    detector="score_clustering",
                    agents=[a.key for a in d.agents if a.stage == "ranking"][:3],
                    evidence="3 agents scored the leading approach within 0.25 points (7.10-7.35)",
                ),
                ConformityWarning(
                    detector="missing_minority",
                    agents=[agent_id("security-analyst", "ranking"), agent_id("performance-engineer", "ranking")],
                    evidence="security-analyst and performance-engineer both approved without a concern",
                    recommendation="re-run security-analyst with fresh isolation and ask for its strongest objection",
                ),
            ]
    if route and d.phase in ("PRD_GENERATION", "COMPLETE"):
        d.route = Route(
            route=cast(Any, route),
            decision_class="architecture/messaging",
            unanimous=False,
            rules=[
                RouteRule(rule="D", detail="split vote: 1 reject of 5"),
                RouteRule(rule="PROBE", detail="probe 'outbox-schema' failed: exit 1"),
            ],
            probes=[
                ProbeRun(
                    name="outbox-schema",
                    passed=False,
                    exit_code=1,
                    duration_s=2.4,
                    causal_warning="reads db/schema.sql, the same file finding F1 cites",
                )
            ],
            review="pending" if route == "human-review" else "not_needed",
        )
    d.warnings = ["tier-2 worker counter-model restated tier 1: zero signal" + (f" {inject}" if inject else "")] if depth else []
    if d.ranking and d.ranking.leading and d.phase in ("PRD_GENERATION", "COMPLETE"):
        d.decision = d.ranking.leading  # as engine.open_document records it
        d.outcome = "adopted"
    if d.phase == "PRD_GENERATION":
        d.prd = PrdState(status="due", due_at=t0 + 1000)
    elif d.phase == "COMPLETE":
        d.prd = PrdState(status="accepted", due_at=t0 + 1000, closed_at=t0 + 1200, document=_document(d, personas, depth, inject))
    d.tokens_used = sum(a.tokens for a in d.agents)
    d.updated_at = max([d.updated_at] + [a.reported_at or 0 for a in d.agents])
    return d


def _document(d: Deliberation, personas: "list[str]", depth: bool, inject: str) -> DecisionDocument:
    """The decision document the main agent wrote, citing the panel's findings and dissent."""
    first, second = personas[0], personas[min(1, len(personas) - 1)]
    rejecter = next(
        (a.persona for a in d.agents if a.stage == "ranking" and a.report and a.report.dissent and a.report.verdict == "reject"),
        None,
    )
    dissent = [f"{rejecter}:D1"] if rejecter else []
    lead = d.ranking.leading if d.ranking else "A"
    return DecisionDocument.model_validate(
        {
            "decision": f"Adopt {lead}: it is the only approach that never loses an event when the bus is down."
            + (f" {inject}" if inject else ""),
            "problem": "Order events are lost whenever the message bus is unavailable.",
            "requirements": [
                {
                    "id": "R1",
                    "text": "Every order event is written in the order's own transaction.",
                    "priority": "must",
                    "sources": [f"{first}:F1"],
                },
                {"id": "R2", "text": "Retries are bounded and observable.", "priority": "should", "sources": [f"{second}:F2"]},
            ],
            "non_goals": [{"text": "Replacing the message bus.", "sources": []}],
            "acceptance_criteria": [
                {
                    "id": "AC1",
                    "text": "With the bus stopped for 10 minutes, no order event is lost.",
                    "verifies": ["R1"],
                    "sources": [f"{first}:F1"] + (["H1"] if depth else []),
                }
            ],
            "risks": [
                {
                    "id": "RISK1",
                    "risk": "The relay worker becomes a single point of failure.",
                    "mitigation": "Run two relays with leader election.",
                    "severity": "high",
                    "sources": dissent or [f"{second}:F1"],
                }
            ],
            "open_questions": [{"question": "Who owns the relay worker's on-call?", "sources": dissent}],
        }
    )


def _add_depth(d: Deliberation, personas: "list[str]", ids: "list[str]", t: float) -> None:
    hs = [
        HotSpot(
            id="H1",
            kind="refuted",
            statement=f"{personas[0]}:F1 — events are lost when the bus is down",
            material=[f"{personas[0]}:F1", "red-team refutation 1"],
            sources=[personas[0], RED_TEAM],
        ),
        HotSpot(
            id="H2",
            kind="contradiction",
            statement=f"approaches {ids[0]} and {ids[-1]} disagree on ordering",
            material=[f"{ids[0]}", f"{ids[-1]}"],
            sources=personas[:2],
        ),
    ]
    d.depth = DepthState(
        posture="ceiling",
        enabled=True,
        workers_per_wave=3,
        hot_spots=hs,
        status="done",
        tier2_by_lens={lens: 1 for lens in LENSES},
        passes=2,
    )
    reports = {
        "evidence-chase": make_report(
            "deliberation",
            summary="Traced F1 to the incident log.",
            hot_spots=["H1"],
            findings=[{"id": "F1", "claim": "Two incidents lost 312 events", "evidence": "incident log"}],
            refutations=[
                {"target": "H1", "verdict": "upheld", "claim": "Loss confirmed", "evidence": "incident 2025-11-03, 312 events"}
            ],
        ),
        "counter-model": make_report("deliberation", summary="Restates tier 1.", hot_spots=["H2"]),
        "edge-case-hunt": make_report(
            "deliberation",
            summary="Partition rebalance breaks ordering in C.",
            hot_spots=["H2"],
            refutations=[
                {
                    "target": ids[-1],
                    "verdict": "refuted",
                    "claim": "Ordering is lost during a partition rebalance",
                    "evidence": "connector docs, 'exactly-once' section",
                }
            ],
        ),
    }
    for i, lens in enumerate(LENSES):
        d.agents.append(_agent(lens, "lens", "deliberation", reports[lens], t + i, tier=2, hot_spots=reports[lens].hot_spots))
    d.agents.append(
        _agent(
            RED_TEAM,
            "red-team",
            "deliberation",
            make_report("deliberation", summary="Red team 2 over tier 2.", confidence=0.6),
            t + 200,
            tier=2,
            red_team_round=2,
        )
    )
    d.depth.overrides = (
        [
            DepthOverride(
                hot_spot="H2",
                target=ids[-1],
                by_agent=agent_id("edge-case-hunt", "deliberation", 2),
                evidence="connector docs, 'exactly-once' section",
                effect=f"approach {ids[-1]} struck from the lead",
            )
        ]
        if len(ids) > 1
        else []
    )
    d.depth.zeroed = [agent_id("counter-model", "deliberation", 2)]


def _set_phases(d: Deliberation, phase: str, t0: float) -> None:
    order = ["IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]
    why = {
        "RESEARCH": "first deliberation agent spawned",
        "DELIBERATION": "research reports complete",
        "RANKING": "red-team pass complete",
        "PRD_GENERATION": "gate 1 passed",
        "COMPLETE": "decision record written",
    }
    target = order.index(phase) if phase in order else order.index("RANKING")
    for i in range(1, target + 1):
        d.phase_history.append(
            PhaseChange(from_phase=cast(Any, order[i - 1]), to_phase=cast(Any, order[i]), at=t0 + 200 * i, why=why[order[i]])
        )
    if phase == "FAILED":
        d.phase_history.append(PhaseChange(from_phase="RANKING", to_phase="FAILED", at=t0 + 1300, why="stop blocked 3 times"))
        d.failure_reasons = ["consensus 0.62 < 0.80 after 3 stop blocks"]
    d.phase = cast(Any, phase)


def make_lineage(delib: Deliberation, *, nested: int = 2, active: int = 1, denied: int = 1) -> Lineage:
    """The spawn tree behind `delib`: one spawn per agent from main, `nested` helper children
    under the first research agent, the last `active` spawns still running, `denied` refusals."""
    lin = Lineage(session_id=delib.session_id)
    for agent in delib.agents:
        lin.spawns.append(
            Spawn(
                tool_use_id=agent.tool_use_id,
                agent_id=agent.agent_id,
                parent="main",
                subagent_type=f"deliberation:{agent.persona}",
                kind=agent.kind,
                deliberation_id=delib.id,
                depth=1,
                background=agent.background,
                status="completed",
                requested_at=agent.spawned_at,
                started_at=agent.spawned_at + 0.5,
                finished_at=agent.reported_at,
            )
        )
    if lin.spawns and nested:
        first = lin.spawns[0]
        for j in range(nested):
            aid = f"ahelper{j:02d}{(first.agent_id or '')[1:6]}"
            lin.spawns.append(
                Spawn(
                    tool_use_id=f"toolu_helper{j}",
                    agent_id=aid,
                    parent=first.agent_id or "",
                    subagent_type="general-purpose",
                    depth=2,
                    status="completed",
                    requested_at=first.requested_at + 10 + j,
                    started_at=first.requested_at + 11 + j,
                    finished_at=first.requested_at + 60 + j,
                )
            )
    for spawn in lin.spawns[-active:] if active else []:
        spawn.status = "running"
        spawn.finished_at = None
    for j in range(denied):
        lin.denied.append(
            DeniedSpawn(
                tool_use_id=f"toolu_denied{j}",
                parent="main",
                subagent_type="general-purpose",
                rule="budget",
                reason="Spawn budget: the main agent already has 12 of 12 active subagents.",
                at=delib.created_at + 400 + j,
            )
        )
    return lin


def make_events(delib: Deliberation, lineage: "Lineage | None" = None) -> "list[EventRecord]":
    """A short, realistic event log: prompt, spawns, a blocked spawn, reports, a gate block, stop."""
    sid = delib.session_id
    base = {"session_id": sid, "cwd": "/home/dev/myproject", "transcript_path": f"/home/dev/.claude/{sid}.jsonl"}
    t = delib.created_at
    evs: list[tuple[str, dict, dict]] = [
        (
            "UserPromptSubmit",
            {"prompt": delib.question},
            {"context": "Deliberation recommended (confidence 0.42 < 0.70).\nProtocol: ..."},
        ),
    ]
    for agent in delib.agents[:3]:
        evs.append(
            (
                "PreToolUse",
                {
                    "tool_name": "Agent",
                    "tool_use_id": agent.tool_use_id,
                    "tool_input": {"subagent_type": f"deliberation:{agent.persona}", "prompt": "..."},
                },
                {},
            )
        )
        evs.append(("SubagentStart", {"agent_id": agent.agent_id, "agent_type": f"deliberation:{agent.persona}"}, {}))
    evs.append(
        (
            "PreToolUse",
            {
                "tool_name": "Agent",
                "tool_use_id": "toolu_denied0",
                "tool_input": {"subagent_type": "general-purpose", "prompt": "..."},
            },
            {"decision": "deny", "reason": "Spawn budget: the main agent already has 12 of 12 active subagents.\nWait."},
        )
    )
    for agent in delib.agents[:3]:
        evs.append(
            (
                "SubagentStop",
                {
                    "agent_id": agent.agent_id,
                    "agent_type": f"deliberation:{agent.persona}",
                    "last_assistant_message": "```json\n{}\n```",
                },
                {},
            )
        )
    evs.append(
        (
            "PostToolUse",
            {
                "tool_name": "Agent",
                "tool_use_id": delib.agents[0].tool_use_id,
                "tool_input": {"subagent_type": f"deliberation:{delib.agents[0].persona}", "prompt": "..."},
                "tool_response": {"status": "completed"},
            },
            {
                "decision": "block",
                "reason": f"Gate 1: consensus 0.62 < {delib.threshold:.2f} for {delib.task_type}.\nNext: re-rank.",
            },
        )
    )
    evs.append(("Stop", {"stop_hook_active": False}, {"system_message": "deliberation: gate 2 passed (5/5 checks)"}))
    out = []
    for seq, (name, payload, answer) in enumerate(evs, start=1):
        out.append(EventRecord(at=t + 7.5 * seq, event=name, payload={**base, "hook_event_name": name, **payload}, answer=answer))
    return out


def write_project(
    project_dir,
    delibs: "Iterable[Deliberation]" = (),
    lineages: "Iterable[Lineage]" = (),
    events: "dict[str, list[EventRecord]] | None" = None,
) -> Layout:
    """Write state files into `project_dir` through the store, as the hooks would."""
    layout = Layout(str(project_dir))
    store = Store(layout)
    delibs = list(delibs)
    for d in delibs:
        store.save(layout.deliberation(d.id), d)
    sessions: dict[str, SessionState] = {}
    for d in delibs:
        s = sessions.setdefault(d.session_id, SessionState(session_id=d.session_id, created_at=d.created_at))
        s.deliberations.append(d.id)
        s.updated_at = max(s.updated_at, d.updated_at)
        if d.phase not in ("COMPLETE", "FAILED"):
            s.active_deliberation = d.id
    for lin in lineages:
        store.save(layout.lineage(lin.session_id), lin)
        sessions.setdefault(lin.session_id, SessionState(session_id=lin.session_id))
    for sid, recs in (events or {}).items():
        for rec in recs:
            store.append(layout.events(sid), rec.model_dump(mode="json"))
        sessions.setdefault(sid, SessionState(session_id=sid))
    for sid, s in sessions.items():
        store.save(layout.session_state(sid), s)
    return layout


def write_state(path, data: "bytes | str | dict") -> None:
    """Write a runtime state file by hand as this user's plugin would have: its bytes (a dict is
    serialised as the store does) sealed with this user's key (state/seal.py), every line of a
    .jsonl file on its own. What a repository commits is the same file without the seal."""
    import os

    from deliberation.state import seal

    path = str(path)
    marker = os.sep + os.path.join(".claude", "deliberation") + os.sep
    layout = Layout(path[: path.index(marker)])
    if isinstance(data, dict):
        from deliberation.state.store import dumps

        data = dumps(data)
    elif isinstance(data, str):
        data = data.encode()
    if seal.rel_of(layout, path) in seal.SHARED:
        pass
    elif path.endswith(".jsonl"):
        data = seal.seal_lines(layout, path, data)
    else:
        data = seal.seal_file(layout, path, data)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def approve_config(project) -> None:
    """This user approves the project's config.json as it is now (`deliberation trust`): a test
    whose own config runs probes or widens what runs (state/consent.py) is that config's user."""
    from deliberation.state import consent

    consent.approve(Layout(str(project)))
