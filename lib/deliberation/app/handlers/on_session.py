"""SessionStart: after a restart or resume, remind Claude of an unfinished deliberation; tell the
person which settings of config.json wait for their approval."""

from __future__ import annotations

from deliberation.core import engine
from deliberation.wire import hookio
from deliberation.app.handlers.common import Ctx


def handle(ctx: Ctx, event: hookio.SessionEvent) -> hookio.Answer:
    if event.hook_event_name != "SessionStart":
        return hookio.Answer()
    from deliberation.state.plain_reads import awaiting_approval

    awaiting = awaiting_approval(ctx.layout)  # config.json settings that wait for this user (consent.py)
    if awaiting:
        ctx.warnings.append(awaiting)
    delib = ctx.active()
    if delib is None:
        return hookio.Answer()
    return hookio.Answer(context="An unfinished deliberation is open in this session. "
                         + engine.progress_text(delib, ctx.cfg))
