"""What the Write call that hands over the decision document is told (core/document_handover.py
decides): recorded, not recorded with what to fix, or not due. The model reads it as the
tool's result (a PreToolUse deny: nothing is written either way), which the client labels
"PreToolUse:Write hook error: …" and lists among the permission denials — so a recorded
document's answer says in its first words that the refusal is the expected receipt. Also the words of the request
that names that call, and of a content that is no document (core/prd.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deliberation import catalogue


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DocumentRecorded(_Data):
    """The document is valid and traced: recorded in the deliberation's state (`counts`: its
    sections); `route` is the announced route's notice when a person must settle the decision;
    `applies`: an approach was adopted and no route holds it, so the agent may carry it out."""

    kind: Literal["document_recorded"] = "document_recorded"
    deliberation: str
    counts: str
    replaced: bool = False
    route: str = ""
    applies: bool = False


def document_recorded(o: DocumentRecorded) -> str:
    again = " It replaces the one handed over before." if o.replaced else ""
    lines = [
        f"RECORDED — this refusal is the expected receipt, not an error: the plugin took the decision "
        f"document of deliberation {o.deliberation} ({o.counts}) from this Write call and keeps it in the "
        f"decision record, so no file is written.{again} (The client shows every such receipt as a hook "
        "error and a permission denial; do not call Write again.)",
        "Next: "
        + (
            "if the user asked you to make the change, make it now as decided (nothing holds this decision); then "
            if o.applies and not o.route
            else ""
        )
        + "give the user your concluding answer in prose — the decision, its dissent and the "
        "alternatives; do not paste the document. The deliberation closes when you stop.",
    ]
    return "\n".join(lines + ([o.route] if o.route else []))


class DocumentRefused(_Data):
    """The document does not parse, validate or trace (`problem`); `shape`: the shape, the rules
    and the ids it may cite, as the request gave them."""

    kind: Literal["document_refused"] = "document_refused"
    deliberation: str
    problem: str
    shape: str


def document_refused(o: DocumentRefused) -> str:
    return (
        f"Decision document of deliberation {o.deliberation} NOT recorded (nothing is written): {o.problem}\n"
        "Next: call Write again with the same file_path and the corrected document as content.\n" + o.shape
    )


class DocumentNotDue(_Data):
    """A document handed over when none is due: `asked` the id its path names; `active` the
    session's open deliberation (none: ''), its `phase`, and the next step it accepts."""

    kind: Literal["document_not_due"] = "document_not_due"
    asked: str
    active: str = ""
    phase: str = ""
    path: str = ""  # where the open deliberation's document goes, when it is due
    next: str = ""


def document_not_due(o: DocumentNotDue) -> str:
    if not o.active:
        return (
            f"No deliberation is open in this session, so no decision document is due (this call named "
            f"{o.asked}); nothing is written.\nNext: answer the user."
        )
    if o.path:
        return (
            f"The decision document due is deliberation {o.active}'s, not {o.asked}'s; nothing is written.\n"
            f"Next: call Write again with file_path `<project>/{o.path}`."
        )
    return f"The decision document of deliberation {o.active} is not due yet (phase {o.phase}); nothing is written.\n{o.next}"


# -- the request that names the Write call (core/prd.py), and a content that is no document


def hand_over(path: str) -> str:
    """How the document reaches the plugin: the Write call it reads (`path` under the project)."""
    return (
        f"Call the Write tool with file_path `<project>/{path}` (`<project>` is the project's folder, "
        "absolute) and as content ONE JSON object of this shape. The plugin checks the content from the "
        "call and records it — it writes no file: the tool's result says recorded, or what to fix."
    )


def request_head(rejected: bool, path: str) -> str:
    """The first line of the request for the decision document."""
    if rejected:
        return (
            "Next: write the decision document of this rejection and hand it to the plugin — the "
            "deliberation closes with it. " + hand_over(path) + " Requirements and acceptance criteria "
            "may stay empty; the risks say what sank the approaches. Then tell the user, in prose, that no "
            "approach is adopted and why."
        )
    return (
        "Next: write the decision document (PRD) and hand it to the plugin — the deliberation closes "
        "with it. " + hand_over(path) + " Then give the user your concluding answer in prose: the "
        "decision, its dissent and the alternatives (the document is for the record: do not paste it)."
    )


def send_back_next(path: str) -> str:
    """The next step of the Stop's send-back of a missing or invalid document."""
    return (
        "Next: hand the decision document to the plugin, then end your turn. "
        + hand_over(path)
        + " (Ending your answer with exactly one fenced ```json block of this shape is accepted too.)"
    )


def content_too_large(size: int, limit: int) -> str:
    return f"Your decision document is {size} bytes; the limit is {limit}. Shorten its texts."


def content_not_json() -> str:
    return "Your decision document does not parse as JSON. Use double quotes, no comments, no trailing commas."


def content_not_object(kind: str) -> str:
    return f"Your decision document must be ONE JSON object (the shape below), not a JSON {kind}."


# -- the shape of the document, its rules, and what is wrong with one (core/prd.py decides)

EXAMPLE = (
    """```json
{
  "document": "prd",
  "decision": "what is decided and why, in one paragraph",
  "problem": "what the decision solves, for a reader who was not there",
  "requirements": [{"id": "R1", "text": "...", "priority": "must", "sources": ["%s:F1"]}],
  "non_goals": [{"text": "...", "sources": []}],
  "acceptance_criteria": [{"id": "AC1", "text": "an observable check", "verifies": ["R1"], "sources": ["%s:F1"]}],
  "risks": [{"id": "RISK1", "risk": "...", "mitigation": "...", "severity": "high", "sources": ["%s:D1"]}],
  "open_questions": [{"question": "...", "sources": ["H1"]}]
}
```"""
    % catalogue.EXAMPLE_PERSONAS
)
STOP_CHECK = (
    "When you stop, the quality gate checks the document; one that is missing or cites an id not listed "
    "here is sent back once, then the decision is recorded without it."
)
GROUPED_HEAD = (
    "(findings and hot spots by id, as their reports and the depth step named them: write each as "
    f"`agent:id`, e.g. `{catalogue.EXAMPLE_PERSONA}:F1`, a hot spot as `H1`; the plugin numbered the dissent and "
    "refutations, so each is listed with its text)"
)  # a long catalogue's first line
_SINGULAR = {"requirements": "requirement", "acceptance_criteria": "acceptance criterion", "risks": "risk"}


def needs(minimums: "list[tuple[str, int]]") -> str:
    """'one requirement, one acceptance criterion and one risk': the sections a document must
    hold, with how many of each (`minimums`: (section, count) in order; a count of 0 is left out)."""
    parts = [f"{'one' if n == 1 else n} {_SINGULAR[s] if n == 1 else s.replace('_', ' ')}" for s, n in minimums if n]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def rules(minimums: "list[tuple[str, int]]") -> str:
    """What a document must hold and cite, said with its shape."""
    return (
        "It needs at least " + needs(minimums) + ". Every requirement, acceptance criterion and risk lists in "
        "`sources` the ids below that it follows from (at least one each); non-goals and open questions "
        "may cite them too; an acceptance criterion names in `verifies` the requirements it checks. The "
        "scores, the dissent and the route are recorded by the plugin: the block holds only what needs "
        "judgement."
    )


def cite_head(n: int) -> str:
    return f"Ids you may cite ({n}):"


def too_few(rejected: bool, minimums: "list[tuple[str, int]]", short: "list[str]") -> str:
    """The document lacks the sections `short` (their keys) that `minimums` asks for."""
    what = "a rejection" if rejected else "an adopted decision"
    return (
        f"The decision document of {what} needs at least {needs(minimums)}, each citing the ids it "
        f"follows from; yours has no {' and no '.join(_SINGULAR[k] for k in short)}."
    )


def repeated_ids(ids: "list[str]") -> str:
    return f"Item ids must be unique within the document; repeated: {', '.join(ids)}."


def bad_verifies(pairs: "list[list[str]]") -> str:
    """Acceptance criteria whose `verifies` names no requirement of the document: [criterion, id]."""
    return (
        "`verifies` names requirement ids of this document; these are not among them: "
        + ", ".join(f"{a} → {v}" for a, v in pairs)
        + "."
    )


def unknown_ids(refs: "list[list]", limit: int = 12) -> str:
    """Cited ids that exist nowhere in the deliberation: [ref, item label, is an item of this
    document]; the first `limit` are named."""
    named = [
        f"{ref!r} in {label}" + (" (an item of this document, not a source)" if own else "") for ref, label, own in refs[:limit]
    ]
    return (
        "Every cited id must exist in the deliberation; these do not: "
        + "; ".join(named)
        + (f"; and {len(refs) - limit} more" if len(refs) > limit else "")
        + ". Cite only the ids listed below."
    )


def block_too_large(size: int, limit: int) -> str:
    return (
        f"Your decision document block is {size} bytes; the limit is {limit}. "
        "Shorten its texts (the rest of the answer is for the user and is not limited)."
    )


def block_not_json() -> str:
    return "Your decision document block does not parse as JSON. Use double quotes, no comments, no trailing commas."


def no_block() -> str:
    return "Your concluding answer has no decision document block."


def many_blocks(n: int) -> str:
    return f"Your concluding answer has {n} decision document blocks; end it with exactly ONE."


def invalid(detail: str) -> str:
    """The document parsed but its schema refuses it (`detail`: each field's problem)."""
    return "Your decision document is invalid:\n" + detail


def send_back_head(deliberation: str, problem: str) -> str:
    """The first line of the Stop's send-back of a missing or invalid document."""
    return f"Deliberation {deliberation}: both gates passed; the decision document is the last step before it closes. {problem}"


def recorded_missing(send_backs: int, problem: str) -> str:
    """The deliberation's warning when the document is recorded as missing (`problem`: its first line)."""
    return f"decision document recorded as missing after {send_backs} send-back(s): {problem}"


def counts(requirements: int, criteria: int, risks: int, non_goals: int, questions: int) -> str:
    """What a recorded document holds, section by section."""
    return (
        f"{requirements} requirement(s), {criteria} acceptance criteria, {risks} risk(s), "
        f"{non_goals} non-goal(s), {questions} open question(s)"
    )
