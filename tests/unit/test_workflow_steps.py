"""The plugin workflow's pure side: the report schema of each stage (generated from the report
model), the waves the rules accept, the prompts they carry, and the budget (docs/WORKFLOW.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from deliberation import catalogue
from deliberation.core import blind_ranking, isolation, workflow_prompts, workflow_steps
from deliberation.state.agent_report import AgentReport, extract_report
from deliberation.state.config import Config
from deliberation.state.report_schema import stage_schema
from tests.helpers import payloads as P

AGENTS = Path(__file__).resolve().parents[2] / "agents"
DIMS = list(d.name for d in catalogue.DIMENSIONS)  # the catalogue's


def example(slug: str, stage: str) -> dict:
    """The agent file's example report of `stage` (a persona's file shows one per stage)."""
    text = (AGENTS / f"{slug}.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    [block] = [b for b in blocks if json.loads(b).get("phase") == stage]
    report, _ = extract_report(f"```json\n{block}```", 1 << 20)
    return report.model_dump(mode="json")


# --------------------------------------------------------------------------- schemas


@pytest.mark.parametrize(
    "slug, stage",
    [
        ("security-analyst", "ranking"),
        ("red-team", "deliberation"),
        ("synthesis-lead", "deliberation"),
        ("debate-moderator", "deliberation"),
        ("evidence-chase", "deliberation"),
    ],
)
def test_the_agent_files_examples_satisfy_their_stage_schema(slug, stage):
    data = example(slug, stage)
    ids = list(data.get("scores") or {}) if stage == "ranking" else []
    schema = stage_schema(stage, dimensions=DIMS, approaches=ids, tier2=slug == "evidence-chase")
    jsonschema.validate(data, schema)
    assert AgentReport.model_validate(data)


def test_each_stage_schema_narrows_the_model():
    research = stage_schema("research")
    assert research["properties"]["phase"]["enum"] == ["research"]
    assert "scores" not in research["properties"] and "findings" in research["required"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"phase": "research", "findings": []}, research)
    ranking = stage_schema("ranking", dimensions=DIMS, approaches=["A", "B"])
    assert ranking["properties"]["scores"]["required"] == ["A", "B"]
    with pytest.raises(jsonschema.ValidationError):  # B is missing a dimension
        jsonschema.validate(
            {"phase": "ranking", "scores": {"A": dict.fromkeys(DIMS, 5), "B": dict.fromkeys(DIMS[:4], 5)}}, ranking
        )
    with pytest.raises(jsonschema.ValidationError):  # out of 0-10
        jsonschema.validate({"phase": "ranking", "scores": {"A": dict.fromkeys(DIMS, 11), "B": dict.fromkeys(DIMS, 5)}}, ranking)
    tier2 = stage_schema("deliberation", tier2=True)
    assert tier2["properties"]["hot_spots"]["minItems"] == 1 and "hot_spots" in tier2["required"]
    for schema in (research, ranking, tier2):  # self-contained, no pydantic titles (bytes in every request)
        text = json.dumps(schema)
        refs = {r.rsplit("/", 1)[-1] for r in __import__("re").findall(r'"\$ref": "([^"]+)"', text)}
        assert refs == set(schema.get("$defs", {})) and '"title": "Id"' not in text


# the bytes each schema costs in every request of its agent (json.dumps), about 30 % under the
# 2234 / 2861 / 3003 / 4695 they were before `wire` (research / tier 2 / ranking / drafting)
SCHEMA_BYTES = {"research": 1750, "tier2": 2300, "ranking": 1150, "drafting": 3200}


def test_the_schemas_sent_are_small():
    from deliberation.core import drafting

    sizes = {
        "research": stage_schema("research"),
        "tier2": stage_schema("deliberation", tier2=True),
        "ranking": stage_schema("ranking", dimensions=DIMS, approaches=["A", "B", "C"]),
        "drafting": drafting.schema(),
    }
    for name, schema in sizes.items():
        assert len(json.dumps(schema)) <= SCHEMA_BYTES[name], (name, len(json.dumps(schema)))
        assert not _keywords(schema) & {"title", "default", "$ref"}, name  # nothing that constrains nothing


def _keywords(node, names=False) -> "set[str]":
    """The schema keywords used anywhere in `node` (`names`: node maps property names)."""
    if isinstance(node, list):
        return set().union(*(_keywords(v) for v in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    own = set() if names else set(node)
    return own.union(*(_keywords(v, names=not names and k in ("properties", "$defs")) for k, v in node.items()))


BAD_REPORTS = {
    "research": [
        {"phase": "research", "findings": [{"id": "F 1", "claim": "c"}]},  # id pattern
        {"phase": "research", "findings": [{"id": "F1", "claim": ""}]},  # minLength
        {"phase": "research", "findings": [{"id": "F1", "claim": "c", "severity": "grave"}]},  # enum
        {"phase": "research", "findings": [{"id": "F1", "claim": "c" * 2001}]},  # maxLength
        {"phase": "research", "findings": [{"claim": "c"}]},  # required
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "preferred_approach": "A" * 65},
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "preferred_approach": 3},
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "confidence": 1.5},
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "verdict": "maybe"},
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "dissent": [{"concern": "c", "reason": ""}]},
        {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "approaches": [{"id": "A"}]},
        {"phase": "ranking", "findings": [{"id": "F1", "claim": "c"}]},
    ],
    "tier2": [
        {"phase": "deliberation", "hot_spots": ["H1"], "refutations": [{"target": "H1", "verdict": "wrong"}]},
        {"phase": "deliberation", "hot_spots": ["H1"], "refutations": [{"target": ""}]},
        {"phase": "deliberation", "hot_spots": ["H1"], "conflicts": [{"between": ["A"], "about": "x"}]},
        {"phase": "deliberation", "hot_spots": ["H1"], "refutations": [{"verdict": "upheld"}]},
    ],
}


@pytest.mark.parametrize("stage", sorted(BAD_REPORTS))
def test_the_sent_schemas_keep_every_constraint_of_the_model(stage):
    """What the model refuses, the schema the agent is given refuses too (and what it accepts, the
    schema accepts): `wire` dropped only what constrains nothing."""
    schema = stage_schema("deliberation", tier2=True) if stage == "tier2" else stage_schema(stage)
    for bad in BAD_REPORTS[stage]:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    good = {"phase": "research", "findings": [{"id": "F1", "claim": "c"}], "preferred_approach": None}
    if stage == "research":
        jsonschema.validate(good, schema)
        assert AgentReport.model_validate(good)


def test_the_drafters_schema_keeps_every_constraint_of_the_document():
    from deliberation.core import drafting
    from deliberation.state.decision_document import DecisionDocument

    schema = drafting.schema()
    req = {"id": "R1", "text": "t", "sources": ["a:F1"]}
    good = {"document": "prd", "decision": "d", "requirements": [req]}
    jsonschema.validate(good, schema)
    assert DecisionDocument.model_validate(good)
    for bad in (
        {"decision": ""},
        {"document": "doc", "decision": "d"},
        {"problem": "p"},
        {"decision": "d", "requirements": [{**req, "sources": []}]},
        {"decision": "d", "requirements": [{**req, "id": "R 1"}]},
        {"decision": "d", "requirements": [{**req, "priority": "nice"}]},
        {"decision": "d", "risks": [{"id": "RISK1", "risk": "r", "sources": ["a:F1"]}]},
        {"decision": "d", "acceptance_criteria": [{"id": "AC1", "text": "t", "sources": ["a:F1"], "verifies": [1]}]},
        {"decision": "d", "non_goals": [{"text": "t", "sources": ["x"] * 21}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


# --------------------------------------------------------------------------- waves


def research_done(panel=("security-analyst", "performance-engineer", "cost-analyst")):
    agents = [
        P.agent_record(
            p,
            "research",
            {
                "findings": [{"id": "F1", "claim": f"{p} claim about the store and its read path", "evidence": f"docs/{p}.md"}],
                "approaches": [{"id": "A", "title": "Cache"}, {"id": "B", "title": "Db"}],
            },
            key=f"k-{p}",
        )
        for p in panel
    ]
    d = P.make_deliberation(agents, phase="RESEARCH")
    d.question = "Should we cache prices?"
    return d


def test_the_research_wave_gives_every_persona_the_same_prompt_and_nothing_found():
    d = P.make_deliberation([], phase="RESEARCH")
    d.question = "Should we cache prices?"
    v = workflow_steps.first_verdict(d, Config(), ["security-analyst", "cost-analyst"], "orders/ reads prices", 12)
    assert v.wave is not None and v.wave.name == "research" and len({a.prompt for a in v.wave.agents}) == 1
    assert v.wave.agents[0].prompt.startswith("Phase: research\nQuestion: Should we cache prices?")
    assert v.wave.size == 3  # two personas and the checkpoint


def test_after_research_the_next_wave_is_synthesis_and_debate_with_every_finding():
    d = research_done()
    v = workflow_steps.next_verdict(d, Config(), 12)
    assert v.wave is not None and [a.agent_type for a in v.wave.agents] == ["synthesis-lead", "debate-moderator"]
    found = isolation.recorded_findings(d.agents)
    for a in v.wave.agents:
        assert isolation.check_prompt(a.prompt, found) == [r for r, _c, _e in found]


def test_a_wave_that_does_not_fit_the_budget_ends_the_run_and_says_why():
    v = workflow_steps.next_verdict(research_done(), Config(), 2)
    assert v.wave is None and v.status == "budget"
    assert v.why == ("spawn budget: the deliberation wave needs 3 agent(s) (2 and its checkpoint) and 2 spawn slot(s) are left")


def test_the_ranking_prompt_is_blind_and_the_ranking_wave_is_the_last():
    d = research_done()
    d.phase = "RANKING"
    prompt = workflow_prompts.ranking(d, DIMS)
    assert blind_ranking.check_prompt(prompt, d, "security-analyst", DIMS) == []
    assert blind_ranking.approach_list(d) in prompt


def test_a_panel_is_two_to_five_known_personas():
    assert workflow_steps.panel_problem(["security-analyst", "cost-analyst"]) is None
    assert workflow_steps.panel_problem(["security-analyst"]) == "1 personas: a workflow panel has 2-5"
    assert workflow_steps.panel_problem(["red-team", "cost-analyst"]).startswith("red-team is no research persona")
    assert workflow_steps.panel_problem(["cost-analyst", "cost-analyst"]) == "a persona is named twice"


def test_the_verdict_payload_is_what_the_script_reads():
    d = research_done()
    v = workflow_steps.next_verdict(d, Config(), 12)
    payload = v.payload(d)
    assert payload["plugin"] == "deliberation" and payload["next"] == "run"
    wave = payload["wave"]
    assert (wave["name"], wave["phase"], wave["last"]) == ("deliberation", "Deliberation", False)
    assert wave["checkpoint"] == workflow_prompts.checkpoint("deliberation")
    assert [a["label"] for a in wave["agents"]] == ["deliberation · synthesis-lead", "deliberation · debate-moderator"]
    done = workflow_steps.done("ranked", "Next: write the decision document").payload(d)
    assert done == {
        "plugin": "deliberation",
        "deliberation": d.id,
        "next": "done",
        "status": "ranked",
        "why": "Next: write the decision document",
    }
