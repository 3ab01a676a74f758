"""The application layer: one module per hook event.

`dispatch` judges the event's agent types first (app/vouch.py: a persona is the plugin's own
agent, or no persona), opens the session's transaction (its lock), runs the event's handler — which calls
the pure core and mutates the loaded models — logs the event with the decision, writes what
changed, and returns the Answer with any warnings (a quarantined file, config problems).
Events of one session that reach the warm worker together share one transaction
(`group_commit`): the same result as one after the other, with one load and one write.
An event whose worker died after taking it (`event.rerun`) is answered from the event log when
it was committed, and applied only when it was not: handling an event is idempotent.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from deliberation.app.handlers import (
    on_post_tool,
    on_post_tool_failure,
    on_pre_tool,
    on_prompt,
    on_session,
    on_stop,
    on_subagent_start,
    on_subagent_stop,
)
from deliberation.app import vouch
from deliberation.app.handlers.common import Ctx
from deliberation.app.settings import project_config
from deliberation.state import event_log, group_commit
from deliberation.state.paths import REQUEST_DEADLINE, Layout
from deliberation.state.store import SessionTx, Store
from deliberation.wire import hookio

HANDLERS: "dict[type, Callable[[Ctx, Any], hookio.Answer]]" = {
    hookio.UserPromptSubmit: on_prompt.handle,
    hookio.PreToolUse: on_pre_tool.handle,
    hookio.PostToolUse: on_post_tool.handle,
    hookio.PostToolUseFailure: on_post_tool_failure.handle,
    hookio.SubagentStart: on_subagent_start.handle,
    hookio.SubagentStop: on_subagent_stop.handle,
    hookio.Stop: on_stop.handle,
    hookio.SessionEvent: on_session.handle,
}


def dispatch(event: hookio.Event, layout: Layout, now: float) -> hookio.Answer:
    handler = HANDLERS[type(event)]
    cfg, problems = project_config(layout)
    judge = vouch.session_vouch(layout)
    vouch.apply(event, judge)  # before any rule reads an agent type: a persona is the plugin's own agent

    def open_tx() -> "tuple[Store, SessionTx]":
        store = Store(layout, lock_timeout=cfg.lock_timeout_s)
        tx = SessionTx(store, event.session_id)
        tx.limit_commit(REQUEST_DEADLINE.get())
        return store, tx

    def apply(store: Store, tx: SessionTx) -> "tuple[hookio.Answer, list[str]]":
        tx.limit_commit(REQUEST_DEADLINE.get())
        if event.rerun:  # its worker died: committed (maybe by the journal just replayed) or not
            logged = event_log.logged_answer(layout, event.session_id, event.event_id)
            if logged is not None:
                return logged, []
        ctx = Ctx(layout, store, cfg, tx, now)
        ctx.vouch = judge
        answer = handler(ctx, event)
        ctx.log_event(event, answer)
        return answer, ctx.warnings

    timeout = cfg.lock_timeout_s
    deadline = REQUEST_DEADLINE.get()
    if deadline is not None:
        timeout = max(0.0, min(timeout, deadline - time.time()))
    answer, warnings = group_commit.run((layout.root, event.session_id), apply, open_tx, timeout)
    for warning in dict.fromkeys(problems + warnings):
        answer.warn(warning)
    return answer
