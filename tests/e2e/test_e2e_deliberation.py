"""Scenarios 1-6: whole deliberations through the real client, gates included.

Each test drives the real Claude Code CLI against the scripted API (scenarios_gates.py) in its
own project and HOME, and asserts on three things: the CLI's JSON result, the plugin's state
files, and what the model was shown (the request log). Figures asserted are hand-computed from
the scripted scores (README formulas): weighted = the uniform score, consensus = S / (S + O + 0.2).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import FULL_FLOW, ClaudeRun, assert_clean, only_deliberation
from scenarios import persona_of
from deliberation.core.personas import RESEARCH_PERSONAS
from scenarios_gates import (
    BREADTH,
    GATE1_FAILED,
    GATE2_FAILED,
    PAIR,
    PAIR_CONSENSUS,
    PAIR_FIRST_CONSENSUS,
    PANEL,
    PASS_CONSENSUS,
    PROMPT,
    RANKING_SPLIT,
    SINGLE_APPROACH,
    SPLIT_CONSENSUS,
    STOP_FEEDBACK,
    TASK_TYPE,
    THRESHOLD,
    TRIGGER_CONFIDENCE,
    WITH_RED_TEAM,
    EarlyStopDeliberation,
    InvalidReports,
    QualityGateOnStop,
    ReRankOnGate,
    SpawnFlood,
    StagedDeliberation,
    Wave,
    standard_reports,
    stop_feedbacks,
    write_config,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BREADTH_ONLY = {"depth": {"posture": "off"}}
# --------------------------------------------------------------------------- shared checks


def stage_status(delib: dict) -> "list[tuple[str, str, str, bool]]":
    """(persona, stage, status, superseded) of every agent record, sorted (the PreToolUse hooks
    of one wave run concurrently, so the order within a wave is not fixed)."""
    return sorted((a["persona"], a["stage"], a["status"], a["superseded"]) for a in delib["agents"])


def stop_answers(run: ClaudeRun) -> "list[dict]":
    return [e.get("answer") or {} for e in run.events() if e.get("event") == "Stop"]


def assert_complete(run: ClaudeRun, delib: dict, consensus: float, flow: "list[str]" = FULL_FLOW) -> None:
    """COMPLETE through every phase, both gates passed, the record written, the Stop message."""
    info = run.describe()
    assert delib["phase"] == "COMPLETE", f"{delib['phase']} {delib['failure_reasons']}\n{info}"
    assert [c["to_phase"] for c in delib["phase_history"]] == flow, delib["phase_history"]
    assert (delib["task_type"], delib["threshold"]) == (TASK_TYPE, THRESHOLD)
    assert delib["initial_confidence"] == pytest.approx(TRIGGER_CONFIDENCE)
    assert delib["gate1"]["passed"] is True and delib["gate2"]["passed"] is True, (delib["gate1"], delib["gate2"])
    assert delib["ranking"]["leading"] == "A" and delib["decision"] == "A"
    assert delib["ranking"]["consensus"] == pytest.approx(consensus, abs=5e-5)
    record = run.state_dir / "records" / f"{delib['id']}.md"
    assert record.is_file(), f"no decision record {record}\n{info}"
    assert delib["record_path"] and Path(delib["record_path"]) == record
    body = record.read_text(encoding="utf-8")
    assert delib["id"] in body and "Per-node price cache" in body, body[:2000]
    # the Stop hook's systemMessage for the user
    complete = (
        f"Deliberation {delib['id']} COMPLETE: A (consensus {consensus:.2f} ≥ {THRESHOLD:.2f}, "
        f"{TASK_TYPE}); route auto-execute (no approval needed); record {record}"
    )
    answer = stop_answers(run)[-1]
    assert set(answer) == {"system_message"}, stop_answers(run)
    lines = answer["system_message"].splitlines()
    assert lines[0] == complete and lines[1].startswith("Decision document: "), lines
    # PRD_GENERATION: the concluding answer's decision document, accepted and traced
    assert delib["prd"]["status"] == "accepted" and delib["prd"]["send_backs"] == 0, delib["prd"]
    assert all(c["passed"] for c in delib["gate2"]["checks"] if c["name"] == "decision_document")
    assert "## Decision document (PRD)" in body and "## Findings by persona" in body and "## Cost and usage" in body
    session = run.state_json("sessions/{sid}/session.json")
    assert session["active_deliberation"] is None


def assert_panel_vote(delib: dict) -> None:
    """RANKING_PASS as the plugin computed it: per-agent weighted scores of A, means."""
    ranking = delib["ranking"]
    by_persona = {s["persona"]: s["weighted"] for s in ranking["scores"] if s["approach"] == "A"}
    assert by_persona == {"security-analyst": 8.4, "performance-engineer": 9.4, "cost-analyst": 9.0}
    assert ranking["means"] == pytest.approx({"A": 8.9333, "B": 6.2667, "C": 6.8333}, abs=1e-4)
    assert ranking["stdev"] == pytest.approx(0.4110, abs=1e-4)
    assert (ranking["approvals"], ranking["rejections"], ranking["agents"]) == (3, 0, 3)


# --------------------------------------------------------------------------- scenario 1


@pytest.mark.parametrize("variant", ["breadth-only", "red-team-clean"])
def test_foreground_deliberation_passes_both_gates(variant, run_claude, e2e_project):
    """Scenario 1: research (3 conflicting personas) → synthesis-lead → (red team) → ranking →
    decision record, every agent foreground; Gate 1 and Gate 2 pass at the first Stop."""
    if variant == "breadth-only":
        write_config(e2e_project.path, BREADTH_ONLY)
        waves = BREADTH
    else:
        waves = WITH_RED_TEAM  # default posture: the red team must run, finds no hot spot
    scenario = StagedDeliberation(standard_reports(), waves)

    run = run_claude(e2e_project, PROMPT, scenario)

    info = run.describe()
    assert_clean(run)
    assert run.text.startswith(scenario.final_text) and '"document": "prd"' in run.text, info
    spawned = 3 + 1 + (variant != "breadth-only") + 3
    stats = run.subagent_stats
    assert (stats["spawned"], stats["completed"], stats["requested"]["foreground"]) == (spawned,) * 3, info
    expected_types = {slug: 2 for slug in PANEL} | {"synthesis-lead": 1}
    if variant != "breadth-only":
        expected_types["red-team"] = 1
    assert stats["by_type"] == expected_types, info

    delib = only_deliberation(run)
    assert_complete(run, delib, PASS_CONSENSUS)
    assert_panel_vote(delib)
    roles = [("synthesis-lead", "deliberation", "reported", False)]
    if variant != "breadth-only":
        roles.append(("red-team", "deliberation", "reported", False))
        assert delib["depth"]["status"] == "not_needed" and delib["depth"]["hot_spots"] == [], delib["depth"]
        assert delib["depth"]["posture"] == "ceiling", delib["depth"]
    assert stage_status(delib) == sorted(
        [(s, "research", "reported", False) for s in PANEL] + roles + [(s, "ranking", "reported", False) for s in PANEL]
    )
    assert all(a["background"] is False for a in delib["agents"])
    assert len(stop_answers(run)) == 1, stop_answers(run)

    # what the model was shown: the protocol, the gate's progress, each wave's prompt
    mains = run.main_requests
    assert mains[0].saw("UserPromptSubmit hook additional context: DELIBERATION PROTOCOL"), info
    passed = f"consensus gate passed — leading approach A, consensus {PASS_CONSENSUS:.2f} ≥ {THRESHOLD:.2f}"
    assert mains[-1].saw(passed), info
    assert not any(r.saw(STOP_FEEDBACK) for r in mains), info
    ranking_prompts = [r for r in run.subagent_requests("Phase: ranking")]
    assert sorted({persona_of(r) for r in ranking_prompts}) == sorted(PANEL), info


# --------------------------------------------------------------------------- scenario 2


def test_background_deliberation_survives_the_early_stop(run_claude, e2e_project):
    """Scenario 2: the same deliberation with every agent in the background (the client's
    default). The main agent ends its turn right after launching the research wave; its Stop
    fires while the personas still run and must not decide anything; the reports come from
    SubagentStop, the waves continue on the task notifications, and the last Stop concludes."""
    write_config(e2e_project.path, BREADTH_ONLY)
    context = e2e_project.path / "PRICING.md"
    context.write_text("Pricing service notes: prices change about 40 times a day.\n", encoding="utf-8")

    scenario = EarlyStopDeliberation(standard_reports(), e2e_project.path, context)

    run = run_claude(e2e_project, PROMPT, scenario)

    info = run.describe()
    assert_clean(run)
    stats = run.subagent_stats
    assert (stats["spawned"], stats["completed"], stats["requested"]["unset"], stats["started_in_background"]) == (7, 7, 7, 7), (
        info
    )

    # the state right after the early Stop: research running, nothing decided, nothing failed
    early = scenario.early
    assert early is not None and early["stops"], f"the early Stop never came\n{info}"
    first_stop = early["stops"][0]
    assert first_stop["answer"] == {}, first_stop
    assert first_stop["notes"] == ["3 deliberation agent(s) pending: no verdict yet"], first_stop
    assert first_stop["payload"]["stop_hook_active"] is False
    (snap,) = early["deliberations"]
    assert snap["phase"] == "RESEARCH" and snap["stop_blocks"] == 0, snap
    assert snap["gate1"] is None and snap["gate2"] is None and snap["failure_reasons"] == []
    assert sorted(a["status"] for a in snap["agents"]) == ["running"] * 3, snap["agents"]

    # the end: the same decision as in the foreground, every report from SubagentStop
    delib = only_deliberation(run)
    assert_complete(run, delib, PASS_CONSENSUS)
    assert_panel_vote(delib)
    assert all(a["background"] is True for a in delib["agents"])
    events = run.events()
    captured = [e for e in events if e.get("event") == "SubagentStop" and "report recorded" in e.get("notes", [])]
    assert len(captured) == 7, [e.get("notes") for e in events if e.get("event") == "SubagentStop"]
    statuses = [e["payload"]["tool_response"].get("status") for e in events if e.get("event") == "PostToolUse"]
    assert statuses == ["async_launched"] * 7, statuses
    stops = stop_answers(run)
    assert len(stops) >= 3 and all("decision" not in a for a in stops), stops  # one per wave at least
    assert not any(r.saw(STOP_FEEDBACK) for r in run.main_requests), info
    # every completion reached the main agent as a task notification, and each wave began only
    # after the previous wave's reports were in
    assert all(a["notified"] for a in delib["agents"]), [(a["persona"], a["notified"]) for a in delib["agents"]]
    notified = {
        re.search(r"<task-id>([^<]+)</task-id>", e["payload"]["prompt"]).group(1)
        for e in events
        if e.get("event") == "UserPromptSubmit" and "<task-notification>" in e["payload"].get("prompt", "")
    }
    assert notified == {a["agent_id"] for a in delib["agents"]}, notified
    entered = {c["to_phase"]: c["at"] for c in delib["phase_history"]}
    done = lambda stage: max(a["reported_at"] for a in delib["agents"] if a["stage"] == stage)  # noqa: E731 - a one-line reading of the record
    assert done("research") < entered["DELIBERATION"] < done("deliberation") < entered["RANKING"]
    # Gate 1's news, queued by the last ranking SubagentStop, came with a task notification
    passed = f"consensus gate passed — leading approach A, consensus {PASS_CONSENSUS:.2f}"
    assert any(
        r.saw("UserPromptSubmit hook additional context: Deliberation plugin:") and r.saw(passed) for r in run.main_requests
    ), info


# --------------------------------------------------------------------------- scenario 3


def test_consensus_gate_block_reaches_the_model_which_reranks(run_claude, e2e_project):
    """Scenario 3: the first vote splits (consensus 0.47 < 0.70); Gate 1 blocks at the
    ranking agents' PostToolUse with the figures; the model reads it and re-ranks; the second
    vote passes and the deliberation completes on the re-rank."""

    write_config(e2e_project.path, BREADTH_ONLY)
    reports = standard_reports()  # round 2 answers RANKING_PASS
    reports.update({(slug, "ranking", 1): r for slug, r in RANKING_SPLIT.items()})
    scenario = ReRankOnGate(reports)

    run = run_claude(e2e_project, PROMPT, scenario)

    info = run.describe()
    assert_clean(run)
    assert run.subagent_stats["spawned"] == 10, info  # 3 research + synthesis + 3 + 3 ranking
    reason_line = f"- consensus: {SPLIT_CONSENSUS:.2f} < {THRESHOLD:.2f} for {TASK_TYPE} (leading approach A)"
    # the failure reached the model as PostToolUse context (a block there holds nothing and
    # shows the hook's command line: docs/HOOK_ANSWERS.md), with the figures
    blocked = [
        r
        for r in run.main_requests
        if r.saw("PostToolUse:Agent hook additional context: Deliberation") and r.saw(GATE1_FAILED) and r.saw(reason_line)
    ]
    assert blocked, info
    first = blocked[0]
    assert first.saw("What is contested:") and first.saw("Two ways forward — choose one"), info
    # ... and the model acted on it: the re-rank's prompts carry the contested point
    rerank = run.subagent_requests("Round: 2")
    assert sorted({persona_of(r) for r in rerank}) == sorted(PANEL), info
    assert all(r.index > first.index for r in rerank), info
    assert all("consensus gate failed" in r.agent_prompt for r in rerank), info

    delib = only_deliberation(run)
    blocks = [e for e in run.events() if e.get("event") == "PostToolUse" and (e.get("answer") or {}).get("decision") == "block"]
    assert blocks and all(reason_line in b["answer"]["reason"] for b in blocks), blocks
    assert_complete(run, delib, PASS_CONSENSUS)
    assert_panel_vote(delib)
    ranking = sorted((a["persona"], a["superseded"]) for a in delib["agents"] if a["stage"] == "ranking")
    assert ranking == sorted([(s, True) for s in PANEL] + [(s, False) for s in PANEL]), ranking
    assert len(stop_answers(run)) == 1
    assert run.state_json("sessions/{sid}/lineage.json")["denied"] == []  # the advice was legal


# --------------------------------------------------------------------------- scenario 4


def test_invalid_report_is_sent_back_once_then_recorded_invalid(run_claude, e2e_project):
    """Scenario 4: security-analyst forgets its report, gets the SubagentStop feedback and
    fixes it; cost-analyst's JSON never parses: one feedback, then recorded invalid — no loop.
    The two valid personas rank (breadth-only) and the deliberation completes without it."""

    write_config(e2e_project.path, BREADTH_ONLY)
    pair = ("security-analyst", "performance-engineer")
    waves = (Wave("research", PANEL), Wave("ranking", pair))
    scenario = InvalidReports(standard_reports(), waves, fixes="security-analyst", stays_invalid="cost-analyst")

    run = run_claude(e2e_project, PROMPT, scenario)

    info = run.describe()
    assert_clean(run)
    stats = run.subagent_stats
    assert (stats["spawned"], stats["completed"]) == (5, 5), info

    def research_turns(slug):
        return run.subagent_requests(f"PERSONA: {slug}\nPhase: research")

    # the fixer: two turns, the second carries the feedback with the exact problem
    fixer = research_turns("security-analyst")
    assert len(fixer) == 2, info
    assert STOP_FEEDBACK not in fixer[0].all_text
    assert (
        "SubagentStop hook additional context: Deliberation plugin: your report was not accepted. Your final "
        "message has no fenced JSON report."
    ) in fixer[1].new_text, fixer[1].new_text[:600]
    assert "blocking error" not in fixer[1].new_text  # said once, as context
    # the one that stays invalid: exactly one feedback, then no further turn (no loop)
    stubborn = research_turns("cost-analyst")
    assert len(stubborn) == 2, info
    assert [r.new_text.count("SubagentStop hook additional context:") for r in stubborn] == [0, 1], info
    assert "Your JSON report does not parse" in stubborn[1].new_text
    assert len(research_turns("performance-engineer")) == 1

    delib = only_deliberation(run)
    records = {(a["persona"], a["stage"]): a for a in delib["agents"]}
    fixed = records[("security-analyst", "research")]
    assert (fixed["status"], fixed["send_backs"], fixed["problem"]) == ("reported", 1, None), fixed
    invalid = records[("cost-analyst", "research")]
    assert (invalid["status"], invalid["send_backs"], invalid["report"]) == ("invalid", 1, None), invalid
    assert invalid["problem"].startswith("Your JSON report does not parse"), invalid["problem"]
    assert any(w.startswith("cost-analyst (") and "recorded as invalid after 1 send-back(s)" in w for w in delib["warnings"]), (
        delib["warnings"]
    )
    stops = [e.get("notes") for e in run.events() if e.get("event") == "SubagentStop"]
    assert sorted(next(x for x in n if x.startswith("report ")) for n in stops) == sorted(
        ["report send_back"] * 2 + ["report invalid"] + ["report recorded"] * 4
    ), stops
    # the vote of the two valid personas: A over the next best by 0.6 and 2.4 → 1.6 / 1.8 = 0.8889
    assert stage_status(delib) == sorted(
        [
            ("security-analyst", "research", "reported", False),
            ("performance-engineer", "research", "reported", False),
            ("cost-analyst", "research", "invalid", False),
            ("security-analyst", "ranking", "reported", False),
            ("performance-engineer", "ranking", "reported", False),
        ]
    )
    assert_complete(run, delib, 0.8889)
    assert delib["ranking"]["stdev"] == pytest.approx(0.5)


# --------------------------------------------------------------------------- scenario 5


def test_fifteen_parallel_spawns_against_a_budget_of_twelve(run_claude, e2e_project):
    """Scenario 5: the main agent asks for 15 foreground agents in ONE message (10 research
    personas, 5 general-purpose helpers). All 15 PreToolUse hooks fire before the first agent
    starts, so exactly 12 run and 3 are denied with the budget's reason."""

    write_config(e2e_project.path, {**BREADTH_ONLY, "gates": {"stop_block_limit": 1}})
    personas = tuple(RESEARCH_PERSONAS)
    assert len(personas) == 10
    scenario = SpawnFlood(personas, helpers=5, project=e2e_project.path)

    run = run_claude(e2e_project, PROMPT, scenario)

    info = run.describe()
    assert_clean(run)
    stats = run.subagent_stats
    print(f"\nscenario 5 subagent_stats: {stats}")
    assert (stats["spawned"], stats["completed"], stats["failed"]) == (12, 12, 0), info
    # the client counts only the spawns the hook let through; its own refusals stay at 0
    assert stats["requested"]["foreground"] == 12, info
    assert stats["refused"] == {"depth_limit": 0, "concurrency_limit": 0, "budget": 0}, info
    assert sum(stats["by_type"].values()) == 12, info
    # the lineage: 12 spawns recorded, 3 denied by the budget rule, nothing else
    lineage = run.state_json("sessions/{sid}/lineage.json")
    assert len(lineage["spawns"]) == 12 and len(lineage["denied"]) == 3, lineage
    assert {s["status"] for s in lineage["spawns"]} == {"completed"}, lineage["spawns"]
    assert {s["agent_id"] is not None for s in lineage["spawns"]} == {True}
    budget = "Spawn budget: the main agent already has 12 of 12 active subagents"
    assert all(d["rule"] == "budget" and d["reason"].startswith(budget) and d["parent"] == "main" for d in lineage["denied"]), (
        lineage["denied"]
    )
    spawned_types = sorted(s["subagent_type"] for s in lineage["spawns"])
    denied_types = sorted(d["subagent_type"] for d in lineage["denied"])
    assert sorted(spawned_types + denied_types) == sorted(list(personas) + ["general-purpose"] * 5)
    assert sorted(stats["by_type"].items()) == sorted({t: spawned_types.count(t) for t in spawned_types}.items())
    # the model got 12 reports and 3 denials with the reason
    last = [r for r in run.main_requests if len(r.tool_results) >= 15][0]
    errors = [r["text"] for r in last.tool_results if r.get("is_error")]
    assert len(errors) == 3 and all(e.startswith("PreToolUse:Agent hook error: " + budget) for e in errors), errors
    assert sorted(r["tool_use_id"] for r in last.tool_results if r.get("is_error")) == sorted(
        d["tool_use_id"] for d in lineage["denied"]
    )
    # the deliberation recorded only the allowed personas
    delib = only_deliberation(run)
    allowed_personas = [t for t in spawned_types if t != "general-purpose"]
    assert sorted(a["persona"] for a in delib["agents"]) == allowed_personas
    assert all(a["status"] == "reported" and a["stage"] == "research" for a in delib["agents"])


# --------------------------------------------------------------------------- scenario 6


def quality_gate_run(run_claude, e2e_project, comply: bool):

    write_config(e2e_project.path, BREADTH_ONLY)
    waves = (Wave("research", PAIR), Wave("ranking", PAIR))
    scenario = QualityGateOnStop(SINGLE_APPROACH, waves, comply=comply)
    return scenario, run_claude(e2e_project, PROMPT, scenario)


def assert_quality_block(run: ClaudeRun, answer: dict, n: int) -> None:
    reason = answer.get("reason", "")
    assert answer.get("decision") == "block", answer
    assert GATE2_FAILED in reason and "- complexity_handling: FAIL — 1 alternatives (need 2)" in reason, reason
    assert f"- consensus_confidence: pass — {PAIR_FIRST_CONSENSUS:.2f} (strong)" in reason, reason
    assert reason.endswith(f"(Stop blocked {n} of 3; after that the deliberation is marked FAILED.)"), reason
    assert "Next: generate at least one more alternative" in reason, reason


def test_quality_gate_blocks_stop_then_passes_after_a_second_alternative(run_claude, e2e_project):
    """Scenario 6: one approach only → Gate 1 passes (0.9091) but Gate 2 blocks the Stop
    (complexity handling: 1 alternative); the model reads the Stop feedback, re-ranks with a
    second alternative, and the next Stop completes the deliberation."""

    scenario, run = quality_gate_run(run_claude, e2e_project, comply=True)

    info = run.describe()
    assert_clean(run)
    assert run.text.startswith(scenario.final_text) and '"document": "prd"' in run.text, info
    assert run.subagent_stats["spawned"] == 6, info
    stops = stop_answers(run)
    assert len(stops) == 2, stops
    assert_quality_block(run, stops[0], 1)
    # the feedback reached the model, which re-ranked after reading it
    fed = [r for r in run.main_requests if r.saw(STOP_FEEDBACK) and r.saw(GATE2_FAILED)]
    assert fed and fed[0].saw("1 alternatives (need 2)"), info
    rerank = run.subagent_requests("Round: 2")
    assert sorted({persona_of(r) for r in rerank}) == sorted(PAIR) and all(r.index > fed[0].index for r in rerank)
    delib = only_deliberation(run)
    # the vote passed Gate 1 (PRD_GENERATION), Gate 2 sent it back to a re-rank, which voted again
    assert_complete(run, delib, PAIR_CONSENSUS, FULL_FLOW[:4] + ["RANKING", "PRD_GENERATION", "COMPLETE"])
    checks = {c["name"]: c for c in delib["gate2"]["checks"]}
    assert checks["complexity_handling"]["figure"] == "2 alternatives (need 2)", checks
    assert delib["ranking"]["approaches"] == ["A", "B"] and delib["stop_blocks"] == 1


def test_ignored_quality_gate_fails_the_deliberation_after_three_blocks(run_claude, e2e_project):
    """Scenario 6, bounded path: the model ignores the Stop feedback; after
    gates.stop_block_limit (3) blocked stops the fourth goes through, the deliberation is FAILED
    with the gate's reason, the user gets the loud message and the CLI returns the answer."""
    scenario, run = quality_gate_run(run_claude, e2e_project, comply=False)

    info = run.describe()
    assert_clean(run)
    assert run.text == scenario.ignoring_text, info
    stops = stop_answers(run)
    assert len(stops) == 4, stops
    for n, answer in enumerate(stops[:3], start=1):
        assert_quality_block(run, answer, n)
    delib = only_deliberation(run)
    failed = (
        f"⚠ DELIBERATION {delib['id']} FAILED — the stop was blocked 3 times in a row and the "
        f"gates are still not met; the decision is NOT validated.\n"
        f"Deliberation {delib['id']} — quality gate FAILED:\nSee `deliberation show {delib['id']}`."
    )
    assert stops[3] == {"system_message": failed}, stops[3]
    # the model saw exactly three feedbacks, and was not asked again after the third
    mains = run.main_requests
    assert [stop_feedbacks(r) for r in mains] == [0, 0, 0, 1, 2, 3], info
    assert delib["phase"] == "FAILED" and delib["phase_history"][-1]["to_phase"] == "FAILED", delib["phase_history"]
    assert delib["stop_blocks"] == 3 and delib["gate2"]["passed"] is False
    assert delib["failure_reasons"][0].startswith(f"Deliberation {delib['id']} — quality gate FAILED:")
    # a FAILED deliberation writes its record all the same
    assert delib["record_path"] and (run.state_dir / "records" / f"{delib['id']}.md").exists()
    assert run.state_json("sessions/{sid}/session.json")["active_deliberation"] is None
