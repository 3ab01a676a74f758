"""The client's other channels to subagents through the real hook scripts: a Workflow
fan-out, a SendMessage resume, the model each agent ran on. Payloads have the shapes 2.1.328
sends (docs/CLIENT_CHANNELS.md)."""

from __future__ import annotations

import json

from deliberation.text import budget
from tests.helpers import payloads as P
from tests.helpers.flows import GATES_QUESTION as QUESTION
from tests.helpers.flows import HIGH, failed_checks
from tests.helpers.flows import gate_rank as rank
from tests.helpers.flows import gate_research as research
from tests.helpers.project import load_delib, write_config
from tests.helpers.project import validate_schemas as validate_state
from tests.helpers.factories import approve_config

META = "export const meta = {name: 'fanout', description: 'fan out research', phases: [{title: 'Research'}]}\n"


def fan_out(n: int, agent_type: str = "") -> str:
    items = ", ".join(f"'item{i}'" for i in range(n))
    opts = f", agentType: '{agent_type}'" if agent_type else ""
    return (
        META
        + f"const ITEMS = [{items}]\nreturn await parallel(ITEMS.map(x => () => agent(`research ${{x}}`, {{label: x{opts}}})))\n"
    )


UNBOUNDED = META + (
    "const bugs = []\nwhile (bugs.length < 10) {\n  const r = await agent('Find bugs')\n  bugs.push(...r.bugs)\n}\nreturn bugs\n"
)


def lineage(project, sid):
    return json.loads((project / ".claude" / "deliberation" / "sessions" / sid / "lineage.json").read_text())


def session(project, sid):
    return json.loads((project / ".claude" / "deliberation" / "sessions" / sid / "session.json").read_text())


ROUTINE = "Add a --verbose flag to the export command and print one line per exported file."


def start(project, hook, cfg=None, question=QUESTION):
    write_config(project, {"depth": {"posture": "off"}, **(cfg or {})})
    approve_config(project)  # this user's own config (models.diverse waits for approval: consent.py)
    s = P.Session(hook)
    s.prompt(question)
    return s


# --------------------------------------------------------------------------- Workflow


def test_inside_a_deliberation_any_other_workflow_is_refused_and_outside_its_bound_is_held(project, hook):
    """Inside an open deliberation only the plugin's own workflow runs (docs/WORKFLOW.md): an
    unbounded script, a fan-out past the budget, one naming the personas, one that would fit —
    each is refused with the plugin's workflow named. Outside one, a fitting workflow runs and
    holds its bound against the budget."""
    s = start(project, hook, {"spawn_budget": {"max_active_children": 4}})
    research(s)
    did = load_delib(project)["id"]
    for n, script in enumerate((UNBOUNDED, fan_out(5), fan_out(2, "cost-analyst"), fan_out(3))):
        refused = hook("PreToolUse", P.pre_workflow(s.sid, f"toolu_wf_{n}", script))
        assert refused.decision == "deny" and refused.reason.startswith(
            f"Workflow refused: deliberation {did} is open (RESEARCH), and inside a deliberation the only workflow "
            "that runs is the deliberation plugin's own"
        ), refused.reason
        assert 'Next: Workflow({name: "deliberate", args: ' in refused.reason
    assert [d["rule"] for d in lineage(project, s.sid)["denied"]] == ["workflow_other"] * 4

    sid = "c0ffee00-1c2d-4e5f-8a9b-000000000030"  # no deliberation asked for in this session
    fits = hook("PreToolUse", P.pre_workflow(sid, "toolu_wf_4", fan_out(3)))
    assert fits.decision is None and fits.json is None
    # the workflow holds its 3 agents: one Agent spawn fits, the next does not
    assert hook("PreToolUse", P.pre_agent(sid, "toolu_gp_1", "general-purpose", "scan", True)).decision is None
    full = hook("PreToolUse", P.pre_agent(sid, "toolu_gp_2", "general-purpose", "scan", True))
    assert full.decision == "deny" and full.reason.startswith(
        "Spawn budget: the main agent already has 4 of 4 active subagents (general-purpose, workflow, 3 of them "
        "held for a running workflow)."
    )
    [run] = lineage(project, sid)["workflows"]
    assert (run["bound"], run["status"], run["deliberation_id"]) == (3, "requested", None)
    assert session(project, sid)["open_workflows"] == ["toolu_wf_4"]


def test_a_workflows_agents_are_recorded_and_its_run_closed_by_its_notification(project, hook):
    # outside a deliberation (a routine prompt): inside one, only the plugin's own workflow runs
    s = start(project, hook, question=ROUTINE)
    script = fan_out(2)
    assert hook("PreToolUse", P.pre_workflow(s.sid, "toolu_wf", script)).decision is None
    hook("PostToolUse", P.post_workflow(s.sid, "toolu_wf", script, "wabc12345", "wf_1234-abc", "fanout"))
    for i, aid in enumerate(("aw00000000000001", "aw00000000000002")):
        assert hook("SubagentStart", P.subagent_start(s.sid, aid, "workflow-subagent")).json is None
        hook("SubagentStop", P.workflow_agent_stop(s.sid, aid, "wf_1234-abc", None if i else "result text"))
    lin = lineage(project, s.sid)
    assert [(x["channel"], x["workflow"], x["status"]) for x in lin["spawns"]] == [("workflow", "toolu_wf", "completed")] * 2
    assert (lin["workflows"][0]["task_id"], lin["workflows"][0]["run_id"], lin["workflows"][0]["agents"]) == (
        "wabc12345",
        "wf_1234-abc",
        2,
    )
    note = hook("UserPromptSubmit", P.workflow_notification(s.sid, "wabc12345", "toolu_wf", "fanout", agents=2))
    assert note.system_message is None  # no overrun: nothing to say
    assert lineage(project, s.sid)["workflows"][0]["status"] == "completed"
    assert session(project, s.sid)["open_workflows"] == []
    assert validate_state(project) > 0


def test_outside_a_deliberation_a_fan_out_past_the_budget_is_counted_and_said_loudly(project, hook):
    write_config(project, {})
    sid = "c0ffee00-1c2d-4e5f-8a9b-000000000020"
    script = fan_out(15)
    pre = hook("PreToolUse", P.pre_workflow(sid, "toolu_wf", script))
    assert pre.decision is None
    assert pre.context.startswith(
        "⚠ Spawn budget: this workflow can start up to 15 agents (at most 15 agent(s): "
        "line 3: × 15 (.map() × 15 (line 3))) and 12 spawn slot(s) are left."
    )
    assert pre.system_message == pre.context
    hook("PostToolUse", P.post_workflow(sid, "toolu_wf", script, "wfan00001", "wf_fan-0001", "fanout"))
    answers = [hook("SubagentStart", P.subagent_start(sid, f"aw{i:014d}", "workflow-subagent")) for i in range(14)]
    assert [a.system_message is not None for a in answers] == [False] * 12 + [True, False]  # said once, loudly
    # the overrun, with its figures (its words: tests/data/answers/budget/workflow_overrun.txt)
    assert answers[12].system_message == budget.workflow_overrun(
        "fanout", "the main agent has 13 subagents running at once (budget 12)"
    )
    # what the hooks can still refuse is refused
    blocked = hook("PreToolUse", P.pre_agent(sid, "toolu_gp", "general-purpose", "scan", True))
    assert blocked.decision == "deny" and blocked.reason.startswith(
        "Spawn budget: the main agent already has 15 of 12 active subagents"
    )
    again = hook("PreToolUse", P.pre_workflow(sid, "toolu_wf2", fan_out(1)))
    assert again.decision == "deny"
    hook("SubagentStart", P.subagent_start(sid, "aw00000000000014", "workflow-subagent"))
    for i in range(15):
        hook("SubagentStop", P.workflow_agent_stop(sid, f"aw{i:014d}", "wf_fan-0001", "done"))
    note = hook("UserPromptSubmit", P.workflow_notification(sid, "wfan00001", "toolu_wf", "fanout", agents=15))
    summary = budget.workflow_finished("fanout", overrun=3, agents=15, max_active=12, max_total=60)
    # the client shows a UserPromptSubmit's systemMessage (not a SubagentStart's): both notices, to the user and the model
    assert note.system_message == f"{answers[12].system_message}\n{summary}"
    assert summary in note.context and answers[12].system_message in note.context
    lin = lineage(project, sid)
    assert sum(x["over_budget"] for x in lin["spawns"]) == 3
    assert (lin["workflows"][0]["overrun"], lin["workflows"][0]["agents"], lin["workflows"][0]["status"]) == (3, 15, "completed")
    assert hook("PreToolUse", P.pre_agent(sid, "toolu_gp3", "general-purpose", "scan", True)).decision is None


def test_a_workflow_the_client_never_launched_frees_its_reservation_at_stop(project, hook):
    write_config(project, {"spawn_budget": {"max_active_children": 3}})
    sid = "c0ffee00-1c2d-4e5f-8a9b-000000000031"
    assert hook("PreToolUse", P.pre_workflow(sid, "toolu_wf", fan_out(3))).decision is None
    # a permission refused it after our hook: no PostToolUse; the turn ends
    hook("Stop", P.stop(sid))
    lin = lineage(project, sid)
    assert lin["workflows"][0]["status"] == "not_launched"
    assert session(project, sid)["open_workflows"] == []
    assert hook("PreToolUse", P.pre_agent(sid, "toolu_gp", "general-purpose", "scan", True)).decision is None


# --------------------------------------------------------------------------- SendMessage


def test_a_resume_carrying_another_research_agents_finding_is_refused(project, hook):
    """The measured case: after two research personas reported, the main agent resumes the
    cost-analyst with the technical-architect's finding pasted in."""
    s = start(project, hook)
    research(s, personas=("technical-architect", "cost-analyst"))
    d = load_delib(project)
    cost = next(a for a in d["agents"] if a["persona"] == "cost-analyst")
    leak = hook(
        "PreToolUse",
        P.pre_send_message(
            s.sid,
            "toolu_sm_1",
            cost["agent_id"],
            "The technical-architect found: technical-architect claim 0: sessions hold PII. Update your estimate.",
        ),
    )
    assert leak.decision == "deny"
    assert leak.reason.startswith(
        f"Context isolation: this message to research agent cost-analyst (agent "
        f"{cost['agent_id']}) carries 1 finding of other agents: technical-architect:F1"
    )
    assert lineage(project, s.sid)["denied"][-1]["rule"] == "isolation"
    # a clean follow-up in the open stage is a revision: the new report replaces the old one
    ok = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm_2", cost["agent_id"], "Add the cost of the migration."))
    assert ok.decision is None
    hook("PostToolUse", P.post_send_message(s.sid, "toolu_sm_2", cost["agent_id"], "Add the cost of the migration."))
    hook("SubagentStart", P.subagent_start(s.sid, cost["agent_id"], "cost-analyst"))
    revised = P.fenced(
        {
            "phase": "research",
            "findings": [{"id": "F1", "claim": "Migration costs two sprints", "evidence": "plan.md:3"}],
            "approaches": [{"id": "A", "title": "Move sessions to Postgres"}],
            "confidence": 0.6,
        }
    )
    stop = hook("SubagentStop", P.subagent_stop(s.sid, cost["agent_id"], "cost-analyst", revised))
    assert stop.decision is None
    rec = next(a for a in load_delib(project)["agents"] if a["persona"] == "cost-analyst")
    assert rec["status"] == "reported" and rec["report"]["findings"][0]["claim"] == "Migration costs two sprints"
    assert rec["resumes"] == 1 and rec["background"] is True and rec["notified"] is False
    assert [v["why"] for v in rec["revisions"]] == ["a revision the plugin did not ask for (SendMessage resume)"]
    lin = lineage(project, s.sid)
    assert [(r["rule"], r["status"]) for r in lin["resumes"]] == [("revision", "started")]
    assert len([x for x in lin["spawns"] if x["agent_id"] == cost["agent_id"]]) == 1  # not a new agent


def test_a_dissent_the_gate_asked_for_replaces_the_old_report_when_the_agent_is_resumed(project, hook):
    """Before #20 the resumed agent's new report was taken for a duplicate and dropped, and the
    deliberation failed although the model did what the gate told it."""
    s = start(project, hook)
    research(s)
    table = dict(HIGH)
    # a light dissent by its scores (B ahead by 0.1, no stated preference): the consensus holds
    # and only the undocumented dissent fails (a stated one weighs 0.5: with two rankers, a split)
    table["performance-engineer"] = ({"A": (8, 8, 8, 8, 8), "B": (8, 8, 8, 8, 9)}, "approve", None, [])
    post = rank(s, table)[-1]["post"]
    assert "consensus gate FAILED" in post.context and set(failed_checks(load_delib(project)["gate1"])) == {"dissent_documented"}
    perf = [a for a in load_delib(project)["agents"] if a["persona"] == "performance-engineer" and a["stage"] == "ranking"][0]
    assert f"have performance-engineer (agent {perf['agent_id']}) document, in `dissent`, a concern" in post.context
    assert "resume each with SendMessage (to = its agent id)" in post.context
    msg = "Document your dissent: concern and reason."
    assert hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm", perf["agent_id"], msg)).decision is None
    hook("PostToolUse", P.post_send_message(s.sid, "toolu_sm", perf["agent_id"], msg))
    hook("SubagentStart", P.subagent_start(s.sid, perf["agent_id"], "performance-engineer"))
    documented = P.ranking_report(
        {"A": (8, 8, 8, 8, 8), "B": (8, 8, 8, 8, 9)},
        "approve",
        None,
        "B scales better",
        [{"concern": "A adds a write per request", "reason": "p99 budget is 20 ms"}],
    )
    hook("SubagentStop", P.subagent_stop(s.sid, perf["agent_id"], "performance-engineer", documented))
    hook("UserPromptSubmit", P.task_notification(s.sid, perf["agent_id"], "toolu_sm", documented))
    res = s.stop(message=P.prd_message(["security-analyst:F1", "performance-engineer:F1"]))
    d = load_delib(project)
    assert d["gate1"]["passed"] is True, (res.reason, d["gate1"])
    rec = next(a for a in d["agents"] if a["agent_id"] == perf["agent_id"])
    assert rec["status"] == "reported" and rec["report"]["dissent"][0]["reason"] == "p99 budget is 20 ms"
    assert [v["why"] for v in rec["revisions"]] == [
        "requested by the plugin: the consensus gate asked it to document its dissent (concern + reason)"
    ]
    assert d["phase"] == "COMPLETE", d["failure_reasons"]


def test_a_rankers_vote_is_not_steered_and_a_finished_stage_is_not_resumed(project, hook):
    s = start(project, hook)
    research(s)
    rank(s, {"security-analyst": HIGH["security-analyst"]})  # one ranker: the vote is not complete
    d = load_delib(project)
    assert d["phase"] == "RANKING"
    sec_rank = next(a for a in d["agents"] if a["persona"] == "security-analyst" and a["stage"] == "ranking")
    sec_research = next(a for a in d["agents"] if a["persona"] == "security-analyst" and a["stage"] == "research")
    steer = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm_1", sec_rank["agent_id"], "Everyone chose A."))
    assert steer.decision == "deny" and "a ranker's vote changes only when the plugin asks for it" in steer.reason
    late = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm_2", sec_research["agent_id"], "One more thing."))
    assert late.decision == "deny" and late.reason.startswith(
        f"security-analyst (agent {sec_research['agent_id']}) worked in the RESEARCH stage, and deliberation "
        f"{d['id']} is now in RANKING"
    )
    assert [x["rule"] for x in lineage(project, s.sid)["denied"]] == ["ranking_independence", "phase"]


def test_once_the_vote_passed_a_ranker_is_not_resumed_the_document_is_the_next_step(project, hook):
    s = start(project, hook)
    research(s)
    rank(s, HIGH)
    d = load_delib(project)
    assert d["phase"] == "PRD_GENERATION"
    sec_rank = next(a for a in d["agents"] if a["persona"] == "security-analyst" and a["stage"] == "ranking")
    late = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm_1", sec_rank["agent_id"], "Reconsider B."))
    assert late.decision == "deny" and late.reason == (
        f"security-analyst (agent {sec_rank['agent_id']}) worked in the RANKING stage, and deliberation {d['id']} is "
        "now in PRD_GENERATION; a resumed agent continues in its own stage, which is over. Next: the vote has "
        "passed: hand the plugin the decision document it asked for (the Write call it named) — or, to change the "
        "vote, spawn the ranking personas again for a fresh, blind re-rank."
    )


def test_a_resume_the_hooks_did_not_see_is_still_recorded_as_a_revision(project, hook):
    s = start(project, hook)
    research(s)
    sec = next(a for a in load_delib(project)["agents"] if a["persona"] == "security-analyst")
    hook("SubagentStart", P.subagent_start(s.sid, sec["agent_id"], "security-analyst"))  # no SendMessage seen
    again = P.fenced(
        {
            "phase": "research",
            "findings": [{"id": "F1", "claim": "Second look: tokens leak in logs", "evidence": "log.py:9"}],
            "confidence": 0.5,
        }
    )
    hook("SubagentStop", P.subagent_stop(s.sid, sec["agent_id"], "security-analyst", again))
    d = load_delib(project)
    rec = next(a for a in d["agents"] if a["agent_id"] == sec["agent_id"])
    assert rec["report"]["findings"][0]["claim"] == "Second look: tokens leak in logs"
    assert rec["revisions"][0]["why"].startswith("resumed without the plugin seeing a SendMessage")
    assert any("resumed without the plugin seeing a SendMessage" in w for w in d["warnings"])


def test_resuming_needs_a_free_slot(project, hook):
    s = start(project, hook, {"spawn_budget": {"max_active_children": 2}})
    research(s)
    sec = next(a for a in load_delib(project)["agents"] if a["persona"] == "security-analyst")
    for i in range(2):
        assert hook("PreToolUse", P.pre_agent(s.sid, f"toolu_gp_{i}", "general-purpose", "scan", True)).decision is None
    full = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm", sec["agent_id"], "Add evidence."))
    assert full.decision == "deny" and full.reason.startswith(
        f"Spawn budget: resuming security-analyst (agent {sec['agent_id']}) would make it active again, but the "
        "main agent already has 2 of 2 active subagents."
    )


def test_messages_to_main_or_unknown_agents_are_not_ours(project, hook):
    s = start(project, hook)
    research(s)
    assert hook("PreToolUse", P.pre_send_message(s.sid, "toolu_a", "main", "done", sender=("a1", "x"))).json is None
    assert hook("PreToolUse", P.pre_send_message(s.sid, "toolu_b", "researcher", "start")).json is None
    assert [r["rule"] for r in lineage(project, s.sid)["resumes"]] == ["unknown_target"]


# --------------------------------------------------------------------------- models


def test_each_agent_records_the_model_it_ran_on(project, hook, tmp_path):
    s = start(project, hook)
    transcript = tmp_path / "agent.jsonl"
    transcript.write_text(json.dumps({"type": "assistant", "message": {"model": "claude-haiku-5-5"}}) + "\n")
    pre = P.pre_agent(s.sid, "toolu_sec", "security-analyst", f"Research: {QUESTION}", background=True)
    pre["tool_input"]["model"] = "sonnet"
    assert hook("PreToolUse", pre).decision is None
    hook("SubagentStart", P.subagent_start(s.sid, "a_sec_000000000001", "security-analyst"))
    launch = P.post_agent_async(s.sid, "toolu_sec", "a_sec_000000000001", "security-analyst", "x")
    launch["tool_response"]["resolvedModel"] = "claude-sonnet-5-5"
    hook("PostToolUse", launch)
    # a second persona with no model: its transcript says which model it ran on
    assert (
        hook(
            "PreToolUse", P.pre_agent(s.sid, "toolu_perf", "performance-engineer", f"Research: {QUESTION}", background=False)
        ).decision
        is None
    )
    hook("SubagentStart", P.subagent_start(s.sid, "a_perf_00000000001", "performance-engineer"))
    stop = P.subagent_stop(
        s.sid, "a_perf_00000000001", "performance-engineer", P.research_report("performance-engineer", ["latency"])
    )
    stop["agent_transcript_path"] = str(transcript)
    hook("SubagentStop", stop)
    d = load_delib(project)
    models = {a["persona"]: (a["model_requested"], a["model"]) for a in d["agents"]}
    assert models == {"security-analyst": ("sonnet", "claude-sonnet-5-5"), "performance-engineer": (None, "claude-haiku-5-5")}
    spawns = {x["subagent_type"]: (x["model_requested"], x["model"]) for x in lineage(project, s.sid)["spawns"]}
    assert spawns == models


def test_model_diversity_denies_conflicting_personas_on_one_model(project, hook):
    s = start(project, hook, {"models": {"diverse": True}})
    first = P.pre_agent(s.sid, "toolu_1", "security-analyst", f"Research: {QUESTION}")
    first["tool_input"]["model"] = "opus"
    assert hook("PreToolUse", first).decision is None
    same = P.pre_agent(s.sid, "toolu_2", "performance-engineer", f"Research: {QUESTION}")
    same["tool_input"]["model"] = "opus"
    refused = hook("PreToolUse", same)
    assert refused.decision == "deny" and refused.reason.endswith(
        'Spawn performance-engineer again with model: "sonnet" in the Agent call.'
    )
    same["tool_input"]["model"] = "sonnet"
    same["tool_use_id"] = "toolu_3"
    assert hook("PreToolUse", same).decision is None
    assert lineage(project, s.sid)["denied"][-1]["rule"] == "model_diversity"


def test_a_deliberations_stop_waits_for_its_running_workflow(project, hook):
    from pathlib import Path

    s = start(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, Path(__file__).resolve().parents[2], task_id="wrun00001")
    _pre, args = wf.launch({"script": wf.script, "args": QUESTION})
    assert args["first"]["wave"]["name"] == "research"
    running = [{"id": "wrun00001", "type": "workflow", "status": "running", "description": "x", "name": "deliberate"}]
    waiting = s.stop(background_tasks=running)
    assert waiting.decision is None and waiting.json is None  # no verdict while it runs
    hook("UserPromptSubmit", P.workflow_done(s.sid, "wrun00001", wf.tool_use_id, "completed", {"status": "ran"}))
    judged = s.stop()
    assert judged.decision == "block" and "is not finished (phase RESEARCH)" in judged.reason  # now it is judged


def test_a_budget_notice_is_shown_at_stop_and_kept_for_the_main_agent(project, hook):
    write_config(project, {"spawn_budget": {"max_session_total": 1}})
    sid = "c0ffee00-1c2d-4e5f-8a9b-000000000021"
    script = fan_out(2)
    hook("PreToolUse", P.pre_workflow(sid, "toolu_wf", script))
    hook("PostToolUse", P.post_workflow(sid, "toolu_wf", script, "wkeep0001", "wf_keep-0001", "fanout"))
    hook("SubagentStart", P.subagent_start(sid, "aw00000000000001", "workflow-subagent"))
    hook("SubagentStart", P.subagent_start(sid, "aw00000000000002", "workflow-subagent"))  # the 2nd of 1
    running = [{"id": "wkeep0001", "type": "workflow", "status": "running", "description": "x", "name": "fanout"}]
    first = hook("Stop", P.stop(sid, background_tasks=running))
    assert first.system_message.startswith(
        "⚠ SPAWN BUDGET PASSED by workflow 'fanout': this session has started 2 subagents (budget 1 in all)."
    )
    assert hook("Stop", P.stop(sid, background_tasks=running)).system_message is None  # shown once
    note = hook("UserPromptSubmit", P.workflow_notification(sid, "wkeep0001", "toolu_wf", "fanout", agents=2))
    assert first.system_message in note.context  # the main agent gets it with the next prompt
    assert note.system_message.startswith("⚠ Spawn budget: workflow 'fanout' finished; 1 of its 2 agents")
