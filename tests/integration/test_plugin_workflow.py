"""The plugin's own workflow through the real hook scripts (docs/WORKFLOW.md): the Workflow call's
args filled by the hook, each wave's agents checked at StructuredOutput, the checkpoints answered
with the next wave, the outcome at the task notification, the conclusion at Stop. The client's
side is played by `payloads.PluginWorkflow` with the event order measured on 2.1.328."""

from __future__ import annotations

import json
from pathlib import Path

from tests import payloads as P
from tests.integration.test_deliberation_flow import load_delib, write_config

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Should the checkout service cache product prices in Redis or keep reading the pricing database?"
PANEL = ["security-analyst", "performance-engineer", "cost-analyst"]


def research_report(persona: str) -> dict:
    return {"phase": "research", "summary": f"{persona} view",
            "findings": [{"id": "F1", "claim": f"{persona} finding about the pricing read path number one",
                          "evidence": f"docs/{persona}.md:10", "severity": "high"}],
            "approaches": [{"id": "A", "title": "Cache prices in Redis"}, {"id": "B", "title": "Keep the database"}],
            "verdict": "approve", "preferred_approach": "A", "rationale": f"{persona} prefers the cache",
            "confidence": 0.55}


def ranking_report(ids: "list[str]", persona: str) -> dict:
    top = 8.0 if persona != "cost-analyst" else 7.5
    scores = {a: {d: (top if i == 0 else 5.0) for d in P.DIMS} for i, a in enumerate(ids)}
    return {"phase": "ranking", "scores": scores, "verdict": "approve", "preferred_approach": ids[0],
            "rationale": f"{persona}: the first one holds up from my side",
            "dissent": [{"target": a, "concern": "weaker", "reason": f"{persona} evidence"} for a in ids[1:]],
            "confidence": 0.8}


def answers(agent: dict):
    wave, persona = agent["label"].split(":", 1)
    if wave == "research":
        return research_report(persona)
    if wave == "deliberation" and persona == "synthesis-lead":
        return {"phase": "deliberation", "summary": "merged",
                "approaches": [{"id": "A", "title": "Cache prices in Redis", "summary": "5 min TTL"},
                               {"id": "B", "title": "Keep the pricing database", "summary": "status quo"}],
                "preferred_approach": "A", "rationale": "the cache removes the hot path", "confidence": 0.6}
    if wave == "deliberation":
        return {"phase": "deliberation", "summary": "no conflict between the perspectives", "confidence": 0.6}
    if wave == "red-team":
        return {"phase": "deliberation", "summary": "nothing broke",
                "refutations": [{"target": "A", "verdict": "upheld", "claim": "the TTL holds",
                                 "evidence": "docs/pricing.md:3"}], "confidence": 0.6}
    if wave == "ranking":
        return ranking_report(agent["schema"]["properties"]["scores"]["required"], persona)
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
    pre, args = wf.launch({"name": "deliberate", "args": {"question": QUESTION, "personas": PANEL,
                                                           "context": "orders/api.py reads prices per line item"}})
    assert pre.decision is None, pre.reason
    assert args["plugin"] == "deliberation" and args["checkpoint"]["agentType"] == "checkpoint"
    first = args["first"]["wave"]
    assert [a["agentType"] for a in first["agents"]] == PANEL and first["name"] == "research"
    prompts = {a["prompt"] for a in first["agents"]}
    assert len(prompts) == 1  # every research agent gets the same prompt: the question and the context
    (prompt,) = prompts
    assert prompt.startswith("Phase: research\nQuestion: " + QUESTION) and "orders/api.py" in prompt
    schema = first["agents"][0]["schema"]
    assert schema["properties"]["phase"]["enum"] == ["research"] and schema["properties"]["findings"]["minItems"] == 1

    out = wf.run(args, answers)
    assert [w["name"] for w in wf.waves] == ["research", "deliberation", "red-team", "ranking"]
    assert wf.denials == []
    deliberation = wf.waves[1]["agents"]
    assert [a["agentType"] for a in deliberation] == ["synthesis-lead", "debate-moderator"]
    for a in deliberation:  # every research finding, claim and evidence
        for persona in PANEL:
            assert f"{persona}:F1" in a["prompt"] and f"docs/{persona}.md:10" in a["prompt"]
    ranking = wf.waves[3]
    assert ranking["last"] and "checkpoint" not in ranking
    assert "Approaches to rank (neutral order; it ranks nothing):" in ranking["agents"][0]["prompt"]

    note = out["notification"].context
    d = load_delib(project)
    assert d["phase"] == "PRD_GENERATION", (d["phase"], d["warnings"])
    assert note.startswith(f"Deliberation plugin:\nDeliberation {d['id']} — the plugin's workflow has finished "
                           "(waves, reports/agents: research 3/3, deliberation 2/2, red-team 1/1, ranking 3/3).")
    assert "consensus gate passed" in note and "write the decision document" in note
    assert d["workflow"]["status"] == "done" and d["workflow"]["checkpoints"] == 3
    assert {a["channel"] for a in d["agents"]} == {"workflow"} and len(d["agents"]) == 9
    assert {a["persona"] for a in d["agents"] if a["stage"] == "ranking"} == set(PANEL)
    lin = json.loads((project / ".claude/deliberation/sessions" / s.sid / "lineage.json").read_text())
    (run,) = lin["workflows"]
    assert (run["plugin"], run["script_check"], run["status"], run["agents"]) == (True, "shipped", "completed", 12)
    assert sum(1 for sp in lin["spawns"] if sp["checkpoint"]) == 3

    done = s.stop(message=P.prd_message(["security-analyst:F1", "performance-engineer:F1"]))
    d = load_delib(project)
    assert d["phase"] == "COMPLETE", (done.reason, d["prd"])
