"""decision_record: the structured record and its Markdown, checked against hand-computed figures."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from tests.helpers.factories import T0, agent_id, make_deliberation, make_lineage

from deliberation import catalogue
from deliberation.report import decision_record as dr
from deliberation.state.models import Deliberation, Lineage, Spawn

# Two personas × two approaches, scores chosen so every figure can be computed by hand with the
# default weights correctness .30, risk .25, maintainability .20, performance .15, cost .10:
#   TA: A = 10,6,8,4,2 → 3.0+1.5+1.6+0.6+0.2 = 6.90     B = 5,5,5,5,5 → 5.00
#   SA: A = 8,8,8,8,8  → 8.00                             B = 6,4,6,8,10 → 1.8+1.0+1.2+1.2+1.0 = 6.20
# means A 7.45, B 5.60 → leading A; A's scores 6.9, 8.0: σ = 0.55
# both prefer A, by 1.9 and 1.8 points (firm): consensus = 2 / (2 + 0.2) = 0.9091 (strong)
DIMS = tuple(d.name for d in catalogue.DIMENSIONS)  # the catalogue's
HAND = {
    "technical-architect": {"A": dict(zip(DIMS, (10, 6, 8, 4, 2))), "B": dict(zip(DIMS, (5,) * 5))},
    "security-analyst": {"A": dict(zip(DIMS, (8,) * 5)), "B": dict(zip(DIMS, (6, 4, 6, 8, 10)))},
}


@pytest.fixture
def small() -> Deliberation:
    return make_deliberation(2, 2, scores=HAND, depth=False, conformity=False)


def test_hand_computed_scores_and_consensus(small):
    rec = dr.record_json(small)
    rows = {r["label"]: r["scores"] for r in rec["scores"]}
    assert rows == {"Technical Architect": {"A": 6.9, "B": 5.0}, "Security Analyst": {"A": 8.0, "B": 6.2}}
    assert {a["id"]: a["mean"] for a in rec["approaches"]} == {"A": 7.45, "B": 5.6}
    d = rec["decision"]
    assert d["approach"] == "A" and d["title"] == "Postgres outbox with a relay worker"
    assert d["consensus"] == pytest.approx(0.9091, abs=1e-4)
    assert d["band"] == "strong" and d["meets_threshold"] is True and d["threshold"] == 0.70
    assert [(a["id"], a["gap"]) for a in rec["alternatives"]] == [("B", pytest.approx(-1.85))]


def test_hand_computed_breakdown_of_leading_approach(small):
    rows = {r["dimension"]: r for r in dr.record_json(small)["leading_breakdown"]}
    assert list(rows) == list(DIMS)
    assert {k: v["mean"] for k, v in rows.items()} == {
        "correctness": 9.0,
        "risk": 7.0,
        "maintainability": 8.0,
        "performance": 6.0,
        "cost": 5.0,
    }
    assert {k: v["contribution"] for k, v in rows.items()} == pytest.approx(
        {"correctness": 2.7, "risk": 1.75, "maintainability": 1.6, "performance": 0.9, "cost": 0.5}
    )
    assert sum(v["contribution"] for v in rows.values()) == pytest.approx(7.45)  # = mean of A
    assert rows["correctness"]["by_agent"] == {"Technical Architect": 10.0, "Security Analyst": 8.0}


def test_markdown_score_table_marks_the_leading_approach(small):
    text = dr.render_markdown(small)
    assert "| Persona | A ★ | B |" in text
    assert "| Technical Architect | **6.90** | 5.00 |" in text
    assert "| Security Analyst | **8.00** | 6.20 |" in text
    assert "| *mean* | *7.45* | *5.60* |" in text
    assert "| correctness | 0.30 | 10.0 | 8.0 | 9.00 | 2.70 |" in text
    assert "| **total** | 1.00 |  |  |  | **7.45** |" in text


def test_markdown_decision_line_against_threshold(small):
    text = dr.render_markdown(small)
    assert "**Postgres outbox with a relay worker** (approach `A`)" in text
    assert "Consensus **0.91** meets the default threshold **0.70** — **strong** consensus" in text
    small.threshold, small.task_type = 0.95, "security"
    text = dr.render_markdown(small)
    assert "Consensus **0.91** is below the security threshold **0.95** — **strong** consensus" in text


@pytest.mark.parametrize(
    "consensus,expected", [(0.86, "strong"), (0.85, "moderate"), (0.70, "moderate"), (0.6999, "weak"), (0.0, "weak")]
)
def test_band_boundaries(consensus, expected):
    assert dr.band(consensus) == expected


def test_band_uses_configured_limits(small):
    assert dr.record_json(small, strong=0.60, moderate=0.50)["decision"]["band"] == "strong"
    assert dr.record_json(small, strong=0.95, moderate=0.90)["decision"]["band"] == "moderate"
    assert dr.record_json(small, strong=0.97, moderate=0.95)["decision"]["band"] == "weak"


def test_sections_in_order_for_a_full_deliberation():
    d = make_deliberation(5, 3)
    text = dr.render_markdown(d, make_lineage(d))
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == [
        "## Outcome",
        "## Decision",
        "## Decision document (PRD)",
        "## Scores (weighted, 0–10)",
        "## Five-dimension breakdown of `A`",
        "## Alternatives",
        "## Findings by persona",
        "## Dissent",
        "## Gates",
        "## Conformity warnings",
        "## Depth axis",
        "## Route",
        "## Cost and usage",
        "## Warnings",
        "## Phase history",
        "## Participants",
        "## Lineage",
    ]


def test_gates_list_every_check_with_its_figure():
    d = make_deliberation(5, 3)
    d.gate1.checks[2].passed = False
    d.gate1.checks[2].figure = "0.62 < 0.80"
    d.gate1.passed = False
    d.gate1.next_step = "re-rank after addressing the dissent"
    text = dr.render_markdown(d)
    assert "### Gate 1 — consensus: FAILED (2026-01-01 09:16:40 UTC)" in text
    assert "- FAIL `consensus_threshold`: 0.62 \\< 0.80 — task type default" in text
    assert "Next step: re-rank after addressing the dissent" in text
    assert "### Gate 2 — quality: PASSED" in text
    for c in d.gate1.checks + d.gate2.checks:
        assert f"`{c.name}`" in text
    assert text.count("- PASS ") + text.count("- FAIL ") == 9


def test_dissent_with_reasons_and_undocumented_dissent():
    d = make_deliberation(5, 3)
    text = dr.render_markdown(d)
    assert (
        "- `reliability-engineer:D1` **Reliability Engineer** (ranking, verdict reject) on `A`: The relay worker "
        "is a new single point of failure. — *reason:* No failover is specified; a stuck relay delays every "
        "event."
    ) in text
    rejector = next(a for a in d.agents if a.stage == "ranking" and a.report.verdict == "reject")
    rejector.report.dissent = []
    rec = dr.record_json(d)
    assert rec["undocumented_dissent"] == [{"agent": rejector.key, "label": "Reliability Engineer", "why": "rejected"}]
    assert "- **Reliability Engineer** dissented (rejected) without documenting a concern." in dr.render_markdown(d)
    # Gate 1's definition: preferring another approach than the leading one is dissent too
    other = next(a for a in d.agents if a.stage == "ranking" and a.report.verdict == "approve")
    other.report.preferred_approach, other.report.dissent = "B", []
    assert "dissented (prefers B over the leading A) without documenting a concern." in dr.render_markdown(d)


def test_conformity_depth_and_route_sections():
    d = make_deliberation(5, 3)
    text = dr.render_markdown(d)
    assert (
        "- **missing minority** (Security Analyst, Performance Engineer): security-analyst and "
        "performance-engineer both approved without a concern. Recommendation: re-run security-analyst "
        "with fresh isolation and ask for its strongest objection."
    ) in text
    assert "Posture **ceiling**, status **done**, 2 additional pass(es), 3 workers per wave." in text
    # a hot spot's label says what the red team raised and what tier 2 then found, never more
    assert "| `H1` | challenged — tier 2: evidence-chase upheld |" in text
    assert "| `H2` | contradiction — tier 2: counter-model zero signal, edge-case-hunt refuted |" in text
    assert "Tier-2 workers by lens: counter-model 1, edge-case-hunt 1, evidence-chase 1." in text
    assert "- **Override** `H2` → `C`: approach C struck from the lead" in text
    assert "Zero-signal tier-2 results (tier 1 stands): Counter-Model (tier 2)." in text
    assert "**human-review** for decision class `architecture/messaging` (vote split; review pending)." in text
    assert "- **D**: split vote: 1 reject of 5" in text
    assert "| outbox-schema | FAIL | 1 | 2.4s | reads db/schema.sql, the same file finding F1 cites |" in text


def test_depth_skipped_is_said_loudly():
    d = make_deliberation(3, 2)
    d.depth.status, d.depth.skipped_reason = "skipped", "token budget 400000 exceeded before the deepen step"
    text = dr.render_markdown(d)
    assert "**Deepening skipped:** token budget 400000 exceeded before the deepen step" in text


def test_before_ranking_there_is_no_decision():
    d = make_deliberation(3, 2, phase="RESEARCH")
    text = dr.render_markdown(d)
    assert "No approach has been ranked yet (phase RESEARCH)." in text
    assert "## Scores" not in text and "### Gate 1 — consensus: not run" in text
    assert dr.record_json(d)["decision"]["approach"] is None


def test_model_text_cannot_inject_html_or_break_tables():
    evil = "</script><script>alert(1)</script> | <img src=x onerror=alert(2)>"
    d = make_deliberation(5, 3, inject=evil)
    text = dr.render_markdown(d, make_lineage(d))
    body = text.replace("\n> ", "\n")  # our own blockquote marker
    assert re.findall(r"(?<!\\)[<>]", body) == []  # every other angle bracket is backslash-escaped
    assert "\\</script\\>\\<script\\>alert(1)\\</script\\> \\| \\<img src=x onerror=alert(2)\\>" in text
    d.route.probes[0].causal_warning = evil  # lands in a table cell
    rows = [line for line in dr.render_markdown(d).splitlines() if line.startswith("| outbox-schema |")]
    assert len(rows) == 1 and rows[0].replace("\\|", "").count("|") == 6  # 5 columns, pipe escaped


def test_deterministic_and_timezone_independent(monkeypatch):
    d = make_deliberation(5, 3)
    lin = make_lineage(d)
    first = dr.render_markdown(d, lin)
    again = dr.render_markdown(
        Deliberation.model_validate_json(d.model_dump_json()), Lineage.model_validate_json(lin.model_dump_json())
    )
    assert first == again
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert dr.render_markdown(d, lin) == first
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert "2026-01-01 09:00:00 UTC" in first
    assert dr.fmt_utc(T0) == "2026-01-01 09:00:00 UTC" and dr.fmt_utc(None) == "—"


def test_record_json_is_plain_json_and_stable():
    d = make_deliberation(5, 3)
    rec = dr.record_json(d)
    assert json.loads(json.dumps(rec)) == rec
    assert rec["deliberation_id"] == d.id and rec["phase"] == "COMPLETE"
    assert [g for g in rec["gates"]] == ["consensus", "quality"]
    assert len(rec["scores"]) == 5 and all(len(r["scores"]) == 3 for r in rec["scores"])
    assert rec["depth"]["zeroed"] == ["Counter-Model (tier 2)"]
    assert rec["route"]["rules"][0] == {"rule": "D", "detail": "split vote: 1 reject of 5"}


def test_lineage_tree_counts_and_drawing():
    d = make_deliberation(3, 2, depth=False)
    lin = make_lineage(d, nested=2, active=1)
    text = dr.render_markdown(d, lin)
    first = agent_id("technical-architect", "research")
    assert "main  [0 active / 7 spawned]" in text
    assert f"├── Technical Architect · {first} · depth 1 · completed  [1 active / 2 spawned]" in text
    assert f"│   └── general-purpose · ahelper01{first[1:6]} · depth 2 · running" in text
    assert "- denied general-purpose (budget) at 2026-01-01 09:06:40 UTC" in text


def test_lineage_rows_handle_orphans_and_cycles():
    lin = Lineage(
        session_id="s1",
        spawns=[
            Spawn(agent_id="a1", parent="main", subagent_type="security-analyst", requested_at=T0, status="running"),
            Spawn(agent_id="a2", parent="ghost", subagent_type="general-purpose", requested_at=T0 + 1),
            Spawn(agent_id="c1", parent="c2", subagent_type="general-purpose", requested_at=T0 + 2),
            Spawn(agent_id="c2", parent="c1", subagent_type="general-purpose", requested_at=T0 + 3),
        ],
    )
    rows = dr.lineage_rows(lin)
    assert [(r.node, r.level, r.orphan) for r in rows] == [("a1", 0, False), ("a2", 0, True), ("c1", 0, True), ("c2", 0, True)]
    assert dr.children_counts(lin)["main"] == (1, 1)  # a1 running; a2 requested but its parent is 'ghost'


def test_stale_request_stops_counting_with_a_clock():
    s = Spawn(agent_id=None, tool_use_id="t1", parent="main", subagent_type="x", requested_at=1000.0)
    assert dr.is_active(s) is True
    assert dr.is_active(s, now=1000.0 + 1800, stale_after_s=1800) is True
    assert dr.is_active(s, now=1000.0 + 1801, stale_after_s=1800) is False


def test_tz_env_restored():
    assert os.environ.get("TZ") != "Asia/Tokyo"


def test_dimension_order_does_not_depend_on_storage_order(small):
    before = dr.render_markdown(small)
    small.ranking.dimensions = dict(sorted(small.ranking.dimensions.items()))  # as a key-sorted file stores it
    assert dr.render_markdown(small) == before
    assert list(dr.record_json(small)["dimensions"]) == list(DIMS)


# --------------------------------------------------------------------------- PRD, findings, cost


def test_the_record_validates_against_its_model_and_published_schema():
    """Every shape the factories build — complete, still ranking, without depth or route, failed,
    a PRD missing, 10 × 6 — is a DecisionRecord; the checked-in schema accepts it too."""
    from deliberation.state import record_model, schemas

    validator = schemas.validator("decision_record")
    shapes = [
        make_deliberation(5, 3),
        make_deliberation(10, 6),
        make_deliberation(3, 2, phase="RANKING"),
        make_deliberation(2, 2, phase="RESEARCH", route=None, depth=False, gates=False, conformity=False),
        make_deliberation(4, 3, phase="FAILED"),
        make_deliberation(3, 3, phase="PRD_GENERATION"),
    ]
    missing = make_deliberation(3, 2)
    missing.prd.status, missing.prd.document, missing.prd.problem = "missing", None, "no decision document block"
    for d in shapes + [missing]:
        rec = json.loads(json.dumps(dr.record_json(d)))
        assert record_model.publish(rec) == rec
        assert schemas.explain(validator, rec) == [], d.phase


def test_a_key_the_model_does_not_know_fails_the_contract():
    from pydantic import ValidationError

    from deliberation.state import record_model

    rec = dr.record_json(make_deliberation(3, 2))
    rec["usage"]["per_agent"][0]["surprise"] = 1
    with pytest.raises(ValidationError):
        record_model.publish(rec)


def test_the_decision_document_section_resolves_every_citation():
    d = make_deliberation(5, 3)
    rec = dr.record_json(d)
    doc = rec["prd"]["document"]
    r1 = doc["requirements"][0]
    assert r1["sources"] == [
        {
            "id": "technical-architect:F1",
            "kind": "finding",
            "persona": "technical-architect",
            "text": "Technical Architect: the current webhook path loses events when the bus is down",
        }
    ]
    assert r1["verified_by"] == ["AC1"]
    assert doc["risks"][0]["sources"][0]["kind"] == "dissent"
    assert rec["prd"]["trace"]["uncovered"] == ["R2"] and rec["prd"]["trace"]["unknown"] == []
    text = dr.render_markdown(d)
    assert "**Decision.** Adopt A: it is the only approach that never loses an event when the bus is down." in text
    assert (
        "- `R1` **must** — Every order event is written in the order's own transaction. (verified by `AC1`) "
        "← `technical-architect:F1`"
    ) in text
    assert "### Non-goals" in text and "### Acceptance criteria" in text and "### Open questions" in text
    assert (
        "| `RISK1` | high | The relay worker becomes a single point of failure. | Run two relays with leader "
        "election. | `reliability-engineer:D1` |" in text
    )
    assert "; no acceptance criterion verifies R2." in text


def test_a_missing_or_pending_document_is_said_so():
    d = make_deliberation(3, 2)
    d.prd.status, d.prd.document, d.prd.send_backs = "missing", None, 1
    d.prd.problem = "Every cited id must exist in the deliberation; these do not: 'x:F9' in R1."
    text = dr.render_markdown(d)
    assert (
        "**Missing** — recorded without a decision document after 1 send-back(s): Every cited id must exist "
        "in the deliberation; these do not: 'x:F9' in R1."
    ) in text
    pending = make_deliberation(3, 2, phase="PRD_GENERATION")
    assert "Not written yet (due: the vote passed, the main agent's concluding answer brings it)." in dr.render_markdown(pending)


def test_findings_by_persona_with_evidence_severity_and_who_cites_them():
    d = make_deliberation(5, 3)
    rec = dr.record_json(d)
    groups = {(g["persona"], g["stage"]): g for g in rec["findings"]}
    arch = groups[("technical-architect", "research")]
    assert [(f["id"], f["severity"], f["evidence"], f["cited_by"]) for f in arch["findings"]] == [
        ("technical-architect:F1", "high", "src/orders/publish.py:88", ["R1", "AC1"]),
        ("technical-architect:F2", "medium", "ops runbook §4", []),
    ]
    assert (
        groups[("red-team", "deliberation")]["refutations"][0]["id"] == "red-team:C1"
    )  # a refutation is a challenge in the record: R means a requirement
    assert groups[("evidence-chase", "deliberation")]["tier"] == 2
    text = dr.render_markdown(d)
    assert "### Technical Architect (research)" in text and "### Evidence Chase (tier 2) (deliberation)" in text
    assert (
        "- `technical-architect:F1` **high** — Technical Architect: the current webhook path loses events when "
        "the bus is down (evidence: src/orders/publish.py:88) — cited by `R1`, `AC1`"
    ) in text


def test_the_cost_section_lists_tokens_per_agent_and_the_wall_time():
    d = make_deliberation(3, 2)
    rec = dr.record_json(d)
    u = rec["usage"]
    assert u["agents"] == len(d.agents) == len(u["per_agent"])
    assert u["total_tokens"] == sum(r["total_tokens"] for r in u["per_agent"]) > 0
    assert all(r["source"] == "transcript" and r["calls"] >= 2 for r in u["per_agent"])
    text = dr.render_markdown(d)
    assert "## Cost and usage" in text and text.count(" | transcript | ") == len(d.agents)
    assert f"| **total** |  |  |  | {u['calls']:,} |" in text
    assert u["summary"] in text.replace("\\", "")
    assert "Counted: every API call of each subagent" in text


def test_a_drifted_record_is_still_written_as_data(monkeypatch):
    """The Stop hook writes the Markdown record: a record_json the model no longer accepts must
    not keep the deliberation from completing."""
    d = make_deliberation(5, 3)
    real = dr.record_json
    monkeypatch.setattr(dr, "record_json", lambda *a, **k: {**real(*a, **k), "unexpected": 1})
    text = dr.render_markdown(d)
    assert text.startswith(f"# Decision record `{d.id}`") and "could not be laid out" in text and '"unexpected": 1' in text
