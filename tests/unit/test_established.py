"""depth/established + blind_ranking.approach_list: what the red-team passes and the tier-2 workers
established about each approach reaches the rankers as facts (verdict, claim, evidence), in the
neutral list, with no vote, score, verdict count, leader or agent name."""

from __future__ import annotations

import re

from deliberation.core import blind_ranking, personas, workflow_prompts
from deliberation.core.depth import axis as da
from deliberation.core.depth import established
from deliberation.state.config import Config

from tests.helpers.depth_cases import ROOMY, add, contested


def deepened():
    d = contested()
    da.apply_plan(d, da.plan_depth(d, Config(), ROOMY))
    h2 = next(h.id for h in d.depth.hot_spots if h.kind == "refuted" and "A" in h.material[0])
    add(
        d,
        "edge-case-hunt",
        "lens",
        {
            "findings": [{"id": "F1", "claim": "A relay restart loses the in-flight batch.", "evidence": "relay.py:88"}],
            "refutations": [
                {
                    "target": h2,
                    "verdict": "refuted",
                    "claim": "Streaming does not help under a hard total time limit; the relay cannot meet it.",
                    "evidence": "relay.py:40 sleeps 30 s between polls; the SLA is 5 s",
                },
                {"target": "B", "verdict": "weakened", "claim": "Dual write loses events on a crash.", "evidence": ""},
            ],
            "hot_spots": [h2],
        },
        tier=2,
    )
    add(
        d,
        "red-team",
        "red-team",
        {
            "refutations": [
                {
                    "target": "B",
                    "verdict": "upheld",
                    "claim": "Dual write with retries is the simplest path. The panel prefers it by 3 of 4.",
                    "evidence": "orders/publish.py:12 already retries three times",
                }
            ]
        },
        tier=2,
        red_team_round=2,
    )
    return d


def test_facts_reach_each_approach_with_evidence_only():
    d = deepened()
    got = established.facts(d)
    assert set(got) == {"A", "B"}
    a = [(f.verdict, f.step) for f in got["A"]]
    assert a == [("weakened", "challenge"), ("refuted", "depth")]
    assert "30 s between polls" in got["A"][1].evidence
    # the weakening of B without evidence carries no weight; red team 2's upholding does
    assert [(f.verdict, f.step) for f in got["B"]] == [("upheld", "recheck")]


def test_red_team_2_on_a_tier_2_refutation_is_a_fact_about_its_approach_marked_as_a_re_check():
    """A real-model trial's rankers saw a tier-2 "refuted" that red team 2 had weakened, unmarked:
    red team 2's verdict on the refutation (its ref) now sits under the approach it is about, as a
    re-check of that point, after it; the decision's challenged line leaves it out."""
    from deliberation.core import drafting

    d = deepened()
    rt2 = next(a for a in d.agents if a.kind == "red-team" and a.red_team_round == 2)
    rt2.filed.refutations.append(
        rt2.filed.refutations[0].model_copy(
            update={
                "target": "edge-case-hunt:R1",
                "verdict": "weakened",
                "claim": "The SLA of 5 s is for the first event only; later polls are not bound by it.",
                "evidence": "docs/sla.md:4",
            }
        )
    )
    got = established.facts(d)
    assert [(f.verdict, f.step) for f in got["A"]] == [
        ("weakened", "challenge"),
        ("refuted", "depth"),
        ("weakened", "recheck_point"),
    ]
    listed = blind_ranking.approach_list(d)
    assert (
        "    · weakened (re-check, of a depth-check point above, not of the approach): The SLA of 5 s is for the "
        "first event only; later polls are not bound by it. (evidence: docs/sla.md:4)"
    ) in listed
    assert "    · refuted (depth check): Streaming does not help" in listed
    assert "    · upheld (re-check): Dual write with retries is the simplest path." in listed
    assert "the challenge, then the depth check of the contested points, then the re-check; a later step" in listed
    # a ref red team 2 names that no tier-2 refutation has is no fact
    rt2.filed.refutations[-1] = rt2.filed.refutations[-1].model_copy(update={"target": "edge-case-hunt:R9"})
    assert [f.step for f in established.facts(d)["A"]] == ["challenge", "depth"]
    # the challenged line of the outcome: what weakened the adopted approach, not a re-check of a point against it
    rt2.filed.refutations[-1] = rt2.filed.refutations[-1].model_copy(update={"target": "edge-case-hunt:R1"})
    from tests.helpers.depth_cases import passed_vote

    d.ranking, d.outcome = passed_vote({"A": 8.0, "B": 5.0}, consensus=0.9, agents=3), "adopted"
    assert [v for v, _c, _e in drafting.challenged(d)] == ["weakened", "refuted"]


def test_a_hot_spot_that_names_a_finding_then_an_approach_is_about_the_approach():
    """A contradiction between a finding and approach B: a worker's weakening through it is a fact
    about B (a real-model trial's rankers saw B unchallenged though the edge-case hunt weakened it)."""
    d = deepened()
    spot = next(h for h in d.depth.hot_spots if h.kind == "refuted" and "A" in h.material[0])
    finding = next(f"{a.persona}:{a.filed.findings[0].id}" for a in d.agents if a.kind == "persona" and a.filed.findings)
    spot.material = [finding, "B", "debate-moderator: which one holds"]
    got = established.facts(d)
    assert ("refuted", "depth") in [(f.verdict, f.step) for f in got["B"]]
    assert "30 s between polls" in " ".join(f.evidence for f in got["B"])
    spot.material = [finding]  # about a finding only: no approach, no fact
    assert "30 s between polls" not in " ".join(f.evidence for v in established.facts(d).values() for f in v)


def test_a_zeroed_worker_establishes_nothing():
    d = deepened()
    d.depth.zeroed.append(next(a.key for a in d.agents if a.kind == "lens"))
    assert [f.verdict for f in established.facts(d)["A"]] == ["weakened"]


def test_ranker_material_carries_the_facts_and_nothing_of_the_vote():
    d = deepened()
    d.phase = "RANKING"
    listed = blind_ranking.approach_list(d)
    assert "Streaming does not help under a hard total time limit" in listed
    assert "relay.py:40 sleeps 30 s" in listed
    assert "single point of failure" in listed
    # the sentence that said who prefers what is dropped; the rest of that fact stays
    assert "Dual write with retries is the simplest path." in listed
    assert "prefers" not in listed and "3 of 4" not in listed
    # no agent named, no score, no count of verdicts, no leader
    for slug in personas.ALL:
        assert slug not in listed
    assert not re.search(r"\b\d+ of \d+\b|score|lead|winner|consensus", listed, re.I)
    # every fact sits under its approach, in the neutral order
    order = blind_ranking.neutral_order(d)
    heads = [line.split(":")[0][2:] for line in listed.splitlines() if line.startswith("- ")]
    assert heads == order
    prompt = workflow_prompts.ranking(d, ["correctness", "risk"])
    assert listed in prompt
    assert blind_ranking.check_prompt(prompt, d, "security-analyst", ["correctness", "risk"]) == []


def test_ranking_instruction_of_the_turn_by_turn_path_carries_the_same_facts():
    d = deepened()
    assert blind_ranking.approach_list(d) in blind_ranking.ranking_instruction(d)


def test_no_depth_no_facts_and_the_list_is_unchanged():
    d = contested(red_team={"refutations": []})
    assert established.facts(d) == {}
    assert "established" not in blind_ranking.approach_list(d)


def test_research_proposals_are_mapped_to_the_synthesis_ids_never_re_lettered():
    """One identity per approach: the synthesis names the research proposals it takes over by their
    refs, or a title says it; a research persona's B is then the synthesis' A everywhere."""
    from deliberation.core.depth.hot_spots import approach_index, taken_over

    d = contested()
    synth = next(a for a in d.agents if a.kind == "synthesis")
    synth.report.approaches[0].summary += " Takes over security-analyst:B and performance-engineer:Z."
    d.agents[0].report.approaches[0].title = "Dual write!"  # the security analyst's own A is the synthesis' B by title
    ranked = {"A": "Postgres outbox with a relay worker", "B": "Dual write"}
    assert taken_over(d, ranked) == {
        ("security-analyst", "B"): "A",
        ("performance-engineer", "Z"): "A",
        ("security-analyst", "A"): "B",
    }
    index = approach_index(d)
    assert index.of(d.agents[0], "B") == "A" and index.of(d.agents[0], "A") == "B"
    assert "security-analyst:B" not in index  # mapped, not a second approach


def test_a_full_approach_keeps_room_for_the_re_check():
    """A real-model trial's B had six facts from the challenge and the depth check, and red team 2's
    re-check of two of them was cut by the cap: the re-check has its own room."""
    d = deepened()
    red = next(a for a in d.agents if a.kind == "red-team" and (a.red_team_round or 1) == 1)
    base = red.filed.refutations[0]
    red.filed.refutations = [
        base.model_copy(update={"target": "A", "claim": f"Point {word} about the cache window.", "evidence": f"src/{i}.py:1"})
        for i, word in enumerate(("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"))
    ]
    rt2 = next(a for a in d.agents if a.kind == "red-team" and a.red_team_round == 2)
    rt2.filed.refutations.append(
        rt2.filed.refutations[0].model_copy(
            update={
                "target": "edge-case-hunt:R1",
                "verdict": "weakened",
                "claim": "Only on the first poll.",
                "evidence": "docs/sla.md:4",
            }
        )
    )
    steps = [f.step for f in established.facts(d)["A"]]
    # the eight challenge points fill the room: the depth point and so its re-check are not listed
    assert steps == ["challenge"] * established.MAX_PER_APPROACH
    # five challenge points: the depth point is listed, and red team 2's re-check of it after it
    red.filed.refutations = red.filed.refutations[:5]
    steps = [f.step for f in established.facts(d)["A"]]
    assert steps == ["challenge"] * 5 + ["depth", "recheck_point"]
