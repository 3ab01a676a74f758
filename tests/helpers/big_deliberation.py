"""A large voted deliberation of the size a real-model trial produced (4 personas with full
research and ranking reports, synthesis, debate, red team, 6 hot spots, 3 tier-2 workers and red
team 2, every text as long as a real model writes it): the drafter's material was 54 KB for one.
tests/unit/test_drafting.py bounds the material on it."""

from __future__ import annotations

from deliberation.state.models import Deliberation, HotSpot

from tests.helpers.depth_cases import passed_vote, rec

PERSONAS = ("security-analyst", "performance-engineer", "cost-analyst", "devils-advocate")
LENSES = ("evidence-chase", "counter-model", "edge-case-hunt")
WORDS = (
    "the relay worker reads the outbox table in batches and publishes each event to the bus; under load the "
    "batch grows, the transaction that marks it sent holds row locks longer and the order writes wait on them"
)


def _text(n: int, tag: str) -> str:
    out = f"{tag}: "
    while len(out) < n:
        out += WORDS + "; "
    return out[:n]


def _findings(who: str, n: int = 6) -> "list[dict]":
    sev = ("critical", "high", "medium", "low", "info", "medium")
    return [
        {"id": f"F{i}", "claim": _text(420, f"{who} F{i}"), "evidence": _text(260, f"src/{who}.py:{i}0"), "severity": sev[i % 6]}
        for i in range(1, n + 1)
    ]


def _approaches(who: str) -> "list[dict]":
    return [{"id": x, "title": f"{who} approach {x}", "summary": _text(300, f"{who} {x}")} for x in "ABC"]


def _dissent(who: str, targets: str) -> "list[dict]":
    return [{"target": t, "concern": _text(300, f"{who} on {t}"), "reason": _text(250, f"{who} why {t}")} for t in targets]


def big() -> Deliberation:
    agents = []
    for who in PERSONAS:
        agents.append(
            rec(
                who,
                "persona",
                {
                    "summary": _text(600, who),
                    "findings": _findings(who),
                    "approaches": _approaches(who),
                    "verdict": "approve",
                    "preferred_approach": "A",
                    "rationale": _text(400, who),
                    "dissent": _dissent(who, "BC"),
                },
            )
        )
    synth_approaches = [
        {"id": "A", "title": "Postgres outbox with a relay worker", "summary": _text(400, "outbox")},
        {"id": "B", "title": "Dual write with retries", "summary": _text(400, "dual write")},
        {"id": "C", "title": "Change data capture from the WAL", "summary": _text(400, "cdc")},
    ]
    agents.append(
        rec(
            "synthesis-lead",
            "synthesis",
            {"summary": _text(800, "synthesis"), "approaches": synth_approaches, "preferred_approach": "A"},
            stage="deliberation",
        )
    )
    agents.append(
        rec(
            "debate-moderator",
            "debate",
            {"summary": _text(600, "debate"), "findings": _findings("debate", 4)},
            stage="deliberation",
        )
    )
    refs = [f"{p}:F{i}" for p in PERSONAS for i in (1, 2)]
    agents.append(
        rec(
            "red-team",
            "red-team",
            {
                "refutations": [
                    {"target": t, "verdict": v, "claim": _text(350, f"rt {t}"), "evidence": _text(220, f"rt ev {t}")}
                    for t, v in zip([*refs[:5], "A", "B"], ["refuted", "weakened", "upheld"] * 3)
                ],
                "missed_angles": [_text(200, f"angle {i}") for i in range(4)],
            },
            stage="deliberation",
            red_team_round=1,
        )
    )
    hot = [HotSpot(id=f"H{i}", kind="refuted", statement=_text(300, f"H{i}"), material=refs[:3]) for i in range(1, 7)]
    for lens in LENSES:
        agents.append(
            rec(
                lens,
                "lens",
                {
                    "hot_spots": ["H1", "H2"],
                    "findings": _findings(lens, 4),
                    "refutations": [
                        {
                            "target": h,
                            "verdict": "weakened",
                            "claim": _text(350, f"{lens} {h}"),
                            "evidence": _text(250, f"ev {h}"),
                        }
                        for h in ("H1", "H2", "H3")
                    ],
                },
                stage="deliberation",
                tier=2,
            )
        )
    agents.append(
        rec(
            "red-team",
            "red-team",
            {
                "refutations": [
                    {"target": h, "verdict": "upheld", "claim": _text(300, f"rt2 {h}"), "evidence": _text(200, f"rt2 ev {h}")}
                    for h in ("H1", "H2", "H3", "H4")
                ]
            },
            stage="deliberation",
            red_team_round=2,
        )
    )
    for who in PERSONAS:
        agents.append(
            rec(
                who,
                "persona",
                {
                    "scores": {x: {"correctness": 7} for x in "ABC"},
                    "verdict": "approve",
                    "preferred_approach": "A",
                    "rationale": _text(400, who),
                    "dissent": _dissent(who, "BC"),
                },
                stage="ranking",
            )
        )
    # the second red-team pass keeps its own key (rec names a key by persona, stage and tier)
    agents[-5].key = agents[-5].agent_id = "a-red-team-deliberation-2-rt2"
    d = Deliberation(
        id="d-big",
        session_id="s-1",
        question="How should order events reach the bus?",
        task_type="architecture",
        phase="PRD_GENERATION",
        agents=agents,
        tokens_used=400_000,
    )
    d.depth.hot_spots = hot
    d.depth.status = "done"
    d.prd.status = "due"
    d.outcome = "adopted"
    d.ranking = passed_vote({"A": 8.0, "B": 5.0, "C": 4.0}, consensus=0.8, agents=4)
    return d
