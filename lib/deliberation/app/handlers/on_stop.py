"""Stop: Gate 2, the depth-axis step, the decision document, the route and the decision record.

While deliberation agents still run in the background, or their task notifications have not
reached the main agent yet, the stop goes through and nothing is decided (their reports
arrive later; queued gate news waits for those notifications). Otherwise the deliberation must
conclude: Gate 1, the depth step, Gate 2, then the decision document (PRD) in the main agent's
concluding answer (`last_assistant_message`). A gate failure blocks the stop with the reason and
the next step — at most `gates.stop_block_limit` times in a row; past that the stop goes through,
the deliberation is marked FAILED with the reasons and the user sees a loud message. A missing or
invalid document is sent back once (a block within the same bound), then recorded as missing:
the decision stands, the record and the user's message say the document is missing. Then the
route is computed (registry + probes), the usage read from the subagents' transcripts, the
decision record written, and the deliberation COMPLETE; a route that needs a person holds the
stop once, so the main agent tells the user before its final answer that the decision awaits
review and by which command it is settled.
"""

from __future__ import annotations

from deliberation.core import engine, phases
from deliberation.wire import hookio
from deliberation.app.handlers.common import Ctx, budget_view


def handle(ctx: Ctx, event: hookio.Stop) -> hookio.Answer:
    """The Stop's answer, plus any spawn-budget notice the user has not been shown yet."""
    sess = ctx.tx.session
    if event.lists_background_tasks:
        from deliberation.core import lineage as lin

        lin.close_unlisted_starts(ctx.tx.lineage, event.running_background_ids, ctx.now)
        if sess.open_workflows:
            from deliberation.app.handlers import workflow_tool

            workflow_tool.reconcile(ctx, event.running_background_ids)
    budget = ctx.budget_for_user()  # shown now; kept for the main agent's next prompt
    kept = [n for n in sess.notices if n.kind == "budget"]
    answer = _conclude(ctx, event)
    sess.notices = [n for n in sess.notices if n.kind != "budget"] + kept
    if budget:
        answer.warn(budget)
    return answer


def _conclude(ctx: Ctx, event: hookio.Stop) -> hookio.Answer:
    sess = ctx.tx.session
    delib = ctx.active()
    if delib is None:
        sess.notices = []
        return hookio.Answer()
    if not event.stop_hook_active:
        delib.stop_blocks = 0
    _expire_lost_agents(ctx, delib)
    running = phases.pending(delib)
    if running:  # queued gate news stays for the task notifications to come
        ctx.notes.append(f"{len(running)} deliberation agent(s) pending: no verdict yet")
        return hookio.Answer()
    if _workflow_running(ctx, delib):  # its notification ends in the Stop that decides
        ctx.notes.append("a workflow launched in this deliberation still runs: no verdict yet")
        return hookio.Answer()
    unannounced = _unannounced(ctx, delib)
    if unannounced:
        ctx.notes.append(f"{len(unannounced)} background report(s) not yet announced to the main "
                         "agent: no verdict yet")
        return hookio.Answer()
    sess.notices = []  # queued gate news is re-derived by the conclusion below
    step = engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now)
    block = step.block
    limit = ctx.cfg.gates.stop_block_limit
    kind = "gate"
    if block is None:
        conclusion = engine.conclude(delib, ctx.cfg, ctx.now, answer=event.last_assistant_message,
                                     may_block=delib.stop_blocks < limit)
        if conclusion.ready:
            return _complete(ctx, delib, event.transcript_path)
        block, kind = conclusion.block, conclusion.kind
    delib.updated_at = ctx.now
    if kind == "document":  # the one send-back of the decision document (bounded by itself)
        delib.stop_blocks += 1
        ctx.notes.append(f"decision document sent back ({delib.prd.send_backs})")
        return hookio.Answer.block(f"{block}\n(The document is sent back this once; without a valid one at "
                                   "your next stop the decision is recorded without it.)")
    if delib.stop_blocks >= limit:
        engine.fail(delib, [block or "gates not met"], ctx.now)
        sess.active_deliberation = None
        return hookio.Answer(system_message=(
            f"⚠ DELIBERATION {delib.id} FAILED — the stop was blocked {limit} times in a row and the "
            f"gates are still not met; the decision is NOT validated.\n{(block or '').splitlines()[0]}\n"
            f"See `deliberation show {delib.id}`."))
    delib.stop_blocks += 1
    first = (block or "").splitlines()[0] if block else ""
    return hookio.Answer.block(f"{block}\n(Stop blocked {delib.stop_blocks} of {limit}; after that the "
                               "deliberation is marked FAILED.)",
                               system_message=(f"deliberation {delib.id}: Claude continues — stop held "
                                               f"{delib.stop_blocks} of {limit}: {first[:200]}"))


def _workflow_running(ctx: Ctx, delib) -> bool:
    from deliberation.core import lineage as lin

    return any(w.deliberation_id == delib.id for w in
               lin.active_workflows(ctx.tx.lineage, ctx.now, ctx.cfg.spawn_budget.stale_after_s))


def _expire_lost_agents(ctx: Ctx, delib) -> None:
    """A spawn never seen to run for `stale_after_s` will not report: stop waiting for it."""
    stale = ctx.cfg.spawn_budget.stale_after_s
    for rec in phases.pending(delib):
        if ctx.now - rec.spawned_at > stale:
            rec.status = "invalid"
            rec.problem = f"no report within {stale}s of the spawn"


def _unannounced(ctx: Ctx, delib) -> list:
    """Background agents that finished but whose task notification has not reached the main
    agent yet. The client delivers the notifications one turn at a time, each turn ending in a
    Stop, and never while a Stop block keeps the turn open: blocking now would starve them and
    judge a phase the main agent has not seen. So the stop goes through; the last notification's
    turn ends in the Stop that decides. (Bounded: older than stale_after_s no longer waits.)"""
    stale = ctx.cfg.spawn_budget.stale_after_s
    return [a for a in delib.agents if a.background and not a.notified
            and a.status in ("reported", "invalid") and ctx.now - (a.reported_at or a.spawned_at) <= stale]


def _complete(ctx: Ctx, delib, main_transcript: "str | None" = None) -> hookio.Answer:
    from deliberation.app import adjudication, transcripts
    from deliberation.report import decision_record
    from deliberation.core import escalation, prd, ranking

    route = adjudication.apply_route(ctx.tx, delib, ctx.cfg.escalation)
    for agent in delib.agents:  # every subagent has finished: its transcript holds all its calls
        if agent.transcript:
            agent.usage = transcripts.read_usage(agent.transcript) or agent.usage
    if delib.workflow is not None and delib.workflow.checkpoint_transcripts:
        from deliberation.state.models import TokenUsage

        parts = [transcripts.read_usage(p) for p in delib.workflow.checkpoint_transcripts]
        read = [p for p in parts if p is not None]
        delib.workflow.checkpoint_usage = TokenUsage(**{k: sum(getattr(p, k) for p in read)
                                                        for k in TokenUsage.model_fields}) if read else None
    if main_transcript and delib.prompt_at:  # the main agent's own calls since the prompt that asked for it
        main, first = transcripts.read_main_usage(main_transcript, delib.prompt_at)
        if main is not None:
            delib.main_usage, delib.main_first_call = main, first
    engine.finalize(delib, ctx.now)
    path = ctx.layout.record(delib.id)
    gates = ctx.cfg.gates
    delib.record_path = path
    delib.record = decision_record.record_json(delib, gates.strong, gates.moderate, ctx.cfg.cost.prices)
    text = decision_record.render_markdown(delib, ctx.tx.lineage, gates.strong, gates.moderate, ctx.cfg.cost.prices)
    ctx.tx.write_file(path, text.encode())
    ctx.tx.session.active_deliberation = None
    r = delib.ranking
    if delib.outcome == "rejected":
        summary = (f"Deliberation {delib.id} COMPLETE: {ranking.REJECTED} (unanimous reject, "
                   f"{r.rejections if r else 0} of {r.rejections if r else 0} voting agents); "
                   f"route {route.route}; record {path}")
    else:
        summary = (f"Deliberation {delib.id} COMPLETE: {r.leading if r else '-'} "
                   f"(consensus {r.consensus if r else 0:.2f} ≥ {delib.threshold:.2f}, {delib.task_type}); "
                   f"route {route.route}; record {path}")
    st = delib.prd
    if st.status == "accepted" and st.document is not None:
        summary += f"\nDecision document: {prd.counts_text(st.document)}."
    else:
        summary = (f"⚠ Decision document MISSING (after {st.send_backs} send-back(s): "
                   f"{(st.problem or 'none given').splitlines()[0]}) — the decision stands; write it up "
                   f"by hand.\n{summary}")
    summary += "\nThe record holds the findings by persona, the document and the cost (tokens per agent, wall time)."
    if route.route in escalation.AUTOMATIC:
        return hookio.Answer(system_message=summary)
    # the main agent learns it before its final answer (one hold: the deliberation is closed, so
    # the next Stop goes through); the user reads the loud message
    from deliberation.core import human_review

    notice = human_review.main_agent_notice(delib.id, route.route, adjudication.escalation_reason(
        delib.id, route, delib.decision), delib.decision, human_review.rules_text(route))
    return hookio.Answer.block(notice, system_message=f"⚠ {adjudication.escalation_message(delib)}\n{summary}")
