"""The Stop: may the active deliberation conclude, and what the stop says (pure; the route,
the transcripts and the record are the shell's, passed in as `Finish`).

While deliberation agents still run in the background, or their task notifications have not
reached the main agent yet, the stop goes through and nothing is decided (their reports arrive
later; queued gate news waits for those notifications). Otherwise the deliberation must conclude:
Gate 1, the depth step, Gate 2, then the decision document (PRD) in the main agent's concluding
answer. A gate failure holds the stop with the reason and the next step — at most
`gates.stop_block_limit` times in a row (`held`); past that the stop goes through, the
deliberation is FAILED with the reasons, its record is written and the user is told loudly. A
gate failed on agreement offers two ways forward (core/ways_forward.py); a Stop after they were
offered, the vote still failing, is the decision handed to the user: accepted, never held — the
deliberation is COMPLETE with outcome no-consensus and route human-review. A missing or invalid
document is sent back once, then recorded as missing: the decision stands. Then the route is
computed, the usage read, the record written, and the deliberation is COMPLETE. A route that
needs a person was announced with the document's request, with the sentence to tell the user;
when the concluding answer carries it the stop goes through, else (or when a probe changed the
route at the close) it is held once so the main agent tells the user (core/announce.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from deliberation.core import (
    agent_status,
    announce,
    consensus_gate,
    engine,
    escalation,
    human_review,
    phases,
    prd,
    ways_forward,
)
from deliberation.core import lineage as lin
from deliberation.core.turn import Turn
from deliberation.state.models import Deliberation, Route, TokenUsage
from deliberation.text import Words
from deliberation.text import review as review_words
from deliberation.text import stop as words
from deliberation.wire import hookio


@dataclass(frozen=True)
class Finish:
    """What concluding needs from the shell: the route (registry, probes, escalations.json),
    an agent's usage from its transcript, the decision record (rendered by report/, written in
    the transaction; returns its path), and the escalation texts of app/adjudication."""

    route: "Callable[[Deliberation], Route]"
    usage: "Callable[[str], TokenUsage | None]"
    record: "Callable[[Deliberation], str]"
    escalation_reason: "Callable[[Deliberation, Route], str]"
    escalation_message: "Callable[[Deliberation], str]"
    # the main agent's own calls since a time (its transcript), and the first of them's tokens
    main_usage: "Callable[[str | None, float], tuple[TokenUsage | None, int | None]]" = lambda _p, _t: (None, None)


def at_stop(turn: Turn, event: hookio.Stop, finish: Finish) -> hookio.Answer:
    """The Stop's answer, plus any spawn-budget notice the user has not been shown yet."""
    sess = turn.tx.session
    budget = turn.budget_for_user()  # shown now; kept for the main agent's next prompt
    kept = [n for n in sess.notices if n.kind == "budget"]
    answer = conclude(turn, event, finish)
    sess.notices = [n for n in sess.notices if n.kind != "budget"] + kept
    if budget:
        answer.warn(budget)
    return answer


def conclude(turn: Turn, event: hookio.Stop, finish: Finish) -> hookio.Answer:
    sess = turn.tx.session
    delib = turn.active()
    if delib is None:
        sess.notices = []
        return hookio.Answer()
    if not event.stop_hook_active:
        delib.stop_blocks = 0
    agent_status.expired(delib, turn.now, turn.cfg.spawn_budget.stale_after_s)
    wait = waiting_for(turn, delib)
    if wait:  # queued gate news stays for the task notifications to come
        turn.notes.append(wait)
        return hookio.Answer()
    sess.notices = []  # queued gate news is re-derived by the conclusion below
    offered = delib.ways is not None and delib.ways.offered_at is not None  # before this Stop
    step = engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals)
    hold, kind, hold_kinds = step.block, "gate", kinds_of(step.hold)
    limit = turn.cfg.gates.stop_block_limit
    if hold is None:
        conclusion = engine.conclude(
            delib,
            turn.cfg,
            turn.now,
            answer=event.last_assistant_message,
            may_block=delib.stop_blocks < limit,
            reversals=turn.reversals,
        )
        if conclusion.ready:
            return complete(turn, delib, finish, event.transcript_path, event.last_assistant_message)
        hold, kind, hold_kinds = conclusion.block or "", conclusion.kind, kinds_of(conclusion.hold)
    delib.updated_at = turn.now
    if kind == "document":  # the one send-back of the decision document (bounded by itself)
        delib.stop_blocks += 1
        turn.notes.append(f"decision document sent back ({delib.prd.send_backs})")
        return hookio.Answer.block(hold).saying(*hold_kinds)
    if offered and ways_forward.hands_over(delib):  # told the two ways, it ended its turn: way (b)
        ways_forward.hand_over(delib, turn.now)
        return complete(turn, delib, finish)
    return held(turn, delib, hold, limit, finish, hold_kinds)


def waiting_for(turn: Turn, delib: Deliberation) -> "str | None":
    """Why no verdict can be given yet (None: the deliberation may be judged now)."""
    running = phases.pending(delib)
    if running:
        return words.not_yet("agents", len(running))
    stale = turn.cfg.spawn_budget.stale_after_s
    if any(w.deliberation_id == delib.id for w in lin.active_workflows(turn.tx.lineage, turn.now, stale)):
        return words.not_yet("workflow")  # its notification ends in the Stop that decides
    unannounced = unannounced_reports(turn, delib)
    if unannounced:
        return words.not_yet("unannounced", len(unannounced))
    return None


def unannounced_reports(turn: Turn, delib: Deliberation) -> list:
    """Background agents that finished but whose task notification has not reached the main
    agent yet. The client delivers the notifications one turn at a time, each turn ending in a
    Stop, and never while a Stop block keeps the turn open: blocking now would starve them and
    judge a phase the main agent has not seen. So the stop goes through; the last notification's
    turn ends in the Stop that decides. (Bounded: older than stale_after_s no longer waits.)"""
    stale = turn.cfg.spawn_budget.stale_after_s
    return [
        a
        for a in delib.agents
        if a.background
        and not a.notified
        and a.status in ("reported", "invalid")
        and turn.now - (a.reported_at or a.spawned_at) <= stale
    ]


def held(
    turn: Turn, delib: Deliberation, hold: str, limit: int, finish: Finish, hold_kinds: "tuple[str, ...]" = ()
) -> hookio.Answer:
    """The stop-block limit: a gate's hold holds the stop `limit` times in a row; the next
    stop goes through and the deliberation is FAILED, loudly — with a decision record that
    says why, as a concluded one has."""
    if delib.stop_blocks >= limit:
        engine.fail(delib, [hold or "gates not met"], turn.now)
        finish.record(delib)
        turn.tx.session.active_deliberation = None
        failed = words.StopFailed(deliberation=delib.id, hold=hold, limit=limit)
        return _answer(words.stop_failed(failed)).saying(*hold_kinds, failed.kind)
    delib.stop_blocks += 1
    held_ = words.StopHeld(deliberation=delib.id, hold=hold, count=delib.stop_blocks, limit=limit)
    said = words.stop_held(held_)
    return hookio.Answer.block(said.model or "", system_message=said.person).saying(*hold_kinds, held_.kind)


def complete(
    turn: Turn, delib: Deliberation, finish: Finish, main_transcript: "str | None" = None, answer: "str | None" = None
) -> hookio.Answer:
    """Route, usage, record: the deliberation is COMPLETE. A route that needs a person was
    announced with the document's request; the stop holds once only when the concluding
    `answer` does not tell the user or the route is not the one announced (core/announce.py;
    the deliberation is closed, so the next Stop goes through). The cost counts
    every agent's calls, the plugin workflow's checkpoints' and the main agent's own since the
    prompt that asked for the deliberation."""
    route = finish.route(delib)
    for agent in delib.agents:  # every subagent has finished: its transcript holds all its calls
        if agent.transcript:
            agent.usage = finish.usage(agent.transcript) or agent.usage
    if delib.workflow is not None and delib.workflow.checkpoint_transcripts:
        read = [u for u in (finish.usage(p) for p in delib.workflow.checkpoint_transcripts) if u is not None]
        delib.workflow.checkpoint_usage = (
            TokenUsage(**{k: sum(getattr(u, k) for u in read) for k in TokenUsage.model_fields}) if read else None
        )
    if main_transcript and delib.prompt_at:
        main, first = finish.main_usage(main_transcript, delib.prompt_at)
        if main is not None:
            delib.main_usage, delib.main_first_call = main, first
    engine.finalize(delib, turn.now)
    finish.record(delib)
    turn.tx.session.active_deliberation = None
    r, st = delib.ranking, delib.prd
    if delib.outcome == "no-consensus":  # the main agent has presented the options: no hold
        over = words.HandedOver(
            deliberation=delib.id,
            leading=r.leading if r else None,
            consensus=r.consensus if r else 0.0,
            threshold=delib.threshold,
            task_type=delib.task_type,
            record=delib.record_path or "",
            revised=delib.ways is not None and delib.ways.revision != "available",
            unanimous=consensus_gate.outcome_of(delib).unanimous if r is not None else False,
        )
        return hookio.Answer(system_message=words.handed_over(over).person, kinds=(over.kind,))
    review = None
    if route.route not in escalation.AUTOMATIC:
        review = words.Review(
            notice=review_words.main_agent_notice(
                delib.id, route.route, finish.escalation_reason(delib, route), delib.decision, human_review.rules_text(route)
            ),
            message=finish.escalation_message(delib),
        )
    accepted = st.status == "accepted" and st.document is not None
    done = words.Completed(
        deliberation=delib.id,
        rejected=delib.outcome == "rejected",
        rejections=r.rejections if r else 0,
        leading=f"{r.leading}" if r else "-",
        consensus=r.consensus if r else 0.0,
        threshold=delib.threshold,
        task_type=delib.task_type,
        route=route.route,
        record=delib.record_path or "",
        document=prd.counts_text(st.document) if accepted and st.document is not None else None,
        send_backs=st.send_backs,
        problem=(st.problem or "none given").splitlines()[0],
        review=review,
    )
    said = words.completed(done)
    if review is None or not announce.needs_hold(route, st.announced, answer, delib.id):
        if review is not None:
            turn.notes.append(f"route {route.route} announced and told in the answer: no hold")
        return hookio.Answer(system_message=said.person, kinds=(done.kind,))
    return hookio.Answer.block(said.model or "", system_message=said.person).saying(done.kind)


def kinds_of(message: object) -> "tuple[str, ...]":
    """The kind of an outcome object (the text layer's `kind`), () for none."""
    kind = getattr(message, "kind", None)
    return (kind,) if isinstance(kind, str) else ()


def _answer(said: Words) -> hookio.Answer:
    return hookio.Answer(context=said.model, system_message=said.person)
