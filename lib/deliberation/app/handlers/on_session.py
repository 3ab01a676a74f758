"""SessionStart: after a restart or resume, remind Claude of an unfinished deliberation; tell the
person which settings of config.json wait for their approval."""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import engine
from deliberation.state.plain_reads import awaiting_approval
from deliberation.text import notes
from deliberation.text.render import render
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.SessionEvent) -> hookio.Answer:
    if event.hook_event_name != "SessionStart":
        return hookio.Answer()
    awaiting = awaiting_approval(ctx.layout)  # config.json settings that wait for this user (consent.py)
    if awaiting:
        ctx.warnings.append(awaiting)
    delib = ctx.active()
    if delib is None:
        return hookio.Answer()
    return hookio.Answer(context=render(notes.Reminder(progress=engine.progress_text(delib, ctx.cfg))))
