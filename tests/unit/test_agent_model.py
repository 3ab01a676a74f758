"""agent_model: which model an agent ran on, and the rule for conflicting personas."""

from __future__ import annotations

import json

import pytest

from deliberation.core import agent_model as am
from deliberation.core.conformity import detect_all, single_model
from deliberation.state.config import Config
from tests.helpers import payloads as P
from tests.helpers.gates import gate2

PAIRS = Config().conformity.conflicting_pairs
POOL = ["opus", "sonnet"]


@pytest.mark.parametrize(
    "model,expected",
    [
        ("claude-sonnet-5-5", "sonnet"),
        ("claude-opus-5-5", "opus"),
        ("claude-haiku-5-5", "haiku"),
        ("sonnet", "sonnet"),
        ("inherit", None),
        (None, None),
        ("", None),
        ("claude-3-5-sonnet-20241022", "sonnet"),
    ],
)
def test_family(model, expected):
    assert am.family(model) == expected


def test_front_matter_model():
    assert am.frontmatter_model("---\nname: x\nmodel: haiku\n---\nbody") == "haiku"
    assert am.frontmatter_model("---\nname: x\nmodel: inherit\n---\n") is None
    assert am.frontmatter_model("---\nname: x\n---\nmodel: opus") is None  # only the front matter counts
    assert am.frontmatter_model("no front matter") is None


def test_the_transcripts_last_assistant_entry_gives_the_model():
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "x"}}),
        json.dumps({"type": "assistant", "message": {"model": "claude-haiku-5-5", "content": []}}),
        json.dumps({"type": "assistant", "message": {"model": "<synthetic>", "content": []}}),
        'not json {"assistant" "model"',
    ]
    newest_first = [l.encode() for l in reversed(lines)]
    assert am.transcript_model(newest_first) == "claude-haiku-5-5"
    assert am.transcript_model([]) is None


def rec(persona, stage="research", model=None, requested=None):
    r = P.agent_record(persona, stage, None, key=f"ag-{persona}", status="running")
    r.model, r.model_requested = model, requested
    return r


def test_conflicting_personas_may_not_share_a_model_when_diversity_is_on():
    agents = [rec("security-analyst", requested="opus")]
    refusal = am.diversity_refusal("performance-engineer", "research", "opus", agents, PAIRS, POOL)
    assert refusal == (
        "Model diversity (models.diverse is on): performance-engineer and security-analyst have "
        "conflicting priorities, and security-analyst already runs this research stage on opus; a "
        "panel on one model shares its priors. Spawn performance-engineer again with model: "
        '"sonnet" in the Agent call.'
    )
    assert am.diversity_refusal("performance-engineer", "research", "sonnet", agents, PAIRS, POOL) is None
    assert am.diversity_refusal("performance-engineer", "ranking", "opus", agents, PAIRS, POOL) is None  # other stage
    assert am.diversity_refusal("test-engineer", "research", "opus", agents, PAIRS, POOL) is None  # no conflict pair


def test_no_model_means_the_sessions_model():
    agents = [rec("security-analyst", model="claude-opus-5-5")]  # inherited: the client resolved opus
    assert (
        am.diversity_refusal("performance-engineer", "research", None, agents, PAIRS, POOL, session_model="claude-opus-5-5")
        is not None
    )
    assert (
        am.diversity_refusal("performance-engineer", "research", "sonnet", agents, PAIRS, POOL, session_model="claude-opus-5-5")
        is None
    )


def test_assignment_puts_conflicting_personas_on_different_models():
    panel = ("security-analyst", "ux-advocate", "performance-engineer", "devils-advocate")
    got = am.assignment(panel, PAIRS, POOL)
    assert got == {
        "security-analyst": "opus",
        "ux-advocate": "sonnet",
        "performance-engineer": "sonnet",
        "devils-advocate": "opus",
    }
    for a, b in PAIRS:
        if a in got and b in got:
            assert got[a] != got[b]


def ranker(persona, model, key=None):
    r = P.agent_record(persona, "ranking", P.ranking_json({"A": (8,) * 5, "B": (6,) * 5}), key=key or f"ag-{persona}")
    r.model = model
    return r


def test_conformity_notes_a_ranking_panel_on_a_single_model():
    panel = [ranker("security-analyst", "claude-opus-5-5"), ranker("performance-engineer", "claude-opus-5-5")]
    [w] = single_model(panel)
    assert w.detector == "single_model" and w.agents == ["ag-security-analyst", "ag-performance-engineer"]
    assert w.evidence.startswith("all 2 ranking agents ran on claude-opus-5-5")
    assert "models.diverse" in w.recommendation
    assert any(x.detector == "single_model" for x in detect_all(panel, None, Config()))
    mixed = [ranker("security-analyst", "claude-opus-5-5"), ranker("performance-engineer", "claude-sonnet-5-5")]
    assert single_model(mixed) == []
    unknown = [ranker("security-analyst", "claude-opus-5-5"), ranker("performance-engineer", None)]
    assert single_model(unknown) == []  # not known for every agent: nothing is claimed
    assert single_model(panel[:1]) == []


def test_a_single_model_note_does_not_block_even_with_blocking_conformity():
    d = P.make_deliberation([ranker("security-analyst", "m"), ranker("performance-engineer", "m")], initial_confidence=0.1)
    from deliberation.core import ranking

    d.ranking = ranking.rank(d.agents, {x.name: x.weight for x in Config().ranking.dimensions})
    warnings = single_model(d.agents)
    g = gate2(
        d,
        min_distinct_personas=2,
        min_alternatives=2,
        strong=0.85,
        moderate=0.7,
        require_improvement=False,
        conformity=warnings,
        conformity_blocks=True,
        now=0,
    )
    conf = next(c for c in g.checks if c.name == "conformity")
    assert conf.passed and "single_model" in conf.detail


def test_the_meta_file_beside_the_transcript_gives_the_model_when_the_transcript_is_not_written_yet():
    assert am.meta_model('{"agentType":"workflow-subagent","model":"claude-opus-5-5","inWorkflowRun":true}') == "claude-opus-5-5"
    assert am.meta_model('{"agentType":"cost-analyst","model":"sonnet"}') == "sonnet"
    assert am.meta_model("not json") is None and am.meta_model('{"model": 3}') is None


def test_the_handler_reads_the_transcript_then_the_meta_file(tmp_path):
    from deliberation.app.handlers.common import transcript_model

    path = tmp_path / "agent-a1.jsonl"
    (tmp_path / "agent-a1.meta.json").write_text('{"model": "claude-haiku-5-5"}')
    assert transcript_model(str(path)) == "claude-haiku-5-5"  # no transcript yet
    path.write_text(json.dumps({"type": "assistant", "message": {"model": "claude-sonnet-5-5"}}) + "\n")
    assert transcript_model(str(path)) == "claude-sonnet-5-5"
    assert transcript_model(None) is None
