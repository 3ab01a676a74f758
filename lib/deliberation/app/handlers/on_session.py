"""SessionStart: the once-per-session self-rating instruction (as on the fast path), and after a
restart or resume, a reminder of an unfinished deliberation; the person is told which settings of
config.json wait for their approval, and which files take the plugin's names (app/shadowed.py)."""

from __future__ import annotations

from deliberation.app import shadowed
from deliberation.app.handlers.common import Ctx
from deliberation.core import engine
from deliberation.state.paths import plugin_agent_prefix
from deliberation.state import consent
from deliberation.state.plain_reads import awaiting_approval
from deliberation.text import consent as consent_words
from deliberation.text import notes, self_rating
from deliberation.text import shadows as shadow_words
from deliberation.text.render import render
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.SessionEvent) -> hookio.Answer:
    if event.hook_event_name != "SessionStart":
        return hookio.Answer()
    waiting = awaiting_approval(ctx.layout)  # config.json settings that wait for this user (consent.py)
    if waiting is None:  # no valid cache to say it: ask config.json
        waiting = consent.pending(ctx.layout)
    if waiting:
        ctx.warnings.append(consent_words.awaiting([i.pair() for i in waiting], ctx.layout.project))
    taken = shadow_words.session_start(shadowed.at_session_start(ctx.layout))
    if taken:  # a file of the project answers one of the plugin's names
        ctx.warnings.append(taken)
    said = []
    if ctx.cfg.trigger.enabled and ctx.cfg.trigger.self_rating:
        said.append(self_rating.text(ctx.cfg.task_types.thresholds, plugin_agent_prefix(), ctx.cfg.trigger.threshold))
    delib = ctx.active()
    if delib is not None:
        said.append(render(notes.Reminder(progress=engine.progress_text(delib, ctx.cfg))))
    return hookio.Answer(context="\n\n".join(said) or None)
