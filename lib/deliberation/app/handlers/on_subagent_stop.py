"""SubagentStop: capture a deliberation agent's report; send an invalid one back once
(core/arrival.py). The answer goes to the SUBAGENT.

Gate results for the main agent travel otherwise: a foreground agent's through PostToolUse
(which fires next), a background agent's as a queued notice delivered once every result it
follows from has reached the main agent (task notifications), or at Stop. The model the agent
ran on and its token figure are read from its transcript when the client did not report them.
"""

from __future__ import annotations

from deliberation.app import transcripts
from deliberation.app.handlers.common import Ctx, transcript_model
from deliberation.core import arrival
from deliberation.wire import hookio

READ = arrival.Transcripts(tokens=transcripts.read_transcript, model=transcript_model)


def handle(ctx: Ctx, event: hookio.SubagentStop) -> hookio.Answer:
    return arrival.subagent_stopped(ctx, event, READ)
