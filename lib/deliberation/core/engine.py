"""The deliberation engine: what follows from each recorded report, and the conclusion.

Pure over `state.Deliberation` + `config.Config`; the handlers own the I/O. Each function
returns a `Step` — what the main agent must be told: a `block` reason (a gate failed, or the
depth axis needs tier-2 workers before ranking) or a progress `context`.

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

import hashlib
import re
from dataclasses import dataclass

from deliberation.core import conformity, consensus_gate, next_step, phases, prd, quality_gate, ranking
from deliberation.core import minimum_deliberation as mvd
from deliberation.core.depth import axis as depth_axis
from deliberation.core.depth.hot_spots import find_hot_spots
from deliberation.state.config import Config
from deliberation.state.models import HOT_SPOT_ID, AgentRecord, Deliberation, GivenContext

HOT_SPOT_CITED = re.compile(rf"\b{HOT_SPOT_ID}\b")



@dataclass
class Step:
    """What the main agent must be told. `block`: it must act before it may conclude (the
    Stop is held on it); `context`: news or an instruction; `progress`: the context is only the
    progress note (re-derived when it is delivered, never queued); `then_next`: the news is said
    with the next accepted step as it stands when it is delivered (a background agent's news
    waits for its task notification, and the step may change by then)."""
    block: "str | None" = None
    context: "str | None" = None
    progress: bool = False
    then_next: bool = False


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
            return Step(block=depth_axis.instruction(plan, delib))
        if plan.action == "skipped":
            return Step(context=f"⚠ {state.skipped_reason} The decision record says so.", then_next=True)
        return None
    if state.status == "deepening" and depth_axis.wave_done(delib):
        state.status = "red_team_2"
        return Step(block=depth_axis.red_team_2_instruction(delib))
    if state.status == "red_team_2" and depth_axis.red_team_done(delib, 2):
        outcome = depth_axis.synthesize(delib)
        depth_axis.apply_outcome(delib, outcome)
        state.status = "done"
        return Step(context=depth_axis.outcome_text(delib, outcome), then_next=True)
    return None


def ranking_complete(delib: Deliberation) -> bool:
    return (delib.phase == "RANKING" and not phases.pending(delib, "ranking")
            and len(phases.current(delib, "ranking")) >= 1)


def evaluate_vote(delib: Deliberation, cfg: Config, now: float) -> None:
    """Ranking → consensus → conformity → Gate 1, recorded on the deliberation."""
    delib.ranking = ranking.rank(delib.agents, weights(cfg), depth_axis.struck_approaches(delib))
    delib.conformity = (conformity.detect_all(delib.agents, delib.ranking, cfg.conformity, delib.threshold)
                        + mvd.herding_warning(delib) if delib.ranking else [])
    delib.gate1 = consensus_gate.evaluate(delib, cfg.deliberation.min_agents, now)


def minimum_step(delib: Deliberation, cfg: Config, budget: depth_axis.BudgetView) -> "Step | None":
    """Research has just ended with exactly two personas: the 2-agent rule's outcome, told to
    the main agent, and how the form meets the depth axis (minimum_deliberation.py)."""
    if delib.phase != "RESEARCH" or delib.two_agent is not None or not mvd.eligible(delib):
        return None
    c = delib.two_agent = mvd.check(delib, cfg.conformity.same_reasoning_similarity)
    head = (f"Deliberation {delib.id} — minimum viable deliberation (2 agents: {c.agents[0]}, "
            f"{c.agents[1]}): {mvd.OUTCOME_TEXT[c.verdict]}. {c.detail}.")
    full = f"(For the full deliberation instead, spawn {mvd.FULL_FORM}.)"
    if c.verdict == "no_position":
        return Step(context=(f"{head} For the 2-agent form each research report states its position "
                             "(preferred_approach, verdict approve/reject, rationale); the full deliberation "
                             "follows."), then_next=True)
    enabled, why = depth_axis.depth_enabled(delib, cfg)
    if c.verdict in ("proceed", "suspect_herding"):
        if enabled:
            depth_axis.apply_plan(delib, depth_axis.DepthPlan("not_needed", cfg.depth.posture, True, why))
            delib.depth.basis = mvd.BASIS
        warn = ("" if c.verdict == "proceed" else
                " ⚠ A warning, not a proof: the agreement may not be independent. Tell the user, and "
                "weigh it as one opinion; the decision record carries the warning.")
        return Step(context=f"{head}{warn} {full}", then_next=True)
    if not enabled:
        return Step(context=(f"{head} The depth axis is off for this deliberation ({why}): investigate "
                             "that conflict yourself before ranking — check the evidence each agent cites "
                             "— and name the contested point and its evidence (never their verdicts) in the "
                             f"ranking prompts. {full}"), then_next=True)
    plan = depth_axis.plan_depth(delib, cfg, budget, spots=find_hot_spots(delib, two_agent=True))
    depth_axis.apply_plan(delib, plan)
    delib.depth.basis = mvd.BASIS
    if plan.action == "deepen":
        return Step(block=(f"{head} Investigate that conflict before ranking: the depth axis digs into "
                           "it, the AGAINST agent's objections standing in for the red-team pass.\n"
                           + depth_axis.instruction(plan, delib)
                           + f"\n\nThen both personas rank. {full}"))
    return Step(context=f"{head} ⚠ {plan.why} The decision record says so. {full}", then_next=True)


def after_report(delib: Deliberation, cfg: Config, budget: depth_axis.BudgetView, now: float) -> Step:
    step = minimum_step(delib, cfg, budget)
    if step is not None:
        return step
    step = depth_after_report(delib, cfg, budget)
    if step is not None:
        return step
    if delib.phase == "PRD_GENERATION":  # the vote passed: the same news again (said once per batch)
        return Step(context=document_due_text(delib))
    if ranking_complete(delib):
        evaluate_vote(delib, cfg, now)
        if not delib.gate1.passed:  # type: ignore[union-attr]
            return Step(block=consensus_gate.reason_text(delib, delib.gate1))  # type: ignore[arg-type]
        open_document(delib, now)
        return Step(context=document_due_text(delib))
    return Step(context=progress_text(delib, cfg), progress=True)


def open_document(delib: Deliberation, now: float) -> None:
    """The vote passed the consensus gate: RANKING → PRD_GENERATION, the decision document is due.
    The decision is what the vote adopted (or nothing, on a unanimous reject)."""
    r = delib.ranking
    delib.outcome = ranking.outcome(r)  # type: ignore[assignment]
    delib.decision = r.leading if r and delib.outcome == "adopted" else None
    phases.transition(delib, "PRD_GENERATION", "consensus gate passed" + (
        f" ({ranking.REJECTED})" if delib.outcome == "rejected" else "") + ": the decision document is due", now)
    delib.prd.status = "due"
    delib.prd.due_at = now


def enter_stage(delib: Deliberation, kind: str, stage: str, persona: str, now: float) -> None:
    """An accepted spawn of `kind` working in `stage`: the phase moves with it (a deliberation role
    after research, the first ranker, a re-rank, a ranker during PRD_GENERATION)."""
    if stage == "deliberation" and delib.phase == "RESEARCH":
        n = len(phases.current(delib, "research"))
        phases.transition(delib, "DELIBERATION", f"{kind} spawned after {n} research reports", now)
    elif stage == "ranking" and delib.phase in ("RESEARCH", "DELIBERATION"):
        if delib.phase == "RESEARCH":
            phases.transition(delib, "DELIBERATION", "breadth-only: the research proposals stand as "
                              "the alternatives", now)
        phases.transition(delib, "RANKING", "first ranking persona spawned", now)
    elif stage == "ranking" and delib.phase == "RANKING" and not phases.pending(delib, "ranking") \
            and phases.current(delib, "ranking"):
        phases.transition(delib, "RANKING", "re-rank", now)
    elif stage == "ranking" and delib.phase == "PRD_GENERATION":
        reopen_vote(delib, now, persona)


def add_agent(delib: Deliberation, *, key: str, tool_use_id: "str | None", agent_type: str, kind: str,
              stage: str, background: bool, prompt: str, isolation: str, model: "str | None", now: float,
              channel: str = "agent", label: str = "", wave: int = 0) -> AgentRecord:
    """Record an accepted deliberation spawn (an Agent call, or an agent of a workflow wave): the
    phase moves with it, its tier and red-team round, what it was given; a lens opens the wave."""
    from deliberation.core.personas import normalise_agent_type

    persona = normalise_agent_type(agent_type)
    enter_stage(delib, kind, stage, persona, now)
    tier, red_team_round = depth_axis.spawn_tier(agent_type, delib)
    rec = AgentRecord(key=key, tool_use_id=tool_use_id, persona=persona, kind=kind, stage=stage,  # type: ignore[arg-type]
                      tier=tier, red_team_round=red_team_round, background=background, spawned_at=now,
                      model_requested=model, given=given_context(prompt, agent_type, delib, isolation),
                      channel=channel, label=label, wave=wave)  # type: ignore[arg-type]
    delib.agents.append(rec)
    delib.last_delivered = ""  # a new spawn: the next gate or progress news is new again
    delib.updated_at = now
    if kind == "lens" and delib.depth.status == "pending":
        delib.depth.status = "deepening"
    if tier == 2:
        depth_axis.refresh_counts(delib, check=False)
    return rec


def given_context(prompt: str, subagent_type: str, delib: Deliberation, isolation: str) -> GivenContext:
    """What a spawned agent was given, for the audit: the prompt's size and hash, the hot spots
    it cites, whether it was a fork, the isolation check's result."""
    from deliberation.core.personas import normalise_agent_type

    known = {h.id for h in delib.depth.hot_spots}
    return GivenContext(prompt_chars=len(prompt),
                        prompt_sha256=hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest(),
                        hot_spots=sorted(set(HOT_SPOT_CITED.findall(prompt)) & known),
                        fork=normalise_agent_type(subagent_type) == "fork", isolation=isolation)


def reopen_vote(delib: Deliberation, now: float, persona: str = "") -> None:
    """A ranking spawn during PRD_GENERATION: a re-rank — or a ranker that had not voted yet (a
    panel spawned one by one) — takes the vote again (PRD_GENERATION → RANKING); the decision
    and its document wait for the new vote."""
    joins = persona and not any(a.persona == persona for a in phases.current(delib, "ranking"))
    what = f"{persona} joins the vote" if joins else "re-rank"
    phases.transition(delib, "RANKING", f"{what}: the vote is taken again; the decision document waits for it", now)
    delib.outcome = None
    delib.decision = None
    prd.reset(delib)


def document_due_text(delib: Deliberation) -> str:
    """What the main agent is told once the vote passed: the outcome, the conformity warnings,
    and the request for the decision document with its exact shape and the ids it may cite."""
    parts = [passed_text(delib)]
    note = conformity_note(delib)
    if note:
        parts.append(note)
    parts.append(prd.request_text(delib))
    return "\n".join(parts)


def passed_text(delib: Deliberation) -> str:
    """What the main agent is told when Gate 1 passes: the adopted approach, or the rejection."""
    r = delib.ranking
    if ranking.unanimous_reject(r):
        concerns = [f"- {a.persona}: {c.concern} — {c.reason}" for a in phases.current(delib, "ranking")
                    for c in a.report.dissent][:6]  # type: ignore[union-attr]
        lines = [f"Deliberation {delib.id}: the panel unanimously REJECTED every approach "
                 f"({r.rejections} of {r.rejections} voting agents reject) — {ranking.REJECTED}. "  # type: ignore[union-attr]
                 "Do not implement any of the approaches."]
        if concerns:
            lines += ["The rejecting agents' concerns:", *concerns]
        return "\n".join(lines)
    return (f"Deliberation {delib.id}: consensus gate passed — leading approach "
            f"{r.leading}, consensus {r.consensus:.2f} ≥ {delib.threshold:.2f}.")  # type: ignore[union-attr]


def conformity_note(delib: Deliberation) -> str:
    """The vote's conformity warnings for the main agent ('' when none): they warn, they do not
    block (unless conformity.blocking, at the quality gate)."""
    if not delib.conformity:
        return ""
    lines = [f"⚠ Conformity warning ({len(delib.conformity)}): agreement that may not come from "
             "independent evaluation. A warning, not a proof — genuine agreement reached for "
             "different reasons looks the same; say so in the summary."]
    lines += [f"- {w.detector}: {w.evidence} Recommended: {w.recommendation}." for w in delib.conformity]
    return "\n".join(lines)


@dataclass
class Conclusion:
    ready: bool
    block: "str | None" = None
    kind: str = "gate"  # "gate": a gate failed; "document": the decision document is sent back


def conclude(delib: Deliberation, cfg: Config, now: float, answer: str = "",
             may_block: bool = True) -> Conclusion:
    """At Stop with nothing pending: may this deliberation conclude?

    Before ranking it cannot: the hold names the next step the plugin will accept (next_step.py).
    Then Gate 1 (the vote), then Gate 2's checks of the deliberation; once both pass the decision
    document is read from the main agent's concluding `answer` — accepted, sent back once (a
    block of kind "document", only while `may_block`), or recorded missing — and Gate 2 gets
    its `decision_document` check. Ready = accepted or recorded missing."""
    if delib.phase == "RANKING":
        evaluate_vote(delib, cfg, now)
    else:
        delib.gate1 = consensus_gate.evaluate(delib, cfg.deliberation.min_agents, now)
    if delib.phase in ("IDLE", "RESEARCH", "DELIBERATION"):
            return Conclusion(False, (f"Deliberation {delib.id} is not finished (phase {delib.phase}): it "
                                  "concludes after the blind ranking.\n" + next_step.progress_text(delib, cfg)))
    if not delib.gate1.passed:  # type: ignore[union-attr]
        return Conclusion(False, consensus_gate.reason_text(delib, delib.gate1))  # type: ignore[arg-type]
    if delib.phase == "RANKING":
        open_document(delib, now)
    g = cfg.gates
    delib.gate2 = quality_gate.evaluate(
        delib, min_distinct_personas=cfg.deliberation.min_distinct_personas,
        min_alternatives=cfg.deliberation.min_alternatives, strong=g.strong, moderate=g.moderate,
        require_improvement=g.require_improvement, conformity=delib.conformity,
        conformity_blocks=cfg.conformity.blocking, now=now)
    if not delib.gate2.passed:
        return Conclusion(False, quality_gate.reason_text(delib, delib.gate2))
    d = cfg.deliberation
    outcome = prd.capture(delib, answer, retries=d.report_retries, max_bytes=d.max_report_bytes,
                          may_block=may_block, now=now)
    delib.gate2 = quality_gate.with_document(delib.gate2, delib)
    if outcome.send_back:
        return Conclusion(False, outcome.send_back, kind="document")
    return Conclusion(True)


def finalize(delib: Deliberation, now: float) -> None:
    """The route is recorded and the document closed: PRD_GENERATION → COMPLETE."""
    st = delib.prd
    what = (f"decision document accepted ({prd.counts_text(st.document)})" if st.status == "accepted" and st.document
            else f"decision document missing after {st.send_backs} send-back(s)")
    route = delib.route.route if delib.route else "no route"
    phases.transition(delib, "COMPLETE", f"decision record written ({route}); {what}", now)


def fail(delib: Deliberation, reasons: "list[str]", now: float) -> None:
    delib.failure_reasons.extend(reasons)
    if delib.phase not in phases.CLOSED:
        phases.transition(delib, "FAILED", "; ".join(r.splitlines()[0] for r in reasons)[:300], now)
