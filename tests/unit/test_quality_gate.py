"""Gate 2 — quality: each of the five checks failing alone, with its figure."""

from __future__ import annotations

from deliberation.core import quality_gate
from deliberation.core.ranking import rank
from deliberation.state.models import ConformityWarning
from tests.helpers.gates import gate2
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
DOC = [{"target": "A", "concern": "rollback is untested", "reason": "no staging copy of the data"}]


def research(persona, verdict="abstain", dissent=(), approaches=(("A", "outbox"), ("B", "dual write")),
             confidence=0.5):
    return P.agent_record(persona, "research", {
        "findings": [{"id": "F1", "claim": f"{persona} claim", "evidence": "e"}],
        "approaches": [{"id": i, "title": t} for i, t in approaches], "verdict": verdict,
        "dissent": list(dissent), "confidence": confidence}, key=f"r-{persona}")


def build(a_score=8.8, initial=0.5, scored=("A", "B"), approaches=(("A", "outbox"), ("B", "dual write")),
          extra=(), personas=("security-analyst", "performance-engineer", "cost-analyst"),
          before=0.5, after=0.8):
    """`before`/`after`: every persona's research / ranking self-confidence; `initial` is the
    trigger's confidence (context only)."""
    agents = [research(p, approaches=approaches, confidence=before) for p in personas]
    table = {"A": (a_score,) * 5, "B": (5,) * 5}
    agents += [P.agent_record(p, "ranking", P.ranking_json({k: table[k] for k in scored}, preferred="A",
                                                           confidence=after),
                              key=f"k-{p}") for p in personas]
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
    assert list(c) == ["method_diversity", "contradiction_transparency", "complexity_handling",
                       "consensus_confidence", "improvement_evidence"]
    assert c["method_diversity"].figure == "3 distinct personas (need 2)"
    assert c["method_diversity"].detail == "cost-analyst, performance-engineer, security-analyst"
    assert c["contradiction_transparency"].figure == "0 of 0 dissents documented"
    assert c["complexity_handling"].figure == "2 alternatives (need 2)"
    assert c["consensus_confidence"].figure == "0.88 (strong)"
    assert c["improvement_evidence"].figure == "final 0.80 > initial 0.50 (panel self-confidence)"


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
    d = build(a_score=6.5, initial=0.3)  # all 6.5 → consensus 0.65
    r = gate2(d)
    assert failed(r) == ["consensus_confidence"]
    c = checks(r)["consensus_confidence"]
    assert c.figure == "0.65 (weak)"
    assert c.detail == "strong > 0.85, moderate 0.70–0.85; default threshold 0.70"


def test_moderate_consensus_passes_and_says_so():
    d = build(a_score=7.5)
    assert checks(gate2(d))["consensus_confidence"].figure == "0.75 (moderate)"
    assert gate2(d).passed


def test_weak_consensus_fails_even_where_gate_1_let_it_through():
    d = build(a_score=6.5, initial=0.3)
    d.threshold = 0.50  # documentation: Gate 1 passes 0.65, the quality gate does not
    d.task_type = "documentation"
    r = gate2(d)
    c = checks(r)["consensus_confidence"]
    assert not c.passed and c.figure == "0.65 (weak)"
    assert "documentation threshold 0.50" in c.detail
    assert failed(r) == ["consensus_confidence"]


def test_improvement_evidence_fails_alone_when_the_panel_grew_less_confident():
    d = build(before=0.8, after=0.6)  # consensus 0.88 is strong, but the panel's confidence fell
    r = gate2(d)
    assert failed(r) == ["improvement_evidence"]
    c = checks(r)["improvement_evidence"]
    assert c.figure == "final 0.60 ≤ initial 0.80 (panel self-confidence)"
    assert "cost-analyst 0.80→0.60" in c.detail and "the same 3 persona(s)" in c.detail
    assert gate2(d, require_improvement=False).passed


def test_unchanged_confidence_is_no_improvement():
    assert failed(gate2(build(before=0.7, after=0.7))) == ["improvement_evidence"]


def test_a_forced_plain_question_is_not_held_to_the_trigger_score():
    """/deliberate on a plain question scores 0.91 on the word lists; a passing
    consensus of 0.75 must not fail against that — the trigger's score is another scale."""
    d = build(a_score=7.5, initial=0.91, before=0.6, after=0.75)
    d.trigger_forced = True
    r = gate2(d)
    assert r.passed, [(c.name, c.figure) for c in r.checks]
    c = checks(r)["improvement_evidence"]
    assert c.figure == "final 0.75 > initial 0.60 (panel self-confidence)"
    assert "not compared: the trigger's 0.91 (forced by the user)" in c.detail
    imp = quality_gate.improvement_evidence(d)
    assert (imp.before, imp.after, imp.paired, imp.trigger, imp.trigger_forced) == (0.6, 0.75, True, 0.91, True)
    assert imp.to_json()["pairs"][0] == {"persona": "cost-analyst", "before": 0.6, "after": 0.75}


def test_improvement_pairs_the_same_personas():
    """A persona that only researched (or only ranked) does not move the figures."""
    d = build(before=0.5, after=0.8)
    d.agents.append(research("devils-advocate", confidence=0.1))  # researched, never ranked
    imp = quality_gate.improvement_evidence(d)
    assert (imp.before, imp.after) == (0.5, 0.8) and [p for p, *_ in imp.pairs] == \
        ["cost-analyst", "performance-engineer", "security-analyst"]


def test_improvement_without_a_shared_persona_compares_the_panels():
    agents = [research("security-analyst", confidence=0.4), research("cost-analyst", confidence=0.6)]
    agents += [P.agent_record(p, "ranking", P.ranking_json({"A": (8,) * 5}, confidence=0.9), key=f"k-{p}")
               for p in ("performance-engineer", "ux-advocate")]
    imp = quality_gate.improvement_evidence(P.make_deliberation(agents))
    assert (imp.before, imp.after, imp.paired, imp.improved) == (0.5, 0.9, False, True)
    assert "different agents are compared" in imp.detail()
    empty = quality_gate.improvement_evidence(P.make_deliberation([]))
    assert not empty.measured and not empty.improved
    assert empty.figure() == "no research confidence recorded: nothing to compare"


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
            a.report.verdict, a.report.dissent = "reject", [P.agent_record("x", "ranking", {
                "dissent": why}).report.dissent[0]]
    d.ranking = rank(d.agents, W)
    r = gate2(d)
    c = checks(r)["consensus_confidence"]
    assert c.passed and c.figure == "unanimous reject (3 reject, 0 approve): rejected — no approach adopted"
    assert r.passed, [(x.name, x.figure) for x in r.checks]
