"""Through the real client: a Workflow fan-out and SendMessage resumes, with the
deliberation's agents in the foreground and in the background (the client's default).

What the client does on each channel (which hooks fire, what can be refused) is written down in
docs/CLIENT_CHANNELS.md; these runs check the plugin's answers against it end to end.
"""

from __future__ import annotations

import pytest

from harness import ClaudeRun
from scenarios_channels import (
    COORDINATOR,
    DENIED_WORKFLOW,
    DISSENT_REQUEST,
    LEAK_MARKER,
    FanOutOutside,
    ResumeDeliberation,
    WorkflowInDeliberation,
    calls,
    resume_reports,
)
from scenarios_gates import PROMPT, standard_reports, write_config
from harness import FULL_FLOW, assert_clean, only_deliberation

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TOOLS = "Agent Read Workflow ToolSearch SendMessage"
MODES = [pytest.param(False, id="foreground"), pytest.param(True, id="background")]


def tool_result(run: ClaudeRun, name: str, index: int = 0) -> dict:
    """The result the main agent got for its `index`-th call of tool `name`."""
    last = run.main_requests[-1]
    call = calls(last, name)[index]
    result = last.tool_result_for(call["id"])
    assert result is not None, f"no result for {name} #{index}\n{run.describe()}"
    return result


def lineage(run: ClaudeRun) -> dict:
    return run.state_json("sessions/{sid}/lineage.json")


def answers(run: ClaudeRun, event: str) -> "list[dict]":
    return [e.get("answer") or {} for e in run.events() if e.get("event") == event]


@pytest.mark.parametrize("background", MODES)
def test_inside_a_deliberation_no_other_workflow_runs(background, run_claude, e2e_project):
    """A workflow of 15 research agents against a spawn budget of 12, and a 2-agent helper that
    would fit: inside an open deliberation both are refused before any of their agents ran, with
    the plugin's own workflow named; the deliberation goes on and concludes."""
    write_config(e2e_project.path, {"depth": {"posture": "off"}})
    run = run_claude(e2e_project, PROMPT, WorkflowInDeliberation(standard_reports(), background=background), allowed_tools=TOOLS)
    info = run.describe()
    assert_clean(run)
    delib = only_deliberation(run)
    for n in (0, 1):
        refused = tool_result(run, "Workflow", n)
        assert refused.get("is_error") is True, info
        assert refused["text"].startswith(
            f"{DENIED_WORKFLOW} Workflow refused: deliberation {delib['id']} is open "
            "(RESEARCH), and inside a deliberation the only workflow that runs is the "
            "deliberation plugin's own"
        ), refused["text"]
        assert 'Next: Workflow({name: "deliberate", args: ' in refused["text"]
    assert run.subagent_requests("WF-RESEARCH") == [] and run.subagent_requests("WF-HELPER") == [], info
    lin = lineage(run)
    assert [(d["subagent_type"], d["rule"]) for d in lin["denied"]] == [("Workflow", "workflow_other")] * 2
    assert lin["workflows"] == [] and run.state_json("sessions/{sid}/session.json")["open_workflows"] == []
    # the deliberation went on and concluded; its agents ran on the session's model
    assert delib["phase"] == "COMPLETE", (delib["phase"], delib["failure_reasons"])
    assert [c["to_phase"] for c in delib["phase_history"]] == FULL_FLOW
    assert {a["model"] for a in delib["agents"]} == {"claude-opus-5-5"}
    assert any(w["detector"] == "single_model" for w in delib["conformity"]), delib["conformity"]


def test_a_fan_out_right_after_a_requested_deliberation_is_refused(run_claude, e2e_project):
    """Before any deliberation is open — the prompt asked for one — a fan-out workflow is refused
    too (it once ran 15 of 15 agents against a budget of 12 because nothing was open yet)."""
    write_config(e2e_project.path, {"depth": {"posture": "off"}})
    run = run_claude(e2e_project, PROMPT, WorkflowInDeliberation(standard_reports(), early=True), allowed_tools=TOOLS)
    assert_clean(run)
    refused = tool_result(run, "Workflow", 0)
    assert refused["text"].startswith(f"{DENIED_WORKFLOW} Workflow refused: a deliberation was asked for in this prompt"), (
        refused["text"]
    )
    assert run.subagent_requests("WF-RESEARCH") == []
    assert only_deliberation(run)["phase"] == "COMPLETE"


@pytest.mark.parametrize("background", MODES)
def test_a_fan_out_outside_a_deliberation_is_counted_and_said_loudly(background, run_claude, e2e_project):
    write_config(e2e_project.path, {"spawn_budget": {"max_session_total": 10}})
    run = run_claude(
        e2e_project, "Use a workflow to fan the research out over 15 angles.", FanOutOutside(15, background), allowed_tools=TOOLS
    )
    info = run.describe()
    assert_clean(run)
    assert run.deliberations() == []
    # allowed (the user asked for it), with the warning up front
    pre = answers(run, "PreToolUse")[0]
    assert pre["context"].startswith("⚠ Spawn budget: this workflow can start up to 15 agents"), pre
    assert pre["system_message"] == pre["context"]
    # no hook can stop a workflow's agents: all 15 ran, and were counted
    assert len({r.agent_prompt for r in run.subagent_requests("WF-RESEARCH")}) == 15, info
    lin = lineage(run)
    workers = [s for s in lin["spawns"] if s["channel"] == "workflow"]
    assert len(workers) == 15 and sum(s["over_budget"] for s in workers) == 5
    [flow] = lin["workflows"]
    assert (flow["bound"], flow["agents"], flow["overrun"], flow["status"]) == (15, 15, 5, "completed")
    # the user was told (a UserPromptSubmit or Stop systemMessage: the ones the client shows) …
    passed = "⚠ SPAWN BUDGET PASSED by workflow 'fan-out-research': this session has started 11 subagents (budget 10 in all)."
    shown = [a.get("system_message") or "" for a in answers(run, "UserPromptSubmit") + answers(run, "Stop")]
    assert any(passed in m for m in shown), shown
    summary = "⚠ Spawn budget: workflow 'fan-out-research' finished; 5 of its 15 agents started past the budget"
    assert any(summary in m for m in shown), shown
    # … and so was the main agent, and what the hooks can still refuse was refused
    assert any(r.saw(passed) for r in run.main_requests), info
    helper = tool_result(run, "Agent")
    assert helper.get("is_error") is True
    assert "Spawn budget: this session has started 15 of the 10 subagents it may start in all" in helper["text"]
    assert lin["denied"][-1]["rule"] == "session_total"


@pytest.mark.parametrize("background", MODES)
def test_send_message_resumes_follow_the_stage_rules_and_replace_the_report(background, run_claude, e2e_project):
    write_config(e2e_project.path, {"depth": {"posture": "off"}})
    run = run_claude(e2e_project, PROMPT, ResumeDeliberation(resume_reports(), background=background), allowed_tools=TOOLS)
    info = run.describe()
    assert_clean(run)
    delib = only_deliberation(run)
    agents = {(a["persona"], a["stage"]): a for a in delib["agents"]}
    cost_research, cost_ranking = agents[("cost-analyst", "research")], agents[("cost-analyst", "ranking")]
    # a leak through a resume: refused, and the message never reached the agent
    leak = tool_result(run, "SendMessage", 0)
    assert leak.get("is_error") is True, info
    assert leak["text"].startswith(
        f"Context isolation: this message to research agent cost-analyst "
        f"(agent {cost_research['agent_id']}) carries 1 finding of other agents: "
        "security-analyst:F1"
    ), leak["text"]
    assert not any(LEAK_MARKER in r.all_text for r in run.log.requests if r.is_subagent), info
    # the gate named the dissenter and said how to re-run it; the model resumed it
    assert any(
        r.saw(f"have cost-analyst (agent {cost_ranking['agent_id']}) document, in `dissent`, a concern")
        and r.saw("resume each with SendMessage (to = its agent id)")
        for r in run.main_requests
    ), info
    assert "Resuming agent" in tool_result(run, "SendMessage", 1)["text"]
    resumed = [r for r in run.subagent_requests("Phase: ranking") if COORDINATOR in r.new_text]
    assert resumed and DISSENT_REQUEST in resumed[-1].new_text, info
    # its new report replaced the old one, and the deliberation concluded
    assert cost_ranking["status"] == "reported" and cost_ranking["resumes"] == 1, cost_ranking
    assert cost_ranking["report"]["dissent"][0]["reason"] == "finance/infra-2024.csv:31 quotes it"
    assert [v["why"] for v in cost_ranking["revisions"]] == [
        "requested by the plugin: the consensus gate asked it to document its dissent (concern + reason)"
    ]
    assert cost_ranking["revisions"][0]["status"] == "reported"
    assert delib["gate1"]["passed"] is True and delib["phase"] == "COMPLETE", (delib["gate1"], delib["failure_reasons"])
    lin = lineage(run)
    assert [d["rule"] for d in lin["denied"]] == ["isolation"]
    assert [(r["agent_id"], r["rule"], r["status"]) for r in lin["resumes"]] == [
        (cost_ranking["agent_id"], "requested", "started")
    ]
    spawn = next(s for s in lin["spawns"] if s["agent_id"] == cost_ranking["agent_id"])
    assert (spawn["resumes"], spawn["status"]) == (1, "completed")
