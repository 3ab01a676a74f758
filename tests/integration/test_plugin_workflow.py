"""The plugin's own workflow through the real hook scripts (docs/WORKFLOW.md): the Workflow call's
args filled by the hook, each wave's agents checked at StructuredOutput, the checkpoints answered
with the next wave, the outcome at the task notification, the conclusion at Stop. The client's
side is played by `payloads.PluginWorkflow` with the event order measured on 2.1.328."""

from __future__ import annotations

import json
from pathlib import Path

from deliberation.core import drafting
from tests.helpers import payloads as P
from tests.helpers.project import load_delib, write_config

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Should the checkout service cache product prices in Redis or keep reading the pricing database?"
PANEL = ["security-analyst", "performance-engineer", "cost-analyst"]


def research_report(persona: str) -> dict:
    return {
        "phase": "research",
        "summary": f"{persona} view",
        "findings": [
            {
                "id": "F1",
                "claim": f"{persona} finding about the pricing read path number one",
                "evidence": f"docs/{persona}.md:10",
                "severity": "high",
            }
        ],
        "approaches": [{"id": "A", "title": "Cache prices in Redis"}, {"id": "B", "title": "Keep the database"}],
        "verdict": "approve",
        "preferred_approach": "A",
        "rationale": f"{persona} prefers the cache",
        "confidence": 0.55,
    }


def ranking_report(ids: "list[str]", persona: str) -> dict:
    top = 8.0 if persona != "cost-analyst" else 7.5
    scores = {a: {d: (top if i == 0 else 5.0) for d in P.DIMS} for i, a in enumerate(ids)}
    return {
        "phase": "ranking",
        "scores": scores,
        "verdict": "approve",
        "preferred_approach": ids[0],
        "rationale": f"{persona}: the first one holds up from my side",
        "dissent": [{"target": a, "concern": "weaker", "reason": f"{persona} evidence"} for a in ids[1:]],
        "confidence": 0.8,
    }


def answers(agent: dict):
    wave, persona = agent["label"].split(" · ", 1)
    if wave == "research":
        return research_report(persona)
    if wave == "deliberation" and persona == "synthesis-lead":
        return {
            "phase": "deliberation",
            "summary": "merged",
            "approaches": [
                {"id": "A", "title": "Cache prices in Redis", "summary": "5 min TTL"},
                {"id": "B", "title": "Keep the pricing database", "summary": "status quo"},
            ],
            "preferred_approach": "A",
            "rationale": "the cache removes the hot path",
            "confidence": 0.6,
        }
    if wave == "deliberation":
        return {"phase": "deliberation", "summary": "no conflict between the perspectives", "confidence": 0.6}
    if wave == "red-team":
        return {
            "phase": "deliberation",
            "summary": "nothing broke",
            "refutations": [{"target": "A", "verdict": "upheld", "claim": "the TTL holds", "evidence": "docs/pricing.md:3"}],
            "confidence": 0.6,
        }
    if wave == "ranking":
        return ranking_report(agent["schema"]["properties"]["scores"]["required"], persona)
    if wave == "drafting":
        return P.prd_document(["security-analyst:F1", "performance-engineer:F1"])
    raise AssertionError(agent["label"])


def session(project, hook, prompt=f"/deliberate {QUESTION}"):
    write_config(project, {})
    s = P.Session(hook)
    s.prompt(prompt)
    return s


def install_copy(project) -> None:
    folder = project / ".claude" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "deliberate.js").write_bytes((ROOT / "workflows" / "deliberate.js").read_bytes())


def test_the_workflow_runs_the_whole_deliberation_and_the_stop_concludes_it(project, hook):
    s = session(project, hook)
    install_copy(project)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    pre, args = wf.launch(
        {
            "name": "deliberate",
            "args": {"question": QUESTION, "personas": PANEL, "context": "orders/api.py reads prices per line item"},
        }
    )
    assert pre.decision is None, pre.reason
    assert args["plugin"] == "deliberation" and args["checkpoint"]["agentType"] == "checkpoint"
    first = args["first"]["wave"]
    assert [a["agentType"] for a in first["agents"]] == PANEL and first["name"] == "research"
    # every research agent gets the same prompt (the question and the context) and schema: said once, on the wave
    assert not [a for a in first["agents"] if "prompt" in a or "schema" in a]
    prompt, schema = first["prompt"], first["schema"]
    assert prompt.startswith("Phase: research\nQuestion: " + QUESTION) and "orders/api.py" in prompt
    assert schema["properties"]["phase"]["enum"] == ["research"] and schema["properties"]["findings"]["minItems"] == 1

    out = wf.run(args, answers)
    assert [w["name"] for w in wf.waves] == ["research", "deliberation", "red-team", "ranking", "drafting"]
    assert wf.denials == []
    deliberation = wf.waves[1]["agents"]
    assert [a["agentType"] for a in deliberation] == ["synthesis-lead", "debate-moderator"]
    for a in deliberation:  # every research finding, claim and evidence
        for persona in PANEL:
            assert f"{persona}:F1" in a["prompt"] and f"docs/{persona}.md:10" in a["prompt"]
    ranking = wf.waves[3]
    assert not ranking["last"] and "checkpoint" in ranking  # the drafting wave follows a vote that passes
    assert "Approaches to rank (neutral order; it ranks nothing):" in ranking["agents"][0]["prompt"]
    # the approaches as the red team left them: its upholding of A, with its evidence, under A
    assert "    · upheld (challenge): the TTL holds (evidence: docs/pricing.md:3)" in ranking["agents"][0]["prompt"]
    (drafter,) = wf.waves[4]["agents"]
    assert wf.waves[4]["last"] and drafter["agentType"] == "drafter" and drafter["schema"] == drafting.schema()
    for persona in PANEL:  # every citable item whole, with its evidence
        assert f"- {persona}:F1 (finding, high; {persona} in research): {persona} finding about" in drafter["prompt"]
        assert f"evidence: docs/{persona}.md:10" in drafter["prompt"]

    note = out["notification"].context
    d = load_delib(project)
    lead = d["ranking"]["leading"]  # the first in the neutral order (ranking_report), which hashes the deliberation's id
    title = {"A": "Cache prices in Redis", "B": "Keep the pricing database"}[lead]
    assert f"Decision (the vote's outcome — write it down, do not reopen it): Adopted: {lead} — {title}" in drafter["prompt"]
    assert d["phase"] == "PRD_GENERATION" and d["prd"]["status"] == "accepted" and d["prd"]["via"] == "drafter"
    assert note.startswith(
        f"Deliberation plugin:\nDeliberation {d['id']} — the plugin's workflow has finished "
        "(waves, reports/agents: research 3/3, deliberation 2/2, red-team 1/1, ranking 3/3, drafting 1/1)."
    )
    # the main agent carries the outcome, not the ids: no listing to cite from, no request to write
    assert f"Deliberation {d['id']} decided. Adopted: {lead} — {title}" in note
    assert "Decision document: drafted from every report and recorded (1 requirement" in note
    assert "write the decision document" not in note and "Ids you may cite" not in note
    # the findings it rests on, with their evidence (at most a few), not a listing of every id
    rests = [line for line in note.splitlines() if "security-analyst:F1" in line]
    assert len(rests) == 1 and rests[0].startswith("It rests on (findings with their evidence")
    assert "(docs/security-analyst.md:10)" in rests[0] and rests[0].count(":F") <= 5
    assert len(note.encode()) < 2000, len(note.encode())
    assert d["workflow"]["status"] == "done" and d["workflow"]["checkpoints"] == 4
    assert not [w for w in d["warnings"] if "checkpoint" in w]  # each checkpoint reported its prompt's values
    assert {a["channel"] for a in d["agents"]} == {"workflow"} and len(d["agents"]) == 9
    assert {a["persona"] for a in d["agents"] if a["stage"] == "ranking"} == set(PANEL)
    lin = json.loads((project / ".claude/deliberation/sessions" / s.sid / "lineage.json").read_text())
    (run,) = lin["workflows"]
    assert (run["plugin"], run["script_check"], run["status"], run["agents"]) == (True, "shipped", "completed", 14)
    assert sum(1 for sp in lin["spawns"] if sp["checkpoint"]) == 4

    done = s.stop(message="We adopt the Redis cache of prices; the cost analyst's concern stays open.")
    d = load_delib(project)
    assert d["phase"] == "COMPLETE", (done.reason, d["prd"])
    assert d["prd"]["via"] == "drafter"


def test_a_checkpoint_that_reports_other_values_than_its_prompt_is_a_warning_not_a_decision(project, hook):
    """The checkpoint's prompt names its values (the wave just ended, the launch id); the verdict
    comes from the recorded state whatever it reports, and a wrong value is recorded as a warning."""
    s = session(project, hook)
    install_copy(project)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"name": "deliberate", "args": {"question": QUESTION, "personas": PANEL}})
    assert args["launch"] and args["launch"] in args["first"]["wave"]["checkpoint"]
    wf.checkpoint_values = {"checkpoint": "research", "launch": "toolu_stale", "next": "done"}
    wf.run(args, answers)
    assert [w["name"] for w in wf.waves] == ["research", "deliberation", "red-team", "ranking", "drafting"]
    d = load_delib(project)
    said = [w for w in d["warnings"] if w.startswith("the checkpoint after")]
    assert len(said) == 4, d["warnings"]
    assert "launch: 'toolu_stale', expected 'toolu_wf_plugin'" in said[0] and "next" in said[0]
    assert "checkpoint: 'research', expected 'deliberation'" in said[1]


def _lineage(project, sid):
    return json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())


def conflicted(agent: dict):
    """The debate finds a conflict: a hot spot for the depth step."""
    wave, persona = agent["label"].split(" · ", 1)
    if wave == "deliberation" and persona == "debate-moderator":
        return {
            "phase": "deliberation",
            "summary": "one conflict",
            "conflicts": [
                {
                    "between": ["security-analyst:F1", "performance-engineer:F1"],
                    "about": "whether the read path is the bottleneck",
                }
            ],
            "confidence": 0.6,
        }
    if wave == "tier-2":
        return {
            "phase": "deliberation",
            "summary": "dug",
            "hot_spots": ["H1"],
            "findings": [
                {"id": "F1", "claim": f"{persona}: the replica lag measured at 300 ms under load", "evidence": "bench/lag.txt:4"}
            ],
            "confidence": 0.6,
        }
    if wave == "red-team-2":
        return {"phase": "deliberation", "summary": "held", "confidence": 0.6}
    return answers(agent)


def test_the_depth_step_runs_its_workers_and_red_team_2_when_the_rules_name_hot_spots(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})
    assert pre.decision is None, pre.reason
    wf.run(args, conflicted)
    assert [w["name"] for w in wf.waves] == [
        "research",
        "deliberation",
        "red-team",
        "tier-2",
        "red-team-2",
        "ranking",
        "drafting",
    ]
    lenses = wf.waves[3]["agents"]
    # the one hot spot is a contradiction between two findings: work for the lenses that can
    # weigh findings (hot_spots.LENS_CAN), not for edge-case hunt
    assert [a["agentType"] for a in lenses] == ["evidence-chase", "counter-model"]
    for a in lenses:  # the depth axis' own prompt: the floor verbatim, the hot spot, no synthesis
        assert "Tier 1 is material, not the answer; agreeing again scores 0." in a["prompt"]
        assert "The red team's words are material too: check them." in a["prompt"] and "H1" in a["prompt"]
        assert "the cache removes the hot path" not in a["prompt"]
        assert a["schema"]["properties"]["hot_spots"]["minItems"] == 1
    assert "evidence-chase:F1" in wf.waves[4]["agents"][0]["prompt"]
    d = load_delib(project)
    assert (
        d["depth"]["status"] == "done" and d["depth"]["passes"] == 3 and d["phase"] == "PRD_GENERATION"
    )  # 2 lenses + red team 2


def test_depth_off_and_the_two_agent_form_run_the_same_loop(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(f"/deliberate {QUESTION}")
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})
    wf.run(args, conflicted)
    assert [w["name"] for w in wf.waves] == ["research", "deliberation", "ranking", "drafting"]  # breadth only
    assert load_delib(project)["depth"]["status"] == "off"


def test_a_call_that_names_no_personas_runs_three_of_the_task_types_panel(project, hook):
    """The default panel (core/instructions.default_panel): 3 of the task type's 3-5, a pair whose
    priorities conflict and the devils-advocate among them; a security question, so the security
    panel's first such three."""
    question = "Should we hash the API tokens, or encrypt them at rest?"
    s = session(project, hook, prompt=f"/deliberate {question}")
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": question})
    assert load_delib(project)["task_type"] == "security"
    first = args["first"]["wave"]
    assert [a["agentType"] for a in first["agents"]] == ["security-analyst", "ux-advocate", "devils-advocate"]


def test_the_two_agent_form(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch(
        {"script": wf.script, "args": {"question": QUESTION, "personas": ["product-strategist", "devils-advocate"]}}
    )

    def two(agent):
        wave, persona = agent["label"].split(" · ", 1)
        if wave == "research":
            rep = research_report(persona)
            rep["rationale"] = (
                "the cache pays for itself in a month"
                if persona == "product-strategist"
                else "staleness is bounded by the TTL, so the risk is small"
            )
            return rep
        return answers(agent)

    wf.run(args, two)
    d = load_delib(project)
    assert [w["name"] for w in wf.waves] == ["research", "ranking", "drafting"], d["two_agent"]
    assert d["two_agent"]["verdict"] == "proceed" and d["phase"] == "PRD_GENERATION"


def test_a_report_is_checked_at_structured_output_and_an_agent_that_never_reports_is_recorded(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})

    def flaky(agent):
        wave, persona = agent["label"].split(" · ", 1)
        good = answers(agent)
        if wave == "research" and persona == "security-analyst":
            return [{**good, "findings": []}, good]  # fixed after the denial
        if wave == "research" and persona == "cost-analyst":
            return [{k: v for k, v in good.items() if k != "phase"}] * 5  # the client's cap
        return good

    out = wf.run(args, flaky)
    assert wf.denials[0] == (
        "Deliberation plugin: your report was not accepted. A research report needs at least "
        "one finding (id, claim, evidence, severity)."
    )
    assert len(wf.denials) == 6 and wf.denials[1].startswith(
        "Deliberation plugin: your report was not accepted. Your JSON report is invalid; fix these fields:\n- phase: Field required"
    )
    d = load_delib(project)
    cost = next(a for a in d["agents"] if a["persona"] == "cost-analyst" and a["stage"] == "research")
    assert (cost["status"], cost["send_backs"]) == ("invalid", 5) and "phase: Field required" in cost["problem"]
    assert any(w.startswith("cost-analyst (") and "no accepted report after 5 refused call(s)" in w for w in d["warnings"]), d[
        "warnings"
    ]
    # research goes on with the two valid reports; cost-analyst does not rank
    assert {a["persona"] for a in d["agents"] if a["stage"] == "ranking"} == {"security-analyst", "performance-engineer"}
    assert "research 2/3" in out["notification"].context
    assert (
        "- no report from cost-analyst (research): Your JSON report is invalid; fix these fields:" in out["notification"].context
    )


def test_inside_a_requested_or_open_deliberation_any_other_workflow_is_refused(project, hook):
    s = session(project, hook)
    helper = (
        "export const meta = {name: 'helpers', description: 'x', phases: [{title: 'R'}]}\n"
        "return await parallel(['a', 'b'].map(d => () => agent(`list ${d}`, {label: d})))\n"
    )
    asked = hook("PreToolUse", P.pre_workflow(s.sid, "toolu_wf_h1", helper))
    assert asked.decision == "deny" and asked.reason.startswith(
        "Workflow refused: a deliberation was asked for in this prompt, and inside a deliberation the only workflow "
        "that runs is the deliberation plugin's own"
    )
    assert asked.reason.endswith(
        'Next: Workflow({name: "deliberate", args: "<the question above, in one line>"}) '
        "— or deliberate turn by turn with the Agent tool."
    )
    modified = hook(
        "PreToolUse", P.pre_workflow(s.sid, "toolu_wf_h2", P.PluginWorkflow(hook, s.sid, ROOT).script.replace("i < 8", "i < 80"))
    )
    assert modified.decision == "deny" and "only workflow that runs is the deliberation plugin's own" in modified.reason
    folder = project / ".claude" / "workflows"
    folder.mkdir(parents=True)
    (folder / "deliberate.js").write_text((ROOT / "workflows/deliberate.js").read_text().replace("i < 8", "i < 80"))
    copy = hook("PreToolUse", P.pre_tool(s.sid, "Workflow", {"name": "deliberate", "args": QUESTION}, "toolu_wf_h3"))
    assert copy.decision == "deny" and copy.reason.startswith(
        'Workflow refused before it ran: the client would run ".claude/workflows/deliberate.js" under the name '
        '"deliberate", and that is not the deliberation plugin\'s script'
    )
    # once the deliberation is open, the same
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": QUESTION})
    did = load_delib(project)["id"]
    opened = hook("PreToolUse", P.pre_workflow(s.sid, "toolu_wf_h4", helper))
    assert opened.reason.startswith(f"Workflow refused: deliberation {did} is open (RESEARCH)")
    twice = hook("PreToolUse", P.pre_workflow(s.sid, "toolu_wf_h5", wf.script))
    assert twice.reason == (
        f"Workflow refused: the plugin's workflow already runs deliberation {did}. Next: wait for its task notification."
    )
    rules = [x["rule"] for x in _lineage(project, s.sid)["denied"]]
    assert rules == ["workflow_other", "workflow_other", "workflow_foreign", "workflow_other", "workflow_running"]


def test_a_resolved_script_that_is_not_the_shipped_one_gets_every_report_refused(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    wf.script = wf.script.replace("i < 8", "i < 80")  # what the client resolved differs
    _pre, args = wf.launch({"script": ROOT.joinpath("workflows/deliberate.js").read_text(), "args": QUESTION})
    post = wf.answers[-1]
    assert post.context.startswith("⚠ The workflow that runs is NOT the deliberation plugin's script")
    wf.run(args, answers)
    assert wf.denials and all("this workflow is not the plugin's" in r for r in wf.denials)
    d = load_delib(project)
    assert d["workflow"]["status"] == "foreign" and not any(a["status"] == "reported" for a in d["agents"])


def test_a_failed_script_is_told_and_recorded_and_a_relaunch_continues_from_the_record(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})
    for a in args["first"]["wave"]["agents"]:
        wf.agent(a["agentType"], answers(a))
    failed = hook(
        "UserPromptSubmit",
        P.workflow_done(
            s.sid, wf.task_id, wf.tool_use_id, "failed", None, summary="Dynamic workflow failed: Error: out of memory"
        ),
    )
    d = load_delib(project)
    assert d["workflow"]["status"] == "failed" and "out of memory" in d["workflow"]["outcome"]
    assert failed.context.startswith(
        f"Deliberation plugin:\nDeliberation {d['id']} — ⚠ the plugin's workflow FAILED "
        "(waves, reports/agents: research 3/3).\nWhat happened: Dynamic workflow failed: "
        "Error: out of memory"
    )
    assert 'Next: run the plugin\'s workflow again — Workflow({name: "deliberate"' in failed.context
    again = P.PluginWorkflow(hook, s.sid, ROOT, run_id="wf_test-1", task_id="wtest2")
    pre, args = again.launch(
        {"script": again.script, "args": QUESTION, "resumeFromRunId": "wf_test-1"}, tool_use_id="toolu_wf_plugin_2"
    )
    assert pre.decision is None and args["first"]["wave"]["name"] == "deliberation"  # research is not run again
    again.run(args, answers)
    d = load_delib(project)
    assert d["phase"] == "PRD_GENERATION" and len(d["workflow"]["launches"]) == 2


def test_send_message_to_a_workflow_agent_is_refused(project, hook):
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})
    wf.run(args, answers)
    agent = next(a for a in load_delib(project)["agents"] if a["persona"] == "cost-analyst")
    sent = hook("PreToolUse", P.pre_send_message(s.sid, "toolu_sm_1", agent["agent_id"], "reconsider"))
    assert sent.decision == "deny" and sent.reason.startswith(
        f"SendMessage refused: cost-analyst (agent {agent['agent_id']}) ran inside a workflow."
    )
    assert "Next: for a new report from cost-analyst, spawn it again with the Agent tool" in sent.reason


def test_a_run_whose_checkpoint_went_unanswered_is_recorded_when_the_hooks_answer_again(project, hook):
    """The hooks stopped answering mid-run (a checkpoint's report came back as the agent wrote it):
    the script returns hooks_off; the notification's hook records it and tells the main agent."""
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"script": wf.script, "args": {"question": QUESTION, "personas": PANEL}})
    for a in args["first"]["wave"]["agents"]:
        wf.agent(a["agentType"], answers(a))
    result = {
        "status": "hooks_off",
        "message": "The deliberation plugin did not answer the checkpoint after the "
        "research wave: its hooks stopped answering while the workflow ran.",
    }
    note = hook("UserPromptSubmit", P.workflow_done(s.sid, wf.task_id, wf.tool_use_id, "completed", result))
    d = load_delib(project)
    assert d["workflow"]["status"] == "hooks_off" and "stopped answering" in d["workflow"]["outcome"]
    assert "⚠ the plugin's workflow ran without the plugin's hooks answering" in note.context
    assert any("without the plugin's hooks answering" in w for w in d["warnings"])
    assert "Next: run the plugin's workflow again" in note.context


def test_a_resumed_runs_cached_agents_are_recorded_from_its_journal(project, hook, tmp_path):
    """Agents a resumeFromRunId run served from the client's cache fire no hook: the task
    notification says how many, the run's journal which."""
    write_config(project, {})
    sid = "c0ffee00-1c2d-4e5f-8a9b-000000000040"
    script = (
        "export const meta = {name: 'scan', description: 'x', phases: [{title: 'R'}]}\n"
        "return await parallel(['a', 'b', 'c'].map(d => () => agent(`scan ${d}`, {label: d})))\n"
    )
    run_dir = tmp_path / "wf_scan-1"
    run_dir.mkdir()
    (run_dir / "journal.jsonl").write_text(
        "\n".join(
            json.dumps(e)
            for e in [
                {"type": "launched"},
                {"type": "started", "key": "v2:k1", "agentId": "aold00000000000001", "label": "a", "phase": "R"},
                {"type": "result", "key": "v2:k1", "agentId": "aold00000000000001", "result": "x"},
                {"type": "started", "key": "v2:k2", "agentId": "aold00000000000002", "label": "b", "phase": "R"},
                {"type": "result", "key": "v2:k2", "agentId": "aold00000000000002", "result": "y"},
                {"type": "started", "key": "v2:k3", "agentId": "anew00000000000003", "label": "c", "phase": "R"},
            ]
        )
        + "\n"
    )
    pre = hook("PreToolUse", P.pre_workflow(sid, "toolu_wf_r", script, resumeFromRunId="wf_scan-1"))
    assert pre.decision is None
    post = P.post_workflow(sid, "toolu_wf_r", script, "wscan0001", "wf_scan-1", "scan")
    post["tool_response"]["transcriptDir"] = str(run_dir)
    hook("PostToolUse", post)
    hook(
        "UserPromptSubmit",
        P.workflow_done(
            sid,
            "wscan0001",
            "toolu_wf_r",
            "completed",
            ["x", "y", "z"],
            diagnostics="Resume: 2 of the journal's 3 saved results served from cache.",
        ),
    )
    (run,) = _lineage(project, sid)["workflows"]
    assert (run["resumed_from"], run["cached"], run["cached_agents"]) == (
        "wf_scan-1",
        2,
        ["aold00000000000001", "aold00000000000002"],
    )


def test_a_plugin_workflow_the_client_did_not_launch_leaves_the_protocol_free(project, hook):
    """No Workflow tool allowed (a permission refused it after the hook): no PostToolUse comes,
    and the next Agent spawn finds the wave released — the per-turn protocol goes on."""
    s = session(project, hook)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    pre = hook("PreToolUse", P.pre_tool(s.sid, "Workflow", {"script": wf.script, "args": QUESTION}, "toolu_wf_x"))
    assert pre.decision is None
    spawn = hook("PreToolUse", P.pre_agent(s.sid, "toolu_a1", "security-analyst", f"Phase: research\nQuestion: {QUESTION}"))
    assert spawn.decision is None, spawn.reason
    d = load_delib(project)
    assert d["workflow"]["status"] == "stopped" and {a["status"] for a in d["agents"] if a["channel"] == "workflow"} == {
        "refused"
    }
    assert _lineage(project, s.sid)["workflows"][0]["status"] == "not_launched"


def test_a_ranker_whose_preference_its_own_scores_contradict_is_asked_once(project, hook):
    """A real-model trial's rankers approved A and scored B higher: the consensus reads that as
    support of no weight (a unanimous panel at 0.00). The StructuredOutput call is refused once with
    the ballot's own figures; the same ballot again is recorded as it is."""
    s = session(project, hook)
    install_copy(project)
    wf = P.PluginWorkflow(hook, s.sid, ROOT)
    _pre, args = wf.launch({"name": "deliberate", "args": {"question": QUESTION, "personas": PANEL}})

    def contradicting(agent: dict):
        report = answers(agent)
        if agent["label"] == "ranking · cost-analyst":
            first, second = report["preferred_approach"], [a for a in report["scores"] if a != report["preferred_approach"]][0]
            report["scores"][second] = {d: 9.0 for d in P.DIMS}
            report["dissent"] = [{"target": second, "concern": "weaker", "reason": "cost"}]
            assert report["preferred_approach"] == first
            return [report, report]
        return report

    wf.run(args, contradicting)
    assert len(wf.denials) == 1, wf.denials
    denial = wf.denials[0]
    assert "Your preferred_approach is " in denial and "but your own scores put " in denial
    assert "9.00" in denial and "7.50" in denial and "Call the StructuredOutput tool again" in denial
    d = load_delib(project)
    (cost,) = [a for a in d["agents"] if a["stage"] == "ranking" and a["persona"] == "cost-analyst"]
    assert cost["status"] == "reported" and cost["send_backs"] == 1
    # the ranking prompt said it first
    assert "Your preferred_approach must be the one your scores put first, weighted correctness 0.30" in wf.waves[3]["prompt"]
