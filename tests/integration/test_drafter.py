"""The drafter on the turn-by-turn path (core/drafter_call.py), through the real hook scripts: once
the vote has passed the main agent spawns the drafter with any prompt; PreToolUse hands it every
report whole (updatedInput), SubagentStop records its document (one send-back with the problem),
and the Agent call's result tells the main agent the short outcome."""

from __future__ import annotations

import json

from tests.helpers import payloads as P
from tests.helpers.flows import RESEARCH_CLAIMS, deliberate
from tests.helpers.project import load_delib, write_config


def voted(project, hook) -> P.Session:
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    answers = deliberate(s)
    assert load_delib(project)["phase"] == "PRD_GENERATION"
    request = answers[-1].context or ""
    # the request offers the drafter first
    assert 'Shortest way: spawn the drafter — Agent({subagent_type: "drafter"' in request, request[:400]
    return s


def test_the_drafter_gets_every_report_whole_and_the_main_agent_gets_the_outcome(project, hook):
    s = voted(project, hook)
    bad = P.fenced({"document": "prd", "decision": "x", "requirements": []})
    good = P.prd_message([f"{p}:F1" for p in RESEARCH_CLAIMS], prose="Drafted.")
    out = s.foreground("drafter", "draft", bad, retry_message=good)
    spec = (out["pre"].json or {}).get("hookSpecificOutput") or {}
    material = spec["updatedInput"]["prompt"]
    assert spec["updatedInput"]["run_in_background"] is False
    for persona, claim in RESEARCH_CLAIMS.items():  # every finding whole, with its evidence
        assert f"- {persona}:F1 (finding" in material and claim in material
    assert material.startswith("Phase: decision document of deliberation ")
    assert out["stop"].decision == "block" and "was not recorded" in out["stop"].reason
    d = load_delib(project)
    assert d["prd"]["status"] == "accepted" and d["prd"]["via"] == "drafter"
    told = out["post"].context or ""
    assert f"Deliberation {d['id']} decided." in told and "drafted from every report and recorded" in told
    assert told.startswith("Beyond the shared context: 3 of 3 findings are the panel's own; 0 only restate it.")
    assert "Ids you may cite" not in told
    # ids only where the outcome says what the decision rests on, each with its evidence
    assert [line for line in told.splitlines() if "security-analyst:F1" in line] == [
        line for line in told.splitlines() if line.startswith("It rests on (findings with their evidence")
    ]
    assert "security-analyst:F1: Dual-write doubles the credentials surface" in told and "(docs/security-analyst-1.md)" in told
    print(f"turn-by-turn: drafter material {len(material.encode())} bytes; main agent's outcome {len(told.encode())} bytes")
    done = s.stop(message="We adopt dual-write for two weeks, then cut over; the dissent is recorded.")
    d = load_delib(project)
    assert d["phase"] == "COMPLETE", (done.reason, d["prd"])


def test_a_drafter_before_the_vote_is_denied_with_the_next_step(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt("DELIBERATE: should the orders table move to its own database?")
    out = s.foreground("drafter", "draft", "nothing")
    assert out["pre"].decision == "deny" and "Drafter spawn denied" in out["pre"].reason


def test_a_drafter_whose_document_never_validates_leaves_the_request_to_the_main_agent(project, hook):
    s = voted(project, hook)
    bad = P.fenced({"document": "prd", "decision": "x"})
    out = s.foreground("drafter", "draft", bad)
    told = out["post"].context or ""
    assert told.startswith("The drafter's decision document was not recorded: write it yourself as follows.")
    assert "Ids you may cite" in told
    assert json.loads(json.dumps(load_delib(project)["prd"]))["status"] != "accepted"
