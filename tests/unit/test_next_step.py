"""next_step.py: the step a note names is one the spawn rules accept; what has arrived."""

from __future__ import annotations

import pytest

from deliberation.core.depth import axis as depth_axis
from deliberation.core import next_step
from deliberation.state.config import Config
from deliberation.state.models import HotSpot
from tests.helpers import payloads as P

CFG = Config()
OFF = Config.model_validate({"depth": {"posture": "off"}})
APPROACHES = [{"id": "A", "title": "Cache prices"}, {"id": "B", "title": "Read the database"}]


def research(persona: str, background: bool = False, notified: bool = False, status: "str | None" = None):
    rec = P.agent_record(
        persona,
        "research",
        None
        if status == "running"
        else {
            "findings": [{"id": "F1", "claim": f"{persona} claim", "evidence": f"{persona}.md:1"}],
            "approaches": APPROACHES,
            "verdict": "approve",
            "preferred_approach": "A",
        },
        background=background,
        status=status,
        key=f"a-{persona}",
    )
    rec.notified = notified
    return rec


def role(persona: str, report: dict, **kw):
    return P.agent_record(persona, "deliberation", {"approaches": [], **report}, key=f"a-{persona}", **kw)


def three(**kw):
    return [research(p, **kw) for p in ("security-analyst", "performance-engineer", "cost-analyst")]


def delib(agents, phase="DELIBERATION", prefix=""):
    d = P.make_deliberation(agents, phase=phase)
    d.agent_prefix = prefix
    return d


def assert_accepted(d, cfg, step):
    """The property: every agent type a spawn step names passes the same rules PreToolUse applies
    (tier-2 workers with the prompt the step gives them)."""
    assert step.action == "spawn", step
    for t in step.agent_types:
        prompt = ""
        if next_step.personas.kind_of(t) == "lens":
            lens = t.rsplit(":", 1)[-1]
            (a,) = [x for x in depth_axis.missing_workers(d) if x.lens == lens]
            prompt = depth_axis.worker_prompt(lens, a.hot_spots, d)
        assert next_step.spawn_refusal(d, cfg, t, prompt)[1] is None, (t, step.text)


def test_research_done_names_synthesis_and_debate_with_the_findings_to_carry():
    d = delib(three(), phase="RESEARCH", prefix="deliberation:")
    step = next_step.next_step(d, CFG)
    assert step.agent_types == ("deliberation:synthesis-lead", "deliberation:debate-moderator")
    assert "security-analyst:F1, performance-engineer:F1, cost-analyst:F1" in step.text
    assert_accepted(d, CFG, step)


def test_synthesis_and_debate_done_names_the_red_team_pass_not_ranking():
    d = delib(three() + [role("synthesis-lead", {"approaches": APPROACHES}), role("debate-moderator", {})])
    step = next_step.next_step(d, CFG)
    assert step.agent_types == ("red-team",) and "RANK" not in step.text
    assert_accepted(d, CFG, step)
    # the ranking the old note named is refused by the same rules
    assert "one red-team pass comes before ranking" in next_step.spawn_refusal(d, CFG, "security-analyst")[1]


def test_breadth_only_names_the_ranking_with_the_neutral_list():
    d = delib(three() + [role("synthesis-lead", {"approaches": APPROACHES})])
    step = next_step.next_step(d, OFF)
    assert step.agent_types == ("security-analyst", "performance-engineer", "cost-analyst")
    assert "RANK every approach" in step.text and "Approaches to rank (neutral order" in step.text
    assert_accepted(d, OFF, step)


def test_open_depth_step_names_the_missing_workers_with_their_exact_prompts():
    d = delib(
        three() + [role("synthesis-lead", {"approaches": APPROACHES}), role("red-team", {"missed_angles": ["bus outages"]})]
    )
    d.agents[-1].red_team_round = 1
    d.depth.posture, d.depth.enabled, d.depth.status, d.depth.workers_per_wave = "ceiling", True, "pending", 3
    d.depth.hot_spots = [
        HotSpot(id="H1", kind="contradiction", statement="the agents disagree on retries"),
        HotSpot(id="H2", kind="missed_angle", statement="bus outages"),
    ]
    d.depth.tier2_by_lens = {"evidence-chase": 0, "counter-model": 0, "edge-case-hunt": 0}
    step = next_step.next_step(d, CFG)
    assert step.agent_types == ("evidence-chase", "counter-model", "edge-case-hunt")
    assert step.text.count("--- end of worker") == 3 and depth_axis.FLOOR[0] in step.text
    assert_accepted(d, CFG, step)


def test_a_lens_with_nothing_to_dig_is_not_asked_for():
    d = delib(
        three() + [role("synthesis-lead", {"approaches": APPROACHES}), role("red-team", {"missed_angles": ["bus outages"]})]
    )
    d.agents[-1].red_team_round = 1
    d.depth.posture, d.depth.enabled, d.depth.status, d.depth.workers_per_wave = "ceiling", True, "pending", 3
    d.depth.hot_spots = [HotSpot(id="H1", kind="missed_angle", statement="bus outages")]
    d.depth.tier2_by_lens = {"evidence-chase": 0, "counter-model": 0, "edge-case-hunt": 0}
    step = next_step.next_step(d, CFG)
    # a missed angle has no explanation for counter-model to rival: it is not asked for
    assert step.agent_types == ("evidence-chase", "edge-case-hunt")
    assert_accepted(d, CFG, step)


def test_once_the_vote_passed_the_step_is_the_decision_document_not_another_ranking():
    d = delib(three(), phase="PRD_GENERATION")
    step = next_step.next_step(d, OFF)
    assert step.action == "document" and step.agent_types == ()
    assert step.text.startswith("Next: write the decision document (PRD) and hand it to the plugin")
    assert "Ids you may cite (3):" in step.text and "RANK" not in step.text
    assert "Next: write the decision document" in next_step.progress_text(d, OFF)


def test_waits_for_what_has_not_arrived():
    d = delib(three(background=True), phase="RESEARCH")
    d.agents[0].notified = True
    step = next_step.next_step(d, CFG)
    assert step.action == "wait" and step.text.startswith("Next: wait for performance-engineer, cost-analyst")
    assert [a.persona for a in next_step.given(d, "research")] == ["security-analyst"]
    assert next_step.given_summary(d) == "Reports you have: research 1 of 3 (security-analyst)."
    # a foreground report has arrived with its tool result
    assert next_step.arrived(research("ux-advocate")) and not next_step.arrived(research("x", status="running"))


@pytest.mark.parametrize("cfg", [CFG, OFF], ids=["ceiling", "off"])
def test_every_named_spawn_is_accepted_along_a_whole_flow(cfg):
    """Walk a deliberation by doing what each step names: it never names a refused spawn."""
    d = delib(three(), phase="RESEARCH")
    for _ in range(8):
        step = next_step.next_step(d, cfg)
        if step.action != "spawn":
            break
        assert_accepted(d, cfg, step)
        kinds = {next_step.personas.kind_of(t) for t in step.agent_types}
        if d.phase == "RESEARCH":
            d.phase = "DELIBERATION"
        if "synthesis" in kinds:
            d.agents += [role("synthesis-lead", {"approaches": APPROACHES}), role("debate-moderator", {})]
        elif kinds == {"red-team"} and d.depth.status == "not_needed":
            d.agents.append(role("red-team", {}))
            d.agents[-1].red_team_round = 1
            d.depth.posture, d.depth.enabled = cfg.depth.posture, True  # nothing contested
        elif kinds == {"persona"}:
            assert "RANK" in step.text
            break
    else:
        pytest.fail("no ranking step reached")


def test_the_ranking_counter_counts_each_ranker_once_through_a_re_rank():
    scores = {"A": {"correctness": 8, "risk": 8, "maintainability": 8, "performance": 8, "cost": 8}}
    rankers = ("security-analyst", "performance-engineer", "cost-analyst", "ux-advocate")
    first = [P.agent_record(p, "ranking", {"scores": scores, "verdict": "approve"}, key=f"r1-{p}") for p in rankers]
    d = delib(three() + first, phase="RANKING")
    assert "ranking 4 of 4 (" in next_step.given_summary(d)
    # a re-rank: every ranker spawned again, two back so far — never "4 of 8" or "2 of 4"
    d.agents += [P.agent_record(p, "ranking", None, key=f"r2-{p}") for p in rankers]
    assert "ranking 0 of 4." in next_step.given_summary(d)
    for p in rankers[:2]:
        d.agents = [a for a in d.agents if a.key != f"r2-{p}"]
        d.agents.append(P.agent_record(p, "ranking", {"scores": scores, "verdict": "approve"}, key=f"r2-{p}"))
        next(a for a in d.agents if a.key == f"r1-{p}").superseded = True
    assert "ranking 2 of 4 (security-analyst, performance-engineer)" in next_step.given_summary(d)
