"""Scenario 7 against the real client: a contested point deepened by fresh tier-2
workers, and a unanimous pass on a reversal-prone class answered with `ask` on Edit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness import REPO, ClaudeRun, agent_type
from scenarios_gates import approve_config
from scenarios_depth import (
    DEPTH_INSTRUCTION,
    FLOORLESS_PROMPT,
    QUESTION,
    RED_TEAM_2_INSTRUCTION,
    BreadthDeliberation,
    EditFile,
    StagedDeliberation,
    breadth_script,
    demo_script,
    depth_script,
    instruction_prompts,
    waves_done,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LENSES = ("evidence-chase", "counter-model", "edge-case-hunt")
FLOOR = ("Tier 1 is material, not the answer; agreeing again scores 0.", "The red team's words are material too: check them.")


def cli(project, *args: str) -> "subprocess.CompletedProcess":
    """`deliberation ARGS --project PROJECT` from the repo's lib/, as a person would run it."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    return subprocess.run(
        [sys.executable, "-m", "deliberation", *args, "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def write_config(project, cfg: dict) -> None:
    path = project.state_dir / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg), encoding="utf-8")
    approve_config(project.path)


def answers(run: ClaudeRun, event: str) -> "list[dict]":
    return [e.get("answer") or {} for e in run.events() if e.get("event") == event]


def assert_clean(run: ClaudeRun) -> None:
    info = run.describe()
    assert run.returncode == 0 and run.result.get("is_error") is False, info
    assert run.log.errors == [], info
    assert run.plugin_errors() == "", run.plugin_errors()[-3000:]


# --------------------------------------------------------------------------- depth axis


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_contested_point_deepened_by_fresh_tier2_workers(mode, run_claude, e2e_project):
    scenario = StagedDeliberation(depth_script(), mode)

    run = run_claude(e2e_project, QUESTION, scenario, mode=mode, timeout=150)

    assert_clean(run)
    info = run.describe()
    (delib,) = run.deliberations()
    assert delib["phase"] == "COMPLETE", f"{delib['phase']}: {delib.get('failure_reasons')}\n{info}"

    # the red team's refutation of A blocked with the depth instruction, and the model got it
    blocks = [a["reason"] for a in answers(run, "PostToolUse") if a.get("decision") == "block"]
    depth_blocks = [b for b in blocks if b.startswith(DEPTH_INSTRUCTION)]
    assert len(depth_blocks) == 1, blocks
    instruction = depth_blocks[0]
    saw_instruction = [r for r in run.main_requests if r.saw(instruction)]
    assert saw_instruction, info
    workers = instruction_prompts(instruction)
    # written with the namespace in use, so a copied subagent_type resolves in the plugin form too
    assert [t for t, _p in workers] == [agent_type(lens, mode) for lens in LENSES], workers
    assert all(all(f in p for f in FLOOR) and "H1" in p for _t, p in workers), workers

    # a lens spawn without the anti-anchoring floor was denied, and the denial reached the model
    denials = [e for e in run.events() if e.get("event") == "PreToolUse" and (e.get("answer") or {}).get("decision") == "deny"]
    assert len(denials) == 1, [d["answer"] for d in denials]
    denied = denials[0]
    assert denied["payload"]["tool_input"]["prompt"] == FLOORLESS_PROMPT
    reason = denied["answer"]["reason"]
    assert reason.startswith("Tier-2 spawn denied (depth axis):") and "anti-anchoring floor" in reason, reason
    floorless_id = denied["payload"]["tool_use_id"]
    after = [r for r in run.main_requests if r.tool_result_for(floorless_id)]
    assert after, info
    result = after[0].tool_result_for(floorless_id)
    assert result["is_error"] and result["text"] == f"PreToolUse:Agent hook error: {reason}", result

    # the three lenses ran with the prompts copied verbatim from the instruction
    last = run.main_requests[-1]
    lens_spawns = waves_done(last)["lenses"]
    assert [s["input"]["prompt"] for s in lens_spawns] == [p for _t, p in workers]
    for slug, prompt in workers:
        (first, *_rest) = run.subagent_requests(prompt.split("\n", 1)[0])
        assert first.agent_prompt == prompt.strip(), slug

    # red team 2 was asked for, ran, and the depth-aware synthesis overrode tier 1 on approach A
    assert any(r.saw(RED_TEAM_2_INSTRUCTION) for r in run.main_requests), info
    contexts = [a.get("context", "") for a in answers(run, "PostToolUse")]
    outcome = next(c for c in contexts if c.startswith("Depth-aware synthesis"))
    assert "1 override(s), 1 tier-2 result(s) zeroed, 0 cancelled by red team 2" in outcome, outcome
    assert "Ranking will exclude A from the leading position" in outcome, outcome
    assert any(r.saw(outcome) for r in run.main_requests), info

    depth = delib["depth"]
    assert depth["status"] == "done" and depth["posture"] == "ceiling" and depth["enabled"] is True
    assert [(h["id"], h["kind"]) for h in depth["hot_spots"]] == [("H1", "refuted"), ("H2", "missed_angle")]
    assert depth["tier2_by_lens"] == {lens: 1 for lens in LENSES}, depth
    assert depth["passes"] == 4 and depth["workers_per_wave"] == 3, depth
    (override,) = depth["overrides"]
    assert (override["hot_spot"], override["target"]) == ("H1", "A"), override
    by_key = {a["key"]: a for a in delib["agents"]}
    assert by_key[override["by_agent"]]["persona"] == "evidence-chase"
    assert [by_key[k]["persona"] for k in depth["zeroed"]] == ["edge-case-hunt"]
    tiers = sorted((a["persona"], a["tier"], a.get("red_team_round")) for a in delib["agents"] if a["stage"] == "deliberation")
    assert tiers == [
        ("counter-model", 2, None),
        ("edge-case-hunt", 2, None),
        ("evidence-chase", 2, None),
        ("red-team", 1, 1),
        ("red-team", 2, 2),
        ("synthesis-lead", 1, None),
    ], tiers
    # the struck approach left the lead: the ranking leads with B
    assert delib["ranking"]["leading"] == "B" and delib["decision"] == "B", delib["ranking"]
    assert delib["gate1"]["passed"] and delib["gate2"]["passed"]
    assert delib["route"]["route"] == "auto-execute"

    # lineage: the denied lens is in the denied list; 2 + 1 + 1 + 3 + 1 + 2 spawns ran
    lineage = run.state_json("sessions/{sid}/lineage.json")
    assert [(d["rule"], d["subagent_type"].rsplit(":", 1)[-1]) for d in lineage["denied"]] == [("phase", "evidence-chase")]
    stats = run.subagent_stats
    assert stats["spawned"] == 10 and stats["completed"] == 10, info
    assert run.undelivered_hook_output() == [], info


# --------------------------------------------------------------------------- escalation


def test_unanimous_pass_on_reversal_prone_class_asks_on_edit(run_claude, e2e_project):
    project = e2e_project
    # breadth only (no red-team pass needed before ranking); install.sh keeps an existing config
    write_config(project, {"depth": {"posture": "off"}})

    # 1. a prior decision of the class, completed and auto-executed (no history yet: cold start)
    prior = run_claude(project, QUESTION, BreadthDeliberation(breadth_script()))
    assert_clean(prior)
    delibs = {d["session_id"]: d for d in prior.deliberations()}
    first = delibs[prior.session_id]
    assert first["phase"] == "COMPLETE", prior.describe()
    assert first["route"]["route"] == "auto-execute"
    assert [r["rule"] for r in first["route"]["rules"]] == ["COLD_START"]
    cls = first["route"]["decision_class"]
    assert cls == "security/auth"

    # 2. a person marks it reversed: the class becomes reversal-prone
    rev = cli(project.path, "reverse", first["id"], "--reason", "JWT rollout rolled back: revocation gap", "--json")
    assert rev.returncode == 0, rev.stderr
    assert json.loads(rev.stdout)["class"]["reversals"] == 1
    registry = json.loads((project.state_dir / "reversals.json").read_text())
    assert registry["classes"][cls]["decisions"] == [first["id"]]

    # 3. the same question again passes unanimously, the judges 0.92 confident: under the default
    # policy D+T2+PROBE, T2 → human review (T1 is not run)
    second = run_claude(
        project, QUESTION, BreadthDeliberation(breadth_script()), extra_args=["--output-format", "stream-json", "--verbose"]
    )
    assert_clean(second)
    d2 = {d["session_id"]: d for d in second.deliberations()}[second.session_id]
    assert d2["phase"] == "COMPLETE", second.describe()
    assert d2["ranking"]["consensus"] == pytest.approx(0.9091), d2["ranking"]  # 2 / 2.2: both prefer B clearly
    assert (d2["ranking"]["approvals"], d2["ranking"]["rejections"]) == (2, 0)
    route = d2["route"]
    assert (route["route"], route["review"], route["unanimous"]) == ("human-review", "pending", True), route
    assert [r["rule"] for r in route["rules"]] == ["T2"], route
    assert (route["policy"], route["decided_by"], route["judges_confidence"]) == ("D+T2+PROBE", "T2", 0.92), route
    escalations = json.loads((project.state_dir / "escalations.json").read_text())
    assert [e["deliberation_id"] for e in escalations["open"]] == [d2["id"]]
    # the user sees the escalation: the Stop hook's systemMessage, which the client prints as a
    # notice in its stream, every line prefixed "Stop says: " (it is not part of the final JSON
    # result, nor shown to the model)
    (stop_msg,) = [a["system_message"] for a in answers(second, "Stop") if a.get("system_message")]
    assert stop_msg.startswith(f"⚠ HUMAN REVIEW NEEDED: deliberation {d2['id']} [{cls}] routed to human-review")
    assert f"deliberation approve {d2['id']}" in stop_msg
    notices = [m for m in stream(second) if m.get("type") == "system" and m.get("subtype") == "informational"]
    assert [m["content"] for m in notices if "HUMAN REVIEW NEEDED" in m.get("content", "")] == [
        "\n".join(f"Stop says: {line}" for line in stop_msg.splitlines())
    ], notices
    assert not any(r.saw("HUMAN REVIEW NEEDED") for r in second.requests)

    # 4. the next session's Edit is answered `ask`; headless (-p) there is no one to ask, so the
    # client denies it: permission_denials in the result, the reason as the Edit's error result
    target = project.path / "auth_config.py"
    target.write_text("SESSION_BACKEND = 'server'\n", encoding="utf-8")
    edit = EditFile(str(target), "'server'", "'jwt'")
    asked = run_claude(project, "Apply the decision to auth_config.py", edit, allowed_tools="Agent Read Edit")
    assert_clean(asked)
    (pre,) = [e for e in asked.events() if e.get("event") == "PreToolUse"]
    assert pre["payload"]["tool_name"] == "Edit" and pre["answer"]["decision"] == "ask", pre
    ask_reason = pre["answer"]["reason"]
    assert "human review" in ask_reason and f"deliberation approve {d2['id']}" in ask_reason, ask_reason
    assert "T2: unanimous pass at judges' confidence 0.92" in ask_reason and "decision: B" in ask_reason, ask_reason
    (denial,) = asked.result["permission_denials"]
    assert denial["tool_name"] == "Edit" and denial["tool_input"]["file_path"] == str(target), denial
    edit_id = denial["tool_use_id"]
    result = asked.main_requests[-1].tool_result_for(edit_id)
    assert result["is_error"] is True and result["text"] == ask_reason, result
    assert asked.text == f"Edit result (error=True): {ask_reason[:300]}", asked.text
    assert target.read_text() == "SESSION_BACKEND = 'server'\n"

    # 5. a person approves: the escalation closes, and the following session's Edit goes through
    ok = cli(project.path, "approve", d2["id"], "--reason", "reviewed the revocation plan", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["review"] == "approved"
    assert not (project.state_dir / "escalations.json").exists()
    log = [json.loads(line) for line in (project.state_dir / "adjudications.jsonl").read_text().splitlines()]
    assert [(x["deliberation_id"], x["action"]) for x in log] == [(first["id"], "reverse"), (d2["id"], "approve")]

    after = run_claude(
        project,
        "Apply the decision to auth_config.py",
        EditFile(str(target), "'server'", "'jwt'"),
        allowed_tools="Agent Read Edit",
    )
    assert_clean(after)
    assert after.result["permission_denials"] == [], after.describe()
    assert target.read_text() == "SESSION_BACKEND = 'jwt'\n"
    assert after.text.startswith("Edit result (error=False)"), after.text
    assert [e for e in after.events() if e.get("event") == "PreToolUse"] == []


def stream(run: ClaudeRun) -> "list[dict]":
    """The client's stream-json messages (runs with `--output-format stream-json --verbose`)."""
    out = []
    for line in run.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


# --------------------------------------------------------------------------- the demo recording

DEMO_DIR = REPO / "examples" / "demo"
PLACEHOLDER_PROJECT = "/home/dev/demo-project"
PLACEHOLDER_HOME = "/home/dev"
PLACEHOLDER_TMP = "/tmp/claude-demo"
PRIOR_DECISION = "d-2026-10-jwt-pilot"


def scrub(text: str, project, home, tmp) -> str:
    """Machine-specific paths → the placeholders the demo substitutes back (project first: it
    may sit under the temp dirs)."""
    for real, placeholder in ((project, PLACEHOLDER_PROJECT), (home, PLACEHOLDER_HOME), (tmp, PLACEHOLDER_TMP)):
        text = text.replace(str(Path(real).resolve()), placeholder).replace(str(real), placeholder)
    # the client names a project's transcript folder after its path, every non-alphanumeric a '-'
    return text.replace(munged(project), munged(PLACEHOLDER_PROJECT))


def munged(path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def usage_lines(path: str) -> "list[dict]":
    """What the plugin reads of a transcript: each API response's message id and usage."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip().startswith("{") else {}
        message = entry.get("message") if entry.get("type") == "assistant" else None
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            out.append({"type": "assistant", "message": {"id": message.get("id"), "usage": message["usage"]}})
    return out


def bundle_demo(run: ClaudeRun, project, dest: Path, client_version: str) -> None:
    """Write the recording into `dest`: events.jsonl (scrubbed), reversals.json, recording.json,
    and transcripts.jsonl (the usage lines of every subagent transcript the hooks were given)."""
    dest.mkdir(parents=True, exist_ok=True)
    events = (run.session_dir / "events.jsonl").read_text(encoding="utf-8")
    (dest / "events.jsonl").write_text(scrub(events, project.path, project.home, project.tmp), encoding="utf-8")
    paths = sorted(
        {
            e["payload"]["agent_transcript_path"]
            for e in run.events()
            if e.get("event") == "SubagentStop" and e["payload"].get("agent_transcript_path")
        }
    )
    with open(dest / "transcripts.jsonl", "w", encoding="utf-8") as fh:
        for path in paths:
            fh.write(
                json.dumps({"path": scrub(path, project.path, project.home, project.tmp), "lines": usage_lines(path)}) + "\n"
            )
    registry = (project.state_dir / "reversals.json").read_text(encoding="utf-8")
    (dest / "reversals.json").write_text(registry, encoding="utf-8")
    meta = {
        "scenario": "tests/e2e/test_e2e_depth_escalation.py::test_demo_deliberation (demo_script)",
        "client": f"@anthropic-ai/claude-code {client_version}",
        "session_id": run.session_id,
        "project": PLACEHOLDER_PROJECT,
        "home": PLACEHOLDER_HOME,
        "tmp": PLACEHOLDER_TMP,
        "events": len(run.events()),
    }
    (dest / "recording.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def test_demo_deliberation(run_claude, e2e_project, claude_bin):
    """The demo, recorded from the real client: a contested point deepened, a conformity
    warning, a gate block and its fix, the route. DELIBERATION_RECORD_DEMO=1 writes the recording
    into examples/demo/ (any other value: that directory)."""
    project = e2e_project
    seeded = cli(
        project.path,
        "reverse",
        PRIOR_DECISION,
        "--class",
        "security/auth",
        "--reason",
        "JWT pilot rolled back: revoked tokens stayed valid for 15 minutes",
        "--json",
    )
    assert seeded.returncode == 0, seeded.stderr

    run = run_claude(project, QUESTION, StagedDeliberation(demo_script()), mode="install", timeout=180)

    assert_clean(run)
    info = run.describe()
    (delib,) = run.deliberations()
    assert delib["phase"] == "COMPLETE", f"{delib['phase']}: {delib.get('failure_reasons')}\n{info}"
    post = answers(run, "PostToolUse")
    # foreground: the three ranking reports are captured at SubagentStop, then each of the three
    # PostToolUse evaluates the complete vote; the gate block is answered once per batch
    raw_blocks = [a["reason"] for a in post if a.get("decision") == "block"]
    blocks = list(dict.fromkeys(raw_blocks))
    assert len(raw_blocks) == len(blocks), raw_blocks  # no news repeated within a batch
    assert [b.splitlines()[0] for b in blocks] == [
        blocks[0].splitlines()[0],
        blocks[1].splitlines()[0],
        f"Deliberation {delib['id']} — consensus gate FAILED:",
    ]
    assert blocks[0].startswith(DEPTH_INSTRUCTION) and blocks[1].startswith(RED_TEAM_2_INSTRUCTION), blocks
    assert "- dissent_documented: 0 of 1 dissenters documented (undocumented: cost-analyst)" in blocks[2]
    passed = [a["context"] for a in post if "consensus gate passed" in a.get("context", "")]
    assert len(passed) == 1 and "⚠ Conformity warning" in passed[0] and "- score_clustering:" in passed[0], passed
    assert any(r.saw(passed[0]) for r in run.main_requests), info
    assert delib["depth"]["overrides"][0]["target"] == "A" and delib["ranking"]["leading"] == "B"
    route = delib["route"]
    # the cost analyst still prefers A: the vote is a split, not a unanimous pass — rule D, not T2
    assert (route["route"], [r["rule"] for r in route["rules"]]) == ("human-review", ["D"]), route
    assert (
        route["unanimous"] is False and "but 1 ranker that did not reject prefers another approach" in route["rules"][0]["detail"]
    ), route
    assert run.undelivered_hook_output() == [], info
    # PRD_GENERATION: asked for with the passed vote, written in the concluding answer, accepted
    assert "Next: write the decision document (PRD) and hand it to the plugin" in passed[0]
    assert delib["prd"]["status"] == "accepted" and delib["prd"]["send_backs"] == 0, delib["prd"]
    assert [r["id"] for r in delib["prd"]["document"]["requirements"]] == ["R1", "R2", "R3"]
    assert [c["to_phase"] for c in delib["phase_history"]][-2:] == ["PRD_GENERATION", "COMPLETE"]
    assert all(a["usage"] for a in delib["agents"]), [a["persona"] for a in delib["agents"] if not a["usage"]]

    target = os.environ.get("DELIBERATION_RECORD_DEMO")
    if target:
        version = subprocess.run([str(claude_bin), "--version"], capture_output=True, text=True).stdout.split()[0]
        bundle_demo(run, project, DEMO_DIR if target == "1" else Path(target), version)
