"""Every outcome a hook answer says, and the one function that renders any of them."""

from __future__ import annotations

from typing import Annotated, Any, Callable, Union

from pydantic import Field, TypeAdapter

from deliberation.text import gates, notes, stop

Message = Annotated[
    Union[
        gates.GateFailed,
        gates.RevisionIn,
        notes.Said,
        notes.DepthInstruction,
        notes.RedTeam2,
        notes.DepthSynthesis,
        notes.VotePassed,
        notes.TwoAgentForm,
        notes.DepthSkipped,
        notes.NotFinished,
        notes.Reminder,
        stop.DocumentSentBack,
    ],
    Field(discriminator="kind"),
]
MESSAGE = TypeAdapter(Message)

_RENDER: "dict[type, Callable[[Any], str]]" = {
    gates.GateFailed: gates.gate_failed,
    gates.RevisionIn: gates.revision_in,
    notes.Said: notes.said,
    notes.DepthInstruction: notes.said,
    notes.RedTeam2: notes.said,
    notes.DepthSynthesis: notes.said,
    notes.VotePassed: notes.vote_passed,
    notes.TwoAgentForm: notes.two_agent_form,
    notes.DepthSkipped: notes.depth_skipped,
    notes.NotFinished: notes.not_finished,
    notes.Reminder: notes.reminder,
    stop.DocumentSentBack: stop.document_sent_back,
}


def render(message: Any) -> str:
    """The words of `message` (one of `Message`)."""
    return _RENDER[type(message)](message)


# the outcomes the person is told of too (a systemMessage): the rest is the model's business
_PERSON: "dict[type, Callable[[Any], str | None]]" = {
    gates.GateFailed: gates.gate_failed_person,
    notes.VotePassed: notes.vote_passed_person,
}


def person(message: Any) -> "str | None":
    """The person's line of `message`, when it has one."""
    said = _PERSON.get(type(message))
    return said(message) if said is not None else None
