"""conformity: each herding detector on a positive case and a near-miss negative, with the
figures in the evidence checked by hand."""

from __future__ import annotations

import pytest

from deliberation import catalogue
from deliberation.state.config import Config
from deliberation.core.conformity import (
    detect_all,
    missing_minority,
    same_reasoning,
    score_clustering,
    templated_dissent,
    two_agent_rule,
)
from deliberation.state.agent_report import AgentReport, Concern
from deliberation.state.models import AgentRecord, RankingResult
from deliberation.core.conformity import dimension_clustering, near_threshold
from deliberation.core.ranking import rank

CFG = Config().conformity
PERSONAS = ["security-analyst", "performance-engineer", "cost-analyst", "reliability-engineer", "test-engineer"]


def report(phase="ranking", verdict="approve", preferred="A", rationale="", dissent=()):
    return AgentReport(
        phase=phase,
        verdict=verdict,
        preferred_approach=preferred,
        rationale=rationale,
        dissent=[Concern(concern=c, reason=r) for c, r in dissent],
    )


def record(key, persona, rep, stage="ranking", status="reported", superseded=False):
    return AgentRecord(
        key=key,
        agent_id=key,
        persona=persona,
        kind="persona",
        stage=stage,
        status=status,
        spawned_at=0.0,
        report=rep,
        superseded=superseded,
    )


def ranking(scores: "dict[str, float]", leading="A"):
    vals = list(scores.values())
    return RankingResult(
        dimensions={"correctness": 1.0},
        approaches=["A", "B"],
        scores=[],
        means={"A": sum(vals) / len(vals)},
        leading=leading,
        leading_scores=scores,
        consensus=0.7,
        spread=max(vals) - min(vals),
        stdev=0.0,
        agents=len(vals),
        approvals=len(vals),
        rejections=0,
        abstentions=0,
    )


def panel(n=5, **kw):
    return [record(f"ag{i}", PERSONAS[i], report(**kw)) for i in range(n)]


# --------------------------------------------------------------------------------------------
# score clustering


def test_seed_example_five_agents_7_1_to_7_4_flagged():
    agents = panel()
    r = ranking(dict(zip([a.key for a in agents], [7.1, 7.2, 7.3, 7.3, 7.4])))
    [w] = score_clustering(agents, r, CFG.clustering_window, CFG.min_agents_for_clustering)
    assert w.detector == "score_clustering"
    assert w.agents == ["ag0", "ag1", "ag2", "ag3", "ag4"]
    # 7.4 - 7.1 = 0.30000000000000071 in floating point: still inside the 0.30 window
    assert w.evidence == (
        "5 agents scored leading approach A within 7.10–7.40 (spread 0.30 ≤ window 0.30): 7.10, 7.20, 7.30, 7.30, 7.40"
    )
    assert "fresh isolation" in w.recommendation


def test_seed_rerun_spread_5_8_to_8_9_not_flagged():
    agents = panel()
    r = ranking(dict(zip([a.key for a in agents], [5.8, 6.9, 7.4, 8.1, 8.9])))
    assert score_clustering(agents, r, 0.3, 3) == []


def test_near_miss_spread_0_31_not_flagged():
    agents = panel()
    r = ranking(dict(zip([a.key for a in agents], [7.10, 7.2, 7.3, 7.3, 7.41])))
    assert score_clustering(agents, r, 0.3, 3) == []


def test_clustering_needs_min_agents_and_a_leading_approach():
    agents = panel(2)
    assert score_clustering(agents, ranking({"ag0": 7.1, "ag1": 7.2}), 0.3, 3) == []
    agents = panel(3)
    r = ranking({"ag0": 7.1, "ag1": 7.2, "ag2": 7.2}, leading=None)
    assert score_clustering(agents, r, 0.3, 3) == []
    assert score_clustering(agents, None, 0.3, 3) == []


def test_clustering_ignores_invalid_superseded_and_other_stage_scores():
    agents = panel(3) + [
        record("bad", "ux-advocate", None, status="invalid"),
        record("old", "cost-analyst", report(), superseded=True),
        record("res", "devils-advocate", report(phase="research"), stage="research"),
    ]
    r = ranking({"ag0": 7.1, "ag1": 7.2, "ag2": 7.3, "bad": 9.5, "old": 2.0, "res": 4.0})
    [w] = score_clustering(agents, r, 0.3, 3)
    assert w.agents == ["ag0", "ag1", "ag2"]
    assert "within 7.10–7.30 (spread 0.20" in w.evidence


# --------------------------------------------------------------------------------------------
# templated dissent

TEMPLATE = (
    "The dual-write period can leave orders and payments inconsistent",
    "Writes to the old and new schema are not in one transaction, so a crash between them loses one side",
)
TEMPLATE_REWORDED = (
    "The dual write period could leave orders and payments inconsistent",
    "Writes to the old and the new schema are not in a single transaction, so a crash between them loses one side",
)
SAME_TOPIC_OTHER_ARGUMENT = (
    "The dual-write period doubles write latency on the orders path",
    "Every order insert now waits for two round trips to the primary, measured 18 ms to 35 ms at p99 in staging",
)


def test_templated_dissent_flagged_across_personas():
    agents = [
        record("ag0", "security-analyst", report(dissent=[TEMPLATE])),
        record("ag1", "reliability-engineer", report(dissent=[TEMPLATE_REWORDED])),
        record("ag2", "cost-analyst", report(dissent=[SAME_TOPIC_OTHER_ARGUMENT])),
    ]
    [w] = templated_dissent(agents, CFG.templated_similarity)
    assert w.detector == "templated_dissent" and w.agents == ["ag0", "ag1"]
    assert "security-analyst × reliability-engineer 0.91;" in w.evidence  # hand-checked below
    assert w.evidence.startswith("2 agents: dissent repeats the same language (similarity ≥ 0.60)")


def test_templated_dissent_looks_at_every_stage():
    agents = [
        record("ag0", "security-analyst", report(phase="research", dissent=[TEMPLATE]), stage="research"),
        record("ag1", "reliability-engineer", report(dissent=[TEMPLATE_REWORDED])),
    ]
    assert [w.agents for w in templated_dissent(agents, 0.6)] == [["ag0", "ag1"]]


def test_near_miss_same_topic_different_argument_not_templated():
    agents = [
        record("ag0", "security-analyst", report(dissent=[TEMPLATE])),
        record("ag2", "performance-engineer", report(dissent=[SAME_TOPIC_OTHER_ARGUMENT])),
    ]
    assert templated_dissent(agents, 0.6) == []


def test_same_persona_repeating_itself_or_invalid_report_is_not_templated():
    agents = [
        record("ag0", "security-analyst", report(phase="research", dissent=[TEMPLATE]), stage="research"),
        record("ag1", "security-analyst", report(dissent=[TEMPLATE])),
        record("ag2", "cost-analyst", report(dissent=[TEMPLATE]), superseded=True),
    ]
    assert templated_dissent(agents, 0.6) == []


# --------------------------------------------------------------------------------------------
# missing minority


def _sec_perf_panel(sec_report, perf_report):
    return [
        record("sec", "security-analyst", sec_report),
        record("perf", "performance-engineer", perf_report),
        record("test", "test-engineer", report()),
    ]


def test_missing_minority_unanimous_conflicting_pair_flagged():
    agents = _sec_perf_panel(report(), report())
    [w] = missing_minority(agents, CFG.conflicting_pairs)
    assert w.agents == ["sec", "perf"]
    assert w.evidence == (
        "unanimous approval: 3 of 3 ranking agents approve with 0 dissent, "
        "including conflicting personas security-analyst × performance-engineer"
    )


def test_near_miss_conflicting_pair_where_one_dissents_not_flagged():
    concern = ("Caching session tokens in the CDN", "A shared cache key would serve one user's session to another")
    agents = _sec_perf_panel(report(dissent=[concern]), report())
    assert missing_minority(agents, CFG.conflicting_pairs) == []


def test_missing_minority_needs_all_approve_and_both_personas():
    assert missing_minority(_sec_perf_panel(report(verdict="abstain"), report()), CFG.conflicting_pairs) == []
    assert missing_minority(_sec_perf_panel(report(), report(verdict="reject")), CFG.conflicting_pairs) == []
    no_perf = [record("sec", "security-analyst", report()), record("test", "test-engineer", report())]
    assert missing_minority(no_perf, CFG.conflicting_pairs) == []
    # the conflicting partner only took part in research: not a ranking-stage unanimity
    research_perf = [
        record("sec", "security-analyst", report()),
        record("test", "test-engineer", report()),
        record("perf", "performance-engineer", report(phase="research"), stage="research"),
    ]
    assert missing_minority(research_perf, CFG.conflicting_pairs) == []


# --------------------------------------------------------------------------------------------
# same reasoning and the two-agent rule

WHY_1 = (
    "Approach A keeps the queue consumer idempotent with a deduplication key, so redelivered "
    "messages never charge a customer twice"
)
WHY_1_ECHO = (
    "Approach A keeps the queue consumer idempotent using a deduplication key so that "
    "redelivered messages never charge customers twice"
)
WHY_2 = (
    "Approach A is cheaper to run: it reuses the existing Postgres instance instead of adding a "
    "managed broker, saving about 400 dollars a month"
)


def test_same_reasoning_flagged_for_agreement_with_echoed_rationale():
    agents = [
        record("ag0", "security-analyst", report(rationale=WHY_1)),
        record("ag1", "reliability-engineer", report(rationale=WHY_1_ECHO)),
        record("ag2", "cost-analyst", report(rationale=WHY_2)),
    ]
    [w] = same_reasoning(agents, ranking({"ag0": 7, "ag1": 8, "ag2": 6}), CFG.same_reasoning_similarity)
    assert w.detector == "same_reasoning" and w.agents == ["ag0", "ag1"]
    assert "agree on the same position with the same reasoning" in w.evidence


def test_near_miss_agreement_with_different_reasoning_not_flagged():
    agents = [record("ag0", "security-analyst", report(rationale=WHY_1)), record("ag2", "cost-analyst", report(rationale=WHY_2))]
    assert same_reasoning(agents, None, 0.6) == []


def test_same_words_but_different_position_is_not_agreement():
    agents = [
        record("ag0", "security-analyst", report(rationale=WHY_1)),
        record("ag1", "reliability-engineer", report(preferred="B", rationale=WHY_1_ECHO)),
        record("ag2", "cost-analyst", report(verdict="abstain", rationale=WHY_1)),
    ]
    assert same_reasoning(agents, None, 0.6) == []


def test_preferred_none_means_leading_approach():
    agents = [
        record("ag0", "security-analyst", report(preferred=None, rationale=WHY_1)),
        record("ag1", "reliability-engineer", report(preferred="A", rationale=WHY_1_ECHO)),
    ]
    assert same_reasoning(agents, ranking({"ag0": 7, "ag1": 8}), 0.6)[0].agents == ["ag0", "ag1"]
    assert same_reasoning(agents, ranking({"ag0": 7, "ag1": 8}, leading="B"), 0.6) == []


def test_two_agent_rule():
    for_a = report(rationale=WHY_1)
    assert two_agent_rule(for_a, report(rationale=WHY_2)) == "proceed"
    assert two_agent_rule(for_a, report(verdict="reject", rationale=WHY_1)) == "investigate"
    assert two_agent_rule(for_a, report(rationale=WHY_1_ECHO)) == "suspect_herding"
    # records work too; a missing report cannot agree
    assert (
        two_agent_rule(record("x", "security-analyst", for_a), record("y", "devils-advocate", report(rationale=WHY_1_ECHO)))
        == "suspect_herding"
    )
    assert (
        two_agent_rule(record("x", "security-analyst", for_a), record("y", "devils-advocate", None, status="invalid"))
        == "investigate"
    )


# --------------------------------------------------------------------------------------------
# hand-checked figures and detect_all


def test_evidence_figures_are_the_similarities():
    from deliberation.core.similarity import dice, similarity

    a, b = " ".join(TEMPLATE), " ".join(TEMPLATE_REWORDED)
    # by hand: a's 18 tokens are dual writ period leav ord pay inconsistent writ old new schema
    # not ONE transaction crash los one sid; b's are the same with "singl" in place of the first
    # "one". Distinct tokens: a 16, b 17, shared 16 -> unigram Dice 32/33.
    # Trigrams: 16 each; the 3 that cover position 12 differ -> 13 shared -> Dice 26/32.
    assert dice(a, b, 1) == pytest.approx(32 / 33)
    assert dice(a, b, 3) == pytest.approx(26 / 32)
    expected = 0.6 * 32 / 33 + 0.4 * 26 / 32  # 0.9068
    assert similarity(a, b) == pytest.approx(expected, abs=1e-6)
    agents = [
        record("ag0", "security-analyst", report(dissent=[TEMPLATE])),
        record("ag1", "reliability-engineer", report(dissent=[TEMPLATE_REWORDED])),
    ]
    [w] = templated_dissent(agents, 0.6)
    assert "security-analyst × reliability-engineer 0.91;" in w.evidence


def test_detect_all_on_a_herding_panel_and_a_healthy_one():
    herd = [
        record("sec", "security-analyst", report(rationale=WHY_1)),
        record("perf", "performance-engineer", report(rationale=WHY_1_ECHO)),
        record("test", "test-engineer", report(rationale=WHY_1)),
    ]
    r = ranking({"sec": 7.2, "perf": 7.3, "test": 7.4})
    found = {w.detector for w in detect_all(herd, r, Config())}
    assert found == {"score_clustering", "missing_minority", "same_reasoning"}

    healthy = [
        record("sec", "security-analyst", report(rationale=WHY_1)),
        record(
            "perf",
            "performance-engineer",
            report(verdict="reject", preferred="B", rationale=WHY_2, dissent=[SAME_TOPIC_OTHER_ARGUMENT]),
        ),
        record("test", "test-engineer", report(rationale=WHY_2, dissent=[TEMPLATE])),
    ]
    assert detect_all(healthy, ranking({"sec": 8.1, "perf": 5.6, "test": 7.0}), Config()) == []
    assert "cannot" in detect_all.__doc__ and "herding" in detect_all.__doc__


# --------------------------------------------------------------------------------------------
# one dimension at a time, and near the threshold


DIMS = tuple(d.name for d in catalogue.DIMENSIONS)  # the catalogue's
W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}


def scored_panel(risk: "list[float]", others: "list[tuple]"):
    """Five ranking agents scoring approach A: `risk[i]` on risk, `others[i]` on the other four."""
    agents = []
    for i, (r, rest) in enumerate(zip(risk, others)):
        dims = dict(zip(("correctness", "maintainability", "performance", "cost"), rest), risk=r)
        rep = AgentReport(
            phase="ranking", verdict="approve", preferred_approach="A", scores={"A": dims, "B": {d: 5.0 for d in DIMS}}
        )
        agents.append(record(f"ag{i}", PERSONAS[i], rep))
    return agents, rank(agents, W)


SPREAD_OTHERS = [(9, 4, 6, 8), (5, 8, 9, 3), (7, 6, 4, 9), (8, 9, 5, 6), (4, 5, 8, 7)]


def test_seed_example_security_risk_7_1_to_7_4_is_one_dimension_and_flagged():
    """docs/EVIDENCE.md, E2: five agents rated an auth refactor's security risk 7.1–7.4 — a cluster on ONE
    dimension, invisible on the weighted totals (here 5.95–7.38)."""
    agents, r = scored_panel([7.1, 7.2, 7.3, 7.3, 7.4], SPREAD_OTHERS)
    assert score_clustering(agents, r, 0.3, 3) == []  # the totals spread: the old detector saw nothing
    [w] = dimension_clustering(agents, r, 0.3, 3)
    assert w.detector == "dimension_clustering" and w.agents == ["ag0", "ag1", "ag2", "ag3", "ag4"]
    assert w.evidence == (
        "leading approach A, one dimension at a time (window 0.30): risk: 5 agents within "
        "7.10–7.40 (spread 0.30): 7.10, 7.20, 7.30, 7.30, 7.40"
    )
    assert {x.detector for x in detect_all(agents, r, Config())} >= {"dimension_clustering"}


def test_seed_rerun_with_fresh_isolation_5_8_to_8_9_is_not_flagged():
    agents, r = scored_panel([5.8, 6.9, 7.4, 8.1, 8.9], SPREAD_OTHERS)
    assert dimension_clustering(agents, r, 0.3, 3) == []
    assert not {x.detector for x in detect_all(agents, r, Config())} & {"dimension_clustering", "score_clustering"}


def test_dimension_clustering_names_every_clustered_dimension_and_skips_invalid_reports():
    others = [(8, 6, 6.1, 9), (8, 7, 6.2, 3), (8, 8, 6.0, 5), (8, 9, 6.3, 7), (8, 4, 6.1, 2)]
    agents, r = scored_panel([5.8, 6.9, 7.4, 8.1, 8.9], others)
    [w] = dimension_clustering(agents, r, 0.3, 3)
    assert "correctness: 5 agents within 8.00–8.00" in w.evidence and "performance: 5 agents within 6.00–6.30" in w.evidence
    assert "risk" not in w.evidence and "cost" not in w.evidence
    for a in agents[2:]:
        a.status = "invalid"
    assert dimension_clustering(agents, r, 0.3, 3) == []  # 2 valid reports < 3


@pytest.mark.parametrize("threshold,flagged", [(0.70, True), (0.75, True), (0.85, False), (0.60, False)])
def test_scores_clustered_near_the_threshold(threshold, flagged):
    """E2's 7.1–7.4 sit at the default bar 0.70 (7.0 ± 0.5); at security's 0.85 they do not."""
    agents = panel()
    r = ranking(dict(zip([a.key for a in agents], [7.1, 7.2, 7.3, 7.3, 7.4])))
    found = near_threshold(agents, r, threshold, 0.5, 3)
    assert bool(found) is flagged
    if flagged:
        assert found[0].detector == "near_threshold"
        assert f"all within 0.50 of the bar {threshold * 10:.2f} (threshold {threshold:.2f} × 10)" in found[0].evidence


def test_near_threshold_not_for_a_wide_spread_or_without_a_threshold():
    agents = panel()
    r = ranking(dict(zip([a.key for a in agents], [5.8, 6.9, 7.4, 8.1, 8.9])))
    assert near_threshold(agents, r, 0.70, 0.5, 3) == []
    tight = ranking(dict(zip([a.key for a in agents], [7.1, 7.2, 7.3, 7.3, 7.4])))
    assert near_threshold(agents, tight, None, 0.5, 3) == []
    assert "near_threshold" in {w.detector for w in detect_all(agents, tight, Config(), 0.70)}
    assert "near_threshold" not in {w.detector for w in detect_all(agents, tight, Config())}
