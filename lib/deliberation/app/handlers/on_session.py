"""SessionStart: after a restart or resume, remind Claude of an unfinished deliberation."""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import engine
from deliberation.text import notes
from deliberation.text.render import render
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.SessionEvent) -> hookio.Answer:
    if event.hook_event_name != "SessionStart":
        return hookio.Answer()
    delib = ctx.active()
    if delib is None:
        return hookio.Answer()
    return hookio.Answer(context=render(notes.Reminder(progress=engine.progress_text(delib, ctx.cfg))))
