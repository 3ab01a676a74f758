"""Reports handed back, and a session as people run it today: the real client in auto mode.

In auto mode (the permission mode interactive sessions start in) the client gives every subagent
`SubagentHandback({message})` and delivers nothing of its final text; the report reaches the main
agent as an `<agent-message from="<agent id>">` turn. The scripted subagents do what the tool's
description asks (scenarios.handed_back), and the scripted main agent reads those turns.

The deliberation: three research personas, the synthesis, a first blind vote that splits (Gate 1
fails: consensus 0.31 < 0.70), the revision round the gate offers — one synthesis-lead, then the
panel again, fresh, to re-rank — and a second vote that passes; the concluding answer with the
decision document, the record. Every agent runs in the background (in an interactive session the
Agent tool has no `run_in_background`: measured) and every report is a hand-back.

- headless (`-p --permission-mode auto`): the same flow, fast, with the allowed tools narrowed to
  Read, so every spawn goes through the plugin's own `allow` of a read-only agent;
- interactive (a pseudo-terminal, no `-p`, the client's default permission mode): the same,
  with no keypress — the stand-in cannot give auto mode's server-side check, so any action that
  needed it would wait for a person and the session would stall (docs/CLIENT_CHANNELS.md).
"""

from __future__ import annotations

import json

import pytest

from harness import assert_clean, install_into_project, only_deliberation, read_jsonl, run_claude_interactive
from scenarios_gates import (
    GATE1_FAILED,
    PANEL,
    PASS_CONSENSUS,
    PROMPT,
    RANKING_SPLIT,
    SPLIT_CONSENSUS,
    ReRankOnGate,
    deliberation_files,
    standard_reports,
    write_config,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BREADTH_ONLY = {"depth": {"posture": "off"}}
HANDBACK = "SubagentHandback"


def split_then_revised() -> ReRankOnGate:
    reports = standard_reports()  # round 2 answers RANKING_PASS
    reports.update({(slug, "ranking", 1): r for slug, r in RANKING_SPLIT.items()})
    scenario = ReRankOnGate(reports, try_first="synthesis-lead")
    scenario.background = True  # the key omitted: an interactive Agent tool has no run_in_background
    return scenario


def events(project) -> "list[dict]":
    rows: "list[dict]" = []
    for path in sorted((project / ".claude" / "deliberation" / "sessions").glob("*/events.jsonl")):
        rows.extend(read_jsonl(path))
    return rows


def assert_revised_and_recorded(project, delib: dict, info: str) -> None:
    """The split vote, the revision round and the re-rank recorded, the outcome recorded, every
    report taken from its hand-back."""
    assert delib["phase"] == "COMPLETE", f"{delib['phase']} {delib['failure_reasons']}\n{info}"
    assert delib["decision"] == "A" and delib["ranking"]["consensus"] == pytest.approx(PASS_CONSENSUS, abs=5e-5)
    agents = delib["agents"]
    assert all(a["handed_back"] and a["status"] == "reported" for a in agents), [
        (a["persona"], a["stage"], a["status"], a["handed_back"], a["problem"]) for a in agents
    ]
    ranking = sorted((a["persona"], a["superseded"]) for a in agents if a["stage"] == "ranking")
    assert ranking == sorted([(s, True) for s in PANEL] + [(s, False) for s in PANEL]), ranking  # the re-rank
    syntheses = [a for a in agents if a["persona"] == "synthesis-lead"]
    assert len(syntheses) == 2, syntheses  # the first synthesis and the revision round's
    ways = delib["ways"]  # the revision round the failed gate offered, taken by the synthesis that revised
    assert ways["revision"] == "used" and ways["reviser"] == syntheses[1]["agent_id"], ways
    assert ways["before"]["consensus"] == pytest.approx(SPLIT_CONSENSUS) and ways["handed_over_at"] is None
    record = project / ".claude" / "deliberation" / "records" / f"{delib['id']}.md"
    assert record.is_file(), info
    assert delib["id"] in record.read_text(encoding="utf-8")
    rows = events(project)
    # no agent message was scored as a prompt, and none opened a deliberation
    handed = [e for e in rows if e["event"] == "UserPromptSubmit" and "<agent-message" in str(e["payload"].get("prompt"))]
    assert len(handed) >= 10 and all("trigger" not in e for e in handed), len(handed)
    # the failed first vote reached the person too, with the hand-back that brought it
    shown = [(e.get("answer") or {}).get("system_message") or "" for e in handed]
    assert any(f"consensus gate FAILED (consensus {SPLIT_CONSENSUS:.2f} < 0.70" in s for s in shown), shown
    assert len(deliberation_files(project)) == 1
    # no report refused at the hand-back, none sent back at SubagentStop
    assert not [e for e in rows if (e.get("answer") or {}).get("decision") == "deny" and HANDBACK in json.dumps(e)]
    assert not [e for e in rows if e["event"] == "SubagentStop" and e.get("answer")]


def test_a_revision_round_by_hand_back_in_auto_mode_headless(run_claude, e2e_project):
    write_config(e2e_project.path, BREADTH_ONLY)
    scenario = split_then_revised()
    run = run_claude(e2e_project, PROMPT, scenario, allowed_tools="Read", extra_args=["--permission-mode", "auto"], timeout=240)
    info = run.describe()
    assert_clean(run)
    assert run.result["permission_denials"] == [], info  # every spawn started: the plugin's allow
    subs = [r for r in run.requests if r.is_subagent]
    assert subs and all(HANDBACK in r.tool_names for r in subs), info
    assert any(r.saw(GATE1_FAILED) for r in run.main_requests), info
    assert_revised_and_recorded(e2e_project.path, only_deliberation(run), info)
    allowed = [e for e in run.events() if e["event"] == "PreToolUse" and (e.get("answer") or {}).get("decision") == "allow"]
    assert len(allowed) == 11, len(allowed)  # 3 research + synthesis + 3 + revision + 3


def test_a_split_vote_revised_by_hand_back_in_an_interactive_session(claude_bin, fake_api, e2e_project, hook_python, tmp_path):
    install_into_project(e2e_project.path, hook_python)
    write_config(e2e_project.path, BREADTH_ONLY)
    scenario = split_then_revised()
    project = e2e_project.path

    def done(log) -> bool:
        delibs = deliberation_files(project)
        rows = events(project) if delibs and delibs[0]["phase"] in ("COMPLETE", "FAILED") else []
        return bool(rows) and rows[-1]["event"] == "Stop"

    run = run_claude_interactive(
        claude_bin,
        fake_api,
        project,
        e2e_project.home,
        e2e_project.tmp,
        PROMPT,
        scenario,
        done=done,
        allowed_tools=None,
        permission_mode=None,  # the client's default: auto mode
        timeout=300,
        log_path=tmp_path / "api-log.jsonl",
    )
    info = run.describe() + "\nscreen tail:\n" + run.stdout[-3000:]
    assert run.notes == [], info  # nothing waited for a keypress
    assert run.plugin_errors() == "", run.plugin_errors()[-3000:]
    rows = events(project)
    modes = {e["payload"].get("permission_mode") for e in rows if e["event"] == "PreToolUse"}
    assert modes == {"auto"}, modes
    assert_revised_and_recorded(project, only_deliberation(run), info)
