"""What the main agent is told after a report: the vote passed, the 2-agent form, the depth news.

The engine (core/engine.py) decides which of these follows a report and with which figures;
the progress note and the depth axis' instructions are composed by their own modules
(core/next_step.py, core/depth/axis.py) and travel here as `Said`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deliberation.state.models import ConformityWarning

REJECTED = "rejected — no approach adopted"  # the outcome of a unanimous reject, as every text names it
FULL_FORM = "synthesis-lead and debate-moderator with all findings, then one red-team pass"
TWO_AGENT_OUTCOME = {
    "proceed": "agreement with different reasoning → proceed",
    "investigate": "genuine disagreement → investigate that conflict",
    "suspect_herding": "agreement with the same reasoning → suspect herding",
    "no_position": "the rule cannot compare them: a report states no position",
}

HERDING_RECOMMENDATION = (
    "verify independently: treat the agreement as one opinion, or start a new deliberation with fresh, independent prompts"
)


def herding_evidence(detail: str) -> str:
    """The 2-agent rule's conformity warning: both agents agree with the same reasoning (`detail`)."""
    return f"the two agents agree with the same reasoning: {detail}"


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Said(_Data):
    """A note composed by the module that owns its rule (the progress note, a depth instruction)."""

    kind: Literal["said"] = "said"
    text: str


def said(o: "Said | DepthInstruction | RedTeam2 | DepthSynthesis") -> str:
    return o.text


class DepthInstruction(_Data):
    """The depth step's instruction after the red team: spawn the tier-2 wave (core/depth/axis.py composes it)."""

    kind: Literal["depth_instruction"] = "depth_instruction"
    text: str


class RedTeam2(_Data):
    """The tier-2 workers have reported: spawn the one red team 2 over their findings."""

    kind: Literal["red_team_2"] = "red_team_2"
    text: str


class DepthSynthesis(_Data):
    """What depth-aware synthesis decided after red team 2 (overrides, zeroed, cancelled)."""

    kind: Literal["depth_synthesis"] = "depth_synthesis"
    text: str


class Concern(_Data):
    persona: str
    concern: str
    reason: str


class VotePassed(_Data):
    """Gate 1 passed: the outcome of the vote, its conformity warnings, and the request for the
    decision document (`request`, composed by core/prd.py with the ids it may cite)."""

    kind: Literal["vote_passed"] = "vote_passed"
    deliberation: str
    leading: "str | None" = None
    consensus: float = 0.0
    threshold: float = 0.0
    rejected: bool = False
    rejections: int = 0
    concerns: list[Concern] = []
    conformity: list[ConformityWarning] = []
    request: str = ""
    review: str = ""  # the route announced when it needs a person (human-review, hard-reject); '' when not


def passed_text(o: VotePassed) -> str:
    if o.rejected:
        lines = [
            f"Deliberation {o.deliberation}: the panel unanimously REJECTED every approach "
            f"({o.rejections} of {o.rejections} voting agents reject) — {REJECTED}. "
            "Do not implement any of the approaches."
        ]
        if o.concerns:
            lines += ["The rejecting agents' concerns:", *(f"- {c.persona}: {c.concern} — {c.reason}" for c in o.concerns)]
        return "\n".join(lines)
    return (
        f"Deliberation {o.deliberation}: consensus gate passed — leading approach "
        f"{o.leading}, consensus {o.consensus:.2f} ≥ {o.threshold:.2f}."
    )


def conformity_note(warnings: "list[ConformityWarning]") -> str:
    """The vote's conformity warnings ('' when none): they warn, they do not block."""
    if not warnings:
        return ""
    lines = [
        f"⚠ Conformity warning ({len(warnings)}): agreement that may not come from "
        "independent evaluation. A warning, not a proof — genuine agreement reached for "
        "different reasons looks the same. Tell the user in your answer, with what would test it; "
        "it is not a step of this deliberation (go on as Next says)."
    ]
    lines += [f"- {w.detector}: {w.evidence} What would test it: {w.recommendation}." for w in warnings]
    return "\n".join(lines)


def vote_passed_person(o: VotePassed) -> "str | None":
    """The person's line when the vote passed and the decision will wait for them (None when the
    route needs no one): the model's context is hidden from the person."""
    if not o.review:
        return None
    what = "the rejection of every approach" if o.rejected else f"approach {o.leading}"
    return (
        f"Deliberation {o.deliberation}: the vote passed ({what}), and the decision goes to you ({o.review}): "
        f"when Claude has concluded, settle it with `deliberation approve {o.deliberation}` or "
        f"`deliberation reject {o.deliberation}`."
    )


def vote_passed(o: VotePassed) -> str:
    parts = [passed_text(o)]
    note = conformity_note(o.conformity)
    if note:
        parts.append(note)
    parts.append(o.request)
    return "\n".join(parts)


class TwoAgentForm(_Data):
    """Research ended with exactly two personas: the 2-agent rule's verdict and what follows.

    case: no_position (a report states none: the full deliberation follows); agree (proceed or
    suspect_herding: both rank); depth_off (a conflict, investigated by the main agent itself);
    deepen (a conflict, dug into by the depth step: `instruction`); skipped (its depth step
    could not run: `why`)."""

    kind: Literal["two_agent"] = "two_agent"
    deliberation: str
    agents: list[str]
    verdict: Literal["proceed", "investigate", "suspect_herding", "no_position"]
    detail: str
    case: Literal["no_position", "agree", "depth_off", "deepen", "skipped"]
    why: str = ""
    instruction: str = ""


def two_agent_form(o: TwoAgentForm) -> str:
    head = (
        f"Deliberation {o.deliberation} — minimum viable deliberation (2 agents: {o.agents[0]}, "
        f"{o.agents[1]}): {TWO_AGENT_OUTCOME[o.verdict]}. {o.detail}."
    )
    full = f"(For the full deliberation instead, spawn {FULL_FORM}.)"
    if o.case == "no_position":
        return (
            f"{head} For the 2-agent form each research report states its position "
            "(preferred_approach, verdict approve/reject, rationale); the full deliberation "
            "follows."
        )
    if o.case == "agree":
        warn = (
            ""
            if o.verdict == "proceed"
            else " ⚠ A warning, not a proof: the agreement may not be independent. Tell the user, and "
            "weigh it as one opinion; the decision record carries the warning."
        )
        return f"{head}{warn} {full}"
    if o.case == "depth_off":
        return (
            f"{head} The depth axis is off for this deliberation ({o.why}): investigate "
            "that conflict yourself before ranking — check the evidence each agent cites "
            "— and name the contested point and its evidence (never their verdicts) in the "
            f"ranking prompts. {full}"
        )
    if o.case == "deepen":
        return (
            f"{head} Investigate that conflict before ranking: the depth axis digs into "
            "it, the AGAINST agent's objections standing in for the red-team pass.\n"
            + o.instruction
            + f"\n\nThen both personas rank. {full}"
        )
    return f"{head} ⚠ {o.why} The decision record says so. {full}"


class DepthSkipped(_Data):
    """The depth step could not run (its budget): the breadth result stands, loudly."""

    kind: Literal["depth_skipped"] = "depth_skipped"
    reason: str


def depth_skipped(o: DepthSkipped) -> str:
    return f"⚠ {o.reason} The decision record says so."


class NotFinished(_Data):
    """A Stop before ranking: the deliberation cannot conclude yet (`progress`: the progress note)."""

    kind: Literal["not_finished"] = "not_finished"
    deliberation: str
    phase: str
    progress: str


def not_finished(o: NotFinished) -> str:
    return (
        f"Deliberation {o.deliberation} is not finished (phase {o.phase}): it concludes after the blind ranking.\n" + o.progress
    )


class Reminder(_Data):
    """SessionStart after a restart or resume: an unfinished deliberation is open."""

    kind: Literal["reminder"] = "reminder"
    progress: str


def reminder(o: Reminder) -> str:
    return "An unfinished deliberation is open in this session. " + o.progress
