"""Gate 2 — quality: each of the five checks failing alone, with its figure."""

from __future__ import annotations

from deliberation.core import quality_gate
from deliberation.core.ranking import rank
from deliberation.state.models import ConformityWarning
from tests.helpers.gates import gate2
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
DOC = [{"target": "A", "concern": "rollback is untested", "reason": "no staging copy of the data"}]


def research(
    persona, verdict="abstain", dissent=(), approaches=(("A", "outbox"), ("B", "dual write")), confidence=0.5, preferred=None
):
    return P.agent_record(
        persona,
        "research",
        {
            "findings": [{"id": "F1", "claim": f"{persona} claim", "evidence": "e"}],
            "approaches": [{"id": i, "title": t} for i, t in approaches],
            "verdict": verdict,
            "preferred_approach": preferred,
            "dissent": list(dissent),
            "confidence": confidence,
        },
        key=f"r-{persona}",
    )


def build(
    a_score=8.8,
    initial=0.5,
    scored=("A", "B"),
    approaches=(("A", "outbox"), ("B", "dual write")),
    extra=(),
    personas=("security-analyst", "performance-engineer", "cost-analyst"),
    before=0.5,
    after=0.8,
    dissenting=(),
    held=None,
):
    """`before`/`after`: every persona's research / ranking self-confidence (not compared);
    `initial` is the trigger's confidence (context only). `dissenting` personas prefer B (A 6,
    B 7: one clear point) and document why. `held`: persona → the approach its research report
    preferred (its position before; none when absent)."""
    agents = [
        research(p, approaches=approaches, confidence=before, preferred=(held or {}).get(p)) for p in personas + tuple(dissenting)
    ]
    table = {"A": (a_score,) * 5, "B": (5,) * 5}
    agents += [
        P.agent_record(p, "ranking", P.ranking_json({k: table[k] for k in scored}, preferred="A", confidence=after), key=f"k-{p}")
        for p in personas
    ]
    agents += [
        P.agent_record(
            p,
            "ranking",
            P.ranking_json({"A": (6,) * 5, "B": (7,) * 5}, preferred="B", dissent=DOC, confidence=after),
            key=f"k-{p}",
        )
        for p in dissenting
    ]
    d = P.make_deliberation(agents + list(extra), initial_confidence=initial)
    d.ranking = rank(d.agents, W)
    return d


def checks(result):
    return {c.name: c for c in result.checks}


def failed(result):
    return [c.name for c in result.checks if not c.passed]


def test_all_five_pass_with_their_figures():
    d = build()
    r = gate2(d)
    assert r.passed and r.gate == "quality" and r.at == 9.0
    c = checks(r)
    assert list(c) == [
        "method_diversity",
        "contradiction_transparency",
        "complexity_handling",
        "consensus_confidence",
        "improvement_evidence",
    ]
    assert c["method_diversity"].figure == "3 distinct personas (need 2)"
    assert c["method_diversity"].detail == "cost-analyst, performance-engineer, security-analyst"
    assert c["contradiction_transparency"].figure == "0 of 0 dissents documented"
    assert c["complexity_handling"].figure == "2 alternatives (need 2)"
    # three rankers prefer A (8.8) over B (5) by 3.8 points: 3 / (3 + 0.2) = 0.9375
    assert c["consensus_confidence"].figure == "0.94 (strong)"
    assert c["improvement_evidence"].figure == "unmeasured: no research position to compare (does not block)"


def test_method_diversity_fails_alone():
    r = gate2(build(), min_distinct_personas=4)
    assert failed(r) == ["method_diversity"]
    assert checks(r)["method_diversity"].figure == "3 distinct personas (need 4)"
    assert r.next_step.startswith("spawn research personas with different priorities")


def test_same_persona_twice_is_one_perspective():
    d = build(personas=("security-analyst",))
    c = checks(gate2(d))
    assert c["method_diversity"].passed is False
    assert c["method_diversity"].figure == "1 distinct personas (need 2)"


def test_contradiction_transparency_fails_alone():
    bare = research("devils-advocate", verdict="reject")
    d = build(extra=[bare])
    r = gate2(d, min_distinct_personas=2)
    assert failed(r) == ["contradiction_transparency"]
    c = checks(r)["contradiction_transparency"]
    assert c.figure == "0 of 1 dissents documented"
    assert c.detail == "without reasons: devils-advocate/research"
    documented = research("devils-advocate", verdict="reject", dissent=DOC)
    assert gate2(build(extra=[documented])).passed


def test_complexity_handling_fails_alone():
    d = build(scored=("A",), approaches=(("A", "outbox"),))
    r = gate2(d)
    assert failed(r) == ["complexity_handling"]
    assert checks(r)["complexity_handling"].figure == "1 alternatives (need 2)"
    assert "generate at least one more alternative" in r.next_step


def test_consensus_confidence_fails_alone_when_weak():
    # two rankers prefer A, two prefer B, each by a clear point or more: 2 / (2 + 2 + 0.2) = 0.48
    d = build(
        a_score=9.0,
        initial=0.3,
        personas=("security-analyst", "performance-engineer"),
        dissenting=("cost-analyst", "ux-advocate"),
    )
    r = gate2(d)
    assert failed(r) == ["consensus_confidence"]
    c = checks(r)["consensus_confidence"]
    assert c.figure == "0.48 (weak)"
    assert c.detail == "strong > 0.85, moderate 0.70–0.85; default threshold 0.70"


def test_moderate_consensus_passes_and_says_so():
    d = build(a_score=7.5, dissenting=("ux-advocate",))  # one firm dissenter in four: 3 / 4.2
    assert checks(gate2(d))["consensus_confidence"].figure == "0.71 (moderate)"
    assert gate2(d).passed


def test_weak_consensus_fails_even_where_gate_1_let_it_through():
    d = build(initial=0.3, dissenting=("ux-advocate", "test-engineer"))  # 3 for A, 2 for B: 3 / 5.2
    d.threshold = 0.50  # documentation: Gate 1 passes 0.58, the quality gate does not
    d.task_type = "documentation"
    r = gate2(d)
    c = checks(r)["consensus_confidence"]
    assert not c.passed and c.figure == "0.58 (weak)"
    assert "documentation threshold 0.50" in c.detail
    assert failed(r) == ["consensus_confidence"]


THREE = ("security-analyst", "performance-engineer", "cost-analyst")


def test_improvement_evidence_fails_alone_when_the_deliberation_broke_an_agreement():
    # all 4 preferred A at research, 3 of 4 at the blind ranking: consensus 3 / 4.2 is moderate,
    # but the deliberation moved the panel away from its decision
    held = {**{p: "A" for p in THREE}, "ux-advocate": "A"}
    d = build(dissenting=("ux-advocate",), held=held)
    r = gate2(d)
    assert failed(r) == ["improvement_evidence"]
    c = checks(r)["improvement_evidence"]
    assert c.figure == "share for the decision 0.75 < 1.00 at research (fell)"
    assert "ux-advocate A→B" in c.detail and "security-analyst A→A" in c.detail
    assert "not compared: the rankers' self-reported confidence" in c.detail
    assert gate2(d, require_improvement=False).passed


def test_a_panel_the_deliberation_moved_nobody_passes_reported_flat():
    # blind rankers with no new evidence cannot move: flat is reported, not held
    held = {**{p: "A" for p in THREE}, "ux-advocate": "B"}
    c = checks(gate2(build(dissenting=("ux-advocate",), held=held)))["improvement_evidence"]
    assert c.passed and c.figure == "share for the decision 0.75 = 0.75 at research (flat)"


def test_a_panel_the_deliberation_moved_improves():
    held = {"security-analyst": "A", "performance-engineer": "B", "cost-analyst": "B"}
    c = checks(gate2(build(held=held)))["improvement_evidence"]
    assert c.passed and c.figure == "share for the decision 1.00 > 0.33 at research (improved)"


def test_a_panel_unanimous_throughout_is_confirmed_and_passes():
    # fresh blind rankers cannot raise a unanimous share: the check does not hold them for it
    d = build(held={p: "A" for p in THREE}, before=0.9, after=0.6)  # self-confidence fell: not compared
    c = checks(gate2(d))["improvement_evidence"]
    assert c.passed and c.figure == "share for the decision 1.00 = 1.00 at research (confirmed)"


def test_no_research_position_is_unmeasured_and_does_not_block():
    c = checks(gate2(build()))["improvement_evidence"]
    assert c.passed and c.figure == "unmeasured: no research position to compare (does not block)"


def test_a_forced_plain_question_is_not_held_to_the_trigger_score():
    """/deliberate on a plain question scores 0.91 on the word lists; the trigger's score is
    another scale, shown for context only."""
    d = build(a_score=7.5, initial=0.91, held={p: "A" for p in THREE})
    d.trigger_forced = True
    r = gate2(d)
    assert r.passed, [(c.name, c.figure) for c in r.checks]
    c = checks(r)["improvement_evidence"]
    assert "the trigger's 0.91 (forced by the user)" in c.detail
    imp = quality_gate.improvement_evidence(d)
    assert (imp.before, imp.after, imp.trigger, imp.trigger_forced) == (1.0, 1.0, 0.91, True)
    assert imp.to_json()["pairs"][0] == {"persona": "cost-analyst", "before": "A", "after": "A"}
    assert imp.to_json()["status"] == "confirmed"


def test_improvement_pairs_the_same_personas():
    """A persona that only researched does not move the figures."""
    d = build(held={"security-analyst": "A", "performance-engineer": "A", "cost-analyst": "B"})
    d.agents.append(research("devils-advocate", preferred="B"))  # researched, never ranked
    imp = quality_gate.improvement_evidence(d)
    assert (imp.before, imp.after) == (0.6667, 1.0)
    assert [p["persona"] for p in imp.pairs()] == ["cost-analyst", "performance-engineer", "security-analyst"]


def test_improvement_without_a_shared_persona_compares_the_panels():
    agents = [research("security-analyst", preferred="A"), research("cost-analyst", preferred="B")]
    agents += [
        P.agent_record(p, "ranking", P.ranking_json({"A": (8,) * 5, "B": (5,) * 5}, preferred="A"), key=f"k-{p}")
        for p in ("performance-engineer", "ux-advocate")
    ]
    d = P.make_deliberation(agents)
    d.ranking = rank(d.agents, W)
    imp = quality_gate.improvement_evidence(d)
    assert (imp.before, imp.after, imp.outcome.paired, imp.improved) == (0.5, 1.0, False, True)
    assert "two panels" in imp.detail()
    empty = quality_gate.improvement_evidence(P.make_deliberation([]))
    assert empty.improved and empty.figure() == "unmeasured: no research position to compare (does not block)"


def test_conformity_warnings_are_listed_and_block_only_when_configured():
    w = ConformityWarning(detector="score_clustering", agents=["a", "b", "c"], evidence="7.1-7.4")
    d = build()
    r = gate2(d, conformity=[w])
    assert r.passed
    assert checks(r)["conformity"].figure == "1 warning(s)"
    r = gate2(d, conformity=[w], conformity_blocks=True)
    assert failed(r) == ["conformity"]
    assert "re-run the flagged agents with fresh isolation" in r.next_step


def test_unanimous_reject_is_not_weak_consensus():
    """A panel that unanimously rejects agrees on the verdict: the consensus band of the
    top-scored approach (which it rejects) is not the measure."""
    d = build(a_score=4.0)
    why = [{"target": "A", "concern": "breaks the retention rule", "reason": "policy §4.2"}]
    for a in d.agents:
        if a.stage == "ranking":
            a.report.verdict, a.report.dissent = "reject", [P.agent_record("x", "ranking", {"dissent": why}).report.dissent[0]]
    d.ranking = rank(d.agents, W)
    r = gate2(d)
    c = checks(r)["consensus_confidence"]
    assert c.passed and c.figure == "unanimous reject (3 reject, 0 approve): rejected — no approach adopted"
    assert r.passed, [(x.name, x.figure) for x in r.checks]
