"""The SendMessage tool's PreToolUse: a message or a resume, checked like a spawn
(core/send_message.py; its PostToolUse and PostToolUseFailure go there too)."""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import send_message
from deliberation.wire import hookio


def pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    return send_message.requested(ctx, event)
