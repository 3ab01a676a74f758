"""`python -m deliberation.demo`: the bundled recording replayed through the real hook scripts
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
    return subprocess.run([sys.executable, "-m", "deliberation.demo", *args], capture_output=True, text=True,
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
        'worker 1 of 3: subagent_type "evidence-chase", hot spots H1, H2',
        'worker 2 of 3: subagent_type "counter-model", hot spots H1, H2',
        'worker 3 of 3: subagent_type "edge-case-hunt", hot spots H2, H1']
    assert "deny     DEPTH: Tier-2 spawn denied (depth axis):" in line_with("PreToolUse", "evidence-chase", "deny")
    line_with("context  DEPTH: Depth axis — red team 2:")
    line_with("DEPTH: Depth-aware synthesis", "1 override(s), 1 tier-2 result(s) zeroed, 0 cancelled")
    line_with("- OVERRIDE H1: approach A struck from the leading position")
    # the gate block and its fix
    line_with("context  GATE:", "consensus gate FAILED")
    line_with("- dissent_documented: 0 of 1 dissenters documented (undocumented: cost-analyst)")
    line_with("context  GATE:", "consensus gate passed — leading approach B, consensus 0.94 ≥ 0.85")
    # the conformity warning
    line_with("⚠ Conformity warning")
    line_with("- score_clustering:", "within")
    # the route
    stop = line_with("Stop", "main agent", "block")
    assert "block    ROUTE: Deliberation d-" in stop and "is COMPLETE but its decision (approach B) is NOT final" in stop, stop
    line_with("Next: give your final answer now, and tell the user:")
    user = line_with("user sees: ⚠ HUMAN REVIEW NEEDED")
    assert "routed to human-review by policy D+T2+PROBE" in user, user
    line_with("- T2: unanimous pass at judges' confidence 0.92 >= 0.90 on reversal-prone class security/auth")
    # every decision matched the recording
    decisions = [line for line in lines if re.match(r"^\s*\d+\s", line)]
    assert decisions and all(line.endswith("= recorded") for line in decisions), "\n".join(decisions)
    assert re.search(r"^✓ all \d+ answers match the recording", out, re.M), out
    summary = line_with("Deliberation d-", "COMPLETE, decision")
    assert "decision B, route human-review (T2)" in summary, summary
    md = Path(line_with("Markdown decision record:").split(": ", 1)[1].strip())
    html = Path(line_with("HTML decision record:").split(": ", 1)[1].strip())
    assert md.is_file() and html.is_file() and md.parent == html.parent and md.stem == html.stem
    assert md.is_relative_to(keep) and html.suffix == ".html"
    assert "# Decision record" in md.read_text(encoding="utf-8")
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "human-review" in page and "<svg" in page
