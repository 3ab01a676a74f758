"""The main agent hands over the decision document with a Write call (core/document_call.py
says which call): the document is read from the call's `content`, checked like the block of a
concluding answer (core/prd.py) and recorded in the deliberation's state — never from a file.
The call is always denied, so nothing is written; the reason is what the model reads: recorded
(and the concluding answer to give, in prose), what to fix, or that no document is due.

Pure over the Turn: the hook shell passes the PreToolUse event in and renders the answer.
"""

from __future__ import annotations

from deliberation.core import next_step, prd
from deliberation.core.document_call import relative
from deliberation.core.turn import Turn
from deliberation.text import document as words
from deliberation.wire import hookio


def handed(turn: Turn, asked: str, content: object) -> hookio.Answer:
    """The Write call naming deliberation `asked`'s document, with `content`."""
    delib = turn.active()
    if delib is None:
        turn.notes.append("decision document handed over with no open deliberation")
        return hookio.Answer.deny(words.document_not_due(words.DocumentNotDue(asked=asked)))
    if delib.phase != "PRD_GENERATION":
        turn.notes.append(f"decision document handed over in {delib.phase}")
        return hookio.Answer.deny(
            words.document_not_due(
                words.DocumentNotDue(
                    asked=asked, active=delib.id, phase=delib.phase, next=next_step.next_step(delib, turn.cfg).text
                )
            )
        )
    if asked != delib.id:
        turn.notes.append(f"decision document handed over for {asked}, not {delib.id}")
        return hookio.Answer.deny(
            words.document_not_due(words.DocumentNotDue(asked=asked, active=delib.id, phase=delib.phase, path=relative(delib.id)))
        )
    replaced = delib.prd.status == "accepted"
    problem = prd.submit(
        delib, content if isinstance(content, str) else "", max_bytes=turn.cfg.deliberation.max_report_bytes, now=turn.now
    )
    delib.updated_at = turn.now
    if problem is not None:
        turn.notes.append("decision document refused: " + problem.splitlines()[0][:120])
        return hookio.Answer.deny(
            words.document_refused(words.DocumentRefused(deliberation=delib.id, problem=problem, shape=prd.shape_text(delib)))
        )
    turn.notes.append("decision document recorded from the Write call")
    doc = delib.prd.document
    return hookio.Answer.deny(
        words.document_recorded(
            words.DocumentRecorded(
                deliberation=delib.id,
                counts=prd.counts_text(doc) if doc is not None else "",
                replaced=replaced,
                route="\n".join(prd.route_notice(delib)),
                applies=prd.may_apply(delib),
            )
        )
    )
