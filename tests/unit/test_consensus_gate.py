"""Gate 1 — consensus: each of the four checks failing alone, with its figure and next step."""

from __future__ import annotations

import pytest

from deliberation.core import consensus_gate
from deliberation.core.ranking import rank
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
HIGH = {"A": (9, 9, 9, 9, 9), "B": (6, 6, 6, 6, 6)}  # weighted A = 9.0, B = 6.0
DOC = [{"target": "A", "concern": "migration window is optimistic", "reason": "last one took 9 h"}]


def passing(task_type="architecture", phase="RANKING", extra=()):
    agents = [
        P.agent_record(p, "ranking", P.ranking_json(HIGH, preferred="A"), key=f"k-{p}")
        for p in ("security-analyst", "performance-engineer", "cost-analyst")
    ] + list(extra)
    d = P.make_deliberation(agents, phase=phase, task_type=task_type)
    d.ranking = rank(d.agents, W)
    return d


def checks(result):
    return {c.name: c for c in result.checks}


def failed(result):
    return [c.name for c in result.checks if not c.passed]


def test_all_four_pass():
    d = passing()
    r = consensus_gate.evaluate(d, 2, now=5.0)
    assert r.passed and r.gate == "consensus" and r.at == 5.0 and r.next_step == ""
    c = checks(r)
    assert list(c) == ["phase", "agents_completed", "consensus", "dissent_documented"]
    assert c["phase"].figure == "phase RANKING"
    assert c["agents_completed"].figure == "3 ≥ 2"
    # each ranker prefers A (9.0) over B (6.0) by 3 points: firmness 1 each → 3 / 3.2 = 0.9375
    assert (c["consensus"].measured, c["consensus"].needed) == pytest.approx((0.94, 0.80), abs=0.005)
    assert c["dissent_documented"].figure == "0 of 0 dissenters documented"


def test_phase_fails_alone():
    d = passing(phase="DELIBERATION")
    r = consensus_gate.evaluate(d, 2, 0)
    assert failed(r) == ["phase"]
    assert checks(r)["phase"].figure == "phase DELIBERATION < RANKING"
    assert r.next_step.startswith("spawn the personas again to RANK")
    # its hold, word for word: tests/data/answers/gate1/phase_before_ranking.txt


def test_phase_in_research_tells_the_whole_way():
    d = passing(phase="RESEARCH")
    r = consensus_gate.evaluate(d, 2, 0)
    assert failed(r) == ["phase"]
    assert r.next_step.startswith("finish RESEARCH (at least 2 independent persona reports)")


def test_agents_completed_fails_alone():
    d = passing()
    r = consensus_gate.evaluate(d, 4, 0)
    assert failed(r) == ["agents_completed"]
    assert checks(r)["agents_completed"].figure == "3 < 4"
    assert r.next_step == "spawn more personas to rank: 3 < 4 ranking reports"


def split_panel(task_type):
    """Two rankers prefer A (8 vs 6), one prefers B (8 vs 6) and says why: A leads (7.33)."""
    agents = [
        P.agent_record(p, "ranking", P.ranking_json({"A": (8,) * 5, "B": (6,) * 5}, preferred="A"), key=f"k-{p}")
        for p in ("security-analyst", "performance-engineer")
    ]
    agents.append(
        P.agent_record(
            "cost-analyst",
            "ranking",
            P.ranking_json({"A": (6,) * 5, "B": (8,) * 5}, preferred="B", dissent=DOC),
            key="k-cost-analyst",
        )
    )
    d = P.make_deliberation(agents, task_type=task_type)
    d.ranking = rank(d.agents, W)
    return d


def test_consensus_fails_alone_with_the_numbers():
    d = split_panel("architecture")
    # support 1 + 1, opposition 1 → 2 / (3 + 0.2) = 0.625
    assert d.ranking.leading == "A" and d.ranking.consensus == 0.625
    r = consensus_gate.evaluate(d, 2, 0)
    assert failed(r) == ["consensus"]
    assert (checks(r)["consensus"].measured, checks(r)["consensus"].needed) == pytest.approx((0.625, 0.80), abs=0.005)
    assert checks(r)["consensus"].detail == "leading approach A"
    assert r.next_step.startswith("the panel did not agree — two ways forward")
    # its hold, word for word: tests/data/answers/gate1/consensus_below_threshold.txt


def test_consensus_check_is_task_adaptive():
    # the same 0.62 passes the documentation bar of 0.50
    r = consensus_gate.evaluate(split_panel("documentation"), 2, 0)
    assert r.passed
    assert (checks(r)["consensus"].measured, checks(r)["consensus"].needed) == pytest.approx((0.625, 0.50), abs=0.005)


def test_a_panel_that_agrees_passes_whatever_the_leaders_level():
    # every ranker prefers A, scored 6.2, over B at 5: the level is low, the agreement is not
    agents = [
        P.agent_record(p, "ranking", P.ranking_json({"A": (6.2,) * 5, "B": (5,) * 5}, preferred="A"), key=f"k-{p}")
        for p in ("security-analyst", "performance-engineer")
    ]
    d = P.make_deliberation(agents, task_type="architecture")
    d.ranking = rank(d.agents, W)
    assert d.ranking.consensus == round(2 / 2.2, 4)
    assert consensus_gate.evaluate(d, 2, 0).passed


def test_consensus_fails_without_any_ranking():
    d = passing()
    d.ranking = None
    c = checks(consensus_gate.evaluate(d, 2, 0))
    assert c["consensus"].passed is False
    assert (c["consensus"].measured, c["consensus"].needed) == pytest.approx((0.00, 0.80), abs=0.005)
    assert c["consensus"].detail == "no ranking yet"


def test_undocumented_dissent_fails_alone():
    # the reliability engineer prefers B but says nothing about why
    bare = P.agent_record("reliability-engineer", "ranking", P.ranking_json(HIGH, preferred="B"), key="k-rel")
    d = passing(extra=[bare])
    # it states B but scores A higher: a dissenter with the stated-dissent floor (0.5), the
    # consensus still above the architecture threshold (0.80), so the undocumented dissent fails alone
    assert d.ranking.leading == "A" and d.ranking.consensus == round(3 / 3.7, 4)
    r = consensus_gate.evaluate(d, 2, 0)
    assert failed(r) == ["dissent_documented"]
    c = checks(r)["dissent_documented"]
    assert c.figure == "0 of 1 dissenters documented"
    assert c.detail == "undocumented: reliability-engineer"
    # the advice says which way to re-run: a SendMessage resume (its new report replaces the old) or a spawn
    assert r.next_step.startswith("have reliability-engineer (agent k-rel) document, in `dissent`, a concern")
    assert "no other agent's scores or verdicts and no leader" in r.next_step  # a resume is blind too
    assert "resume each with SendMessage (to = its agent id)" in r.next_step
    assert "its new report replaces the old one" in r.next_step and "or spawn it again for ranking" in r.next_step


def test_a_reject_counts_as_dissent_and_documented_dissent_passes():
    rejecter = P.agent_record(
        "devils-advocate", "ranking", P.ranking_json(HIGH, verdict="reject", preferred="A", dissent=DOC), key="k-da"
    )
    d = passing(task_type="default", extra=[rejecter])
    r = consensus_gate.evaluate(d, 2, 0)
    # a reject is firm opposition: 3 / (3 + 1 + 0.2) = 0.71, moderate, over the default bar
    assert d.ranking.consensus == round(3 / 4.2, 4)
    assert r.passed
    assert checks(r)["dissent_documented"].figure == "1 of 1 dissenters documented"


def test_dissenters_and_undocumented_helpers():
    bare = P.agent_record("ux-advocate", "ranking", P.ranking_json(HIGH, verdict="reject"), key="k-ux")
    doc = P.agent_record("test-engineer", "ranking", P.ranking_json(HIGH, preferred="B", dissent=DOC), key="k-te")
    d = passing(extra=[bare, doc])
    dis = consensus_gate.dissenters(d, "A")
    assert [a.persona for a in dis] == ["ux-advocate", "test-engineer"]
    assert [a.persona for a in consensus_gate.undocumented(dis)] == ["ux-advocate"]


# --- a unanimous reject -----------------------------------------------------


def unanimous_reject(scores=HIGH, documented=True):
    why = [{"target": "A", "concern": "A cannot meet the retention rule", "reason": "policy §4.2"}]
    agents = [
        P.agent_record(
            p, "ranking", P.ranking_json(scores, verdict="reject", preferred="A", dissent=why if documented else []), key=f"k-{p}"
        )
        for p in ("security-analyst", "performance-engineer", "cost-analyst")
    ]
    d = P.make_deliberation(agents, task_type="architecture")
    d.ranking = rank(d.agents, W)
    return d


def test_unanimous_reject_concludes_rejected_whatever_the_top_score():
    low = {"A": (3, 3, 3, 3, 3), "B": (2, 2, 2, 2, 2)}  # consensus 0.30: far below 0.80
    for scores in (HIGH, low):
        d = unanimous_reject(scores)
        r = consensus_gate.evaluate(d, 2, 0)
        assert r.passed, [(c.name, c.figure) for c in r.checks]
        c = checks(r)["consensus"]
        assert c.figure == "unanimous reject: 3 of 3 voting agents reject — rejected — no approach adopted"
        assert "the top-scored approach A" in c.detail and "is not adopted" in c.detail


def test_unanimous_reject_still_needs_the_reasons():
    r = consensus_gate.evaluate(unanimous_reject(documented=False), 2, 0)
    assert failed(r) == ["dissent_documented"]


def test_one_approval_makes_it_a_split_not_a_rejection():
    d = unanimous_reject({"A": (3, 3, 3, 3, 3), "B": (2, 2, 2, 2, 2)})
    d.agents[0].report.verdict = "approve"
    d.ranking = rank(d.agents, W)
    r = consensus_gate.evaluate(d, 2, 0)
    # one approval against two firm rejections: 1 / (1 + 2 + 0.2) = 0.3125
    assert failed(r) == ["consensus"]
    assert (checks(r)["consensus"].measured, checks(r)["consensus"].needed) == pytest.approx((0.31, 0.80), abs=0.005)


def test_dissent_is_read_against_the_leader_the_vote_produced():
    """Rankers never see a leader, so a ranker that prefers B documents a concern for
    each approach it would not adopt; after the vote, the one about the computed leader counts."""
    about_c = [{"target": "C", "concern": "C is too slow", "reason": "bench/c.txt"}]
    about_a = [{"target": "A", "concern": "A's migration window is optimistic", "reason": "last one took 9 h"}]
    scores = {"A": (9, 9, 9, 9, 9), "B": (8, 8, 8, 8, 8), "C": (5, 5, 5, 5, 5)}
    only_c = P.agent_record(
        "reliability-engineer", "ranking", P.ranking_json(scores, preferred="B", dissent=about_c), key="k-rel"
    )
    d = passing(extra=[only_c])
    assert d.ranking.leading == "A"
    r = consensus_gate.evaluate(d, 2, 0)
    assert failed(r) == ["dissent_documented"] and "undocumented: reliability-engineer" in checks(r)["dissent_documented"].detail
    assert "every approach it would not adopt" in r.next_step and "after the vote" in r.next_step
    both = P.agent_record(
        "reliability-engineer", "ranking", P.ranking_json(scores, preferred="B", dissent=about_c + about_a), key="k-rel"
    )
    assert consensus_gate.evaluate(passing(extra=[both]), 2, 0).passed
    general = P.agent_record(
        "reliability-engineer",
        "ranking",
        P.ranking_json(
            scores, preferred="B", dissent=[{"concern": "none of the fast options is tested", "reason": "no load test"}]
        ),
        key="k-rel",
    )  # target defaults to "leading": a general concern counts
    assert consensus_gate.evaluate(passing(extra=[general]), 2, 0).passed


def test_a_dissenter_is_read_from_its_scores_when_it_names_no_approach():
    # approves, names nothing, scores B above the leader A: it dissents and must say why
    silent = P.agent_record("reliability-engineer", "ranking", P.ranking_json({"A": (6,) * 5, "B": (8,) * 5}), key="k-rel")
    d = passing(task_type="default", extra=[silent])
    assert d.ranking.leading == "A"
    assert [a.persona for a in consensus_gate.dissenters(d, "A")] == ["reliability-engineer"]
    assert failed(consensus_gate.evaluate(d, 2, 0)) == ["dissent_documented"]
    # a ranker whose scores tie the leader with another approach prefers neither: no dissent
    tied = P.agent_record("reliability-engineer", "ranking", P.ranking_json({"A": (7,) * 5, "B": (7,) * 5}), key="k-rel")
    assert consensus_gate.dissenters(passing(extra=[tied]), "A") == []
