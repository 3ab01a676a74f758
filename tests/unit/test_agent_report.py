"""The agent report: what each kind of agent is told (SHAPES, from the one schema), what a
send-back asks for, and what a model plausibly writes where the meaning is plain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deliberation.state import agent_report as r

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "state_schema" / "agent_report.schema.json").read_text(encoding="utf-8")
)


def block(data: dict, fence: str = "```") -> str:
    return f"My analysis, in prose.\n\n{fence}json\n{json.dumps(data)}\n{fence}"


def research(**fields) -> dict:
    return {**r.EXAMPLES["research"], **fields}


def _part_fields(ref: str) -> "set[str]":
    return set(SCHEMA["$defs"][ref.rsplit("/", 1)[-1]]["properties"])


@pytest.mark.parametrize("shape", sorted(r.SHAPES))
def test_each_shape_is_fields_of_the_schema_and_its_example_shows_every_one(shape):
    props = SCHEMA["properties"]
    assert set(r.SHAPES[shape]) <= set(props), shape
    assert set(SCHEMA.get("required", [])) <= set(r.SHAPES[shape])
    example = r.EXAMPLES[shape]
    assert tuple(example) == r.SHAPES[shape]  # exactly these fields, in this order
    r.AgentReport.model_validate(example)
    for key, value in example.items():  # every entry of a list of parts carries all the part's fields
        ref = (props[key].get("items") or {}).get("$ref")
        if ref and isinstance(value, list):
            assert value and all(set(item) == _part_fields(ref) for item in value), (shape, key)
    assert json.loads(r.example(shape).removeprefix("```json\n").removesuffix("\n```")) == example


STAGE_OF_SHAPE = {
    "research": "research",
    "ranking": "ranking",
    "synthesis": "deliberation",
    "debate": "deliberation",
    "red-team": "deliberation",
    "lens": "deliberation",
}


@pytest.mark.parametrize("shape", sorted(r.SHAPES))
def test_each_shape_is_what_the_workflow_form_offers_its_stage(shape):
    """What an agent is told (its shape) is what each delivery form accepts: the workflow's
    StructuredOutput schema for the stage lists every field of it — a deliberation-phase role
    is never asked for a `verdict` or `scores` that schema does not have."""
    from deliberation.state.report_schema import stage_schema

    stage = STAGE_OF_SHAPE[shape]
    offered = stage_schema(stage, dimensions=["risk"], approaches=["A"], tier2=shape == "lens")["properties"]
    assert set(r.SHAPES[shape]) <= set(offered), (shape, set(r.SHAPES[shape]) - set(offered))
    if stage == "deliberation":
        assert "verdict" not in r.SHAPES[shape] and "scores" not in r.SHAPES[shape]
        assert "verdict" not in r.EXAMPLES[shape]  # a refutation keeps its own `verdict`


def test_the_shape_of_each_kind_of_agent():
    assert [r.shape_of("persona", s) for s in ("research", "ranking")] == ["research", "ranking"]
    assert [r.shape_of(k, "deliberation") for k in ("synthesis", "debate", "red-team", "lens")] == [
        "synthesis",
        "debate",
        "red-team",
        "lens",
    ]
    assert "scores" not in r.SHAPES["research"] and "approaches" in r.SHAPES["research"]
    assert "approaches" not in r.SHAPES["ranking"] and "scores" in r.SHAPES["ranking"]


def test_a_send_back_shows_the_agents_own_shape_and_asks_for_the_whole_message():
    with pytest.raises(r.ReportProblem) as caught:
        r.extract_report(block({"phase": "research", "approaches": [{"id": "A"}]}), 1 << 20, "research")
    text = str(caught.value)
    assert "- approaches.0.title: Field required" in text
    assert r.example("research") in text and '"scores"' not in text  # research leaves scores out
    assert text.endswith(r.AGAIN) and "analysis in prose" in r.AGAIN
    with pytest.raises(r.ReportProblem) as caught:
        r.extract_report("no block", 1 << 20, "ranking")
    assert r.example("ranking") in str(caught.value) and '"approaches"' not in str(caught.value)


def test_a_missing_title_is_taken_from_the_summary():
    rep, _ = r.extract_report(
        block(
            research(
                approaches=[
                    {"id": "A", "summary": "Short-lived access tokens with a Redis deny list. Refresh rotates."},
                    {"id": "B", "title": "", "summary": "Keep server sessions"},
                    {"id": "C", "summary": "x" * 120},
                ]
            )
        ),
        1 << 20,
    )
    assert [a.title for a in rep.approaches] == [
        "Short-lived access tokens with a Redis deny list",
        "Keep server sessions",
        "x" * 79 + "…",
    ]
    with pytest.raises(r.ReportProblem, match="approaches.0.title"):  # nothing to take it from
        r.extract_report(block(research(approaches=[{"id": "A"}])), 1 << 20)


def test_vocabulary_words_are_read_in_any_case():
    rep, _ = r.extract_report(
        block(
            research(
                verdict="Approve", phase="Research", findings=[{"id": "F1", "claim": "c", "evidence": "e", "severity": "HIGH"}]
            )
        ),
        1 << 20,
    )
    assert (rep.verdict, rep.phase, rep.findings[0].severity) == ("approve", "research", "high")
    red, _ = r.extract_report(
        block(
            {**r.EXAMPLES["red-team"], "refutations": [{"target": "H1", "verdict": "Weakened", "claim": "c", "evidence": "e"}]}
        ),
        1 << 20,
        "red-team",
    )
    assert red.refutations[0].verdict == "weakened"


def test_null_for_an_optional_field_is_its_default():
    rep, _ = r.extract_report(
        block(
            research(
                preferred_approach=None,
                dissent=None,
                scores=None,
                summary=None,
                rationale=None,
                findings=[{"id": "F1", "claim": "c", "evidence": None, "severity": None}],
            )
        ),
        1 << 20,
    )
    assert (rep.preferred_approach, rep.dissent, rep.scores, rep.summary) == (None, [], {}, "")
    assert (rep.findings[0].evidence, rep.findings[0].severity) == ("", "medium")
    with pytest.raises(r.ReportProblem, match="phase"):  # a required field stays required
        r.extract_report(block(research(phase=None)), 1 << 20)


def test_a_tilde_fence_is_a_fence():
    rep, _ = r.extract_report(block(research(), fence="~~~"), 1 << 20)
    assert rep.phase == "research"
    with pytest.raises(r.ReportProblem, match="2 fenced JSON blocks"):
        r.extract_report(block(research(), fence="~~~") + "\n" + block(research()), 1 << 20)


@pytest.mark.parametrize("written, read", [(75, 0.75), (100, 1.0), (12.5, 0.125), (0.75, 0.75), (1, 1.0), (0, 0.0)])
def test_a_confidence_in_percent_is_a_fraction(written, read):
    rep, _ = r.extract_report(block(research(confidence=written)), 1 << 20)
    assert rep.confidence == pytest.approx(read)


@pytest.mark.parametrize("written", [750, 3, -5])
def test_a_confidence_whose_scale_is_not_plain_is_still_refused(written):
    with pytest.raises(r.ReportProblem, match="confidence"):  # 3: of 10, or of 100?
        r.extract_report(block(research(confidence=written)), 1 << 20)
