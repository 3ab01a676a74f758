"""Against the real client: PRD_GENERATION ends a deliberation with a decision document
in its record — asked for when the vote passes, read from the main agent's concluding answer,
sent back once, or recorded missing — and the record's cost counts every subagent's tokens from
its transcript, background agents (the client's default) included."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fake_api import estimate_tokens
from harness import REPO, ClaudeRun, assert_clean
from scenarios import DOCUMENT_REQUEST, DOCUMENT_SEND_BACK
from scenarios_gates import PANEL, PROMPT, STOP_FEEDBACK, WITH_RED_TEAM, standard_reports
from scenarios_prd import DocumentOnRequest, DocumentWhenSentBack, UntracedDocument

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

FLOW = ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]


def only(run: ClaudeRun) -> dict:
    (delib,) = run.deliberations()
    return delib


def stops(run: ClaudeRun) -> "list[dict]":
    return [e.get("answer") or {} for e in run.events() if e.get("event") == "Stop"]


def report_json(run: ClaudeRun, did: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    proc = subprocess.run(
        [sys.executable, "-m", "deliberation", "report", did, "--json", "--project", str(run.project)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def api_usage(run: ClaudeRun, prompt_head: str) -> "tuple[int, int, int]":
    """(calls, input, output tokens) the scripted API answered the subagent whose prompt starts so."""
    reqs = run.subagent_requests(prompt_head)
    out = 0
    for r in reqs:
        reply = run.log.entries[r.index].reply
        out += max(1, len(json.dumps(reply.blocks)) // 4)
    return len(reqs), sum(estimate_tokens(r.body) for r in reqs), out


def test_background_deliberation_ends_with_a_decision_document_and_its_measured_cost(run_claude, e2e_project):
    """All eight agents in the background (the client's default): the request for the document
    travels with the task notifications, the concluding answer carries it, the Stop hook accepts
    it, and every agent's tokens are read from its transcript — the same figures the API sent."""
    scenario = DocumentOnRequest(standard_reports(), WITH_RED_TEAM, background=True)

    run = run_claude(e2e_project, PROMPT, scenario, timeout=150)

    assert_clean(run)
    info = run.describe()
    delib = only(run)
    assert delib["phase"] == "COMPLETE", f"{delib['phase']} {delib['failure_reasons']}\n{info}"
    assert [c["to_phase"] for c in delib["phase_history"]] == FLOW
    assert all(a["background"] for a in delib["agents"]) and len(delib["agents"]) == 8
    # the request reached the model before its concluding answer, and the answer carries the block
    asked = [r for r in run.main_requests if r.saw(DOCUMENT_REQUEST) and r.saw("Ids you may cite")]
    assert asked, info
    assert '"document": "prd"' in run.text and run.text.startswith(scenario.final_text)
    assert delib["prd"]["status"] == "accepted" and delib["prd"]["send_backs"] == 0
    assert delib["gate2"]["passed"] and delib["gate2"]["checks"][-1]["name"] == "decision_document"
    assert not any(a.get("decision") == "block" for a in stops(run)), stops(run)
    assert stops(run)[-1]["system_message"].splitlines()[1].startswith("Decision document: 3 requirement(s)")

    rec = report_json(run, delib["id"])
    doc = rec["prd"]["document"]
    # background reports arrive in any order: the ids are the panel's findings, whatever the order
    cited = {r["sources"][0]["id"]: r["id"] for r in doc["requirements"]}
    assert sorted(cited) == sorted(f"{p}:F1" for p in PANEL)
    assert all(s["kind"] == "finding" for r in doc["requirements"] for s in r["sources"])
    assert doc["risks"][0]["sources"][0] == {
        "id": "security-analyst:D1",
        "kind": "dissent",
        "persona": "security-analyst",
        "text": "stale promotion prices for up to 30 s",
    }
    by = {(g["persona"], g["stage"]): g for g in rec["findings"]}
    assert by[("performance-engineer", "research")]["findings"][0]["evidence"] == "bench/checkout_p99.txt"
    assert by[("performance-engineer", "research")]["findings"][0]["cited_by"][0] == cited["performance-engineer:F1"]

    # the cost: every agent from its transcript, each figure the one the API answered
    usage = rec["usage"]
    assert (usage["agents"], usage["agents_from_transcripts"], usage["agents_not_counted"]) == (8, 8, 0), usage
    for row in usage["per_agent"]:
        head = f"PERSONA: {row['persona']}\nPhase: {row['stage']}\n"
        calls, inp, out = api_usage(run, head)
        assert (row["calls"], row["input_tokens"], row["output_tokens"]) == (calls, inp, out), (row, head)
        assert row["background"] is True and row["source"] == "transcript"
    research = [r["total_tokens"] for r in usage["per_agent"] if r["stage"] == "research"]
    assert usage["one_agent_tokens"] == round(sum(research) / 3)
    assert usage["multiple_of_one_agent"] == round(usage["total_tokens"] / usage["one_agent_tokens"], 2)
    assert usage["money"] is None and usage["wall_time_s"] > 0
    body = (run.state_dir / "records" / f"{delib['id']}.md").read_text(encoding="utf-8")
    assert "## Decision document (PRD)" in body and "## Cost and usage" in body
    assert f"Cost: 8 subagent(s), {usage['total_tokens']:,} tokens" in body


def test_a_concluding_answer_without_the_document_is_sent_back_once(run_claude, e2e_project):
    """Foreground: the model ends its turn with prose only; the Stop hook sends the document back
    with its shape and the citable ids; the model writes it and the next Stop completes."""
    scenario = DocumentWhenSentBack(standard_reports(), WITH_RED_TEAM)

    run = run_claude(e2e_project, PROMPT, scenario)

    assert_clean(run)
    info = run.describe()
    delib = only(run)
    answers = stops(run)
    assert [a.get("decision") for a in answers] == ["block", None], answers
    reason = answers[0]["reason"]
    assert reason.startswith(
        f"Deliberation {delib['id']}: both gates passed; the decision document is the last "
        "step before it closes. Your concluding answer has no decision document block."
    )
    fed = [r for r in run.main_requests if r.saw(STOP_FEEDBACK) and r.saw(DOCUMENT_SEND_BACK)]
    assert fed, info
    assert delib["phase"] == "COMPLETE" and [c["to_phase"] for c in delib["phase_history"]] == FLOW
    assert (delib["prd"]["status"], delib["prd"]["send_backs"]) == ("accepted", 1)
    assert delib["gate2"]["passed"]


def test_a_document_that_cites_what_nobody_found_is_recorded_missing(run_claude, e2e_project):
    """The model cites a finding that does not exist, twice: sent back once with the unknown id
    named, then recorded as missing — the decision and its route stand, the user is told."""
    scenario = UntracedDocument(standard_reports(), WITH_RED_TEAM)

    run = run_claude(e2e_project, PROMPT, scenario)

    assert_clean(run)
    delib = only(run)
    answers = stops(run)
    assert [a.get("decision") for a in answers] == ["block", None], answers
    assert "these do not: 'security-analyst:F9' in R1" in answers[0]["reason"]
    assert delib["phase"] == "COMPLETE" and delib["decision"] == "A" and delib["route"]["route"] == "auto-execute"
    assert (delib["prd"]["status"], delib["prd"]["send_backs"]) == ("missing", 1)
    assert [c["name"] for c in delib["gate2"]["checks"] if not c["passed"]] == ["decision_document"]
    assert answers[-1]["system_message"].startswith(
        "⚠ Decision document MISSING (after 1 send-back(s): Every cited id must exist in the deliberation"
    )
