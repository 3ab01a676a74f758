"""What the Write call that hands over the decision document is told (core/document_handover.py
decides): recorded, not recorded with what to fix, or not due. The model reads it as the
tool's result (a PreToolUse deny: nothing is written either way)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DocumentRecorded(_Data):
    """The document is valid and traced: recorded in the deliberation's state (`counts`: its
    sections); `route` is the announced route's notice when a person must settle the decision."""
    kind: Literal["document_recorded"] = "document_recorded"
    deliberation: str
    counts: str
    replaced: bool = False
    route: str = ""


def document_recorded(o: DocumentRecorded) -> str:
    again = " It replaces the one handed over before." if o.replaced else ""
    lines = [f"Decision document of deliberation {o.deliberation} RECORDED ({o.counts}).{again} This result is "
             "the plugin's answer, not a failure: the plugin keeps the document in the decision record, so no "
             "file is written.",
             "Next: give the user your concluding answer in prose — the decision, its dissent and the "
             "alternatives; do not paste the document. The deliberation closes when you stop."]
    return "\n".join(lines + ([o.route] if o.route else []))


class DocumentRefused(_Data):
    """The document does not parse, validate or trace (`problem`); `shape`: the shape, the rules
    and the ids it may cite, as the request gave them."""
    kind: Literal["document_refused"] = "document_refused"
    deliberation: str
    problem: str
    shape: str


def document_refused(o: DocumentRefused) -> str:
    return (f"Decision document of deliberation {o.deliberation} NOT recorded (nothing is written): {o.problem}\n"
            "Next: call Write again with the same file_path and the corrected document as content.\n" + o.shape)


class DocumentNotDue(_Data):
    """A document handed over when none is due: `asked` the id its path names; `active` the
    session's open deliberation (none: ''), its `phase`, and the next step it accepts."""
    kind: Literal["document_not_due"] = "document_not_due"
    asked: str
    active: str = ""
    phase: str = ""
    path: str = ""         # where the open deliberation's document goes, when it is due
    next: str = ""


def document_not_due(o: DocumentNotDue) -> str:
    if not o.active:
        return (f"No deliberation is open in this session, so no decision document is due (this call named "
                f"{o.asked}); nothing is written.\nNext: answer the user.")
    if o.path:
        return (f"The decision document due is deliberation {o.active}'s, not {o.asked}'s; nothing is written.\n"
                f"Next: call Write again with file_path `<project>/{o.path}`.")
    return (f"The decision document of deliberation {o.active} is not due yet (phase {o.phase}); nothing is "
            f"written.\n{o.next}")
