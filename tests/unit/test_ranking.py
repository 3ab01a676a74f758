"""ranking: weighted scores over the five default dimensions, leading approach, consensus — by hand."""

from __future__ import annotations

import math

import pytest

from deliberation.state.config import Config
from deliberation.core.ranking import assess, band, rank, spread_of, weighted_score
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}


def test_default_weights_are_the_documented_ones():
    dims = Config().ranking.dimensions
    assert [(d.name, d.weight) for d in dims] == list(W.items())
    assert math.isclose(sum(W.values()), 1.0)


def test_readme_worked_example():
    # four agents prefer A over B by 0.8, 1.5, 2.0 and 2.7 weighted points (A at 7.0-7.2):
    # firmness 0.8, 1, 1, 1 → S = 3.8, O = 0 → consensus = 3.8 / (3.8 + 0.2) = 0.95
    table = {
        "security-analyst": ((7,) * 5, (6.2,) * 5),
        "performance-engineer": ((7.1,) * 5, (5.6,) * 5),
        "cost-analyst": ((7.2,) * 5, (5.2,) * 5),
        "reliability-engineer": ((7,) * 5, (4.3,) * 5),
    }
    r = rank(voters(table), W)
    assert r.leading == "A" and r.consensus == 0.95
    assert spread_of([8.2, 7.6, 8.8]) == (0.4899, 1.2)


def test_weighted_score_by_hand():
    # .30·9 + .25·8 + .20·7 + .15·6 + .10·5 = 2.7 + 2.0 + 1.4 + 0.9 + 0.5 = 7.5
    assert weighted_score(P.scores5((9, 8, 7, 6, 5)), W) == pytest.approx(7.5)
    # .30·6 + .25·5 + .20·8 + .15·9 + .10·9 = 1.8 + 1.25 + 1.6 + 1.35 + 0.9 = 6.9
    assert weighted_score(P.scores5((6, 5, 8, 9, 9)), W) == pytest.approx(6.9)
    # weights need not sum to 1: they are normalised (2·10 + 1·0) / 3
    assert weighted_score({"a": 10, "b": 0}, {"a": 2, "b": 1}) == pytest.approx(20 / 3)


def test_weighted_score_needs_every_dimension():
    partial = P.scores5((9, 8, 7, 6, 5))
    del partial["cost"]
    assert weighted_score(partial, W) is None
    assert weighted_score({}, {}) is None


TABLE = {
    # persona: (A scores, B scores) → weighted A, weighted B (by hand)
    "security-analyst": ((9, 8, 7, 6, 5), (6, 5, 8, 9, 9)),  # 7.5, 6.9
    "performance-engineer": ((8, 8, 8, 8, 8), (7, 6, 7, 10, 8)),  # 8.0, 2.1+1.5+1.4+1.5+0.8 = 7.3
    "cost-analyst": ((10, 9, 6, 5, 4), (5, 5, 5, 5, 10)),  # 3.0+2.25+1.2+0.75+0.4 = 7.6, 5.5
}


def voters(table=TABLE, verdicts=None):
    verdicts = verdicts or {}
    return [
        P.agent_record(p, "ranking", P.ranking_json({"A": a, "B": b}, verdict=verdicts.get(p, "approve")), key=f"ag-{p}")
        for p, (a, b) in table.items()
    ]


def test_five_dimension_ranking_by_hand():
    r = rank(voters(), W)
    per = {(s.persona, s.approach): s.weighted for s in r.scores}
    assert per == {
        ("security-analyst", "A"): 7.5,
        ("security-analyst", "B"): 6.9,
        ("performance-engineer", "A"): 8.0,
        ("performance-engineer", "B"): 7.3,
        ("cost-analyst", "A"): 7.6,
        ("cost-analyst", "B"): 5.5,
    }
    # means: A = 23.1 / 3 = 7.7, B = 19.7 / 3 = 6.5667
    assert r.means == {"A": 7.7, "B": 6.5667}
    assert r.leading == "A"
    assert r.leading_scores == {"ag-security-analyst": 7.5, "ag-performance-engineer": 8.0, "ag-cost-analyst": 7.6}
    # σ = sqrt((0.04 + 0.09 + 0.01) / 3) = 0.21602
    assert r.stdev == 0.216
    # margins for A: 0.6, 0.7, 2.1 → firmness 0.6 + 0.7 + 1 = 2.3 → 2.3 / 2.5 = 0.92 (all prefer A)
    assert r.consensus == 0.92
    assert r.spread == 0.5
    assert r.agents == 3 and r.approvals == 3 and r.rejections == 0
    assert r.approaches == ["A", "B"]
    assert r.dimensions == W


def test_verdict_counts():
    r = rank(voters(verdicts={"cost-analyst": "reject", "security-analyst": "abstain"}), W)
    assert (r.approvals, r.rejections, r.abstentions) == (1, 1, 1)


def test_only_current_valid_ranking_reports_vote():
    agents = voters()
    research = P.agent_record("ux-advocate", "research", {"findings": [{"id": "F1", "claim": "c"}]})
    invalid = P.agent_record("test-engineer", "ranking", None, status="invalid")
    old = P.agent_record("cost-analyst", "ranking", P.ranking_json({"A": (0, 0, 0, 0, 0), "B": (0,) * 5}), key="old-cost")
    old.superseded = True
    r = rank(agents + [research, invalid, old], W)
    assert r.agents == 3 and r.consensus == 0.92
    assert rank([research, invalid], W) is None


def test_struck_approach_cannot_lead():
    r = rank(voters(), W, struck={"A"})
    assert r.leading == "B"
    # A struck, B leads — but every ranker (naming no approach) scored A above B: each prefers the
    # struck A, none the leader
    assert r.consensus == 0.0
    assert rank(voters(), W, struck={"A", "B"}).leading is None


def test_ties_prefer_more_scorers_then_the_smaller_id():
    same = (8, 8, 8, 8, 8)
    two = [
        P.agent_record("security-analyst", "ranking", P.ranking_json({"B": same, "A": same}), key="k1"),
        P.agent_record("cost-analyst", "ranking", P.ranking_json({"B": same}), key="k2"),
    ]
    assert rank(two, W).leading == "B"  # equal means 8.0, B scored by 2 agents
    one = [P.agent_record("security-analyst", "ranking", P.ranking_json({"B": same, "A": same}), key="k1")]
    assert rank(one, W).leading == "A"


def test_consensus_is_agreement_not_level():
    # the same unanimous preference at 6.2 and at 9.2: the same consensus; the level differs
    low = {p: ((6.2,) * 5, (5,) * 5) for p in TABLE}
    high = {p: ((9.2,) * 5, (8,) * 5) for p in TABLE}
    lo, hi = rank(voters(low), W), rank(voters(high), W)
    assert lo.consensus == hi.consensus == round(3 / 3.2, 4)
    assert (assess(voters(low), lo).level, assess(voters(high), hi).level) == (6.2, 9.2)
    assert spread_of([]) == (0.0, 0.0)


@pytest.mark.parametrize(
    "value,label", [(0.86, "strong"), (0.85, "moderate"), (0.70, "moderate"), (0.6999, "weak"), (0.0, "weak")]
)
def test_band(value, label):
    assert band(value, 0.85, 0.70) == label


def test_the_leader_is_what_most_rankers_prefer_3_of_5_over_the_top_mean():
    # 3 of 5 prefer B by 0.3, 1 prefers A by 5.5, 1 prefers C: A has the top mean, B leads
    rows = {
        "security-analyst": (7.0, 7.3, 6.0),
        "performance-engineer": (7.1, 7.4, 6.0),
        "cost-analyst": (6.9, 7.2, 6.0),
        "ux-advocate": (9.5, 4.0, 5.0),
        "test-engineer": (6.0, 5.0, 7.0),
    }
    agents = [
        P.agent_record(p, "ranking", P.ranking_json({"A": (a,) * 5, "B": (b,) * 5, "C": (c,) * 5}), key=f"ag-{p}")
        for p, (a, b, c) in rows.items()
    ]
    r = rank(agents, W)
    assert r.means["A"] > r.means["B"] > r.means["C"]
    assert r.leading == "B"
    o = assess(agents, r)
    assert o.leader == "B"
    assert sorted(p.agent for p in o.positions if p.stance == "support") == [
        "ag-cost-analyst",
        "ag-performance-engineer",
        "ag-security-analyst",
    ]
