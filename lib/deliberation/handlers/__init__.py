"""The application layer: one module per hook event.

`dispatch` opens the session's transaction (its lock), runs the event's handler — which calls
the pure core and mutates the loaded models — logs the event with the decision, writes what
changed, and returns the Answer with any warnings (a quarantined file, config problems).
"""

from __future__ import annotations

from deliberation import hookio
from deliberation.handlers.common import Ctx, load_config


def dispatch(event: hookio.Event, layout, now: float) -> hookio.Answer:
    from deliberation.handlers import (on_post_tool, on_post_tool_failure, on_pre_tool, on_prompt,
                                       on_session, on_stop, on_subagent_start, on_subagent_stop)
    from deliberation.store import SessionTx, Store

    handlers = {
        hookio.UserPromptSubmit: on_prompt.handle,
        hookio.PreToolUse: on_pre_tool.handle,
        hookio.PostToolUse: on_post_tool.handle,
        hookio.PostToolUseFailure: on_post_tool_failure.handle,
        hookio.SubagentStart: on_subagent_start.handle,
        hookio.SubagentStop: on_subagent_stop.handle,
        hookio.Stop: on_stop.handle,
        hookio.SessionEvent: on_session.handle,
    }
    cfg, problems = load_config(layout)
    store = Store(layout, lock_timeout=cfg.lock_timeout_s)
    with SessionTx(store, event.session_id) as tx:
        ctx = Ctx(layout, store, cfg, tx, now)
        answer = handlers[type(event)](ctx, event)
        tx.log(ctx.event_record(event, answer))
    for warning in problems + store.warnings + ctx.warnings:
        answer.warn(warning)
    return answer
