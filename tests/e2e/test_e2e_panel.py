"""Smoke scenarios: a two-persona research panel, foreground and background, in both install
modes. They prove the harness drives the real client with the plugin installed and that the
plugin's hooks see every lifecycle event of the panel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import ClaudeRun, agent_type
from scenarios import BACKGROUND_LAUNCH, PersonaPanel, agent_outcomes, agent_spawns, report

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PERSONAS = ("security-analyst", "performance-engineer")
PROMPT = (
    "Deliberate before deciding: should we replace server-side sessions with JWT access "
    "tokens across all production services? The security and latency trade-offs are "
    "unclear, the migration is hard to reverse and it depends on infrastructure we have "
    "not measured."
)

SECURITY = report(summary="Revocation is the weak point of stateless tokens.", verdict="approve", confidence=0.72)
PERFORMANCE = report(
    summary="Session lookups cost 4 ms at p99; JWT removes them.",
    findings=[{"id": "F1", "claim": "Session store adds 4 ms p99.", "evidence": "bench/session_p99.txt", "severity": "medium"}],
    verdict="approve",
    confidence=0.8,
)


def panel(mode: str, background: bool) -> PersonaPanel:
    return PersonaPanel(
        {"security-analyst": SECURITY, "performance-engineer": PERFORMANCE},
        agent_types={slug: agent_type(slug, mode) for slug in PERSONAS},
        background=background,
    )


def agent_definition_line(run: ClaudeRun, mode: str, slug: str, plugin_root: "Path | None") -> str:
    """The first line of the persona's system prompt, from the definition the client loaded."""
    folder = (plugin_root / "agents") if mode == "plugin" else (run.project / ".claude" / "agents")
    body = (folder / f"{slug}.md").read_text(encoding="utf-8").split("---", 2)[2]
    return next(line.strip() for line in body.splitlines() if line.strip())


def assert_panel_ran(run: ClaudeRun, mode: str, plugin_root: "Path | None") -> None:
    """What both smoke scenarios share: the CLI's verdict, the subagents' requests, the state."""
    info = run.describe()
    assert run.returncode == 0, info
    assert run.result.get("is_error") is False, info
    assert run.log.errors == [], info
    assert run.plugin_errors() == "", f"the plugin logged internal errors:\n{run.plugin_errors()[-3000:]}"
    stats = run.subagent_stats
    assert stats["spawned"] == 2 and stats["completed"] == 2, info
    assert stats["spawned_by_subagents"] == 0, info
    assert stats["by_type"] == {agent_type(slug, mode): 1 for slug in PERSONAS}, info
    # each persona ran as its own subagent, with its own definition as system prompt
    for slug in PERSONAS:
        requests = run.subagent_requests(f"PERSONA: {slug}")
        assert requests, f"no subagent request for {slug}\n{info}"
        expected = agent_definition_line(run, mode, slug, plugin_root)
        assert expected in requests[0].system, f"{slug}'s definition not in its system prompt\n{info}"
        assert all(f"PERSONA: {other}" not in requests[0].all_text for other in PERSONAS if other != slug)
    # the plugin's state: one session directory with the events of this session
    assert run.state_dir.is_dir(), f"no state dir {run.state_dir}\n{info}"
    events = run.events()
    assert events, f"no events in {run.session_dir / 'events.jsonl'}\n{info}"
    names = [e.get("event") for e in events]
    # the deliberation may open at the first spawn (the trigger need not fire on the prompt), so
    # the prompt's own UserPromptSubmit is not required; every event from the spawns on is
    assert "Stop" in names, f"Stop not logged: {names}\n{info}"
    for name in ("PreToolUse", "SubagentStart", "SubagentStop"):
        assert names.count(name) == 2, f"{name} logged {names.count(name)} times, expected 2: {names}\n{info}"
    spawned = sorted(
        e["payload"].get("tool_input", {}).get("subagent_type", "") for e in events if e.get("event") == "PreToolUse"
    )
    assert spawned == sorted(agent_type(slug, mode) for slug in PERSONAS), spawned
    stopped = sorted(e["payload"].get("agent_type") for e in events if e.get("event") == "SubagentStop")
    assert stopped == sorted(agent_type(slug, mode) for slug in PERSONAS), stopped
    assert {e["payload"].get("session_id") for e in events} == {run.session_id}
    # both reports were captured, attributed by agent type, in the mode they ran in
    (delib,) = run.deliberations()
    agents = {a["persona"]: (a["status"], a["stage"], a["background"]) for a in delib["agents"]}
    background = run.subagent_stats["started_in_background"] == 2
    assert agents == {slug: ("reported", "research", background) for slug in PERSONAS}, agents
    # every reason and context the plugin answered reached the model it was meant for
    assert run.undelivered_hook_output() == [], info


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_foreground_panel(mode, run_claude, e2e_project, request):
    plugin_root = request.getfixturevalue("plugin_copy") if mode == "plugin" else None
    scenario = panel(mode, background=False)

    run = run_claude(e2e_project, PROMPT, scenario, mode=mode)

    assert_panel_ran(run, mode, plugin_root)
    info = run.describe()
    assert run.subagent_stats["requested"]["foreground"] == 2, info
    assert run.text == scenario.final_text, info
    # the main agent's last request carried both reports as Agent tool results
    last = run.main_requests[-1]
    assert set(agent_outcomes(last).values()) == {"done"}, info
    results = " ".join(r["text"] for r in last.tool_results)
    assert SECURITY["summary"] in results and PERFORMANCE["summary"] in results, info
    names = run.event_names()
    assert names.count("PostToolUse") == 2, names
    statuses = [e["payload"]["tool_response"].get("status") for e in run.events() if e.get("event") == "PostToolUse"]
    assert statuses == ["completed", "completed"], statuses


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_background_panel(mode, run_claude, e2e_project, request):
    plugin_root = request.getfixturevalue("plugin_copy") if mode == "plugin" else None
    scenario = panel(mode, background=True)

    run = run_claude(e2e_project, PROMPT, scenario, mode=mode)

    assert_panel_ran(run, mode, plugin_root)
    info = run.describe()
    stats = run.subagent_stats
    assert stats["requested"]["unset"] == 2 and stats["started_in_background"] == 2, info
    # the main agent was first told the agents launched, then notified of each report
    mains = run.main_requests
    launched = mains[1]
    assert [BACKGROUND_LAUNCH in launched.tool_result_for(s["id"])["text"] for s in agent_spawns(launched)] == [True, True], info
    last = mains[-1]
    assert set(agent_outcomes(last).values()) == {"done"}, info
    notes = "\n".join(last.task_notifications)
    assert SECURITY["summary"] in notes and PERFORMANCE["summary"] in notes, info
    # the completions reached the hooks as UserPromptSubmit task notifications
    prompts = [e["payload"].get("prompt", "") for e in run.events() if e.get("event") == "UserPromptSubmit"]
    notified = [p for p in prompts if "<task-notification>" in p]
    assert len({re.search(r"<task-id>([^<]+)</task-id>", p).group(1) for p in notified}) == 2, prompts
    statuses = [e["payload"]["tool_response"].get("status") for e in run.events() if e.get("event") == "PostToolUse"]
    assert statuses == ["async_launched", "async_launched"], statuses
