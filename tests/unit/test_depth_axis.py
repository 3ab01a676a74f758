"""depth_axis: posture, plan (not_needed / off / skipped / deepen), the tier-2 instruction and
spawn rules, depth-aware synthesis (override, zeroed, cancelled) and the telemetry."""

from __future__ import annotations

import copy

import pytest

from deliberation.core.depth import axis as da
from deliberation.core import ranking
from deliberation.state.config import Config, DepthConfig
from deliberation.state.agent_report import AgentReport
from deliberation.state.models import AgentRecord, Deliberation, DepthState
from deliberation.text import depth as words

from tests.helpers.depth_cases import (
    ROOMY,
    SYNTH_SUMMARY,
    WEIGHTS,
    add,
    contested,
    good_prompt,
    planned,
    rec,
    scores,
)


# --------------------------------------------------------------------------------------------
# posture


@pytest.mark.parametrize(
    "cfg, task_type, enabled, why",
    [
        (DepthConfig(), "architecture", True, "ceiling: deepen whenever hot spots exist"),
        (DepthConfig(), "documentation", False, "ceiling dialled down: task type 'documentation' is off in depth.per_task_type"),
        (DepthConfig(max_lock=True), "documentation", True, "ceiling locked by MAX (overrides per_task_type documentation=off)"),
        (DepthConfig(max_lock=True), "security", True, "ceiling locked by MAX"),
        (DepthConfig(posture="opt-in"), "security", False, "opt-in: task type 'security' is not on in depth.per_task_type"),
        (
            DepthConfig(posture="opt-in", per_task_type={"security": "on"}),
            "security",
            True,
            "opt-in: task type 'security' is on in depth.per_task_type",
        ),
        (DepthConfig(posture="off", max_lock=True), "security", False, "depth axis off (posture off): breadth only"),
    ],
)
def test_posture(cfg, task_type, enabled, why):
    assert da.posture_for(task_type, cfg) == (enabled, why)


# --------------------------------------------------------------------------------------------
# plan


def test_contested_deliberation_is_deepened_by_three_lenses_on_named_hot_spots():
    d, plan = planned()
    assert plan.action == "deepen" and plan.workers == 3 and plan.clamped == ""
    assert [(h.id, h.kind) for h in plan.hot_spots] == [("H1", "refuted"), ("H2", "refuted"), ("H3", "missed_angle")]
    # each lens gets the hot spots it can work on: the refuted finding H1 is a claim to trace or
    # explain, the weakened approach H2 a conclusion any lens can test, the missed angle H3 a
    # source to read or an input to find (no explanation there for counter-model to rival)
    assert [(a.lens, a.hot_spots) for a in plan.assignments] == [
        ("evidence-chase", ("H1", "H2", "H3")),
        ("counter-model", ("H1", "H2")),
        ("edge-case-hunt", ("H2", "H3")),
    ]
    st = d.depth
    assert (st.status, st.posture, st.enabled, st.workers_per_wave) == ("pending", "ceiling", True, 3)
    assert st.tier2_by_lens == {"evidence-chase": 0, "counter-model": 0, "edge-case-hunt": 0}


def test_no_hot_spots_means_not_needed():
    upheld = {"refutations": [{"target": "performance-engineer:F1", "verdict": "upheld", "claim": "ok", "evidence": "bench"}]}
    d, plan = planned(red_team=upheld)
    assert plan.action == "not_needed" and plan.hot_spots == ()
    assert d.depth == DepthState(posture="ceiling", enabled=True, status="not_needed")
    assert da.instruction(plan, d) == ""


def test_posture_off_changes_nothing_but_the_recorded_posture():
    cfg = Config(depth=DepthConfig(posture="off"))
    breadth = contested()
    d = contested()
    plan = da.plan_depth(d, cfg, ROOMY)
    da.apply_plan(d, plan)
    assert plan.action == "off" and da.instruction(plan, d) == ""
    # state: identical to breadth-only except depth, which records posture "off" and nothing else
    assert d.model_dump(exclude={"depth"}) == breadth.model_dump(exclude={"depth"})
    assert d.depth == DepthState(posture="off", enabled=False, status="off")
    # decisions: no fork is treated as tier 2, red-team spawns untouched, ranking unchanged
    assert not da.is_tier2_spawn("fork", "dig into H1", d)
    assert da.check_red_team_spawn(d) is None
    assert da.struck_approaches(d) == frozenset()
    voters = [
        rec("security-analyst", "persona", {"scores": scores(8, 6)}, stage="ranking"),
        rec("cost-analyst", "persona", {"scores": scores(7, 7.5)}, stage="ranking"),
    ]
    d.agents += copy.deepcopy(voters)
    breadth.agents += copy.deepcopy(voters)
    assert ranking.rank(d.agents, WEIGHTS, da.struck_approaches(d)) == ranking.rank(breadth.agents, WEIGHTS)
    assert da.check_tier2_spawn("evidence-chase", good_prompt(d), d) == words.tier2_closed(
        words.step_closed("off", "posture off")
    )


def test_documentation_is_dialled_down_and_max_lock_overrides_it():
    d, plan = planned(task_type="documentation")
    assert plan.action == "off"
    assert d.depth.status == "off" and d.depth.posture == "ceiling"
    assert d.depth.skipped_reason == words.posture("dialled_down", "documentation")
    _d2, plan2 = planned(Config(depth=DepthConfig(max_lock=True)), task_type="documentation")
    assert plan2.action == "deepen"


def test_budget_exhausted_skips_loudly_and_never_raises():
    d = contested()
    cfg = Config(depth=DepthConfig(token_budget=400_000))
    plan = da.plan_depth(d, cfg, da.BudgetView(spawn_slots_left=12, agents_used=0, tokens_used=412_000))
    assert plan.action == "skipped"
    assert plan.message == words.budget_skipped(["H1", "H2", "H3"], [["tokens", 412_000, 400_000, 0]])
    da.apply_plan(d, plan)
    assert d.depth.status == "skipped" and d.depth.skipped_reason == plan.message
    assert [h.id for h in d.depth.hot_spots] == ["H1", "H2", "H3"]  # telemetry keeps what was not deepened
    assert da.instruction(plan, d) == ""
    assert da.check_tier2_spawn("evidence-chase", good_prompt(d), d) == words.tier2_closed(plan.message)


def test_agent_budget_and_spawn_slots_are_budgets_too():
    d = contested()
    plan = da.plan_depth(d, Config(depth=DepthConfig(agent_budget=3)), ROOMY)
    assert plan.action == "skipped"
    assert plan.message == words.budget_skipped(["H1", "H2", "H3"], [["agents", 0, 3, 3]])
    plan = da.plan_depth(d, Config(), da.BudgetView(spawn_slots_left=2, agents_used=0, tokens_used=0))
    assert plan.message == words.budget_skipped(["H1", "H2", "H3"], [["slots", 10, 12, 3]])


def test_five_workers_are_clamped_to_three_and_reported():
    d, plan = planned(Config(depth=DepthConfig(workers_per_wave=5)))
    assert plan.workers == 3 and len(plan.assignments) == 3
    assert plan.clamped == words.clamped(5, 3, 3)
    assert d.depth.clamped == plan.clamped
    assert f"Note: {words.clamped(5, 3, 3)}." in da.instruction(plan, d)


def test_fewer_workers_pick_the_lenses_the_hot_spots_call_for():
    _d, plan = planned(Config(depth=DepthConfig(workers_per_wave=2)))
    # evidence-chase can work on all three; the second worker is the lens with most to do next
    assert [(a.lens, a.hot_spots) for a in plan.assignments] == [
        ("evidence-chase", ("H1", "H2", "H3")),
        ("counter-model", ("H1", "H2")),
    ]


# --------------------------------------------------------------------------------------------
# instruction and the PreToolUse rules


def test_instruction_carries_floor_lenses_hot_spots_and_no_consensus():
    d, plan = planned()
    text = da.instruction(plan, d)
    for lens in ("evidence-chase", "counter-model", "edge-case-hunt"):
        assert f'subagent_type "{lens}"' in text
    # the floor and the map are said once, in the shared part that ends every worker's prompt
    assert text.count(da.FLOOR[0]) == 1 and text.count(da.FLOOR[1]) == 1
    assert text.count(da.SHARED_HEAD) == 1 and text.rstrip().endswith(da.SHARED_END)
    for a in plan.assignments:
        prompt = da.worker_prompt(a.lens, a.hot_spots, d)
        assert da.FLOOR[0] in prompt and da.FLOOR[1] in prompt and "The 40 ms was measured" in prompt
        assert da.worker_header(a.lens, a.hot_spots) in text and da.shared_part(d, plan.hot_spots) in text
    assert "The 40 ms was measured on a debug build." in text  # the red team's notes are the map
    assert SYNTH_SUMMARY not in text and "relay worker publish them" not in text
    assert "red team 2" in text and 'never subagent_type "fork"' in text
    for a in plan.assignments:  # the prompts the gate hands out pass the spawn rules
        assert da.check_tier2_spawn(a.lens, da.worker_prompt(a.lens, a.hot_spots, d), d) is None


def test_fork_is_denied():
    d, _ = planned()
    reason = da.check_tier2_spawn("fork", good_prompt(d), d)
    assert reason == words.tier2_denied([["fork", ["evidence-chase", "counter-model", "edge-case-hunt"]]])
    assert da.is_tier2_spawn("fork", "Dig into H2 please", d)
    assert not da.is_tier2_spawn("general-purpose", "refactor the parser", d)


def test_missing_floor_is_denied_but_formatting_is_tolerated():
    d, _ = planned()
    prompt = good_prompt(d)
    loose = prompt.replace(da.FLOOR[0], "TIER 1 is material,\n  not the answer;   agreeing again scores 0")
    assert da.check_tier2_spawn("evidence-chase", loose, d) is None
    one_missing = prompt.replace(da.FLOOR[1], "")
    reason = da.check_tier2_spawn("evidence-chase", one_missing, d)
    assert reason == words.tier2_denied([["floor", [da.FLOOR[1]]]])
    both = prompt.replace(da.FLOOR[0], "").replace(da.FLOOR[1], "")
    assert da.check_tier2_spawn("evidence-chase", both, d) == words.tier2_denied([["floor", list(da.FLOOR)]])


def test_prompt_without_a_listed_hot_spot_is_denied():
    d, _ = planned()
    prompt = f"{da.FLOOR[0]}\n{da.FLOOR[1]}\nLook into the relay latency claim and H9."
    reason = da.check_tier2_spawn("counter-model", prompt, d)
    assert reason == words.tier2_denied([["hot_spots", ["H1", "H2", "H3"]]])
    assert da.check_tier2_spawn("counter-model", prompt + " Focus on H2.", d) is None


def test_prompt_carrying_the_synthesis_is_denied():
    d, _ = planned()
    prompt = good_prompt(d, "counter-model") + "\nContext — the synthesis so far: " + SYNTH_SUMMARY
    reason = da.check_tier2_spawn("counter-model", prompt, d)
    assert 'rule "no consensus to flatter"' in reason and "synthesis-lead summary" in reason
    reworded = (
        good_prompt(d, "counter-model") + "\nApproach A: Write events to an outbox table in the same "
        "transaction and let a relay worker publish them to the bus."
    )
    assert "synthesis-lead approach A" in da.check_tier2_spawn("counter-model", reworded, d)


def test_step_not_open_is_denied_with_the_rule():
    upheld = {"refutations": []}
    d, _ = planned(red_team=upheld)
    assert da.check_tier2_spawn("evidence-chase", "H1 " + " ".join(da.FLOOR), d) == words.tier2_closed(
        words.step_closed("not_needed")
    )
    fresh = contested()  # depth never planned
    assert da.check_tier2_spawn("evidence-chase", "H1 " + " ".join(da.FLOOR), fresh) == words.tier2_closed(
        words.step_closed("not_open")
    )
    d, _ = planned(Config(depth=DepthConfig(workers_per_wave=1)))
    add(d, "evidence-chase", "lens", None, tier=2, status="running")
    reason = da.check_tier2_spawn("edge-case-hunt", good_prompt(d, "edge-case-hunt"), d)
    assert reason == words.tier2_closed(words.step_closed("exhausted", spawned=1, workers=1))
    d.depth.status = "done"
    assert da.check_tier2_spawn("evidence-chase", good_prompt(d), d) == words.tier2_closed(words.step_closed("over"))


def test_one_worker_per_lens_and_only_lens_types():
    d, _ = planned()
    add(d, "evidence-chase", "lens", None, tier=2, status="running")
    assert da.check_tier2_spawn("evidence-chase", good_prompt(d), d) == words.tier2_denied([["one_per_lens", "evidence-chase"]])
    assert da.check_tier2_spawn("general-purpose", good_prompt(d), d) == words.tier2_denied(
        [["lens_type", ["evidence-chase", "counter-model", "edge-case-hunt"], "general-purpose"]]
    )
    assert da.check_tier2_spawn("deliberation:counter-model", good_prompt(d, "counter-model"), d) is None


def test_red_team_spawn_follows_the_wave_once():
    d, _ = planned()
    assert da.check_red_team_spawn(d) == words.red_team_before_tier2([], ["evidence-chase", "counter-model", "edge-case-hunt"])
    assert da.spawn_tier("red-team", d) == (1, 1)
    for lens in ("evidence-chase", "counter-model", "edge-case-hunt"):
        add(d, lens, "lens", {"findings": []}, tier=2)
    assert da.check_red_team_spawn(d) is None and da.spawn_tier("red-team", d) == (2, 2)
    d.depth.status = "red_team_2"
    assert da.check_red_team_spawn(d) is None
    add(d, "red-team", "red-team", {}, tier=2, red_team_round=2)
    assert da.check_red_team_spawn(d) == words.red_team_after_red_team_2()


def test_one_red_team_pass_then_the_depth_step_a_second_pass_is_refused():
    """A second red-team pass after a first that refuted nothing replaced the
    first report, and its evidence-backed refutation was never planned."""
    upheld = {"refutations": [{"target": "performance-engineer:F1", "verdict": "upheld", "claim": "ok", "evidence": "bench"}]}
    d, plan = planned(red_team=upheld)
    assert plan.action == "not_needed"
    first = "red-team (a-red-team-deliberation-1)"
    assert da.check_red_team_spawn(d, Config()) == words.second_pass("nothing_contested", first)
    # while the first pass runs, and once it reported but before the plan: refused too
    fresh = contested(red_team=upheld)
    assert da.check_red_team_spawn(fresh, Config()) == words.second_pass("waiting", first)
    fresh.agents[-1].status, fresh.agents[-1].report = "running", None
    assert da.check_red_team_spawn(fresh, Config()) == words.second_pass("running", first)
    # a first pass whose report was recorded invalid may be retried
    fresh.agents[-1].status = "invalid"
    assert da.check_red_team_spawn(fresh, Config()) is None
    # the depth step was skipped on budget: no second pass either
    tight = da.BudgetView(spawn_slots_left=12, agents_used=0, tokens_used=10_000_000)
    s = contested()
    da.apply_plan(s, da.plan_depth(s, Config(), tight))
    assert s.depth.status == "skipped" and da.check_red_team_spawn(s, Config()) == words.second_pass(
        "skipped", first, s.depth.skipped_reason
    )
    # depth off for the task type (documentation is dialled down): breadth only, untouched
    doc = contested(task_type="documentation", red_team=upheld)
    assert da.check_red_team_spawn(doc, Config()) is None


# --------------------------------------------------------------------------------------------
# depth-aware synthesis


def _wave(d: Deliberation, ec: dict, cm: dict, eh: dict, rt2: "dict | None" = None) -> None:
    add(d, "evidence-chase", "lens", ec, tier=2)
    add(d, "counter-model", "lens", cm, tier=2)
    add(d, "edge-case-hunt", "lens", eh, tier=2)
    d.depth.status = "red_team_2"
    add(d, "red-team", "red-team", rt2 or {"refutations": []}, tier=2, red_team_round=2)


REFUTE_F1 = {
    "hot_spots": ["H1"],
    "refutations": [
        {
            "target": "performance-engineer:F1",
            "verdict": "refuted",
            "claim": "A release build of the relay adds 3 ms at p99, within the bus client's own jitter.",
            "evidence": "bench/relay-release.txt, 10k publishes, p99 3.1 ms",
        }
    ],
}
STRIKE_A = {
    "hot_spots": ["H2"],
    "refutations": [
        {
            "target": "H2",
            "verdict": "refuted",
            "claim": "With one replica, a relay crash during deploy stops every order event for the rollout window.",
            "evidence": "deploy/relay.yaml replicas: 1; rollout log 2025-12-02 shows 6 min without publishes",
        }
    ],
}
PARAPHRASE = {
    "hot_spots": ["H1"],
    "findings": [{"id": "F1", "claim": "The env file stores the relay's bus credentials in plain text.", "evidence": "env:12"}],
    "refutations": [
        {
            "target": "performance-engineer:F1",
            "verdict": "refuted",
            "claim": "The order service does not verify webhook signatures.",
            "evidence": "api/hooks.py",
        }
    ],
}


def test_tier2_refute_with_evidence_overrides_tier1_and_strikes_the_approach():
    d, _ = planned()
    _wave(d, REFUTE_F1, PARAPHRASE, STRIKE_A)
    out = da.synthesize(d)
    assert [(o.hot_spot, o.target, o.by_agent) for o in out.overrides] == [
        ("H1", "performance-engineer:F1", "a-evidence-chase-deliberation-2"),
        ("H2", "A", "a-edge-case-hunt-deliberation-2"),
    ]
    assert out.overrides[0].effect.startswith("finding performance-engineer:F1 overturned: A release build")
    assert out.overrides[1].effect.startswith("approach A struck from the leading position: With one replica")
    assert out.zeroed == ("a-counter-model-deliberation-2",)
    da.apply_outcome(d, out)
    assert da.struck_approaches(d) == frozenset({"A"})
    assert set(da.overturned_findings(d)) == {"performance-engineer:F1"}
    d.agents += [
        rec("security-analyst", "persona", {"scores": scores(8.5, 6.0)}, stage="ranking"),
        rec("cost-analyst", "persona", {"scores": scores(8.0, 6.5)}, stage="ranking"),
    ]
    assert ranking.rank(d.agents, WEIGHTS).leading == "A"
    assert ranking.rank(d.agents, WEIGHTS, da.struck_approaches(d)).leading == "B"
    text = da.outcome_text(d, out)
    assert "OVERRIDE H2: approach A struck" in text and "Ranking will exclude A" in text


def test_paraphrase_is_zeroed_and_tier1_stands():
    d, _ = planned()
    _wave(d, PARAPHRASE, {"hot_spots": ["H3"]}, PARAPHRASE)
    out = da.synthesize(d)
    assert out.overrides == ()
    assert out.zeroed == ("a-evidence-chase-deliberation-2", "a-counter-model-deliberation-2", "a-edge-case-hunt-deliberation-2")
    da.apply_outcome(d, out)
    assert d.depth.overrides == [] and da.struck_approaches(d) == frozenset()
    assert words.warning("zeroed", persona="evidence-chase") in d.warnings


def test_refute_without_evidence_or_off_target_carries_no_weight():
    d, _ = planned()
    no_ev = {
        "refutations": [
            {"target": "performance-engineer:F1", "verdict": "refuted", "claim": "A release build adds only 3 ms at p99."}
        ],
        "findings": [{"id": "F1", "claim": "The relay binary is built with -O0 in CI.", "evidence": "ci.yml:30"}],
    }
    off = {
        "refutations": [
            {
                "target": "security-analyst:F2",
                "verdict": "refuted",
                "claim": "The API gateway rejects unsigned webhooks before the service sees them.",
                "evidence": "gateway/policy.yaml:8",
            }
        ]
    }
    _wave(
        d,
        no_ev,
        off,
        {
            "refutations": [
                {
                    "target": "H3",
                    "verdict": "refuted",
                    "claim": "Partition keys hash by customer, so per-order ordering holds.",
                    "evidence": "producer.py:55",
                }
            ]
        },
    )
    out = da.synthesize(d)
    assert out.overrides == () and out.zeroed == ()
    assert out.notes == (
        words.no_weight("no_evidence", "evidence-chase:R1", "performance-engineer:F1"),
        words.no_weight("target", "counter-model:R1", why=words.target_problem("outside", "security-analyst:F2")),
        words.no_weight("target", "edge-case-hunt:R1", why=words.target_problem("nothing", "H3", "missed_angle")),
    )


def test_red_team_2_refuting_the_refute_cancels_the_override():
    d, _ = planned()
    _wave(d, REFUTE_F1, {"hot_spots": ["H3"]}, STRIKE_A)
    assert "- edge-case-hunt:R1 — refuted H2: With one replica" in da.red_team_2_instruction(d)
    d.agents[-1].report = AgentReport.model_validate(
        {
            "phase": "deliberation",
            "refutations": [
                {
                    "target": "edge-case-hunt:R1",
                    "verdict": "refuted",
                    "claim": "The rollout uses surge 1, so the new replica publishes before the old one stops.",
                    "evidence": "deploy/relay.yaml strategy.rollingUpdate.maxSurge: 1; rollout log shows overlap",
                }
            ],
        }
    )
    out = da.synthesize(d)
    assert [o.target for o in out.overrides] == ["performance-engineer:F1"]
    assert [(o.target, why.split(":")[0]) for o, why in out.cancelled] == [
        ("A", "red team 2 (a-red-team-deliberation-2) refuted edge-case-hunt")
    ]
    da.apply_outcome(d, out)
    assert da.struck_approaches(d) == frozenset()
    assert any(w.startswith("depth override on A (H2) cancelled") for w in d.warnings)


def test_red_team_2_without_evidence_cancels_nothing():
    d, _ = planned()
    _wave(
        d,
        REFUTE_F1,
        {"hot_spots": ["H3"]},
        STRIKE_A,
        {"refutations": [{"target": "edge-case-hunt:R1", "verdict": "refuted", "claim": "Not convinced."}]},
    )
    assert [o.target for o in da.synthesize(d).overrides] == ["performance-engineer:F1", "A"]


# --------------------------------------------------------------------------------------------
# telemetry


def test_telemetry_counts_passes_and_asserts_the_ceiling():
    d, _ = planned()
    _wave(d, REFUTE_F1, PARAPHRASE, STRIKE_A)
    da.apply_outcome(d, da.synthesize(d))
    st = d.depth
    assert st.tier2_by_lens == {"evidence-chase": 1, "counter-model": 1, "edge-case-hunt": 1}
    assert st.passes == 4 == da.pass_ceiling(st)
    assert len(st.overrides) == 2 and st.zeroed == ["a-counter-model-deliberation-2"]
    st.passes = 5
    with pytest.raises(AssertionError, match="ceiling is 4"):
        da.assert_within_ceiling(st)
    assert da.pass_ceiling(DepthState(workers_per_wave=9)) == 4  # clamped even if the state says more


def test_open_step_text_says_what_is_owed():
    d, _ = planned()
    add(d, "evidence-chase", "lens", None, tier=2, status="running")
    text = da.open_step_text(d)
    assert "1 of 3 tier-2 worker(s) spawned" in text and "Waiting for: evidence-chase." in text
    assert "Still to spawn" in text and "counter-model, edge-case-hunt" in text and da.FLOOR[0] in text


def test_a_pass_above_the_ceiling_is_a_warning_in_apply_outcome_and_an_error_in_the_check():
    d, _ = planned()
    _wave(d, REFUTE_F1, PARAPHRASE, STRIKE_A)
    extra = rec("red-team", "red-team", {}, stage="deliberation", tier=2, red_team_round=3)
    extra.key = "a-red-team-round-3"
    d.agents.append(extra)
    da.apply_outcome(d, da.synthesize(d))
    assert d.depth.passes == 5
    assert words.warning("above_ceiling", passes=5, ceiling=4) in d.warnings
    with pytest.raises(AssertionError):
        da.refresh_counts(d)


# --------------------------------------------------------------------------------------------
# one identity per approach: research letters are each persona's own


def _colliding() -> Deliberation:
    """Three research personas each numbering their own approaches A/B (different options), a
    synthesis whose A/B/C are the ranked list, and a red team that weakens one persona's own A."""

    def research(persona: str, a: str, b: str, verdict: str, prefers: str, dissent=()) -> AgentRecord:
        return rec(
            persona,
            "persona",
            {
                "findings": [{"id": "F1", "claim": f"{persona} finding about {a}.", "evidence": f"{persona}.md:1"}],
                "approaches": [{"id": "A", "title": a}, {"id": "B", "title": b}],
                "verdict": verdict,
                "preferred_approach": prefers,
                "dissent": list(dissent),
            },
        )

    ps = research("product-strategist", "Full auto-deploy on merge", "Release train", "approve", "A")
    sa = research("security-analyst", "Signed artefacts with manual promotion", "Deploy freeze windows", "approve", "A")
    re_ = research(
        "reliability-engineer",
        "Canary with automatic rollback",
        "Blue-green",
        "reject",
        "B",
        dissent=[
            {
                "target": "A",
                "concern": "Canary needs traffic splitting we lack.",
                "reason": "The load balancer has no weighted routing.",
            }
        ],
    )
    synth = rec(
        "synthesis-lead",
        "synthesis",
        {
            "summary": "Three ways to pin what is deployed.",
            "approaches": [
                {"id": "A", "title": "Content hash per artefact", "summary": "Hash each build artefact."},
                {"id": "B", "title": "Hash of the lock file", "summary": "Hash the resolved dependency set."},
                {"id": "C", "title": "Version tags only", "summary": "Rely on tags."},
            ],
        },
        stage="deliberation",
    )
    rt = rec(
        "red-team",
        "red-team",
        {
            "refutations": [
                {
                    "target": "security-analyst:A",
                    "verdict": "weakened",
                    "claim": "Manual promotion is skipped under pressure.",
                    "evidence": "incident log 2026-03: 4 of 9 promotions bypassed",
                }
            ]
        },
        stage="deliberation",
        red_team_round=1,
    )
    return Deliberation(
        id="d-ident",
        session_id="s-1",
        question="How do we pin what is deployed?",
        task_type="architecture",
        phase="DELIBERATION",
        agents=[ps, sa, re_, synth, rt],
        tokens_used=50_000,
    )


def test_research_letters_are_namespaced_and_never_tallied_across_personas():
    from deliberation.core.depth.hot_spots import all_hot_spots, approach_index

    d = _colliding()
    index = approach_index(d)
    assert index.ranked == frozenset({"A", "B", "C"})
    assert index["A"] == "Content hash per artefact"
    assert index["security-analyst:A"] == "Signed artefacts with manual promotion"
    spots = all_hot_spots(d)
    statements = [h.statement for h in spots]
    # no "approach A preferred by product-strategist, security-analyst": their As differ
    assert not any("preferred by product-strategist, security-analyst" in s for s in statements)
    assert not any(s.startswith("approach A ") for s in statements)
    assert statements[0].startswith(
        'approach security-analyst:A ("Signed artefacts with manual promotion") is challenged by the red team'
    )
    assert spots[0].sources == ["security-analyst", "red-team"]


def test_a_refutation_of_one_persona_s_approach_strikes_nothing_ranked_and_b_leads():
    d = _colliding()
    plan = da.plan_depth(d, Config(), ROOMY)
    da.apply_plan(d, plan)
    h1 = d.depth.hot_spots[0].id
    refute = {
        "hot_spots": [h1],
        "refutations": [
            {
                "target": h1,
                "verdict": "refuted",
                "claim": "The tally mixes different approaches: the personas' As are different options.",
                "evidence": "research reports: product-strategist A = auto-deploy, security-analyst A = signed artefacts",
            }
        ],
    }
    _wave(d, refute, {"hot_spots": [h1]}, {"hot_spots": [h1]})
    out = da.synthesize(d)
    assert out.overrides == ()
    assert any("security-analyst:A is one research persona's own approach" in n for n in out.notes)
    da.apply_outcome(d, out)
    assert da.struck_approaches(d) == frozenset()
    assert "OVERRIDE" not in da.outcome_text(d, out) and "Ranking will exclude" not in da.outcome_text(d, out)
    # four blind rankers all prefer the synthesis' B
    three = {"A": {k: 6.0 for k in WEIGHTS}, "B": {k: 8.5 for k in WEIGHTS}, "C": {k: 5.0 for k in WEIGHTS}}
    for p in ("product-strategist", "security-analyst", "reliability-engineer", "cost-analyst"):
        d.agents.append(rec(p, "persona", {"scores": three, "verdict": "approve", "preferred_approach": "B"}, stage="ranking"))
    result = ranking.rank(d.agents, WEIGHTS, da.struck_approaches(d))
    assert result is not None and result.leading == "B"
    assert result.consensus >= 0.85


def test_an_override_still_strikes_a_ranked_approach_it_is_about():
    d, _ = planned()
    _wave(d, REFUTE_F1, PARAPHRASE, STRIKE_A)
    da.apply_outcome(d, da.synthesize(d))
    assert da.struck_approaches(d) == frozenset({"A"})


def test_the_record_shows_the_ranked_approaches_titles_not_a_research_report_s():
    from deliberation.report.decision_record import approach_catalogue

    cat = approach_catalogue(_colliding())
    assert cat["A"] == {
        "title": "Content hash per artefact",
        "summary": "Hash each build artefact.",
        "proposed_by": "synthesis-lead",
    }
    assert cat["B"]["title"] == "Hash of the lock file"


def test_the_neutral_ranking_list_carries_no_red_team_verdict():
    from deliberation.core.blind_ranking import approach_list, neutral

    assert neutral("Hash of the lock file (weakened by devils-advocate:F2: misses vendored code)") == "Hash of the lock file"
    assert neutral("Signed artefacts — refuted by the red team on promotion bypass") == "Signed artefacts"
    assert neutral("Canary rollout. The red team upheld its rollback claim. Cheap to run.") == "Canary rollout. Cheap to run."
    d = _colliding()
    synth = next(a for a in d.agents if a.kind == "synthesis")
    synth.report.approaches[1].summary = "Hash the resolved set (weakened by devils-advocate:F2 on vendored code)."
    listed = approach_list(d)
    assert "weakened" not in listed and "devils-advocate" not in listed
    assert "- B: Hash of the lock file — Hash the resolved set." in listed
