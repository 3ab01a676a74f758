"""What a UserPromptSubmit may tell the main agent now: the queued news whose results have all
reached it (pure).

News never runs ahead of the results it follows from: a deliberation's queued notices (gate
results, depth-axis instructions) are said once every result of that deliberation has reached
the main agent (`next_step.to_arrive` is empty), each notice once, and a notice said with its
next step (`then_next`) gets the step as it stands now. Session-wide notices (the spawn budget)
wait for nothing. For the deliberation of the agent just notified, the progress note is said
when none of its news is.
"""

from __future__ import annotations

from deliberation.core import engine, next_step
from deliberation.core.turn import Turn
from deliberation.state.models import Deliberation, Notice

CLOSED = ("COMPLETE", "FAILED")


def due(turn: Turn, notified: "Deliberation | None") -> "str | None":
    """The news to say now (None: nothing); what is said leaves the queue, the rest stays."""
    sess = turn.tx.session
    delibs: "dict[str, Deliberation | None]" = {}
    waiting = {did: _waits(turn, did, delibs) for did in dict.fromkeys(n.deliberation_id for n in sess.notices)}
    said: list[str] = []
    then_next: list[str] = []
    kept: list[Notice] = []
    for n in sess.notices:
        if waiting[n.deliberation_id] or n.kind == "person":  # the person's lines: for_person
            kept.append(n)
            continue
        if n.text not in said:
            said.append(n.text)
        if n.then_next and n.deliberation_id not in then_next and delibs.get(n.deliberation_id) is not None:
            then_next.append(n.deliberation_id)
    spoke_of = {did for did, waits in waiting.items() if not waits}
    sess.notices = kept
    for did in then_next:  # the step as it stands now, after all of that deliberation's news
        delib = delibs[did]
        nxt = next_step.next_step(delib, turn.cfg).text if delib is not None else ""
        if nxt:
            said.append(nxt)
    if notified is not None and notified.id not in spoke_of and notified.phase not in CLOSED:
        said.append(engine.progress_text(notified, turn.cfg))
    if not said:
        return None
    return "Deliberation plugin:\n" + "\n\n".join(said)


def for_person(turn: Turn) -> "str | None":
    """The person's lines (kind "person") whose deliberation's news is said now; they leave the
    queue. None: nothing to show."""
    sess = turn.tx.session
    delibs: "dict[str, Deliberation | None]" = {}
    shown = [n for n in sess.notices if n.kind == "person" and not _waits(turn, n.deliberation_id, delibs)]
    if not shown:
        return None
    sess.notices = [n for n in sess.notices if n not in shown]
    return "\n".join(dict.fromkeys(n.text for n in shown))


def due_now(turn: Turn) -> bool:
    """Some queued notice would be said now (`due` would say it); the queue is left as it is."""
    delibs: "dict[str, Deliberation | None]" = {}
    return any(n.kind != "person" and not _waits(turn, n.deliberation_id, delibs) for n in turn.tx.session.notices)


def _waits(turn: Turn, did: str, delibs: "dict[str, Deliberation | None]") -> bool:
    """A deliberation's notices wait while results of it are still to reach the main agent."""
    if not did:  # a session-wide notice (the spawn budget): nothing to wait for
        return False
    d = delibs[did] = turn.tx.deliberation(did)
    return bool(d is not None and d.phase not in CLOSED and next_step.to_arrive(d))
