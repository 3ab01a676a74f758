"""`python -m deliberation.cli.demo`: the bundled recording replayed through the real hook scripts
prints the depth step, the conformity warning, the gate block and its fix and the route, every
answer matches the recording, and both decision records are written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / "examples" / "demo"


def run_demo(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run([sys.executable, "-m", "deliberation.cli.demo", *args], capture_output=True, text=True,
                          timeout=600, env=env, cwd=str(REPO))


def test_bundle_is_scrubbed_and_complete():
    meta = json.loads((BUNDLE / "recording.json").read_text(encoding="utf-8"))
    events = [json.loads(line) for line in (BUNDLE / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(events) == meta["events"] and meta["client"].startswith("@anthropic-ai/claude-code ")
    assert {e["payload"]["session_id"] for e in events} == {meta["session_id"]}
    text = (BUNDLE / "events.jsonl").read_text(encoding="utf-8")
    assert "pytest" not in text and "/work/" not in text and str(REPO) not in text
    assert meta["project"] in text
    assert (BUNDLE / "reversals.json").is_file() and (BUNDLE / "README.md").is_file()
    # the transcripts' usage lines only: a message id and its usage, nothing of the conversation
    for line in (BUNDLE / "transcripts.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        assert item["path"].startswith(meta["home"] + "/.claude/projects/") and item["lines"], item["path"]
        assert all(set(x) == {"type", "message"} and set(x["message"]) == {"id", "usage"} for x in item["lines"])


def test_demo_replays_the_bundled_deliberation(tmp_path):
    keep = tmp_path / "demo run"  # a space in the path, like a user's folder
    proc = run_demo("--keep", str(keep))
    out = proc.stdout
    print(out)
    assert proc.returncode == 0, f"{out}\n{proc.stderr}"
    assert proc.stderr == ""
    lines = out.splitlines()
    assert lines[0].startswith("Replaying a deliberation recorded from @anthropic-ai/claude-code 2.1.328")

    def line_with(*needles: str) -> str:
        found = [line for line in lines if all(n in line for n in needles)]
        assert found, f"no line with {needles}:\n{out}"
        return found[0]

    # the contested point deepened: instruction → floorless lens denied → red team 2 → override
    # as the model reads them: the instructions are context, the failures a deny or a Stop hold
    assert "context  DEPTH: Depth axis: the red-team pass left 2 contested point(s)" in line_with("red-team", "DEPTH")
    assert [line.strip() for line in lines if line.strip().startswith("worker ")] == [
        # each lens gets the hot spots it can work on: the refuted approach (H1) is work for all
        # three, the missed angle (H2) for edge-case hunt and evidence-chase, not counter-model
        'worker 1 of 3: subagent_type "evidence-chase", hot spots H1, H2',
        'worker 2 of 3: subagent_type "counter-model", hot spots H1',
        'worker 3 of 3: subagent_type "edge-case-hunt", hot spots H1, H2']
    assert "deny     DEPTH: Tier-2 spawn denied (depth axis):" in line_with("PreToolUse", "evidence-chase", "deny")
    line_with("context  DEPTH: Depth axis — red team 2:")
    line_with("DEPTH: Depth-aware synthesis", "1 override(s), 1 tier-2 result(s) zeroed, 0 cancelled")
    line_with("- OVERRIDE H1: approach A struck from the leading position")
    # the gate block and its fix
    line_with("context  GATE:", "consensus gate FAILED")
    line_with("- dissent_documented: 0 of 1 dissenters documented (undocumented: cost-analyst)")
    line_with("context  GATE:", "consensus gate passed — leading approach B, consensus 0.88 ≥ 0.85")
    # the conformity warning
    line_with("⚠ Conformity warning")
    line_with("- score_clustering:", "within")
    # the route
    stop = line_with("Stop", "main agent", "block")
    assert "block    ROUTE: Deliberation d-" in stop and "is COMPLETE but its decision (approach B) is NOT final" in stop, stop
    line_with("Next: give your final answer now, and tell the user:")
    user = line_with("user sees: ⚠ HUMAN REVIEW NEEDED")
    assert "routed to human-review by policy D+T2+PROBE" in user, user
    # the cost analyst still prefers A: a split vote, so rule D (not T2) sends it to a person
    line_with("- D: split vote (3 approve / 0 reject / 0 abstain, 1 not preferring the leader")
    # every decision matched the recording
    decisions = [line for line in lines if re.match(r"^\s*\d+\s", line)]
    assert decisions and all(line.endswith("= recorded") for line in decisions), "\n".join(decisions)
    assert re.search(r"^✓ all \d+ answers match the recording", out, re.M), out
    summary = line_with("Deliberation d-", "COMPLETE, decision")
    assert "decision B, route human-review (D)" in summary, summary
    # PRD_GENERATION: asked for with the passed vote, then the document the main agent wrote
    line_with("Next: write the decision document (PRD) in your concluding answer")
    line_with("Decision document: 3 requirement(s), 2 acceptance criteria, 2 risk(s)")
    assert line_with("Decision document (PRD), accepted:").endswith("so it removes no latency while making "
                                                                    "revocation harder.")
    line_with("requirement R1 (must): Raise the session store client's pool from 8 to 64 connections.",
              "← counter-model:F1, performance-engineer:F1")
    line_with("risk RISK2 (low):", "← cost-analyst:D1")
    line_with("open question:", "← H2")
    line_with("traced: 13 citation(s) resolve to 5 finding(s), 1 dissent(s), 1 refutation(s), 2 hot spot(s)")
    # the cost, read from the bundled transcripts' usage lines: every subagent counted
    cost = line_with("Cost: 13 subagent(s),")
    assert "× one research agent's" in cost and "no amount: no prices configured" in cost, cost
    assert "not counted (no readable transcript)" not in cost and "last response only" not in cost, cost
    md = Path(line_with("Markdown decision record:").split(": ", 1)[1].strip())
    html = Path(line_with("HTML decision record:").split(": ", 1)[1].strip())
    assert md.is_file() and html.is_file() and md.parent == html.parent and md.stem == html.stem
    assert md.is_relative_to(keep) and html.suffix == ".html"
    body = md.read_text(encoding="utf-8")
    assert "# Decision record" in body and "## Decision document (PRD)" in body and "## Cost and usage" in body
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "human-review" in page and "<svg" in page


def test_a_bundled_transcript_is_written_only_under_the_demo_s_home(tmp_path):
    import pytest

    from deliberation.cli import demo

    dirs = {"home": str(tmp_path / "home"), "project": str(tmp_path / "home" / "p"), "tmp": str(tmp_path / "t")}
    bundle = demo.Bundle([], {"home": "/home/dev", "project": "/home/dev/demo-project"}, folder=str(tmp_path),
                         transcripts=[{"path": "/home/dev/.claude/projects/x/agent-a1.jsonl",
                                       "lines": [{"type": "assistant", "message": {"id": "m", "usage": {}}}]}])
    assert demo.prepare_transcripts(bundle, dirs) == 1
    assert (tmp_path / "home" / ".claude" / "projects" / "x" / "agent-a1.jsonl").read_text().startswith('{"type"')
    for bad in ("/etc/cron.d/agent.jsonl", "/home/dev/../../etc/agent.jsonl", "/home/dev/.bashrc"):
        bundle.transcripts = [{"path": bad, "lines": []}]
        with pytest.raises(demo.DemoError, match="outside the demo's HOME"):
            demo.prepare_transcripts(bundle, dirs)
