"""`python -m deliberation.cli.demo`: the bundled recording replayed through the real hook scripts
tells its story in 100 columns — the question, what the panel found, each gate's decision and
why, what happens next, the terms it used — every answer matches the recording, and both
decision records are written; `--verbose` keeps the full log of the hooks' answers."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / "examples" / "demo"


def run_demo(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "deliberation.cli.demo", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=str(REPO),
    )


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


def test_demo_tells_the_story_in_100_columns(tmp_path):
    keep = tmp_path / "demo run"  # a space in the path, like a user's folder
    proc = run_demo("--keep", str(keep))
    out = proc.stdout
    print(out)
    assert proc.returncode == 0, f"{out}\n{proc.stderr}"
    assert proc.stderr == ""
    lines = out.splitlines()
    assert lines[0].startswith("Replaying a deliberation recorded from @anthropic-ai/claude-code 2.1.3")
    # every line fits 100 columns, save a path on its own line
    project = str(keep / "project")
    wide = [
        line for line in lines if len(line) > 100 and not re.fullmatch(r"(.{0,40}?)('[^']*'|/\S+)( \\)?", line)
    ]  # one word: a path
    assert wide == [], "\n".join(wide)
    print(f"widest line: {max(len(line) for line in lines)} columns")
    # the story's parts, in order; no log columns, no event numbers
    headings = [line for line in lines if line and line == line.upper() and line[0].isalpha()]
    assert headings == [
        "THE QUESTION",
        "WHAT THE PANEL FOUND",
        "WHAT EACH GATE DECIDED, AND WHY",
        "WHAT HAPPENS NEXT",
        "TERMS USED ABOVE",
        "YOUR TURN",
    ], headings
    assert "= recorded" not in out and not [line for line in lines if re.match(r"^\s*\d+\s+[A-Z][a-z]+[A-Z]", line)]
    assert "…" not in out.split("TERMS USED ABOVE")[0].replace("H1, H2…", ""), "a sentence is cut"
    text = re.sub(r"\s+", " ", out)  # the story with its wrapping (and its columns) undone

    def told(*needles: str) -> None:
        missing = [n for n in needles if n not in text]
        assert not missing, f"not told: {missing}\n{out}"

    told("Deliberate before deciding: should our public API move from server-side sessions to short-lived JWT access tokens?")
    # what the panel found, stage by stage
    told(
        "Research: 3 personas worked alone, all preferred A (Short-lived JWT plus deny list).",
        "Red Team refuted A: Approach A still consults the deny list",
        "Tier 2: 3 lenses worked on the hot spots H1 and H2:",
        "Edge-Case Hunt (tier 2): only restated tier 1 (zero signal: not counted).",
        "So approach A is struck from the lead (override of hot spot H1).",
    )
    # the ranking: different scores per dimension, and each stated preference matches the scores
    rows = {
        m.group(1): (float(m.group(2)), float(m.group(3)), m.group(4))
        for m in re.finditer(r"^    (\w[\w ]+?)\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+([AB])$", out, re.M)
    }
    assert set(rows) == {"Security Analyst", "Performance Engineer", "Cost Analyst"}, rows
    for who, (a, b, prefers) in rows.items():
        assert prefers == ("A" if a > b else "B"), (who, a, b, prefers)
    assert rows["Cost Analyst"][2] == "A"
    told(
        "its dissent on B: B keeps paying for the session store cluster.",
        "Approach B leads; its mean score per dimension: correctness 9.17, risk 8.83, maintainability 8.33, "
        "performance 8.67, cost 6.83.",
    )
    # each gate's decision and why, with its figures
    told(
        "Depth step, after the red team (told the model): 2 hot spots to dig into before ranking",
        "spawn 3 fresh tier-2 workers, one per lens: evidence-chase (H1, H2), counter-model (H1) and edge-case-hunt (H1, H2).",
        "Spawn check, evidence-chase (refused the spawn): its prompt was the model's own. Rule "
        '"anti-anchoring floor": the prompt must carry, verbatim,',
        "spawn one red team 2 to check their 4 items.",
        "Depth synthesis, after red team 2 (told the model): 1 override(s), 1 tier-2 result(s) zeroed",
        "Consensus gate, after the vote (told the model): FAILED on dissent documented: 0 of 1 dissenters "
        "documented (undocumented: cost-analyst).",
        "Consensus gate, after the vote again (told the model): passed, leading approach B, consensus 0.88 ≥ 0.85, strong;",
        "With a conformity warning (3):",
        "score clustering: 3 agents scored leading approach B within",
        "Quality gate, at the stop: passed its 7 checks",
        "Route, at the stop (held the main agent's stop once): human-review by policy D+T2+PROBE — rule D: "
        "split vote: 3 approve / 0 reject / 0 abstain, but 1 ranker that did not reject prefers another approach",
    )
    # what happens next: the review, its commands, the document, the cost, the records
    did = re.search(r"deliberation approve (d-[0-9a-f]+-\d+)", out).group(1)
    told(
        "Decision document (PRD), accepted: Keep server sessions and enlarge the session store client's "
        "connection pool from 8 to 64 (B).",
        "R1 (must): Raise the session store client's pool from 8 to 64 connections. [counter-model:F1, performance-engineer:F1]",
        "RISK2 (low):",
        "[cost-analyst:D1]",
        "open question:",
        "[H2]",
        "13 citations resolve to 5 findings, 1 dissent, 1 refutation and 2 hot spots.",
        "Cost: 13 subagents,",
        "× one research agent's",
        "no prices configured",
    )
    # the README's cost figure is the demo's own, rounded
    times = float(re.search(r"(\d+\.\d+)× one research agent's", text).group(1))
    readme = re.sub(r"\s+", " ", (REPO / "README.md").read_text(encoding="utf-8"))
    assert f"{round(times, 1)}× one research agent's tokens" in readme, times
    # the last screen: the records by their absolute paths, the commands that settle the
    # decision as they run from here, the demo's folder, and how to use the plugin for real
    last = out.split("\nYOUR TURN\n", 1)[1]
    records = [line.strip().strip("'") for line in last.splitlines() if "/.claude/deliberation/records/" in line]
    md, html = (Path(r) for r in records)
    assert md.is_absolute() and md.parent == Path(project) / ".claude" / "deliberation" / "records"
    settle = re.sub(r" \\\n\s+", " ", last)  # the commands with their continuation lines joined
    for action in ("approve", "reject"):
        command = re.search(rf"^\s+(.*bin/deliberation'? {action} {did} --project .+?)(?:  # .*)?$", settle, re.M).group(1)
        argv = shlex.split(command)
        assert Path(argv[0]).is_file() and argv[-1] == project, argv
    assert 'either takes --reason "…" (optional)' in last
    assert f"rm -rf '{keep}'" not in last and "(--keep)" in last
    assert "/plugin marketplace add " in last and "/plugin install deliberation@deliberation-gates" in last
    assert "/deliberation:deliberate " in last
    assert md.is_file() and html.is_file() and md.stem == html.stem and html.suffix == ".html"
    body = md.read_text(encoding="utf-8")
    assert "# Decision record" in body and "## Decision document (PRD)" in body and "## Cost and usage" in body
    # every current ranker's preference in the record agrees with its scores: the dissenter
    # that named none prefers A, as its scores do (never "—")
    prefers = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| ([^|]+?) \| persona \| ranking \| 1 \| reported \| approve \| (\S+) \|", body, re.M)
    }
    scores = {
        m.group(1): (float(m.group(2)), float(m.group(3)))
        for m in re.finditer(r"^\| ([^|]+?) \| (\d+\.\d\d) \| \*\*(\d+\.\d\d)\*\* \|$", body, re.M)
    }
    assert set(scores) <= set(prefers) and len(scores) == 3, (prefers, scores)
    for who, (a, b) in scores.items():
        assert prefers[who] == ("A" if a > b else "B"), (who, a, b, prefers[who])
    assert "red-team:C1" in body and "red-team:R1" not in body  # R means a requirement only
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "human-review" in page and "<svg" in page
    # every term explained once, the route codes among them
    glossary = out.split("TERMS USED ABOVE\n", 1)[1].split("\n\n", 1)[0].splitlines()
    terms = [line[2:].split("  ", 1)[0] for line in glossary if not line.startswith("   ")]
    assert len(terms) == len(set(terms))
    for term in (
        "persona",
        "red team",
        "hot spot",
        "tier 1 / tier 2",
        "lens",
        "zero signal",
        "override",
        "consensus",
        "dissent",
        "conformity warning",
        "consensus gate",
        "quality gate",
        "route",
        "D+T2+PROBE",
        "D",
        "T2",
        "PROBE",
        "decision document (PRD)",
    ):
        assert term in terms, (term, terms)
    # the replay's proof: every answer matched the recording
    assert re.search(r"^✓ all 55 answers match the recording", out, re.M), out


def test_demo_verbose_keeps_the_full_log(tmp_path):
    proc = run_demo("--verbose", "--keep", str(tmp_path / "run"))
    out = proc.stdout
    assert proc.returncode == 0, f"{out}\n{proc.stderr}"
    lines = out.splitlines()

    def line_with(*needles: str) -> str:
        found = [line for line in lines if all(n in line for n in needles)]
        assert found, f"no line with {needles}:\n{out}"
        return found[0]

    # the contested point deepened: instruction → floorless lens denied → red team 2 → override
    assert "context  DEPTH: Depth axis: the red-team pass left 2 contested point(s)" in line_with("red-team", "DEPTH")
    assert [line.strip() for line in lines if line.strip().startswith("worker ")] == [
        # each lens gets the hot spots it can work on: the refuted approach (H1) is work for all
        # three, the missed angle (H2) for edge-case hunt and evidence-chase, not counter-model
        'worker 1 of 3: subagent_type "evidence-chase", hot spots H1, H2',
        'worker 2 of 3: subagent_type "counter-model", hot spots H1',
        'worker 3 of 3: subagent_type "edge-case-hunt", hot spots H1, H2',
    ]
    assert "deny     DEPTH: Tier-2 spawn denied (depth axis):" in line_with("PreToolUse", "evidence-chase", "deny")
    line_with("DEPTH: Depth-aware synthesis", "1 override(s), 1 tier-2 result(s) zeroed, 0 cancelled")
    line_with("- OVERRIDE H1: approach A struck from the leading position")
    line_with("- dissent_documented: 0 of 1 dissenters documented (undocumented: cost-analyst)")
    line_with("context  GATE:", "consensus gate passed — leading approach B, consensus 0.88 ≥ 0.85")
    line_with("- score_clustering:", "within")
    stop = line_with("Stop", "main agent", "block")
    assert "block    ROUTE: Deliberation d-" in stop and "is COMPLETE but its decision (approach B) is NOT final" in stop
    assert "routed to human-review by policy D+T2+PROBE" in line_with("user sees: ⚠ HUMAN REVIEW NEEDED")
    decisions = [line for line in lines if re.match(r"^\s*\d+\s", line)]
    assert decisions and all(line.endswith("= recorded") for line in decisions), "\n".join(decisions)
    assert "decision B, route human-review (D)" in line_with("Deliberation d-", "COMPLETE, decision")
    # and the story after it
    assert "WHAT HAPPENS NEXT" in lines and re.search(r"^✓ all \d+ answers match the recording", out, re.M)


def test_a_bundled_transcript_is_written_only_under_the_demo_s_home(tmp_path):
    import pytest

    from deliberation.cli import demo

    dirs = {"home": str(tmp_path / "home"), "project": str(tmp_path / "home" / "p"), "tmp": str(tmp_path / "t")}
    bundle = demo.Bundle(
        [],
        {"home": "/home/dev", "project": "/home/dev/demo-project"},
        folder=str(tmp_path),
        transcripts=[
            {
                "path": "/home/dev/.claude/projects/x/agent-a1.jsonl",
                "lines": [{"type": "assistant", "message": {"id": "m", "usage": {}}}],
            }
        ],
    )
    assert demo.prepare_transcripts(bundle, dirs) == 1
    assert (tmp_path / "home" / ".claude" / "projects" / "x" / "agent-a1.jsonl").read_text().startswith('{"type"')
    for bad in ("/etc/cron.d/agent.jsonl", "/home/dev/../../etc/agent.jsonl", "/home/dev/.bashrc"):
        bundle.transcripts = [{"path": bad, "lines": []}]
        with pytest.raises(demo.DemoError, match="outside the demo's HOME"):
            demo.prepare_transcripts(bundle, dirs)
