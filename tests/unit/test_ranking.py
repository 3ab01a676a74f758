"""ranking: weighted scores over the five default dimensions, leading approach, consensus — by hand."""

from __future__ import annotations

import math

import pytest

from deliberation.state.config import Config
from deliberation.core.ranking import band, consensus_score, rank, weighted_score
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}


def test_default_weights_are_the_documented_ones():
    dims = Config().ranking.dimensions
    assert [(d.name, d.weight) for d in dims] == list(W.items())
    assert math.isclose(sum(W.values()), 1.0)


def test_readme_worked_example():
    # three agents give the leading approach 8.2, 7.6 and 8.8:
    # m = 8.2, σ = sqrt((0 + 0.36 + 0.36) / 3) = 0.48990, consensus = 0.82 · (1 − 0.04899) = 0.7798
    consensus, sd, spread = consensus_score([8.2, 7.6, 8.8])
    assert consensus == 0.7798
    assert sd == 0.4899
    assert spread == 1.2


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
    "security-analyst": ((9, 8, 7, 6, 5), (6, 5, 8, 9, 9)),        # 7.5, 6.9
    "performance-engineer": ((8, 8, 8, 8, 8), (7, 6, 7, 10, 8)),    # 8.0, 2.1+1.5+1.4+1.5+0.8 = 7.3
    "cost-analyst": ((10, 9, 6, 5, 4), (5, 5, 5, 5, 10)),            # 3.0+2.25+1.2+0.75+0.4 = 7.6, 5.5
}


def voters(table=TABLE, verdicts=None):
    verdicts = verdicts or {}
    return [P.agent_record(p, "ranking", P.ranking_json({"A": a, "B": b}, verdict=verdicts.get(p, "approve")),
                           key=f"ag-{p}")
            for p, (a, b) in table.items()]


def test_five_dimension_ranking_by_hand():
    r = rank(voters(), W)
    per = {(s.persona, s.approach): s.weighted for s in r.scores}
    assert per == {("security-analyst", "A"): 7.5, ("security-analyst", "B"): 6.9,
                   ("performance-engineer", "A"): 8.0, ("performance-engineer", "B"): 7.3,
                   ("cost-analyst", "A"): 7.6, ("cost-analyst", "B"): 5.5}
    # means: A = 23.1 / 3 = 7.7, B = 19.7 / 3 = 6.5667
    assert r.means == {"A": 7.7, "B": 6.5667}
    assert r.leading == "A"
    assert r.leading_scores == {"ag-security-analyst": 7.5, "ag-performance-engineer": 8.0,
                                "ag-cost-analyst": 7.6}
    # σ = sqrt((0.04 + 0.09 + 0.01) / 3) = 0.21602; consensus = 0.77 · (1 − 0.021602) = 0.753366
    assert r.stdev == 0.216
    assert r.consensus == 0.7534
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
    old = P.agent_record("cost-analyst", "ranking", P.ranking_json({"A": (0, 0, 0, 0, 0), "B": (0,) * 5}),
                         key="old-cost")
    old.superseded = True
    r = rank(agents + [research, invalid, old], W)
    assert r.agents == 3 and r.consensus == 0.7534
    assert rank([research, invalid], W) is None


def test_struck_approach_cannot_lead():
    r = rank(voters(), W, struck={"A"})
    assert r.leading == "B"
    # B: 6.9, 7.3, 5.5 → m = 6.5667, σ = sqrt(((.3333)^2 + (.7333)^2 + (1.0667)^2)/3) = 0.7717
    assert r.consensus == round((6.5667 / 10) * (1 - 0.771722 / 10), 4) == 0.6060
    assert rank(voters(), W, struck={"A", "B"}).leading is None


def test_ties_prefer_more_scorers_then_the_smaller_id():
    same = (8, 8, 8, 8, 8)
    two = [P.agent_record("security-analyst", "ranking", P.ranking_json({"B": same, "A": same}), key="k1"),
           P.agent_record("cost-analyst", "ranking", P.ranking_json({"B": same}), key="k2")]
    assert rank(two, W).leading == "B"  # equal means 8.0, B scored by 2 agents
    one = [P.agent_record("security-analyst", "ranking", P.ranking_json({"B": same, "A": same}), key="k1")]
    assert rank(one, W).leading == "A"


def test_unanimous_identical_scores_give_mean_over_ten():
    assert consensus_score([6.2, 6.2, 6.2]) == (0.62, 0.0, 0.0)
    assert consensus_score([]) == (0.0, 0.0, 0.0)
    assert consensus_score([10, 0]) == (0.25, 5.0, 10.0)  # 0.5 · (1 − 0.5)


@pytest.mark.parametrize("value,label", [(0.86, "strong"), (0.85, "moderate"), (0.70, "moderate"),
                                         (0.6999, "weak"), (0.0, "weak")])
def test_band(value, label):
    assert band(value, 0.85, 0.70) == label
