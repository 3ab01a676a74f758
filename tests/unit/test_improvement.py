"""improvement: Gate 2's before and after on one scale — the share of the panel whose position
is the decision, at research (independent) and at the blind ranking."""

from __future__ import annotations

from deliberation.core import improvement
from deliberation.core.ranking import rank
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
OWN = (("A", "Keep the Redis sessions"), ("B", "Stateless JWTs"))
PERSONAS = ("security-analyst", "performance-engineer", "cost-analyst", "reliability-engineer")


def research(persona, preferred=None, verdict="approve", approaches=OWN):
    return P.agent_record(
        persona,
        "research",
        {
            "findings": [{"id": "F1", "claim": f"{persona} claim", "evidence": "e"}],
            "approaches": [{"id": i, "title": t} for i, t in approaches],
            "verdict": verdict,
            "preferred_approach": preferred,
            "confidence": 0.9,
        },
        key=f"r-{persona}",
    )


def ranker(persona, prefers="A", verdict="approve", confidence=0.5):
    scores = {"A": (8,) * 5, "B": (6,) * 5} if prefers == "A" else {"A": (6,) * 5, "B": (8,) * 5}
    return P.agent_record(
        persona, "ranking", P.ranking_json(scores, verdict=verdict, preferred=prefers, confidence=confidence), key=f"k-{persona}"
    )


def deliberation(research_prefs, ranking_prefs, synthesis=None):
    agents = [research(p, pref) for p, pref in research_prefs.items()]
    if synthesis:
        agents.append(
            P.agent_record("synthesis-lead", "deliberation", {"approaches": [{"id": i, "title": t} for i, t in synthesis]})
        )
    agents += [ranker(p, pref) for p, pref in ranking_prefs.items()]
    d = P.make_deliberation(agents)
    d.ranking = rank(d.agents, W)
    return d


def test_a_panel_that_converged_improved():
    # research split 2-2, the blind ranking 4-0 for A
    d = deliberation(dict(zip(PERSONAS, "AABB")), dict.fromkeys(PERSONAS, "A"))
    out = improvement.assess(d)
    assert (out.decision, out.before, out.after, out.status, out.paired) == ("A", 0.5, 1.0, "improved", True)
    assert out.passes


def test_self_confidence_is_not_the_scale():
    # the rankers' own confidence (0.5) is below the researchers' (0.9): irrelevant
    d = deliberation(dict(zip(PERSONAS, "AABB")), dict.fromkeys(PERSONAS, "A"))
    assert improvement.assess(d).status == "improved"


def test_unanimous_before_and_after_is_confirmed_and_passes():
    d = deliberation(dict.fromkeys(PERSONAS, "A"), dict.fromkeys(PERSONAS, "A"))
    out = improvement.assess(d)
    assert (out.before, out.after, out.status, out.passes) == (1.0, 1.0, "confirmed", True)


def test_flat_below_unanimity_passes_reported_as_flat():
    d = deliberation(dict(zip(PERSONAS, "AAAB")), dict(zip(PERSONAS, "AAAB")))
    out = improvement.assess(d)
    assert (out.before, out.after, out.status, out.passes) == (0.75, 0.75, "flat", True)


def test_an_agreement_the_deliberation_broke_fell():
    d = deliberation(dict.fromkeys(PERSONAS, "A"), dict(zip(PERSONAS, "AAAB")))
    out = improvement.assess(d)
    assert (out.before, out.after, out.status, out.passes) == (1.0, 0.75, "fell", False)


def test_the_decision_is_the_scale_not_any_agreement():
    # research unanimously for B; the deliberation moved the panel to A: improved (0 → 1)
    d = deliberation(dict.fromkeys(PERSONAS, "B"), dict.fromkeys(PERSONAS, "A"))
    out = improvement.assess(d)
    assert (out.before, out.after, out.status) == (0.0, 1.0, "improved")


def test_research_titles_are_matched_to_the_ranked_approaches():
    # the synthesis renamed the approaches; research ids are their own
    synth = (("A", "Keep the Redis-backed sessions"), ("B", "Switch to stateless JWTs"))
    d = deliberation(dict(zip(PERSONAS, "AABB")), dict.fromkeys(PERSONAS, "A"), synthesis=synth)
    out = improvement.assess(d)
    assert (out.before, out.after, out.unmatched) == (0.5, 1.0, ())
    assert improvement.match_title("Keep the Redis sessions", dict(synth)) == "A"
    assert improvement.match_title("Rewrite it in Rust", dict(synth)) is None
    # a title that fits two ranked approaches equally well names neither
    assert improvement.match_title("Redis", {"A": "Redis sessions", "B": "Redis cache"}) is None


def test_no_research_position_is_unmeasured_and_does_not_block():
    d = deliberation(dict.fromkeys(PERSONAS, None), dict.fromkeys(PERSONAS, "A"))
    out = improvement.assess(d)
    assert (out.before, out.status, out.passes) == (None, "unmeasured", True)


def test_unpaired_panels_are_compared_as_panels():
    d = deliberation({"security-analyst": "A", "cost-analyst": "B"}, {"performance-engineer": "A", "ux-advocate": "A"})
    out = improvement.assess(d)
    assert (out.paired, out.before, out.after, out.status) == (False, 0.5, 1.0, "improved")


def test_unanimous_reject_is_the_decision_adopt_none():
    agents = [research(p, "A", verdict="reject" if i < 2 else "approve") for i, p in enumerate(PERSONAS)]
    agents += [ranker(p, "A", verdict="reject") for p in PERSONAS]
    d = P.make_deliberation(agents)
    d.ranking = rank(d.agents, W)
    out = improvement.assess(d)
    assert (out.decision, out.before, out.after, out.status) == (improvement.NONE, 0.5, 1.0, "improved")


def test_no_ranking_is_unmeasured():
    assert improvement.assess(P.make_deliberation([])).status == "unmeasured"
