"""The minimum viable deliberation: two agents, FOR and AGAINST, and the
2-agent rule's three outcomes from the hooks' engine."""

from __future__ import annotations

from deliberation.core import engine, next_step
from deliberation.core import minimum_deliberation as mvd
from deliberation.core.depth import axis as depth_axis
from deliberation.state.config import Config, DepthConfig
from tests.helpers import payloads as P

ROOMY = depth_axis.BudgetView(spawn_slots_left=12, agents_used=0, tokens_used=0)


def position(persona, verdict, preferred, title, rationale, other=("B", "Keep the stdlib logging module")):
    """A research report proposing (A = `title`, B = `other`) with a position."""
    return P.agent_record(
        persona,
        "research",
        {
            "findings": [{"id": "F1", "claim": f"{persona}: billing logs are parsed by the SIEM", "evidence": "ops/siem.md"}],
            "approaches": [{"id": "A", "title": title}, {"id": other[0], "title": other[1]}],
            "verdict": verdict,
            "preferred_approach": preferred,
            "rationale": rationale,
        },
        key=f"r-{persona}",
    )


STRUCTLOG = "Adopt structlog for the request logs"
FOR = (
    "product-strategist",
    "approve",
    "A",
    STRUCTLOG,
    "structlog's processors let us add the request id once and keep JSON output for the SIEM.",
)


def delib(against, phase="RESEARCH"):
    d = P.make_deliberation([position(*FOR), position(*against)], phase=phase)
    d.question = "Which structured logging library should the billing service adopt, structlog or loguru?"
    return d


def test_agreement_with_different_reasoning_proceeds_and_meets_depth_without_a_red_team():
    # the AGAINST agent numbers structlog "B" (its "A" is the stdlib): positions compare by title
    d = delib(
        (
            "devils-advocate",
            "approve",
            "B",
            "Keep the stdlib logging module",
            "Searching for a failure mode I found only the migration cost, about two days of work.",
            ("B", STRUCTLOG),
        )
    )
    assert mvd.eligible(d)
    step = engine.after_report(d, Config(), ROOMY, 1.0)
    assert step.block is None
    assert step.context.startswith(
        f"Deliberation {d.id} — minimum viable deliberation (2 agents: "
        "devils-advocate, product-strategist): agreement with different reasoning → proceed."
    )
    said = next_step.with_next(d, Config(), step.context)  # the step is said as it stands when delivered
    assert (
        step.then_next
        and "Next: spawn the research personas again to RANK every approach — `product-strategist` and `devils-advocate`" in said
    ), said
    assert "Approaches to rank (neutral order; it ranks nothing):" in said
    assert (d.two_agent.verdict, d.depth.status, d.depth.posture, d.depth.basis) == (
        "proceed",
        "not_needed",
        "ceiling",
        "2-agent rule",
    )
    assert mvd.applies(d) and depth_axis.ranking_spawn_refusal(d, Config()) is None  # no red team needed
    assert engine.after_report(d, Config(), ROOMY, 2.0).context.startswith(f"Deliberation {d.id} (")  # said once


def test_agreement_with_the_same_reasoning_is_a_herding_warning():
    d = delib(("devils-advocate", "approve", "A", STRUCTLOG, FOR[4]))
    step = engine.after_report(d, Config(), ROOMY, 1.0)
    assert "agreement with the same reasoning → suspect herding" in step.context
    assert "rationale similarity 1.00 ≥ 0.60" in step.context and "⚠ A warning, not a proof" in step.context
    assert d.two_agent.verdict == "suspect_herding" and depth_axis.ranking_spawn_refusal(d, Config()) is None
    [w] = mvd.herding_warning(d)
    assert w.detector == "two_agent_rule" and w.agents == ["r-devils-advocate", "r-product-strategist"]


def test_disagreement_opens_the_depth_step_on_that_conflict():
    d = delib(
        (
            "devils-advocate",
            "reject",
            "B",
            STRUCTLOG,
            "structlog's processor chain is another dependency nobody here has run in production.",
            ("B", "Keep the stdlib logging module"),
        )
    )
    step = engine.after_report(d, Config(), ROOMY, 1.0)
    assert step.block.startswith(
        f"Deliberation {d.id} — minimum viable deliberation (2 agents: devils-advocate, "
        "product-strategist): genuine disagreement → investigate that conflict. "
        'devils-advocate rejects, prefers "Keep the stdlib logging module"'
    )
    assert f'product-strategist approves "{STRUCTLOG}"' in step.block
    assert "Depth axis: the red-team pass left 1 contested point(s)" in step.block
    [spot] = d.depth.hot_spots
    assert spot.kind == "contradiction" and spot.statement.startswith("the two agents disagree: devils-advocate rejects")
    assert (d.depth.status, d.depth.basis) == ("pending", "2-agent rule")
    assert "depth step is open" in depth_axis.ranking_spawn_refusal(d, Config())


def test_disagreement_with_depth_off_is_named_for_the_main_agent_to_investigate():
    cfg = Config(depth=DepthConfig(posture="off"))
    d = delib(("devils-advocate", "reject", "B", STRUCTLOG, "Another dependency.", ("B", "Keep stdlib")))
    step = engine.after_report(d, cfg, ROOMY, 1.0)
    assert step.block is None and "investigate that conflict yourself before ranking" in step.context
    assert d.depth.basis == "" and depth_axis.ranking_spawn_refusal(d, cfg) is None


def test_disagreement_over_budget_is_skipped_loudly():
    d = delib(("devils-advocate", "reject", "B", STRUCTLOG, "Another dependency.", ("B", "Keep stdlib")))
    step = engine.after_report(d, Config(), depth_axis.BudgetView(12, 0, 10_000_000), 1.0)
    assert step.block is None and "⚠ depth skipped: budget — used 10000000 of 400000" in step.context
    assert d.depth.status == "skipped" and depth_axis.ranking_spawn_refusal(d, Config()) is None


def test_a_report_without_a_position_leaves_the_full_flow():
    d = delib(("devils-advocate", "abstain", None, STRUCTLOG, ""))
    step = engine.after_report(d, Config(), ROOMY, 1.0)
    assert "the rule cannot compare them: a report states no position" in step.context
    assert step.then_next and "the full deliberation follows" in step.context
    assert "Next: spawn `synthesis-lead` and `debate-moderator`" in next_step.with_next(d, Config(), step.context)
    assert d.depth.basis == "" and "one red-team pass comes before ranking" in depth_axis.ranking_spawn_refusal(d, Config())


def test_not_eligible_with_three_personas_or_a_deliberation_role():
    d = delib(("devils-advocate", "approve", "A", STRUCTLOG, "Different words entirely, about cost."))
    d.agents.append(position("cost-analyst", "approve", "A", STRUCTLOG, "cheap"))
    assert not mvd.eligible(d)
    d = delib(("devils-advocate", "approve", "A", STRUCTLOG, "Different words entirely, about cost."))
    d.agents.append(P.agent_record("synthesis-lead", "deliberation", {"approaches": []}, kind="synthesis"))
    assert not mvd.eligible(d)


def test_going_on_to_the_full_deliberation_releases_the_form():
    d = delib(("devils-advocate", "reject", "B", STRUCTLOG, "Another dependency.", ("B", "Keep stdlib")))
    engine.after_report(d, Config(), ROOMY, 1.0)
    depth = d.depth
    assert mvd.release(d) and d.two_agent is None
    assert depth is d.depth and d.depth.status == "not_needed" and d.depth.posture == "" and not d.depth.hot_spots
    assert not mvd.release(d)
