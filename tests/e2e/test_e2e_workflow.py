"""The deliberation as the plugin's own workflow, through the real client (docs/WORKFLOW.md): the
plugin form (`deliberation:deliberate`, --plugin-dir) and the install.sh form (`deliberate`,
found under .claude/workflows/ by its name)."""

from __future__ import annotations

import json

import pytest

from harness import assert_clean
from scenarios_gates import PROMPT, QUESTION, write_config
from scenarios_workflow import PANEL, WorkflowDeliberation

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TOOLS = "Agent Read Workflow"
WAVES = ["research", "deliberation", "red-team", "ranking"]


def only(run):
    (d,) = run.deliberations()
    return d


def lineage(run):
    return run.state_json("sessions/{sid}/lineage.json")


@pytest.mark.parametrize("mode", ["plugin", "install"])
def test_one_workflow_call_runs_the_whole_deliberation(mode, run_claude, e2e_project):
    write_config(e2e_project.path, {})
    run = run_claude(e2e_project, PROMPT, WorkflowDeliberation(QUESTION, mode), mode=mode, allowed_tools=TOOLS,
                     timeout=180)
    info = run.describe()
    assert_clean(run)
    d = only(run)
    assert d["phase"] == "COMPLETE", (d["phase"], d["warnings"], d["failure_reasons"], info)
    assert [c["to_phase"] for c in d["phase_history"]] == ["RESEARCH", "DELIBERATION", "RANKING",
                                                          "PRD_GENERATION", "COMPLETE"]
    assert [w["name"] for w in d["workflow"]["waves"]] == WAVES and d["workflow"]["status"] == "done"
    assert d["prd"]["status"] == "accepted", d["prd"]
    prefix = "deliberation:" if mode == "plugin" else ""
    assert sorted((a["persona"], a["stage"]) for a in d["agents"]) == sorted(
        [(p, "research") for p in PANEL] + [(p, "ranking") for p in PANEL]
        + [("synthesis-lead", "deliberation"), ("debate-moderator", "deliberation"), ("red-team", "deliberation")])
    assert {a["status"] for a in d["agents"]} == {"reported"} and {a["channel"] for a in d["agents"]} == {"workflow"}
    (flow,) = lineage(run)["workflows"]
    assert (flow["plugin"], flow["script_check"], flow["status"], flow["agents"]) == (True, "shipped", "completed", 12)
    checkpoints = [s for s in lineage(run)["spawns"] if s["checkpoint"]]
    assert len(checkpoints) == 3 and {s["subagent_type"] for s in checkpoints} == {f"{prefix}checkpoint"}
    # isolation by construction: the research agents' requests carry no other agent's claim
    claims = [r["findings"][0]["claim"] for r in (json.loads(json.dumps(v)) for v in
                                                    __import__("scenarios_gates").RESEARCH.values())]
    research = [r for r in run.log.requests if r.is_subagent and "Phase: research" in r.agent_prompt]
    assert len(research) == 3, info
    for r in research:
        assert not any(c in json.dumps(r.body) for c in claims), r.agent_prompt[:400]
    # synthesis and debate carried every finding
    for role in ("Synthesis Lead", "Debate Moderator"):
        (req,) = [r for r in run.log.requests if r.is_subagent and f"# {role} — deliberation role" in r.system]
        assert all(c in req.agent_prompt.replace("\n  ", "\n") for c in claims), req.agent_prompt[:600]
    # the main agent: the launch, its result, the notification (with the document request)
    mains = run.main_requests
    assert len(mains) == 3, [m.new_text[:200] for m in mains]
    assert "write the decision document" in mains[-1].new_text


def test_without_the_hooks_the_workflow_starts_nothing_and_says_so(run_claude, e2e_project, claude_bin, fake_api,
                                                                   tmp_path):
    """The plugin's files without its hooks (the workflow and the agents copied, no settings):
    `args` is the bare question, so the script starts no agent and returns why; the main agent
    reads it in the task notification."""
    import shutil

    from harness import REPO, run_claude_once

    claude = e2e_project.path / ".claude"
    (claude / "workflows").mkdir(parents=True)
    shutil.copy(REPO / "workflows" / "deliberate.js", claude / "workflows" / "deliberate.js")
    shutil.copytree(REPO / "agents", claude / "agents")
    scenario = WorkflowDeliberation(QUESTION, "install", args=QUESTION)
    run = run_claude_once(claude_bin, fake_api, e2e_project.path, e2e_project.home, e2e_project.tmp, PROMPT,
                          scenario, allowed_tools=TOOLS, timeout=120)
    info = run.describe()
    assert run.returncode == 0 and run.log.errors == [], info
    assert [r for r in run.log.requests if r.is_subagent] == [], info  # no agent ran
    last = run.main_requests[-1]
    (note,) = last.task_notifications
    assert '"status":"hooks_off"' in note and "its hooks are not running in this session" in note, note
    assert not run.state_dir.exists()  # nothing could record it: the message is the record the user gets
