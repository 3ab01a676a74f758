"""Stop: may the active deliberation conclude (core/stop.py decides, and words the answer).

This shell reconciles the lineage with the background tasks the client lists, notes a turn that
ends (the main agent idle, and what the client listed running: core/quiet_wait.py), and gives the
core what concluding needs: the route (registry, probes, escalations.json — app/adjudication),
the agents' usage (their transcripts) and the decision record (report/decision_record,
written in the session's transaction).
"""

from __future__ import annotations

from deliberation.app import adjudication, transcripts
from deliberation.app.handlers.common import Ctx
from deliberation.core import stop, workflows
from deliberation.core import lineage as lin
from deliberation.report import decision_record
from deliberation.state.models import Deliberation
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.Stop) -> hookio.Answer:
    if event.lists_background_tasks:
        lin.close_unlisted_starts(ctx.tx.lineage, event.running_background_ids, ctx.now)
        if ctx.tx.session.open_workflows:
            workflows.reconcile(ctx, event.running_background_ids)
    finish = stop.Finish(
        route=lambda d: adjudication.apply_route(ctx.tx, d, ctx.cfg.escalation),
        usage=transcripts.read_usage,
        record=lambda d: _write_record(ctx, d),
        escalation_reason=lambda d, r: adjudication.escalation_reason(d.id, r, d.decision),
        escalation_message=adjudication.escalation_message,
        main_usage=transcripts.read_main_usage,
    )
    answer = stop.at_stop(ctx, event, finish)
    if answer.decision != "block" and not answer.context:  # the turn ends: the main agent is idle
        ctx.tx.session.main_idle_since = ctx.now
        ctx.tx.session.running_at_stop = event.running_background_ids if event.lists_background_tasks else None
    return answer


def _write_record(ctx: Ctx, delib: Deliberation) -> str:
    """The decision record: its structured form on the deliberation, the Markdown file written
    in this transaction."""
    path = ctx.layout.record(delib.id)
    gates, prices = ctx.cfg.gates, ctx.cfg.cost.prices
    delib.record_path = path
    delib.record = decision_record.record_json(delib, gates.strong, gates.moderate, prices)
    text = decision_record.render_markdown(delib, ctx.tx.lineage, gates.strong, gates.moderate, prices)
    ctx.tx.write_file(path, text.encode())
    return path
