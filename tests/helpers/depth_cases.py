"""The contested deliberation the depth-axis tests build on (tests/unit/test_depth_axis.py and the
tests of what the depth step establishes and of independence share it)."""

from __future__ import annotations

from deliberation.core.depth import axis as da
from deliberation.state.agent_report import AgentReport
from deliberation.state.config import Config
from deliberation.state.models import AgentRecord, Deliberation, RankingResult

T = 1767258000.0
WEIGHTS = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
ROOMY = da.BudgetView(spawn_slots_left=12, agents_used=0, tokens_used=50_000)
SYNTH_SUMMARY = (
    "The panel converges on the Postgres outbox with a relay worker: it keeps events "
    "transactional and the extra publish latency is acceptable for order events."
)


def rec(persona, kind, report, *, stage="research", tier=1, red_team_round=None, status="reported"):
    key = f"a-{persona}-{stage}-{tier}"
    return AgentRecord(
        key=key,
        agent_id=key,
        persona=persona,
        kind=kind,
        stage=stage,
        tier=tier,
        red_team_round=red_team_round,
        status=status,
        spawned_at=T,
        reported_at=T + 60,
        report=AgentReport.model_validate({"phase": stage, **report}) if report is not None else None,
    )


def scores(a: float, b: float) -> dict:
    return {"A": {d: a for d in WEIGHTS}, "B": {d: b for d in WEIGHTS}}


def contested(task_type: str = "architecture", red_team: "dict | None" = None) -> Deliberation:
    sec = rec(
        "security-analyst",
        "persona",
        {
            "findings": [
                {
                    "id": "F1",
                    "claim": "The relay stores the bus credentials in plain text in the env file.",
                    "evidence": "deploy/env:12",
                },
                {"id": "F2", "claim": "Webhook signatures are not verified by the order service.", "evidence": "api/hooks.py:40"},
            ],
            "approaches": [{"id": "A", "title": "Postgres outbox with a relay worker"}, {"id": "B", "title": "Dual write"}],
        },
    )
    perf = rec(
        "performance-engineer",
        "persona",
        {
            "findings": [
                {"id": "F1", "claim": "The outbox relay adds 40 ms of publish latency at p99.", "evidence": "bench/relay.txt"}
            ]
        },
    )
    synth = rec(
        "synthesis-lead",
        "synthesis",
        {
            "summary": SYNTH_SUMMARY,
            "approaches": [
                {
                    "id": "A",
                    "title": "Postgres outbox with a relay worker",
                    "summary": "Write events to an outbox table in the same transaction and let a relay "
                    "worker publish them to the bus.",
                },
                {
                    "id": "B",
                    "title": "Dual write",
                    "summary": "Write to the database, then publish to the bus and retry on failure.",
                },
            ],
        },
        stage="deliberation",
    )
    rt = rec(
        "red-team",
        "red-team",
        red_team
        if red_team is not None
        else {
            "refutations": [
                {
                    "target": "performance-engineer:F1",
                    "verdict": "refuted",
                    "claim": "The 40 ms was measured on a debug build.",
                    "evidence": "bench/relay.txt header: DEBUG=1",
                },
                {
                    "target": "A",
                    "verdict": "weakened",
                    "claim": "The relay worker is a single point of failure.",
                    "evidence": "deploy/relay.yaml has replicas: 1",
                },
            ],
            "missed_angles": ["Ordering guarantees across bus partitions were never examined."],
        },
        stage="deliberation",
        red_team_round=1,
    )
    return Deliberation(
        id="d-1",
        session_id="s-1",
        question="How should order events reach the bus?",
        task_type=task_type,
        phase="DELIBERATION",
        agents=[sec, perf, synth, rt],
        tokens_used=50_000,
    )


def planned(cfg: "Config | None" = None, **kw) -> "tuple[Deliberation, da.DepthPlan]":
    d = contested(**kw)
    plan = da.plan_depth(d, cfg or Config(), ROOMY)
    da.apply_plan(d, plan)
    return d, plan


def good_prompt(d: Deliberation, lens: str = "evidence-chase") -> str:
    return da.worker_prompt(lens, [h.id for h in d.depth.hot_spots], d)


def add(d: Deliberation, persona, kind, report, **kw) -> AgentRecord:
    r = rec(persona, kind, report, stage="deliberation", **kw)
    d.agents.append(r)
    return r


def passed_vote(means: "dict[str, float]", consensus: float, agents: int) -> RankingResult:
    """A vote that passed for the highest mean, every ranker approving (one dimension, no score
    rows): what the drafting step and the outcome read of a ranking."""
    return RankingResult(
        dimensions={"correctness": 1.0},
        approaches=list(means),
        scores=[],
        means=means,
        leading=max(means, key=lambda k: means[k]),
        leading_scores={},
        consensus=consensus,
        spread=0.0,
        stdev=0.0,
        agents=agents,
        approvals=agents,
        rejections=0,
        abstentions=0,
    )
