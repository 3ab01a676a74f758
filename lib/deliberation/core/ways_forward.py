"""The two accepted ways forward from a gate that fails on agreement (docs/CONSENSUS.md §5a).

A gate fails on agreement (`on_agreement`) when every check it failed is about the panel's
agreement — Gate 1's consensus, Gate 2's consensus confidence or improvement evidence — never
the process. `offer` records the two ways; (a) one revision round: `start_revision`, `reviser`
and `apply_revision` let ONE synthesis-lead revise the approaches (ids kept, the round's ranking
set aside in `before`), then a fresh blind re-rank — at most once (`revision`: available →
revising → reranking → used); (b) the hand-over: after the offer, a Stop with the gate still
failing (`hands_over`) completes the deliberation as no-consensus, routed to human review
(`hand_over`, `route`) — until the user settles it, they may still ask for the unused round
(`reopenable`, `reopen`). Pure over the deliberation; text/gates.py words the offer.
"""

from __future__ import annotations

from dataclasses import replace

from deliberation.core import contested as contest
from deliberation.core import escalation, phases
from deliberation.core.personas import SYNTHESIS
from deliberation.state.models import Deliberation, GateResult, PhaseChange, Route, RouteRule, WaysForward
from deliberation.text import gates as words
from deliberation.text import phases as phase_words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import AgentRecord

SHOWN_DIVERGENCES = 3  # the hold must fit one hook answer: the record has the rest
SHOWN_DISSENT = 4

AGREEMENT = ("consensus", "consensus_confidence", "improvement_evidence")
RULE = "NO_CONSENSUS"


def failed_checks(result: "GateResult | None") -> "list[str]":
    return [c.name for c in result.checks if not c.passed] if result is not None else []


def on_agreement(result: "GateResult | None") -> bool:
    """The gate failed, and every check it failed is about agreement (module docstring)."""
    failed = failed_checks(result)
    return bool(failed) and all(name in AGREEMENT for name in failed)


def failing(delib: Deliberation) -> "GateResult | None":
    """The gate result that stands failed on agreement now (Gate 1, else Gate 2), if any."""
    g1, g2 = delib.gate1, delib.gate2
    if g1 is not None and not g1.passed:
        return g1 if on_agreement(g1) else None
    return g2 if on_agreement(g2) else None


def revision_allowed(delib: Deliberation) -> bool:
    """May a synthesis-lead be spawned now as the revision round? Only after the vote failed on
    agreement, while the one round is still available."""
    w = delib.ways
    return (
        w is not None
        and w.revision == "available"
        and w.handed_over_at is None
        and delib.phase in ("RANKING", "PRD_GENERATION")
        and failing(delib) is not None
    )


def revision_used(delib: Deliberation) -> bool:
    return delib.ways is not None and delib.ways.revision != "available"


def offer(delib: Deliberation, result: GateResult, now: float) -> WaysForward:
    """Record that the ways forward are offered for `result` (kept from the first offer: a second
    failure after the revision round only updates what failed)."""
    figures = [f"{c.name}: {c.figure}" for c in result.checks if not c.passed]
    w = delib.ways
    if w is None:
        c = contest.contested(delib)
        w = delib.ways = WaysForward(
            offered_at=now,
            gate=result.gate,
            failed=figures,
            before={
                "leader": c.leader,
                "consensus": c.consensus,
                "band": c.band,
                "approaches": phases.approaches(delib),
                "split": [{"approach": s.approach, "rankers": s.rankers} for s in c.split],
            },
        )
    else:
        w.gate, w.failed = result.gate, figures
        if w.offered_at is None:
            w.offered_at = now
    return w


def start_revision(delib: Deliberation, now: float) -> None:
    """The revision round's synthesis-lead was spawned: the round is taken (from PRD_GENERATION
    the vote is reopened: the decision document waits for the new vote)."""
    w = delib.ways
    if w is None:
        return
    w.revision = "revising"
    if delib.phase == "PRD_GENERATION":
        phases.transition(delib, "RANKING", phase_words.REVISION, now)
        delib.outcome = None
        delib.decision = None
        delib.prd.status = "not_due"


def reviser(delib: Deliberation) -> "AgentRecord | None":
    """The revision round's synthesis report, once it is in (a synthesis report filed after the
    ways were offered)."""
    w = delib.ways
    if w is None or w.revision != "revising" or w.offered_at is None:
        return None
    done = [a for a in phases.current(delib, "deliberation") if a.kind == "synthesis" and a.spawned_at >= w.offered_at]
    return done[-1] if done else None


def apply_revision(delib: Deliberation, now: float) -> bool:
    """The revision's report is in: its approaches stand (its report superseded the earlier
    synthesis), the round's ranking reports are set aside, the fresh blind ranking is due.
    Returns False when there is nothing to apply."""
    rev = reviser(delib)
    w = delib.ways
    if rev is None or w is None:
        return False
    w.reviser = rev.key
    w.revision = "reranking"
    if w.before is not None:
        w.before["revised_approaches"] = phases.approaches(delib)
    for a in phases.current(delib, "ranking"):
        a.superseded = True
    delib.ranking = None
    delib.gate1 = delib.gate2 = None
    delib.conformity = []
    delib.updated_at = now
    return True


def after_rerank(delib: Deliberation) -> None:
    """The fresh ranking of the revised approaches is in: the round is used, whatever it gives."""
    w = delib.ways
    if w is not None and w.revision == "reranking" and phases.current(delib, "ranking"):
        w.revision = "used"


def hands_over(delib: Deliberation) -> bool:
    """Is a Stop now the hand-over to the user? The ways were offered before this Stop, and the
    vote still fails on agreement — or a revision round was taken and its fresh ranking never
    came (the main agent ended its turn instead)."""
    w = delib.ways
    if w is None or w.offered_at is None or w.handed_over_at is not None:
        return False
    if delib.phase not in ("RANKING", "PRD_GENERATION"):
        return False
    if w.revision == "reranking" and not phases.current(delib, "ranking"):
        return True
    return failing(delib) is not None


def reopenable(delib: Deliberation) -> bool:
    """Handed to the user with its one revision round unused, and not settled by them: the user may
    still ask for the round. (A model often asks the user which way to take; its turn ends, which
    hands the decision over — the person's answer "do the revision round" must still count.)"""
    w = delib.ways
    return (
        w is not None
        and w.handed_over_at is not None
        and w.revision == "available"
        and delib.phase == "COMPLETE"
        and delib.outcome == "no-consensus"
        and (delib.route is None or delib.route.review == "pending")
    )


def reopen(delib: Deliberation, now: float) -> None:
    """The user asked for the unused revision round after the hand-over: the deliberation is back
    at the failed vote (RANKING), the hand-over and its route undone; the round then runs as way (a)
    and the deliberation completes again with a fresh route and record."""
    w = delib.ways
    if w is None:
        return
    w.handed_over_at = None
    delib.phase_history.append(PhaseChange(from_phase=delib.phase, to_phase="RANKING", at=now, why=phase_words.REOPENED))
    delib.phase = "RANKING"
    delib.outcome = None
    delib.decision = None
    delib.route = None
    delib.updated_at = now


def hand_over(delib: Deliberation, now: float) -> None:
    """The decision is the user's: outcome no-consensus, nothing adopted; the route and the
    record follow (core/stop.py complete)."""
    w = delib.ways
    if w is not None:
        w.handed_over_at = now
    delib.outcome = "no-consensus"
    delib.decision = None
    delib.prd.status = "not_due"


def detail(delib: Deliberation) -> str:
    """The NO_CONSENSUS rule's detail: what failed and who holds the decision now."""
    w = delib.ways
    r = delib.ranking
    return words.no_consensus_detail(
        list(w.failed) if w is not None else [], r.leading if r is not None else None, w is not None and w.revision == "used"
    )


def route(cls: str, delib: Deliberation, policy: str = "") -> Route:
    """The route of a hand-over: human review, decided by NO_CONSENSUS (no policy rule can
    auto-execute a decision the panel did not reach)."""
    vote = escalation.vote_of(delib)
    return Route(
        route="human-review",
        decision_class=cls,
        unanimous=False,
        rules=[RouteRule(rule="NO_CONSENSUS", detail=detail(delib))],
        policy=policy,
        decided_by=RULE,
        judges_confidence=vote.confidence,
        review="pending",
    )


def view(delib: Deliberation) -> words.Ways:
    """What the ways forward say for `delib` now: what is contested, bounded for one hook answer,
    and whether the revision round is still open."""
    c = contest.contested(delib)
    titles = phases.approaches(delib)
    ranked = delib.ranking.approaches if delib.ranking else list(titles)
    dissent = []
    for d in c.dissenters[:SHOWN_DISSENT]:
        first = d.concerns[0] if d.concerns else None
        dissent.append(
            words.Dissent(
                persona=d.persona,
                preferred=d.preferred,
                margin=d.margin,
                target=first.target if first else "",
                concern=first.concern if first else "",
                reason=first.reason if first else "",
            )
        )
    merged: dict[tuple, list] = {}  # dimensions read the same way by the same rankers: one line
    for x in c.dimensions:
        merged.setdefault((x.approach, x.low, x.high, x.low_by, x.high_by), []).append(x)
    shown = list(c.approaches) + [replace(xs[0], dimension="/".join(x.dimension for x in xs)) for xs in merged.values()]
    shown.sort(key=lambda x: (-x.spread, x.dimension == "weighted", x.approach, x.dimension))
    return words.Ways(
        deliberation=delib.id,
        leader=c.leader,
        consensus=c.consensus,
        band=c.band,
        titles={a: titles.get(a, a) for a in ranked},
        split=[words.Share(approach=s.approach, rankers=s.rankers) for s in c.split],
        divergences=[
            words.Divergence(
                approach=x.approach, dimension=x.dimension, low=x.low, high=x.high, low_by=list(x.low_by), high_by=list(x.high_by)
            )
            for x in shown[:SHOWN_DIVERGENCES]
        ],
        dissent=dissent,
        more_dissent=max(0, len(c.dissenters) - SHOWN_DISSENT) + c.more_dissenters,
        revision="available" if not revision_used(delib) else "used",
        synthesis_type=f"{delib.agent_prefix}{SYNTHESIS}",
        findings=phases.finding_refs(delib),
    )


def failed_message(delib: Deliberation, result: GateResult, now: float) -> words.GateFailed:
    """A failed gate's hold: on agreement, the ways forward are offered (and recorded)."""
    if not on_agreement(result):
        return words.GateFailed(deliberation=delib.id, result=result)
    offer(delib, result, now)
    return words.GateFailed(deliberation=delib.id, result=result, ways=view(delib))
