"""Delivering what the engine decided: to the main agent now, or queued for its task notification.

A foreground agent's report reaches the main agent in its Agent tool result, so its news is the
answer of that PostToolUse; a background agent's news waits in the session's notices until its
task notification (or hand-back message) has reached the main agent (core/news.py says it then).
A batch's news is said once (`say_once`). A failed gate and a route that needs a person have a
line for the person too (the model's context is hidden from them): a systemMessage with the news.
"""

from __future__ import annotations

import zlib

from deliberation.core import next_step
from deliberation.core.engine import Step
from deliberation.core.turn import Turn
from deliberation.state.models import Deliberation
from deliberation.wire import hookio


def deliver(turn: Turn, step: Step, delib: Deliberation, background: bool) -> hookio.Answer:
    """A foreground agent's step goes straight to the main agent; a background one is queued
    until its task notification (a progress note is not queued: it is said fresh then)."""
    if background:
        queue(turn, step, delib)
        return hookio.Answer()
    context = step.context
    if context and step.then_next:
        context = next_step.with_next(delib, turn.cfg, context)
    if step.block:
        return say_once(
            turn, delib, hookio.Answer.block(step.block, context=context, system_message=step.person).saying(*step.kinds)
        )
    return say_once(turn, delib, hookio.Answer(context=context, system_message=step.person, kinds=step.kinds))


def queue(turn: Turn, step: Step, delib: Deliberation) -> None:
    """Queue a background agent's news (never a bare progress note: that is said fresh), and the
    person's line of it, shown when the news is said."""
    if step.block:
        turn.notify(delib, "gate1", step.block, True)
    elif step.context and not step.progress:
        turn.notify(delib, "info", step.context, False, then_next=step.then_next)
    else:
        return
    person = step.person
    if person:
        turn.notify(delib, "person", person, False)


def say_once(turn: Turn, delib: Deliberation, answer: hookio.Answer) -> hookio.Answer:
    """Say a batch's news once. A batch's PreToolUse hooks all fire before its first PostToolUse;
    parallel foreground agents all report (SubagentStop) before it too, and a parallel
    background launch fires one PostToolUse per agent — so every PostToolUse of the batch would
    put a note into the same model request, the later ones repeating the first (or re-saying
    what it asked for as progress). The first answer since the last spawn speaks for the batch;
    the rest stay silent (a new spawn clears the memory, so the same verdict after a re-rank is
    said again)."""
    digest = message_digest(answer.reason if answer.decision else None, answer.context)
    if digest and delib.last_delivered:
        turn.notes.append("this batch's news was given by an earlier answer: not repeated")
        return hookio.Answer()
    if digest:
        delib.last_delivered = digest
    return answer


def message_digest(*texts: "str | None") -> str:
    joined = "\x00".join(t or "" for t in texts)
    return f"{zlib.crc32(joined.encode('utf-8', 'surrogatepass')):08x}" if joined.strip("\x00") else ""
