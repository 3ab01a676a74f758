"""What a Stop says: the hold while gates fail, the loud failure past the limit, the decision
document sent back, and the summary of a completed deliberation (core/stop.py decides which)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deliberation.text import Words
from deliberation.text.notes import REJECTED


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DocumentSentBack(_Data):
    """The decision document is missing or invalid: sent back this once (`problem`: what is wrong
    and the block to write, composed by core/prd.py)."""

    kind: Literal["document_sent_back"] = "document_sent_back"
    problem: str


def document_sent_back(o: DocumentSentBack) -> str:
    return (
        f"{o.problem}\n(The document is sent back this once; without a valid one at "
        "your next stop the decision is recorded without it.)"
    )


def not_yet(why: str, count: int = 0) -> str:
    """Why a Stop gives no verdict yet: deliberation `agents` still pending, a `workflow` of the
    deliberation still running, or background reports `unannounced` to the main agent (`count` of them)."""
    if why == "agents":
        return f"{count} deliberation agent(s) pending: no verdict yet"
    if why == "workflow":
        return "a workflow launched in this deliberation still runs: no verdict yet"
    return f"{count} background report(s) not yet announced to the main agent: no verdict yet"


class StopHeld(_Data):
    """A gate failed at Stop: the stop is held (`count` of `limit` in a row) with the gate's hold."""

    kind: Literal["stop_held"] = "stop_held"
    deliberation: str
    hold: str
    count: int
    limit: int


def stop_held(o: StopHeld) -> Words:
    first = o.hold.splitlines()[0] if o.hold else ""
    return Words(
        model=f"{o.hold}\n(Stop blocked {o.count} of {o.limit}; after that the deliberation is marked FAILED.)",
        person=(f"deliberation {o.deliberation}: Claude continues — stop held {o.count} of {o.limit}: {first[:200]}"),
    )


class StopFailed(_Data):
    """The stop was held `limit` times in a row and the gates still fail: the stop goes through,
    the deliberation is FAILED, and the person is told loudly."""

    kind: Literal["stop_failed"] = "stop_failed"
    deliberation: str
    hold: str
    limit: int


def stop_failed(o: StopFailed) -> Words:
    return Words(
        person=(
            f"⚠ DELIBERATION {o.deliberation} FAILED — the stop was blocked {o.limit} times in a row and the "
            f"gates are still not met; the decision is NOT validated.\n{o.hold.splitlines()[0]}\n"
            f"See `deliberation show {o.deliberation}`."
        )
    )


class Review(_Data):
    """A route that needs a person: what the main agent must tell the user (composed by
    core/human_review.py) and the loud line the user reads."""

    notice: str
    message: str


class Completed(_Data):
    """The deliberation concluded: its outcome, route and record, and its decision document."""

    kind: Literal["completed"] = "completed"
    deliberation: str
    rejected: bool = False
    rejections: int = 0
    leading: str = "-"
    consensus: float = 0.0
    threshold: float = 0.0
    task_type: str = "default"
    route: str
    record: str
    document: "str | None" = None  # its counts when accepted ("3 requirements, …")
    send_backs: int = 0
    problem: str = "none given"  # why it is missing (first line)
    review: "Review | None" = None


# what each route means for the person reading the closing line (the route's name alone read as
# if something would run: an interactive trial's note)
ROUTE_GLOSS = {
    "auto-execute": "no approval needed",
    "auto-reject": "set aside, no approval needed",
    "human-review": "awaits your approval",
    "hard-reject": "refused",
}


def _route(route: str) -> str:
    gloss = ROUTE_GLOSS.get(route)
    return f"route {route} ({gloss})" if gloss else f"route {route}"


def completed_summary(o: Completed) -> str:
    if o.rejected:
        summary = (
            f"Deliberation {o.deliberation} COMPLETE: {REJECTED} (unanimous reject, "
            f"{o.rejections} of {o.rejections} voting agents); {_route(o.route)}; record {o.record}"
        )
    else:
        summary = (
            f"Deliberation {o.deliberation} COMPLETE: {o.leading} "
            f"(consensus {o.consensus:.2f} ≥ {o.threshold:.2f}, {o.task_type}); "
            f"{_route(o.route)}; record {o.record}"
        )
    if o.document is not None:
        summary += f"\nDecision document: {o.document}."
    else:
        summary = (
            f"⚠ Decision document MISSING (after {o.send_backs} send-back(s): "
            f"{o.problem}) — the decision stands; write it up by hand.\n{summary}"
        )
    return summary + "\nThe record holds the findings by persona, the document and the cost (tokens per agent, wall time)."


def completed(o: Completed) -> Words:
    summary = completed_summary(o)
    if o.review is None:
        return Words(person=summary)
    return Words(model=o.review.notice, person=f"⚠ {o.review.message}\n{summary}")


class HandedOver(_Data):
    """The vote failed on agreement and the main agent ended its turn: the decision is the
    user's. The stop is accepted; the deliberation is COMPLETE with outcome no-consensus."""

    kind: Literal["handed_over"] = "handed_over"
    deliberation: str
    leading: "str | None" = None
    consensus: float = 0.0
    threshold: float = 0.0
    task_type: str = "default"
    revised: bool = False  # after the one revision round
    unanimous: bool = False  # every ranker preferred the leader, too narrowly for the bar
    record: str


def handed_over(o: HandedOver) -> Words:
    lead = (
        f"the leading approach {o.leading} (consensus {o.consensus:.2f} < {o.threshold:.2f}, {o.task_type})"
        if o.leading
        else "no leading approach"
    )
    after = " after its revision round" if o.revised else ""
    approve = f"adopt {o.leading}" if o.leading else "adopt the leading approach"
    why = f"every ranker preferred {o.leading}, but by thin margins" if o.unanimous and o.leading else "the panel did not agree"
    return Words(
        person=(
            f"⚠ Deliberation {o.deliberation} COMPLETE — NO CONSENSUS{after}: {why}; "
            f"{lead}. The decision is yours (route human-review): `deliberation approve {o.deliberation}` "
            f"({approve}) or `deliberation reject {o.deliberation}` (set it aside); in Claude Code "
            f"`! deliberation approve {o.deliberation}`. Until then risky tools ask for your yes. "
            + ("" if o.revised else "Or ask Claude for the revision round it has not used: that reopens the vote. ")
            + f"Record: {o.record}"
        )
    )
