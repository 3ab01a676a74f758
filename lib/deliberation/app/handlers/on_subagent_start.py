"""SubagentStart: the child runs; an agent no hook could refuse is counted (core/starts.py)."""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import starts
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.SubagentStart) -> hookio.Answer:
    return starts.started(ctx, event)
