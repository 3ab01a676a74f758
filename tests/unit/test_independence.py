"""core/independence: the shared context keeps facts and loses the main agent's conclusions; the
findings that only restate what the agents were given are counted, and a vote resting on them
is a conformity warning that never blocks."""

from __future__ import annotations

from deliberation.core import independence, quality_gate
from deliberation.state.config import Config
from deliberation.state.models import Deliberation, WorkflowDrive

from tests.helpers.depth_cases import rec

CONTEXT = (
    "Files: jobs/billing.py (the nightly charge job), db/schema.sql.\n"
    "The job charges every active subscription and commits once at the end. "
    "I think the real problem is that a retry double-charges everyone. "
    "Payments go through the PSP's charge API with a 30 s timeout.\n"
    "Therefore we should add an idempotency key per charge."
)


def test_conclusion_sentences_are_dropped_and_facts_kept():
    kept, dropped = independence.split_context(CONTEXT)
    assert dropped == [
        "I think the real problem is that a retry double-charges everyone.",
        "Therefore we should add an idempotency key per charge.",
    ]
    assert kept == (
        "Files: jobs/billing.py (the nightly charge job), db/schema.sql.\n"
        "The job charges every active subscription and commits once at the end. "
        "Payments go through the PSP's charge API with a 30 s timeout."
    )


def test_a_context_of_facts_is_left_alone():
    facts = "orders/api.py reads prices per line item.\nThe checkout budget is 120 ms; the pricing DB has two replicas."
    assert independence.split_context(facts) == (facts, [])


def _delib(claims: "list[str]") -> Deliberation:
    kept, dropped = independence.split_context(CONTEXT)
    agents = []
    for i, claim in enumerate(claims):
        a = rec(f"p{i}", "persona", {"findings": [{"id": "F1", "claim": claim, "evidence": "jobs/billing.py:40"}]})
        a.channel = "workflow"
        agents.append(a)
    return Deliberation(
        id="d-1",
        session_id="s-1",
        question="Is the nightly billing job safe to retry?",
        phase="RANKING",
        agents=agents,
        workflow=WorkflowDrive(context=kept, dropped=dropped),
    )


def test_findings_that_restate_the_context_are_counted_and_the_rest_is_the_panels_own():
    d = _delib(
        [
            "The job charges every active subscription and commits once at the end.",
            "The PSP charge API has a 30 s timeout.",
            "The PSP retries a timed-out charge itself, so a client retry sends a second charge request.",
        ]
    )
    m = independence.measure(d)
    assert (m.findings, m.restated, m.beyond) == (3, ("p0:F1", "p1:F1"), 1)
    assert len(m.dropped) == 2
    (w,) = independence.warning(d, m)
    assert w.detector == "restated_context" and "2 of 3 research findings only restate" in w.evidence
    # informational: it never blocks the quality gate, even with blocking conformity
    cfg = Config.model_validate({"conformity": {"blocking": True}})
    check = [c for c in quality_gate.evaluate(d, cfg, 0.0, [w]).checks if c.name == "conformity"]
    assert check and all(c.passed for c in check)


def test_a_panel_that_found_its_own_facts_raises_no_warning():
    d = _delib(
        [
            "Webhook signatures are never verified by the billing service.",
            "The charge loop holds a row lock on every subscription for the whole run.",
        ]
    )
    m = independence.measure(d)
    assert m.restated == () and m.beyond == 2 and independence.warning(d, m) == []
