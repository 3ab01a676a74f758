"""consensus: agreement on the decision — each property docs/CONSENSUS.md claims, as a test."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from deliberation.core.consensus import (
    ACCEPTABLE_LEVEL,
    CLEAR_MARGIN,
    DOUBT,
    STATED_DISSENT,
    Ballot,
    Options,
    assess,
    band,
    lead,
    position,
    preference,
    votes,
)

APPROACHES = ("A", "B", "C")


def ballots(rows, verdicts=None, stated=None):
    verdicts, stated = verdicts or {}, stated or {}
    return [
        Ballot(agent=f"k{i}", persona=f"persona-{i}", scores=row, verdict=verdicts.get(i, "approve"), stated=stated.get(i))
        for i, row in enumerate(rows)
    ]


def means_of(rows):
    names = sorted({a for r in rows for a in r})
    return {a: round(sum(r[a] for r in rows if a in r) / sum(1 for r in rows if a in r), 4) for a in names}


def leader_of(means, bs=()):
    return lead(sorted(means), bs, means)


def outcome(rows, verdicts=None, stated=None, task_type="default", **opts):
    means = means_of(rows)
    bs = ballots(rows, verdicts, stated)
    return assess(bs, leader_of(means, bs), means, task_type=task_type, options=Options(**opts))


# -- the trials a unanimous panel failed under the old formula ---------------------------------


def test_unanimous_panel_at_seven_out_of_ten_is_strong():
    # four rankers prefer A (7.0-7.2) over B by 0.8 to 2.7 weighted points
    rows = [{"A": 7.0, "B": 6.2}, {"A": 7.1, "B": 5.6}, {"A": 7.2, "B": 4.5}, {"A": 7.0, "B": 5.0}]
    o = outcome(rows)
    assert o.leader == "A" and o.unanimous
    # firmness 0.8, 1, 1, 1 → S = 3.8 → 3.8 / (3.8 + 0.2) = 0.95
    assert (o.support, o.opposition, o.consensus, o.band) == (3.8, 0.0, 0.95, "strong")
    assert o.level == 7.075 and not o.weak_options
    assert [d.name for d in o.drivers] == ["unanimous", "narrow_margins", "doubt"]


def test_unanimous_panel_at_eight_is_strong():
    rows = [{"A": 7.85, "B": 6.35}, {"A": 8.25, "B": 5.35}, {"A": 8.0, "B": 6.0}, {"A": 8.1, "B": 5.9}]
    o = outcome(rows)
    assert o.consensus == round(4 / 4.2, 4) == 0.9524 and o.band == "strong"
    assert [d.name for d in o.drivers][:2] == ["unanimous", "clear_margins"]


def test_split_between_two_approaches_is_weak():
    rows = [{"A": 8, "B": 6}, {"A": 8, "B": 6}, {"A": 6, "B": 8}, {"A": 6, "B": 8.1}]
    o = outcome(rows)
    assert o.consensus == round(2 / 4.2, 4) and o.band == "weak"
    assert len(o.dissenters) == 2 and not o.unanimous


def test_one_firm_dissenter_in_four_is_moderate():
    rows = [{"A": 8, "B": 6}] * 3 + [{"A": 6, "B": 8}]
    o = outcome(rows)
    assert o.consensus == round(3 / 4.2, 4) == 0.7143 and o.band == "moderate"
    assert o.dissenters == ("k3",)
    assert [d.name for d in o.drivers] == ["dissent", "doubt"]


def test_a_near_tie_dissent_weighs_little_but_is_dissent():
    # the reliability engineer prefers C (7.00) over the leader B (6.90)
    rows = [{"B": 7.5, "C": 6.0}, {"B": 7.6, "C": 6.0}, {"B": 7.4, "C": 6.2}, {"B": 6.9, "C": 7.0}]
    o = outcome(rows)
    assert o.leader == "B" and o.dissenters == ("k3",) and not o.unanimous
    assert o.opposition == 0.1 and o.band == "strong"


# -- the two-ranker case, ties, rejects, single approach ---------------------------------------


def test_two_rankers():
    assert outcome([{"A": 8, "B": 6}, {"A": 7.5, "B": 6}]).band == "strong"  # 2 / 2.2 = 0.909
    assert outcome([{"A": 8, "B": 6}, {"A": 6, "B": 8}]).band == "weak"  # 1 / 2.2
    # one clear supporter and one indifferent ranker: moderate, not strong
    o = outcome([{"A": 8, "B": 6}, {"A": 7, "B": 7}])
    assert (o.consensus, o.band, o.indifferent) == (round(1 / 1.2, 4), "moderate", ("k1",))


def test_a_tie_for_the_lead_takes_the_lower_consensus():
    # one ranker prefers A, one prefers B, and the means tie (A 7.5, B 7.5): a tie for the lead
    rows = [{"A": 8, "B": 7.9}, {"A": 7, "B": 7.1}]
    o = outcome(rows)
    assert o.leader == "A" and [a for a, _ in o.tied] == ["A", "B"]
    assert o.consensus == min(c for _, c in o.tied)
    assert "tie_for_lead" in [d.name for d in o.drivers]


def test_equal_means_are_no_tie_when_more_rankers_prefer_one():
    rows = [{"A": 8, "B": 7.9}, {"A": 8, "B": 7.9}, {"A": 7, "B": 7.2}]  # means A 7.6667, B 7.6667
    o = outcome(rows)
    assert o.leader == "A" and o.tied == ()  # 2 prefer A, 1 prefers B


# -- the leader is the approach the most rankers prefer ----------------------------------------


def test_the_leader_is_the_approach_most_rankers_prefer_not_the_top_mean():
    # 3 of 5 prefer B (by a little), 1 prefers A by far, 1 prefers C: A has the top mean, B leads
    rows = [
        {"A": 7.0, "B": 7.3, "C": 6.0},
        {"A": 7.1, "B": 7.4, "C": 6.0},
        {"A": 6.9, "B": 7.2, "C": 6.0},
        {"A": 9.5, "B": 4.0, "C": 5.0},
        {"A": 6.0, "B": 5.0, "C": 7.0},
    ]
    means = means_of(rows)
    assert max(means, key=lambda a: means[a]) == "A"
    b = ballots(rows)
    assert votes(b) == {"B": 3, "A": 1, "C": 1}
    assert lead(means, b, means) == "B"
    o = assess(b, "B", means)
    assert o.leader == "B" and o.support > 0 and o.opposition > 0


def test_a_stated_preference_is_the_vote_and_a_reject_votes_for_none():
    b = ballots([{"A": 8, "B": 6}, {"A": 8, "B": 6}, {"A": 8, "B": 6}], verdicts={2: "reject"}, stated={0: "B"})
    assert [preference(x) for x in b] == ["B", "A", None]
    assert votes(b) == {"A": 1, "B": 1}
    # a 1/1 tie on votes: the higher mean decides
    assert lead({"A": 8.0, "B": 6.0}, b, {"A": 8.0, "B": 6.0}) == "A"


def test_a_vote_for_a_struck_approach_counts_for_no_candidate():
    b = ballots([{"A": 6, "B": 9}, {"A": 6, "B": 9}, {"A": 7, "B": 6, "C": 5}])
    means = {"A": 6.3333, "B": 8.0, "C": 5.0}
    assert lead(["A", "C"], b, means) == "A"
    assert lead([], b, means) is None


def test_a_reject_is_firm_opposition_and_abstain_counts_its_scores():
    rows = [{"A": 8, "B": 6}] * 3 + [{"A": 9, "B": 1}]
    o = outcome(rows, verdicts={3: "reject", 0: "abstain"})
    assert o.opposition == 1.0 and o.support == 3.0
    assert [d.name for d in o.drivers] == ["rejections", "doubt"]


def test_stated_preference_names_the_dissenter_scores_weigh_it():
    # states B but scores A higher: a dissenter all the same, with the stated-dissent floor
    p = position(Ballot("k", "p", {"A": 8, "B": 6}, "approve", "B"), "A")
    assert (p.stance, p.preferred, p.firmness, p.basis) == ("oppose", "B", STATED_DISSENT, "stated")
    # states B with a narrow margin: the floor, not the margin's 0.2
    p = position(Ballot("k", "p", {"A": 6, "B": 6.2}, "approve", "B"), "A")
    assert p.firmness == STATED_DISSENT
    # states B with a wide margin: its scores' full weight
    p = position(Ballot("k", "p", {"A": 5, "B": 8}, "approve", "B"), "A")
    assert p.firmness == 1.0
    # states A but scores B higher: a supporter with no firmness
    p = position(Ballot("k", "p", {"A": 6, "B": 8}, "approve", "A"), "A")
    assert (p.stance, p.firmness) == ("support", 0.0)
    # a stated id it did not score falls back to its scores
    p = position(Ballot("k", "p", {"A": 6, "B": 8}, "approve", "Z"), "A")
    assert (p.stance, p.preferred, p.basis, p.margin) == ("oppose", "B", "scores", -2.0)


def test_a_preference_for_a_struck_approach_is_still_dissent():
    # the depth step struck B from the lead; a ranker that still prefers it dissents from A
    p = position(Ballot("k", "p", {"A": 6, "B": 9, "C": 5}, "approve", "B"), "A", struck={"B"})
    assert (p.stance, p.preferred, p.margin, p.firmness) == ("oppose", "B", -3.0, 1.0)


def test_single_approach_takes_the_verdict():
    o = outcome([{"A": 7}, {"A": 6}], verdicts={1: "abstain"})
    assert (o.support, o.opposition, o.indifferent) == (1.0, 0.0, ("k1",))
    assert "no_alternative" in [d.name for d in o.drivers]


def test_no_leader_no_consensus():
    o = assess([], None, {})
    assert (o.consensus, o.band, o.positions) == (0.0, "weak", ())


# -- the leader's level ------------------------------------------------------------------------


def test_best_of_weak_options_is_reported_and_routes_risky_classes_to_review():
    rows = [{"A": 5.5, "B": 3}, {"A": 5.8, "B": 3.5}, {"A": 5.6, "B": 4}]
    o = outcome(rows)
    assert o.band == "strong" and o.level == 5.6333 and o.weak_options and not o.review
    assert outcome(rows, task_type="security").review and outcome(rows, task_type="architecture").review
    assert not outcome(rows, acceptable_level=5.0).weak_options
    assert ACCEPTABLE_LEVEL == 6.0


@pytest.mark.parametrize(
    "value,label", [(0.86, "strong"), (0.85, "moderate"), (0.70, "moderate"), (0.6999, "weak"), (0.0, "weak")]
)
def test_band(value, label):
    assert band(value, 0.85, 0.70) == label


# -- properties --------------------------------------------------------------------------------

score = st.floats(min_value=0, max_value=10, allow_nan=False).map(lambda x: round(x, 2))
row = st.fixed_dictionaries({a: score for a in APPROACHES})
panel = st.lists(row, min_size=1, max_size=7)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=2, max_value=10),
    st.lists(st.floats(min_value=CLEAR_MARGIN, max_value=8), min_size=10, max_size=10),
    st.floats(min_value=2, max_value=9.9),
)
def test_unanimous_clear_margins_are_strong_at_any_level(n, margins, level):
    rows = [{"A": level, "B": max(0.0, level - m)} for m in margins[:n]]
    assume(all(r["A"] - r["B"] >= CLEAR_MARGIN for r in rows))
    assert outcome(rows).band == "strong"


@settings(max_examples=200, deadline=None)
@given(panel, row)
def test_another_ranker_preferring_the_leader_never_lowers_it(rows, extra):
    means = means_of(rows)
    lead = leader_of(means)
    others = [a for a in APPROACHES if a != lead]
    # the new ranker prefers the leader on its own scores, and keeps it the leader
    extra = dict(extra)
    extra[lead] = max(extra[lead], max(extra[a] for a in others) + 0.01)
    assume(extra[lead] <= 10)
    new_means = means_of(rows + [extra])
    assume(leader_of(new_means) == lead and all(new_means[a] < new_means[lead] for a in others))
    before = assess(ballots(rows), lead, means).consensus
    after = assess(ballots(rows + [extra]), lead, new_means).consensus
    assert after >= before


@settings(max_examples=200, deadline=None)
@given(panel, st.data())
def test_a_wider_margin_for_the_leader_never_lowers_it(rows, data):
    means = means_of(rows)
    lead = leader_of(means)
    i = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
    up = data.draw(st.floats(min_value=0, max_value=10 - rows[i][lead]))
    wider = [dict(r) for r in rows]
    wider[i][lead] = round(wider[i][lead] + up, 2)
    new_means = means_of(wider)
    assume(all(new_means[a] < new_means[lead] for a in APPROACHES if a != lead))
    assert assess(ballots(wider), lead, new_means).consensus >= assess(ballots(rows), lead, means).consensus


@settings(max_examples=200, deadline=None)
@given(panel, st.permutations(APPROACHES), st.randoms(use_true_random=False))
def test_relabelling_and_reordering_change_nothing(rows, perm, rnd):
    means = means_of(rows)
    lead = leader_of(means, ballots(rows))  # the product's leader: the most preferred, then the mean
    base = assess(ballots(rows), lead, means)
    rename = dict(zip(APPROACHES, perm))
    moved = [{rename[a]: s for a, s in r.items()} for r in rows]
    rnd.shuffle(moved)
    new_means = means_of(moved)
    new_votes = votes(ballots(moved))
    # any of the approaches tied for the lead (as many votes, the same mean) may be named the
    # leader: the figure is the same
    tied = [
        a for a in new_means if new_means[a] == new_means[rename[lead]] and new_votes.get(a, 0) == new_votes.get(rename[lead], 0)
    ]
    for cand in tied:
        other = assess(ballots(moved), cand, new_means)
        assert (other.consensus, other.band) == (base.consensus, base.band)


@settings(max_examples=200, deadline=None)
@given(panel)
def test_bounded_and_coherent(rows):
    o = outcome(rows)
    assert 0.0 <= o.consensus < 1.0
    # both sides are rounded to 4 places (the figures from unrounded sums): equal within one unit
    assert o.consensus <= round(o.support / (o.support + o.opposition + DOUBT), 4) + 1e-4 + 1e-9
    assert len(o.supporters) + len(o.dissenters) + len(o.indifferent) == len(rows)
    assert o.unanimous == (len(o.supporters) == len(rows))


def test_a_supporter_is_not_weighed_against_a_struck_approach():
    # it states the leader B; its only alternative A was struck by the depth step
    p = position(Ballot("k", "p", {"A": 9, "B": 8}, "approve", "B"), "B", struck={"A"})
    assert (p.stance, p.firmness, p.basis) == ("support", 1.0, "verdict")
    p = position(Ballot("k", "p", {"A": 9, "B": 8, "C": 7.5}, "approve", "B"), "B", struck={"A"})
    assert (p.stance, p.margin, p.firmness) == ("support", 0.5, 0.5)


def test_a_stated_two_two_split_is_weak_even_when_the_dissenters_scores_contradict_them():
    # a real panel: rankers stated B, C, B, C; the two C rankers scored B higher (7.65 > 7.0,
    # 7.65 > 7.2). A contradicted dissent that weighed nothing read 0.91, "strong".
    rows = [
        {"A": 5.5, "B": 7.65, "C": 7.0},
        {"A": 4.85, "B": 7.5, "C": 6.15},
        {"A": 5.2, "B": 7.65, "C": 7.2},
        {"A": 4.9, "B": 7.65, "C": 6.3},
    ]
    ballots = [Ballot(f"k{i}", f"p{i}", r, "approve", s) for i, (r, s) in enumerate(zip(rows, "CBCB"))]
    means = {a: sum(r[a] for r in rows) / 4 for a in "ABC"}
    o = assess(ballots, "B", means)
    assert o.dissenters == ("k0", "k2") and o.opposition == 2 * STATED_DISSENT
    assert o.band == "weak" and o.consensus == round(2 / (2 + 1 + 0.2), 4)
