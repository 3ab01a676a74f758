"""What the Write call that hands over the decision document is told (core/document_handover.py
decides): recorded, not recorded with what to fix, or not due. The model reads it as the
tool's result (a PreToolUse deny: nothing is written either way), which the client labels
"PreToolUse:Write hook error: …" and lists among the permission denials — so a recorded
document's answer says in its first words that the refusal is the expected receipt. Also the words of the request
that names that call, and of a content that is no document (core/prd.py)."""

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
    lines = [f"RECORDED — this refusal is the expected receipt, not an error: the plugin took the decision "
             f"document of deliberation {o.deliberation} ({o.counts}) from this Write call and keeps it in the "
             f"decision record, so no file is written.{again} (The client shows every such receipt as a hook "
             "error and a permission denial; do not call Write again.)",
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


# -- the request that names the Write call (core/prd.py), and a content that is no document


def hand_over(path: str) -> str:
    """How the document reaches the plugin: the Write call it reads (`path` under the project)."""
    return (f"Call the Write tool with file_path `<project>/{path}` (`<project>` is the project's folder, "
            "absolute) and as content ONE JSON object of this shape. The plugin checks the content from the "
            "call and records it — it writes no file: the tool's result says recorded, or what to fix.")


def request_head(rejected: bool, path: str) -> str:
    """The first line of the request for the decision document."""
    if rejected:
        return ("Next: write the decision document of this rejection and hand it to the plugin — the "
                "deliberation closes with it. " + hand_over(path) + " Requirements and acceptance criteria "
                "may stay empty; the risks say what sank the approaches. Then tell the user, in prose, that no "
                "approach is adopted and why.")
    return ("Next: write the decision document (PRD) and hand it to the plugin — the deliberation closes "
            "with it. " + hand_over(path) + " Then give the user your concluding answer in prose: the "
            "decision, its dissent and the alternatives (the document is for the record: do not paste it).")


def send_back_next(path: str) -> str:
    """The next step of the Stop's send-back of a missing or invalid document."""
    return ("Next: hand the decision document to the plugin, then end your turn. " + hand_over(path)
            + " (Ending your answer with exactly one fenced ```json block of this shape is accepted too.)")


def content_too_large(size: int, limit: int) -> str:
    return f"Your decision document is {size} bytes; the limit is {limit}. Shorten its texts."


def content_not_json() -> str:
    return "Your decision document does not parse as JSON. Use double quotes, no comments, no trailing commas."


def content_not_object(kind: str) -> str:
    return f"Your decision document must be ONE JSON object (the shape below), not a JSON {kind}."
