"""hot_spots: contested points from tier-1 reports after the first red-team pass."""

from __future__ import annotations

from deliberation.core.depth import hot_spots as hs
from deliberation.core.depth.hot_spots import find_hot_spots, resolve_target, finding_index, approach_index, tier1_agents
from deliberation.state.agent_report import AgentReport
from deliberation.state.models import AgentRecord, Deliberation

T = 1767258000.0


def rec(
    persona: str,
    kind: str,
    report: dict,
    *,
    stage: str = "research",
    tier: int = 1,
    red_team_round=None,
    status: str = "reported",
    n: int = 0,
) -> AgentRecord:
    return AgentRecord(
        key=f"a-{persona}-{stage}-{tier}-{n}",
        agent_id=f"a-{persona}-{stage}-{tier}-{n}",
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


def research(persona: str, findings: list, approaches=(), **kw) -> AgentRecord:
    return rec(
        persona,
        "persona",
        {
            "findings": [{"id": i, "claim": c, "evidence": e} for i, c, e in findings],
            "approaches": [{"id": a, "title": t} for a, t in approaches],
            **kw,
        },
    )


def red_team(refutations=(), missed=(), round_=1) -> AgentRecord:
    return rec(
        "red-team",
        "red-team",
        {"refutations": [dict(r) for r in refutations], "missed_angles": list(missed)},
        stage="deliberation",
        tier=1 if round_ == 1 else 2,
        red_team_round=round_,
    )


def delib(*agents: AgentRecord) -> Deliberation:
    return Deliberation(
        id="d-1", session_id="s-1", question="How should order events reach the bus?", phase="DELIBERATION", agents=list(agents)
    )


SEC = research(
    "security-analyst",
    [
        ("F1", "The relay stores bus credentials in plain text in the env file.", "deploy/env:12"),
        ("F2", "Webhook signatures are not verified.", "api/hooks.py:40"),
    ],
    approaches=[("A", "Postgres outbox with a relay worker"), ("B", "Dual write")],
)
PERF = research(
    "performance-engineer",
    [("F1", "The outbox relay adds 40 ms of publish latency at p99.", "bench/relay.txt")],
    approaches=[("A", "Postgres outbox with a relay worker")],
)


def test_no_red_team_pass_means_no_hot_spots_yet():
    assert find_hot_spots(delib(SEC, PERF)) == []


def test_uncontested_deliberation_has_no_hot_spots():
    rt = red_team(
        refutations=[{"target": "security-analyst:F1", "verdict": "upheld", "claim": "Confirmed.", "evidence": "deploy/env:12"}]
    )
    assert find_hot_spots(delib(SEC, PERF, rt)) == []


def test_contested_deliberation_yields_all_three_kinds_in_order():
    debate = rec(
        "debate-moderator",
        "debate",
        {"conflicts": [{"between": ["A", "B"], "about": "Whether the outbox or dual write should carry order events."}]},
        stage="deliberation",
    )
    rt = red_team(
        refutations=[
            {
                "target": "performance-engineer:F1",
                "verdict": "refuted",
                "claim": "The 40 ms came from a debug build.",
                "evidence": "bench/relay.txt was run with DEBUG=1",
            },
            {
                "target": "security-analyst:F2",
                "verdict": "weakened",
                "claim": "Signatures are checked by the gateway.",
            },  # no evidence
            {"target": "security-analyst:F1", "verdict": "upheld", "claim": "Confirmed.", "evidence": "env:12"},
        ],
        missed=["Ordering guarantees across partitions were never examined."],
    )
    spots = find_hot_spots(delib(SEC, PERF, debate, rt))
    assert [(h.id, h.kind) for h in spots] == [("H1", "refuted"), ("H2", "contradiction"), ("H3", "missed_angle")]
    h1, h2, h3 = spots
    assert h1.material[0] == "performance-engineer:F1"
    assert "debug build" in h1.statement and "weakened" not in h1.statement
    assert h1.sources == ["performance-engineer", "red-team"]
    assert h2.material[:2] == ["A", "B"] and h2.sources == ["debate-moderator"]
    assert h3.statement == "missed angle: Ordering guarantees across partitions were never examined."


def test_refutation_without_evidence_or_unknown_target_carries_no_weight():
    rt = red_team(
        refutations=[
            {"target": "security-analyst:F2", "verdict": "refuted", "claim": "Checked by the gateway."},
            {"target": "nobody:F9", "verdict": "refuted", "claim": "x", "evidence": "y"},
        ]
    )
    assert find_hot_spots(delib(SEC, PERF, rt)) == []


def test_persona_contradicting_another_persona_is_a_contradiction():
    perf = research(
        "performance-engineer",
        [("F1", "Encrypting the env file costs nothing measurable.", "bench")],
        refutations=[
            {
                "target": "security-analyst:F1",
                "verdict": "refuted",
                "claim": "The credentials are injected by the secret manager, not stored.",
            }
        ],
    )
    rt = red_team()
    spots = find_hot_spots(delib(SEC, perf, rt))
    assert len(spots) == 1
    assert spots[0].kind == "contradiction"
    assert spots[0].statement.startswith("performance-engineer contradicts security-analyst:F1")
    assert spots[0].sources == ["security-analyst", "performance-engineer"]


def test_opposing_verdicts_on_an_approach_are_a_contradiction():
    a = rec(
        "technical-architect",
        "persona",
        {
            "verdict": "approve",
            "preferred_approach": "A",
            "approaches": [{"id": "A", "title": "Outbox"}, {"id": "B", "title": "Dual write"}],
        },
        stage="ranking",
    )
    b = rec(
        "reliability-engineer",
        "persona",
        {"verdict": "reject", "preferred_approach": "B", "rationale": "The relay is a single point of failure."},
        stage="ranking",
    )
    c = rec("cost-analyst", "persona", {"verdict": "approve", "preferred_approach": "A"}, stage="ranking")
    spots = find_hot_spots(delib(a, b, c, red_team()))
    assert len(spots) == 1
    assert spots[0].statement == (
        'approach A ("Outbox") is preferred by cost-analyst, technical-architect and opposed by reliability-engineer'
    )
    assert spots[0].material[0] == "A"
    # the same personas all approving A: no contradiction
    b2 = rec("reliability-engineer", "persona", {"verdict": "approve", "preferred_approach": "A"}, stage="ranking")
    assert find_hot_spots(delib(a, b2, c, red_team())) == []


def test_near_identical_hot_spots_are_merged():
    rt1 = red_team(
        refutations=[
            {
                "target": "performance-engineer:F1",
                "verdict": "refuted",
                "claim": "The 40 ms came from a debug build.",
                "evidence": "DEBUG=1",
            }
        ],
        missed=["Ordering guarantees across partitions were never examined."],
    )
    rt2 = rec(
        "red-team",
        "red-team",
        {
            "refutations": [
                {
                    "target": "performance-engineer:F1",
                    "verdict": "weakened",
                    "claim": "Only p99 is affected.",
                    "evidence": "bench p50",
                }
            ],
            "missed_angles": ["Ordering guarantees across partitions were never examined!"],
        },
        stage="deliberation",
        red_team_round=1,
        n=2,
    )
    spots = find_hot_spots(delib(SEC, PERF, rt1, rt2))
    assert [h.kind for h in spots] == ["refuted", "missed_angle"]
    assert len(spots[0].material) == 3  # target + both red-team notes


def test_ids_are_deterministic_and_tier2_is_ignored():
    rt = red_team(
        refutations=[{"target": "performance-engineer:F1", "verdict": "refuted", "claim": "debug build", "evidence": "DEBUG=1"}],
        missed=["partition ordering"],
    )
    lens = rec(
        "counter-model",
        "lens",
        {
            "findings": [{"id": "F1", "claim": "new"}],
            "refutations": [{"target": "security-analyst:F2", "verdict": "refuted", "claim": "x", "evidence": "y"}],
        },
        stage="deliberation",
        tier=2,
    )
    rt2 = red_team(
        refutations=[{"target": "security-analyst:F2", "verdict": "refuted", "claim": "z", "evidence": "w"}],
        missed=["something else entirely"],
        round_=2,
    )
    a = find_hot_spots(delib(SEC, PERF, rt))
    b = find_hot_spots(delib(SEC, PERF, rt, lens, rt2))
    assert a == b and [h.id for h in a] == ["H1", "H2"]


def test_resolve_target_accepts_plugin_prefix_and_unique_bare_ids():
    d = delib(SEC, PERF)
    findings, approaches = finding_index(tier1_agents(d)), approach_index(d)
    assert resolve_target("deliberation:security-analyst:F2", findings, approaches) == "security-analyst:F2"
    assert resolve_target("F2", findings, approaches) == "security-analyst:F2"
    assert resolve_target("F1", findings, approaches) is None  # two personas have an F1
    assert resolve_target("B", findings, approaches) == "B"
    assert resolve_target("H1", findings, approaches) is None


# -- what is contested, prioritised and bounded ------------------------------------------------


def test_a_point_the_red_team_upheld_is_not_contested():
    # the performance engineer contradicts security-analyst:F1, the red team checked and upheld it
    perf = research(
        "performance-engineer",
        [("F1", "Encrypting the env file costs nothing measurable.", "bench")],
        refutations=[
            {
                "target": "security-analyst:F1",
                "verdict": "refuted",
                "claim": "The credentials are injected by the secret manager.",
            }
        ],
    )
    upheld = red_team(
        refutations=[
            {
                "target": "security-analyst:F1",
                "verdict": "upheld",
                "claim": "They are in the env file.",
                "evidence": "deploy/env:12",
            }
        ]
    )
    assert find_hot_spots(delib(SEC, perf, upheld)) == []
    # an upheld without evidence settles nothing
    bare = red_team(refutations=[{"target": "security-analyst:F1", "verdict": "upheld", "claim": "fine"}])
    assert [h.kind for h in find_hot_spots(delib(SEC, perf, bare))] == ["contradiction"]


def test_hot_spots_are_prioritised():
    debate = rec(
        "debate-moderator",
        "debate",
        {"conflicts": [{"between": ["A", "B"], "about": "Outbox against dual write for order events."}]},
        stage="deliberation",
    )
    rt = red_team(
        refutations=[
            {
                "target": "security-analyst:F2",
                "verdict": "weakened",
                "claim": "The gateway checks some signatures.",
                "evidence": "gateway.conf:8",
            },
            {
                "target": "performance-engineer:F1",
                "verdict": "refuted",
                "claim": "The 40 ms came from a debug build.",
                "evidence": "DEBUG=1",
            },
            {"target": "B", "verdict": "weakened", "claim": "Dual write loses events on a crash.", "evidence": "crash test"},
        ],
        missed=["Partition ordering was never examined."],
    )
    spots = find_hot_spots(delib(SEC, PERF, debate, rt))
    # refuted (a refutation before weakenings; about an approach before a finding), then the
    # contradiction, then the missed angle
    assert [(h.id, h.kind, h.material[0]) for h in spots] == [
        ("H1", "refuted", "performance-engineer:F1"),
        ("H2", "refuted", "B"),
        ("H3", "refuted", "security-analyst:F2"),
        ("H4", "contradiction", "A"),
        ("H5", "missed_angle", "red-team (missed angle): Partition ordering was never examined."),
    ]


def test_fourteen_contested_points_are_bounded_to_six():
    missed = [
        f"Angle {i}: {w} was never examined."
        for i, w in enumerate(
            [
                "clock skew",
                "disk full",
                "bus outage",
                "replay storms",
                "schema drift",
                "token expiry",
                "cold caches",
                "partition ordering",
                "poison messages",
                "tenant limits",
                "rate limits",
                "time zones",
                "leap seconds",
                "partial writes",
            ]
        )
    ]
    d = delib(SEC, PERF, red_team(missed=missed))
    every = hs.all_hot_spots(d)
    assert len(every) == 14 and [h.id for h in every] == [f"H{i}" for i in range(1, 15)]
    deepened = find_hot_spots(d)
    assert deepened == every[: hs.MAX_HOT_SPOTS] and len(deepened) == 6


def spot(i, kind, material=()):
    from deliberation.state.models import HotSpot

    return HotSpot(id=f"H{i}", kind=kind, statement=f"point {i}", material=list(material))


def test_each_lens_gets_the_hot_spots_it_can_work_on_bounded():
    d = delib(SEC, PERF)
    findings, approaches = finding_index(tier1_agents(d)), approach_index(d)
    spots = [
        spot(1, "refuted", ["performance-engineer:F1"]),
        spot(2, "refuted", ["A"]),
        spot(3, "contradiction", ["security-analyst:F1"]),
        spot(4, "contradiction", ["A", "B"]),
        spot(5, "missed_angle"),
        spot(6, "missed_angle"),
    ]
    can = {h.id: hs.lenses_for(h, findings, approaches) for h in spots}
    assert can == {
        "H1": ("evidence-chase", "counter-model"),
        "H2": ("evidence-chase", "counter-model", "edge-case-hunt"),
        "H3": ("evidence-chase", "counter-model"),
        "H4": ("evidence-chase", "counter-model", "edge-case-hunt"),
        "H5": ("edge-case-hunt", "evidence-chase"),
        "H6": ("edge-case-hunt", "evidence-chase"),
    }
    lenses = hs.choose(spots, 3, can)
    got = hs.assign(spots, lenses, can)
    # first every spot to the capable lens with the fewest (H4 to edge-case-hunt), then each
    # lens fills its room with a second angle on the top spots it can work on
    assert got == {
        "evidence-chase": ("H1", "H2", "H3"),
        "counter-model": ("H1", "H2", "H3"),
        "edge-case-hunt": ("H4", "H5", "H6"),
    }
    assert all(len(ids) <= hs.HOT_SPOTS_PER_LENS for ids in got.values())
    assert {i for ids in got.values() for i in ids} == {h.id for h in spots}  # every spot is dug into
    for lens, ids in got.items():  # and only one that can work on it
        assert all(lens in can[i] for i in ids)


def test_one_worker_covers_what_it_can_and_no_lens_is_spawned_for_nothing():
    spots = [spot(1, "missed_angle"), spot(2, "missed_angle")]
    can = {h.id: hs.LENS_CAN[("missed_angle", "none")] for h in spots}
    # counter-model has nothing to build an alternative to: two workers, not three
    assert hs.choose(spots, 3, can) == ["evidence-chase", "edge-case-hunt"]
    assert hs.assign(spots, ["counter-model", "edge-case-hunt"], can) == {"edge-case-hunt": ("H1", "H2")}


def test_a_conflict_between_two_proposals_one_approach_took_over_names_them_as_the_debate_did():
    """A real-model trial's hot spot read "conflict between C, C": the debate named two research
    proposals the synthesis had merged into C. The statement names them as the debate did."""
    from tests.helpers.depth_cases import contested

    d = contested()
    synth = next(a for a in d.agents if a.kind == "synthesis")
    synth.report.approaches[0].summary += " Takes over security-analyst:B and performance-engineer:Z."
    conflict = {"between": ["security-analyst:B", "performance-engineer:Z"], "about": "Which step comes first."}
    d.agents.append(rec("debate-moderator", "debate", {"conflicts": [conflict]}, stage="deliberation"))
    spot = next(h for h in find_hot_spots(d) if "Which step comes first" in h.statement)
    assert spot.statement.startswith("conflict between security-analyst:B, performance-engineer:Z: ")
    assert spot.material[:2] == ["A", "A"]  # still about A: its facts reach A
