"""Against the real client, default config: a forced plain question that reaches a
passing consensus completes (and one whose panel grew less confident fails), a ranking prompt
carrying the vote is denied and the model ranks blind, a unanimous reject adopts nothing, a
second red-team pass is refused, and the two-agent minimum deliberation runs end to end."""

from __future__ import annotations

import os

import pytest

from fake_api import ApiRequest, ReplyLike, agent_call, text
from harness import ClaudeRun, agent_type, assert_clean
from scenarios import Scenario, agent_outcomes, concluding_answer, persona_of, report, report_message
from scenarios_depth import instruction_prompts, lens_of
from scenarios_gates import STOP_FEEDBACK, approach_listing, phase_of, round_of
from scenarios_outcomes import (
    AGAINST_AGREES,
    AGAINST_DISAGREES,
    BLIND_DENIED,
    FOR_REPORT,
    FULL,
    PAIR,
    PAIR_RANKING,
    PANEL,
    PASS_CONSENSUS,
    PROMPT,
    RED_TEAM_DENIED,
    TRIGGER_CONFIDENCE,
    Deliberation,
    LeakyRanking,
    SecondRedTeam,
    passing_ranking,
    rejecting,
    table,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def only(run: ClaudeRun) -> dict:
    (delib,) = run.deliberations()
    return delib


def checks(gate: dict) -> "dict[str, dict]":
    return {c["name"]: c for c in gate["checks"]}


def denials(run: ClaudeRun) -> "list[dict]":
    return [e for e in run.events() if e.get("event") == "PreToolUse" and (e.get("answer") or {}).get("decision") == "deny"]


def saw_denial(run: ClaudeRun, event: dict) -> bool:
    """The deny reason reached the model verbatim as the Agent call's error result."""
    tuid, reason = event["payload"]["tool_use_id"], event["answer"]["reason"]
    for r in run.main_requests:
        result = r.tool_result_for(tuid)
        if result:
            return bool(result["is_error"]) and result["text"] == f"PreToolUse:Agent hook error: {reason}"
    return False


# --------------------------------------------------------------------------- item 1


def test_forced_plain_question_with_a_passing_consensus_completes(run_claude, e2e_project):
    """The measured case: /deliberate on a plainly worded question (trigger 0.70, forced), three
    personas, synthesis-lead and debate-moderator, one red team, blind ranking at 0.75. It used to
    fail three Stops on "final 0.75 ≤ initial 0.91 (trigger)"; now it completes with a record that
    says what was compared with what."""
    run = run_claude(e2e_project, PROMPT, Deliberation(table(passing_ranking(0.75)), FULL))
    assert_clean(run)
    info = run.describe()
    d = only(run)
    assert d["phase"] == "COMPLETE", f"{d['failure_reasons']}\n{info}"
    assert d["initial_confidence"] == pytest.approx(TRIGGER_CONFIDENCE) and d["trigger_forced"] is True
    assert d["ranking"]["consensus"] == pytest.approx(PASS_CONSENSUS, abs=5e-5)
    imp = checks(d["gate2"])["improvement_evidence"]
    # research A, A, B and the blind ranking A, A, B: the deliberation moved nobody — flat,
    # reported, not held (blind rankers without new evidence cannot move)
    assert imp["passed"] and imp["figure"] == "share for the decision 0.67 = 0.67 at research (flat)", imp
    assert "the same personas: " in imp["detail"] and "performance-engineer B→B" in imp["detail"]
    assert "the trigger's 0.70 (forced by the user)" in imp["detail"]
    assert d["record"]["improvement"]["status"] == "flat"
    body = open(d["record_path"], encoding="utf-8").read()
    assert "share for the decision 0.67 = 0.67 at research (flat)" in body
    # no gate held it; the performance engineer prefers B, so the vote is a split and the one
    # Stop hold is the human-review notice (rule D), said before the final answer
    assert not any(r.saw(STOP_FEEDBACK) and r.saw("gate FAILED") for r in run.main_requests), info
    assert (d["route"]["route"], [r["rule"] for r in d["route"]["rules"] if r["rule"] != "COLD_START"]) == (
        "human-review",
        ["D"],
    ), d["route"]


def test_forced_question_whose_panel_grew_less_confident_is_not_held_for_it(run_claude, e2e_project):
    """The rankers' self-reported confidence fell (0.60 → 0.45): not compared — fresh blind
    rankers have no new evidence to raise it. No gate holds the Stop; the vote completes."""
    scenario = Deliberation(table(passing_ranking(0.45)), FULL)
    scenario.final_text = "I am done."
    run = run_claude(e2e_project, PROMPT, scenario)
    info = run.describe()
    assert run.returncode == 0 and run.plugin_errors() == "", info
    d = only(run)
    assert d["phase"] == "COMPLETE" and d["outcome"] == "adopted", info
    imp = checks(d["gate2"])["improvement_evidence"]
    assert imp["passed"] and imp["figure"] == "share for the decision 0.67 = 0.67 at research (flat)", imp
    blocks = [
        e["answer"]["reason"]
        for e in run.events()
        if e.get("event") == "Stop" and (e.get("answer") or {}).get("decision") == "block"
    ]
    assert not any("gate FAILED" in b for b in blocks), blocks
    assert d["record_path"] and os.path.exists(d["record_path"])


# --------------------------------------------------------------------------- item 2


def test_a_ranking_prompt_that_carries_the_vote_is_denied_and_the_model_ranks_blind(run_claude, e2e_project):
    run = run_claude(e2e_project, PROMPT, LeakyRanking(table(passing_ranking(0.75))))
    assert_clean(run)
    info = run.describe()
    denied = denials(run)
    assert sorted(e["payload"]["tool_input"]["subagent_type"] for e in denied) == sorted(PANEL), denied
    for e in denied:
        reason = e["answer"]["reason"]
        assert reason.startswith(f'{BLIND_DENIED} which approach leads: "Leading: A"; scores: '), reason
        assert "Approaches to rank (neutral order; it ranks nothing):" in reason
        assert saw_denial(run, e), info
    d = only(run)
    listed = approach_listing(denied[0]["answer"]["reason"])
    # the rankers that ran got exactly that list and nothing of the vote
    ranking_requests = [r for r in run.subagent_requests("Phase: ranking") if round_of(r) == 2]
    assert sorted({persona_of(r) for r in ranking_requests}) == sorted(PANEL), info
    assert all(listed in r.agent_prompt and "Leading" not in r.agent_prompt for r in ranking_requests)
    order = [line[2] for line in listed.splitlines()[1:]]
    assert sorted(order) == ["A", "B", "C"]
    assert all(a["given"]["isolation"] == "blind ranking: clean" for a in d["agents"] if a["stage"] == "ranking")
    assert d["phase"] == "COMPLETE" and d["ranking"]["leading"] == "A", info
    lineage = run.state_json("sessions/{sid}/lineage.json")
    assert sorted(x["rule"] for x in lineage["denied"]) == ["blind-ranking"] * 3
    # dissent is read after the vote: performance-engineer preferred B and documented A
    assert checks(d["gate1"])["dissent_documented"]["figure"] == "1 of 1 dissenters documented"


# --------------------------------------------------------------------------- item 3


def test_a_unanimous_reject_adopts_nothing(run_claude, e2e_project):
    ranking = {p: rejecting(p, a) for p, a in zip(PANEL, (7.6, 7.8, 7.4))}
    run = run_claude(e2e_project, PROMPT, Deliberation(table(ranking), FULL))
    assert_clean(run)
    info = run.describe()
    d = only(run)
    assert d["phase"] == "COMPLETE", f"{d['failure_reasons']}\n{info}"
    assert (d["outcome"], d["decision"]) == ("rejected", None)
    assert (d["route"]["route"], d["route"]["decided_by"]) == ("auto-reject", "unanimous reject")
    told = (
        f"Deliberation {d['id']}: the panel unanimously REJECTED every approach (3 of 3 voting agents "
        "reject) — rejected — no approach adopted. Do not implement any of the approaches."
    )
    assert any(r.saw(told) for r in run.main_requests), info
    body = open(d["record_path"], encoding="utf-8").read()
    assert "**Rejected — no approach adopted.**" in body and "route auto-reject" in body
    assert not (e2e_project.state_dir / "escalations.json").exists()
    (msg,) = [
        e["answer"]["system_message"]
        for e in run.events()
        if e.get("event") == "Stop" and (e.get("answer") or {}).get("system_message")
    ]
    assert msg.startswith(f"Deliberation {d['id']} COMPLETE: rejected — no approach adopted"), msg


# --------------------------------------------------------------------------- item 5a


def test_a_second_red_team_pass_is_refused_and_nothing_is_dropped(run_claude, e2e_project):
    from deliberation.core.depth.hot_spots import find_hot_spots
    from deliberation.state.models import Deliberation as Model

    run = run_claude(e2e_project, PROMPT, SecondRedTeam(table(passing_ranking(0.75))))
    assert_clean(run)
    info = run.describe()
    (denied,) = denials(run)
    reason = denied["answer"]["reason"]
    assert denied["payload"]["tool_input"]["subagent_type"] == "red-team"
    assert reason.startswith(RED_TEAM_DENIED) and "found nothing contested" in reason, reason
    assert reason.endswith("Next: rank every approach (spawn the personas again).")
    assert saw_denial(run, denied), info
    d = only(run)
    assert d["phase"] == "COMPLETE", info
    assert [a["persona"] for a in d["agents"] if a["kind"] == "red-team"] == ["red-team"]
    saved = Model.model_validate(d)
    assert saved.depth.status == "not_needed" and saved.depth.hot_spots == []
    # what the red team refuted or found missing on the saved state: nothing was left unplanned
    # (a ranker's documented dissent after the vote is not a red-team point)
    assert [h for h in find_hot_spots(saved) if h.kind in ("refuted", "missed_angle")] == []


# --------------------------------------------------------------------------- item 8


class PairDeliberation(Scenario):
    """The minimum viable deliberation as the protocol describes it: product-strategist (FOR) and
    devils-advocate (AGAINST) research; the model does what the plugin's answer says next — rank,
    or spawn the lens workers it lists and then red team 2 — and ranks the pair blind."""

    def __init__(self, against: dict, mode: str = "install") -> None:
        self.against = against
        self.mode = mode

    def spawn(self, slug: str, phase: str, body: str, raw: "str | None" = None) -> dict:
        return agent_call(
            f"PERSONA: {slug}\nPhase: {phase}\n{body}",
            raw or agent_type(slug, self.mode),
            description=f"{slug} {phase}",
            run_in_background=False,
        )

    def main(self, req: ApiRequest) -> ReplyLike:
        outcomes = agent_outcomes(req)
        if any(v == "pending" for v in outcomes.values()):
            return "Waiting for the agents."
        calls = [u for u in req.tool_uses if u.get("name") == "Agent"]
        descs = [c["input"].get("description", "") for c in calls]
        seen = req.all_text
        if not calls:
            return [text("Minimum viable deliberation: one FOR, one AGAINST.")] + [
                self.spawn(s, "research", f"Question: {PROMPT[12:]} Work independently; state your position.") for s in PAIR
            ]
        workers = instruction_prompts(seen)
        if workers and not any(d.startswith("lens ") for d in descs):
            return [text("Investigating the conflict with fresh workers.")] + [
                agent_call(p, t, description=f"lens {t}", run_in_background=False) for t, p in workers
            ]
        if "Depth axis — red team 2:" in seen and "red-team deliberation" not in descs:
            return [text("Red team 2."), self.spawn("red-team", "deliberation", "Red team 2 over the tier-2 findings.")]
        if "to RANK every approach" in seen:
            if not any(d.endswith(" ranking") for d in descs):
                return [text("Ranking the pair, blind.")] + [
                    self.spawn(s, "ranking", approach_listing(seen) + "\nScore every approach 0-10.") for s in PAIR
                ]
        return concluding_answer("Decision recorded.", req)

    def subagent(self, req: ApiRequest) -> ReplyLike:
        lens = lens_of(req)
        if lens is not None:
            return report_message(
                report(
                    phase="deliberation",
                    hot_spots=["H1"],
                    findings=[
                        {
                            "id": "F1",
                            "claim": f"{lens}: loguru can keep per-module names when its sink is configured",
                            "evidence": "docs/loguru.md:55",
                        }
                    ],
                    approaches=[],
                    scores={},
                    verdict="abstain",
                    preferred_approach=None,
                    refutations=[],
                )
            )
        slug, phase = persona_of(req), phase_of(req)
        if phase == "research":
            return report_message(FOR_REPORT if slug == "product-strategist" else self.against)
        if phase == "ranking":
            return report_message(PAIR_RANKING[slug])
        if slug == "red-team":
            return report_message(
                report(
                    phase="deliberation",
                    findings=[],
                    approaches=[],
                    scores={},
                    verdict="abstain",
                    preferred_approach=None,
                    refutations=[],
                )
            )
        return "Nothing scripted."


@pytest.mark.parametrize("outcome", ["proceed", "investigate"])
def test_the_two_agent_deliberation_runs_end_to_end_under_the_default_config(outcome, run_claude, e2e_project):
    against = AGAINST_AGREES if outcome == "proceed" else AGAINST_DISAGREES
    run = run_claude(e2e_project, PROMPT, PairDeliberation(against), timeout=150)
    assert_clean(run)
    info = run.describe()
    d = only(run)
    assert d["phase"] == "COMPLETE", f"{d['failure_reasons']}\n{info}"
    assert d["two_agent"]["verdict"] == outcome and d["depth"]["basis"] == "2-agent rule"
    told = {
        "proceed": "agreement with different reasoning → proceed",
        "investigate": "genuine disagreement → investigate that conflict",
    }[outcome]
    assert any(
        r.saw(f"minimum viable deliberation (2 agents: devils-advocate, product-strategist): {told}") for r in run.main_requests
    ), info
    assert not [a for a in d["agents"] if a["kind"] == "red-team" and a["tier"] == 1]  # no first red team
    by_type = run.subagent_stats["by_type"]
    if outcome == "proceed":
        assert by_type == {"product-strategist": 2, "devils-advocate": 2}, info
        assert d["depth"]["status"] == "not_needed"
    else:
        assert by_type == {
            "product-strategist": 2,
            "devils-advocate": 2,
            "evidence-chase": 1,
            "counter-model": 1,
            "edge-case-hunt": 1,
            "red-team": 1,
        }, info
        assert d["depth"]["status"] == "done" and [h["kind"] for h in d["depth"]["hot_spots"]] == ["contradiction"]
    assert d["decision"] == "A" and d["gate1"]["passed"] and d["gate2"]["passed"]
    assert "## Minimum viable deliberation (2 agents)" in open(d["record_path"], encoding="utf-8").read()
