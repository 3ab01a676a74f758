"""The deliberation engine: what follows from each recorded report, and the conclusion.

Pure over `state.Deliberation` + `config.Config`; the handlers own the I/O. Each function
returns a `Step` — what the main agent must be told, as an outcome of text/ (its words are
`Step.block` and `Step.context`): a hold (a gate failed, or the depth axis needs tier-2 workers
before ranking) or news (the progress note, the vote's outcome, the depth step's result).

    report recorded → after_report():  research done with exactly two personas → the 2-agent
                                       rule (minimum viable deliberation) and its depth step;
                                       red-team pass done → depth plan (hot spots);
                                       tier-2 done → red team 2 → depth-aware synthesis;
                                       ranking complete → vote → Gate 1 → passed: PRD_GENERATION,
                                       the decision document is asked for
    Stop (nothing pending) → conclude(): Gate 1 + Gate 2 → the decision document read from the
                                       concluding answer (accepted, sent back once, or recorded
                                       missing) → ready for the route and the record
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from deliberation.core import (
    announce,
    conformity,
    consensus_gate,
    independence,
    next_step,
    phases,
    prd,
    quality_gate,
    ranking,
    ways_forward,
)
from deliberation.core import minimum_deliberation as mvd
from deliberation.core.depth import axis as depth_axis
from deliberation.core.depth.hot_spots import find_hot_spots
from deliberation.state.config import Config
from deliberation.state.models import Deliberation, GateResult, ReversalRegistry
from deliberation.text import notes, stop
from deliberation.text import phases as phase_words
from deliberation.text.gates import RevisionIn
from deliberation.text.render import Message, render
from deliberation.text.render import person as person_line

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any


@dataclass
class Step:
    """What the main agent must be told. `hold`: it must act before it may conclude (the Stop is
    held on it); `news`: news or an instruction; `progress`: the news is only the progress note
    (re-derived when it is delivered, never queued); `then_next`: the news is said with the next
    accepted step as it stands when it is delivered (a background agent's news waits for its task
    notification, and the step may change by then)."""

    hold: "Message | None" = None
    news: "Message | None" = None
    progress: bool = False
    then_next: bool = False

    @property
    def block(self) -> "str | None":
        return render(self.hold) if self.hold is not None else None

    @property
    def context(self) -> "str | None":
        return render(self.news) if self.news is not None else None

    @property
    def kinds(self) -> "tuple[str, ...]":
        """The kinds of the outcomes it says (the hold's, then the news')."""
        return tuple(m.kind for m in (self.hold, self.news) if m is not None)

    @property
    def person(self) -> "str | None":
        """The line the person is shown with it (a failed gate, a route that needs them)."""
        message = self.hold if self.hold is not None else self.news
        return person_line(message) if message is not None else None


def weights(cfg: Config) -> "dict[str, float]":
    return {d.name: d.weight for d in cfg.ranking.dimensions}


def progress_text(delib: Deliberation, cfg: Config) -> str:
    """The progress note (next_step.py: what the main agent has, what is still to arrive, the
    next step the plugin will accept)."""
    return next_step.progress_text(delib, cfg)


# ---------------------------------------------------------------------------------------------


def depth_after_report(delib: Deliberation, cfg: Config, budget: depth_axis.BudgetView) -> "Step | None":
    """Move the depth axis along; a Step when the main agent must act on it."""
    if delib.phase != "DELIBERATION" or phases.pending(delib, "deliberation"):
        return None
    state = delib.depth
    if state.status == "not_needed" and not state.posture and depth_axis.red_team_done(delib, 1):
        plan = depth_axis.plan_depth(delib, cfg, budget)
        depth_axis.apply_plan(delib, plan)
        if plan.action == "deepen":
            return Step(hold=notes.DepthInstruction(text=depth_axis.instruction(plan, delib)))
        if plan.action == "skipped":
            return Step(news=notes.DepthSkipped(reason=state.skipped_reason), then_next=True)
        return None
    if state.status == "deepening" and depth_axis.wave_done(delib):
        state.status = "red_team_2"
        return Step(hold=notes.RedTeam2(text=depth_axis.red_team_2_instruction(delib)))
    if state.status == "red_team_2" and depth_axis.red_team_done(delib, 2):
        outcome = depth_axis.synthesize(delib)
        depth_axis.apply_outcome(delib, outcome)
        state.status = "done"
        return Step(news=notes.DepthSynthesis(text=depth_axis.outcome_text(delib, outcome)), then_next=True)
    return None


def ranking_complete(delib: Deliberation) -> bool:
    return delib.phase == "RANKING" and not phases.pending(delib, "ranking") and len(phases.current(delib, "ranking")) >= 1


def evaluate_vote(delib: Deliberation, cfg: Config, now: float) -> GateResult:
    """Ranking → consensus → conformity → Gate 1, recorded on the deliberation."""
    delib.ranking = ranking.rank(delib.agents, weights(cfg), depth_axis.struck_approaches(delib))
    delib.conformity = (
        conformity.detect_all(delib.agents, delib.ranking, cfg.conformity, delib.threshold)
        + mvd.herding_warning(delib)
        + independence.warning(delib)
        if delib.ranking
        else []
    )
    delib.gate1 = consensus_gate.evaluate(delib, cfg.deliberation.min_agents, now)
    return delib.gate1


def minimum_step(delib: Deliberation, cfg: Config, budget: depth_axis.BudgetView) -> "Step | None":
    """Research has just ended with exactly two personas: the 2-agent rule's outcome, told to
    the main agent, and how the form meets the depth axis (minimum_deliberation.py)."""
    if delib.phase != "RESEARCH" or delib.two_agent is not None or not mvd.eligible(delib):
        return None
    c = delib.two_agent = mvd.check(delib, cfg.conformity.same_reasoning_similarity)

    def form(case: Any, **more: Any) -> notes.TwoAgentForm:
        return notes.TwoAgentForm(deliberation=delib.id, agents=c.agents, verdict=c.verdict, detail=c.detail, case=case, **more)

    if c.verdict == "no_position":
        return Step(news=form("no_position"), then_next=True)
    enabled, why = depth_axis.depth_enabled(delib, cfg)
    if c.verdict in ("proceed", "suspect_herding"):
        if enabled:
            depth_axis.apply_plan(delib, depth_axis.DepthPlan("not_needed", cfg.depth.posture, True, why))
            delib.depth.basis = mvd.BASIS
        return Step(news=form("agree"), then_next=True)
    if not enabled:
        return Step(news=form("depth_off", why=why), then_next=True)
    plan = depth_axis.plan_depth(delib, cfg, budget, spots=find_hot_spots(delib, two_agent=True))
    depth_axis.apply_plan(delib, plan)
    delib.depth.basis = mvd.BASIS
    if plan.action == "deepen":
        return Step(hold=form("deepen", instruction=depth_axis.instruction(plan, delib)))
    return Step(news=form("skipped", why=plan.why), then_next=True)


Reversals = Callable[[], ReversalRegistry]  # the project's reversal registry, read when the route is announced


def _no_history() -> ReversalRegistry:
    return ReversalRegistry()


def after_report(
    delib: Deliberation, cfg: Config, budget: depth_axis.BudgetView, now: float, reversals: Reversals = _no_history
) -> Step:
    step = minimum_step(delib, cfg, budget)
    if step is not None:
        return step
    step = depth_after_report(delib, cfg, budget)
    if step is not None:
        return step
    if ways_forward.apply_revision(delib, now):  # the revision round's approaches: rank them afresh
        return Step(news=RevisionIn(deliberation=delib.id, titles=phases.approaches(delib)), then_next=True)
    if delib.phase == "PRD_GENERATION":  # the vote passed: the same news again (said once per batch)
        return Step(news=document_due(delib))
    if ranking_complete(delib):
        ways_forward.after_rerank(delib)
        gate1 = evaluate_vote(delib, cfg, now)
        if not gate1.passed:
            return Step(hold=ways_forward.failed_message(delib, gate1, now))
        open_document(delib, now, cfg, reversals)
        return Step(news=document_due(delib))
    return Step(news=notes.Said(text=progress_text(delib, cfg)), progress=True)


def open_document(delib: Deliberation, now: float, cfg: "Config | None" = None, reversals: Reversals = _no_history) -> None:
    """The vote passed the consensus gate: RANKING → PRD_GENERATION, the decision document is due.
    The decision is what the vote adopted (or nothing, on a unanimous reject); the route it will
    take is announced with the request (core/announce.py)."""
    r = delib.ranking
    delib.outcome = ranking.outcome(r)
    delib.decision = r.leading if r and delib.outcome == "adopted" else None
    phases.transition(
        delib, "PRD_GENERATION", phase_words.vote_passed(ranking.REJECTED if delib.outcome == "rejected" else None), now
    )
    delib.prd.status = "due"
    delib.prd.due_at = now
    delib.prd.announced = announce.announce(delib, (cfg or Config()).escalation, reversals())


def reopen_vote(delib: Deliberation, now: float, persona: str = "") -> None:
    """A ranking spawn during PRD_GENERATION: a re-rank — or a ranker that had not voted yet (a
    panel spawned one by one) — takes the vote again (PRD_GENERATION → RANKING); the decision
    and its document wait for the new vote."""
    joins = persona and not any(a.persona == persona for a in phases.current(delib, "ranking"))
    phases.transition(delib, "RANKING", phase_words.vote_reopened(persona if joins else ""), now)
    delib.outcome = None
    delib.decision = None
    prd.reset(delib)


def document_due(delib: Deliberation) -> notes.VotePassed:
    """What the main agent is told once the vote passed: the outcome, the conformity warnings,
    and the request for the decision document with its exact shape and the ids it may cite."""
    r = delib.ranking
    if ranking.unanimous_reject(r):
        concerns = [
            notes.Concern(persona=a.persona, concern=c.concern, reason=c.reason)
            for a in phases.current(delib, "ranking")
            for c in a.filed.dissent
        ][:6]
        return notes.VotePassed(
            deliberation=delib.id,
            rejected=True,
            rejections=r.rejections if r else 0,
            concerns=concerns,
            conformity=delib.conformity,
            request=prd.request_text(delib, len(notes.conformity_note(delib.conformity)) + 600),
            review=_review(delib),
        )
    passed = notes.VotePassed(
        deliberation=delib.id,
        leading=r.leading if r else None,
        consensus=r.consensus if r else 0.0,
        threshold=delib.threshold,
        conformity=delib.conformity,
        request="",
        review=_review(delib),
    )
    beside = len(notes.passed_text(passed)) + len(notes.conformity_note(delib.conformity)) + 2
    return passed.model_copy(update={"request": prd.request_text(delib, beside)})


def _review(delib: Deliberation) -> str:
    """The route announced with the document's request when it needs a person ('' else)."""
    announced = delib.prd.announced
    return announced.route if announced is not None and announce.needs_person(announced.route) else ""


@dataclass
class Conclusion:
    """May the deliberation conclude at this Stop: `ready`, or the `hold` that keeps it open
    (`kind` gate: a gate failed or ranking has not happened; document: the decision document is
    sent back, once)."""

    ready: bool
    hold: "Message | None" = None
    kind: Literal["gate", "document"] = "gate"

    @property
    def block(self) -> "str | None":
        return render(self.hold) if self.hold is not None else None


def conclude(
    delib: Deliberation, cfg: Config, now: float, answer: str = "", may_block: bool = True, reversals: Reversals = _no_history
) -> Conclusion:
    """At Stop with nothing pending: may this deliberation conclude?

    Before ranking it cannot: the hold names the next step the plugin will accept (next_step.py).
    Then Gate 1 (the vote), then Gate 2's checks of the deliberation; once both pass the decision
    document is read from the main agent's concluding `answer` — accepted, sent back once (a
    block of kind "document", only while `may_block`), or recorded missing — and Gate 2 gets
    its `decision_document` check. Ready = accepted or recorded missing."""
    if delib.phase == "RANKING":
        gate1 = evaluate_vote(delib, cfg, now)
    else:
        gate1 = delib.gate1 = consensus_gate.evaluate(delib, cfg.deliberation.min_agents, now)
    if delib.phase in ("IDLE", "RESEARCH", "DELIBERATION"):
        return Conclusion(
            False, notes.NotFinished(deliberation=delib.id, phase=delib.phase, progress=next_step.progress_text(delib, cfg))
        )
    if not gate1.passed:
        return Conclusion(False, ways_forward.failed_message(delib, gate1, now))
    if delib.phase == "RANKING":
        open_document(delib, now, cfg, reversals)
    gate2 = delib.gate2 = quality_gate.evaluate(delib, cfg, now)
    if not gate2.passed:
        return Conclusion(False, ways_forward.failed_message(delib, gate2, now))
    d = cfg.deliberation
    outcome = prd.capture(delib, answer, retries=d.report_retries, max_bytes=d.max_report_bytes, may_block=may_block, now=now)
    delib.gate2 = quality_gate.with_document(gate2, delib)
    if outcome.send_back:
        return Conclusion(False, stop.DocumentSentBack(problem=outcome.send_back), kind="document")
    return Conclusion(True)


def finalize(delib: Deliberation, now: float) -> None:
    """The route is recorded and the document closed: PRD_GENERATION → COMPLETE (RANKING →
    COMPLETE when the decision was handed to the user)."""
    st = delib.prd
    if delib.outcome == "no-consensus":
        what = phase_words.HANDED_OVER
    elif st.status == "accepted" and st.document:
        what = phase_words.document_accepted(prd.counts_text(st.document))
    else:
        what = phase_words.document_missing(st.send_backs)
    phases.transition(delib, "COMPLETE", phase_words.completed(delib.route.route if delib.route else None, what), now)


def fail(delib: Deliberation, reasons: "list[str]", now: float) -> None:
    delib.failure_reasons.extend(reasons)
    if delib.phase not in phases.CLOSED:
        phases.transition(delib, "FAILED", "; ".join(r.splitlines()[0] for r in reasons)[:300], now)
