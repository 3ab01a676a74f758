"""schemas: the checked-in JSON Schemas match the pydantic models and validate real state."""

from __future__ import annotations

import json
import os

import pytest
from jsonschema import Draft202012Validator

from deliberation.state import schemas
from deliberation.state.config import Config
from deliberation.state.agent_report import AgentReport
from deliberation.state.models import (
    AgentRecord,
    Check,
    Deliberation,
    GateResult,
    Lineage,
    Notice,
    RankingResult,
    SessionState,
    Spawn,
    TriggerResult,
)

EXPECTED_FILES = {
    "session.schema.json",
    "lineage.schema.json",
    "deliberation.schema.json",
    "escalations.schema.json",
    "reversals.schema.json",
    "adjudication.schema.json",
    "event.schema.json",
    "journal.schema.json",
    "agent_report.schema.json",
    "config.schema.json",
    "prd.schema.json",
    "decision_record.schema.json",
    "pending_prompt.schema.json",
    "switch.schema.json",
}


def errors(name: str, doc: object) -> "list[str]":
    return schemas.explain(schemas.validator(name), doc)


def test_checked_in_schemas_match_the_models():
    problems = schemas.drift()
    assert problems == [], "state_schema/ drifted from the models; run `python -m deliberation.state.schemas`: " + "; ".join(
        problems
    )


def test_one_schema_file_per_model():
    assert set(schemas.all_schemas()) == EXPECTED_FILES
    listed = {f for f in os.listdir(schemas.SCHEMA_DIR) if f.endswith(".schema.json")}
    assert listed == EXPECTED_FILES


def test_schemas_are_valid_draft_2020_12():
    for fname, text in schemas.all_schemas().items():
        doc = json.loads(text)
        Draft202012Validator.check_schema(doc)
        assert doc["$schema"] == schemas.DIALECT
        assert doc["$id"].endswith("/" + fname)
        assert doc["description"]


def full_deliberation() -> Deliberation:
    report = AgentReport.model_validate(
        {
            "phase": "ranking",
            "verdict": "approve",
            "preferred_approach": "A",
            "confidence": 0.8,
            "scores": {"A": {"correctness": 8, "risk": 6, "maintainability": 7, "performance": 7, "cost": 5}},
            "dissent": [{"target": "B", "concern": "slow", "reason": "N+1 queries"}],
        }
    )
    agent = AgentRecord(
        key="a1",
        agent_id="a1",
        persona="security-analyst",
        kind="persona",
        stage="ranking",
        spawned_at=1.0,
        status="reported",
        report=report,
    )
    ranking = RankingResult(
        dimensions={"correctness": 1.0},
        approaches=["A"],
        scores=[],
        means={"A": 6.9},
        leading="A",
        leading_scores={"a1": 6.9},
        consensus=0.69,
        spread=0.0,
        stdev=0.0,
        agents=1,
        approvals=1,
        rejections=0,
        abstentions=0,
    )
    gate = GateResult(
        gate="consensus", passed=False, at=2.0, checks=[Check(name="threshold", passed=False, figure="0.69 < 0.80")]
    )
    return Deliberation(id="d-1", session_id="s-1", phase="RANKING", agents=[agent], ranking=ranking, gate1=gate)


def test_real_state_validates():
    assert errors("deliberation", full_deliberation().model_dump(mode="json")) == []
    session = SessionState(
        session_id="s-1",
        notices=[Notice(deliberation_id="d-1", kind="gate1", text="t", created_at=1.0)],
        trigger=TriggerResult(dimensions={"stakes": 0.9}, confidence=0.5, threshold=0.7, triggered=True),
    )
    assert errors("session", session.model_dump(mode="json")) == []
    lineage = Lineage(session_id="s-1", spawns=[Spawn(subagent_type="security-analyst", requested_at=1.0)])
    assert errors("lineage", lineage.model_dump(mode="json")) == []
    assert errors("config", Config().model_dump(mode="json")) == []
    assert errors("config", {}) == []  # every key has a default


def test_wrong_state_is_rejected_where_it_is_wrong():
    doc = full_deliberation().model_dump(mode="json")
    doc["phase"] = "VOTING"
    doc["ranking"]["consensus"] = 1.5
    doc["agents"][0]["status"] = "lost"
    doc["surprise"] = True
    errs = errors("deliberation", doc)
    assert len(errs) == 4, errs
    assert errs[0].startswith("/: Additional properties are not allowed ('surprise'")
    assert errs[1].startswith("/agents/0/status: 'lost' is not one of")
    assert errs[2].startswith("/phase: 'VOTING' is not one of")
    assert errs[3] == "/ranking/consensus: 1.5 is greater than the maximum of 1"
    assert errors("session", {"session_id": "../etc"})[0].startswith("/session_id: '../etc' does not match")


def test_agent_report_schema_ignores_unknown_keys_like_the_model():
    assert errors("agent_report", {"phase": "research", "persona": "claims-to-be-admin"}) == []
    assert errors("agent_report", {"phase": "COMPLETE"}) != []


@pytest.mark.parametrize(
    "rel, expected",
    [
        ("config.json", ("config", False)),
        ("reversals.json", ("reversals", False)),
        ("escalations.json", ("escalations", False)),
        ("adjudications.jsonl", ("adjudication", True)),
        ("sessions/s-1/session.json", ("session", False)),
        ("sessions/s-1/lineage.json", ("lineage", False)),
        ("sessions/s-1/events.jsonl", ("event", True)),
        ("deliberations/d-1.json", ("deliberation", False)),
        ("deliberations/sub/d-1.json", None),
        ("sessions/s-1/other.json", None),
        ("records/d-1.md", None),
        ("cache/config.resolved.json", None),
    ],
)
def test_schema_for_path(rel, expected):
    assert schemas.schema_for_path(rel) == expected


def test_write_all_and_drift_in_a_fresh_dir(tmp_path):
    d = str(tmp_path / "s")
    assert schemas.write_all(d) == sorted(EXPECTED_FILES, key=list(schemas.all_schemas()).index)
    assert schemas.drift(d) == []
    assert schemas.write_all(d) == []  # nothing to rewrite
    (tmp_path / "s" / "session.schema.json").write_text("{}\n")
    (tmp_path / "s" / "old.schema.json").write_text("{}\n")
    os.unlink(tmp_path / "s" / "config.schema.json")
    assert schemas.drift(d) == [
        "session.schema.json: differs from the models",
        "config.schema.json: missing",
        "old.schema.json: no model generates it",
    ]
    assert schemas.main(["--check", "--dir", d]) == 1
    assert schemas.main(["--dir", d]) == 0
    assert schemas.drift(d) == []


def test_load_schema_falls_back_to_the_model(tmp_path):
    assert schemas.load_schema("lineage", str(tmp_path)) == schemas.build_schema("lineage")
