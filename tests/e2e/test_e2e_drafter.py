"""The drafter on the turn-by-turn path, through the real client (core/drafter_call.py): after the
vote the main agent spawns the drafter with a one-word prompt; the plugin's PreToolUse replaces it
with every report whole, the drafter's fenced document is recorded at its SubagentStop, and the
main agent reads the short outcome as the Agent call's result — never the list of ids."""

from __future__ import annotations

import pytest

from harness import assert_clean
from scenarios_gates import DRAFTING, PROMPT, QUESTION, DrafterDeliberation, standard_reports, write_config

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_the_main_agent_spawns_the_drafter_and_carries_only_the_outcome(run_claude, e2e_project):
    write_config(e2e_project.path, {"depth": {"posture": "off"}})
    run = run_claude(e2e_project, PROMPT, DrafterDeliberation(standard_reports()), allowed_tools="Agent Read", timeout=180)
    info = run.describe()
    assert_clean(run)
    (d,) = run.deliberations()
    assert d["phase"] == "COMPLETE", (d["phase"], d["prd"], info)
    assert d["prd"]["status"] == "accepted" and d["prd"]["via"] == "drafter", d["prd"]
    (drafter,) = [r for r in run.log.requests if r.is_subagent and DRAFTING in r.agent_prompt]
    assert QUESTION[:40] in drafter.agent_prompt and "evidence: " in drafter.agent_prompt
    told = [m for m in run.main_requests if "drafted from every report and recorded" in m.new_text]
    assert told, [m.new_text[-300:] for m in run.main_requests]
    outcome = told[0].new_text
    assert "Ids you may cite" not in outcome
    print(
        f"turn-by-turn drafter material: {len(drafter.agent_prompt.encode())} bytes; "
        f"the main agent's new text with the outcome: {len(outcome.encode())} bytes"
    )
