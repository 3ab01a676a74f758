"""The words of the phase machine: the reason each phase change records in the deliberation's
phase history (the decision record shows them), why a transition is illegal, and the refusal of
a spawn that would skip a phase.

The rules (core/phases.py, core/spawn.py, core/engine.py, core/ways_forward.py, core/turn.py)
decide which change happens and pass the figures here: phase names, counts, agent names.
"""

from __future__ import annotations

# --------------------------------------------------------------------------------------------
# the reasons a phase change records


def opened(explicitly: bool) -> str:
    """IDLE → RESEARCH: by the first deliberation agent's spawn, or by an explicit request."""
    return "opened explicitly" if explicitly else "first deliberation agent spawned"


def research_ended(kind: str, reports: int) -> str:
    """RESEARCH → DELIBERATION: the first deliberation role of `kind` after `reports` reports."""
    return f"{kind} spawned after {reports} research reports"


BREADTH_ONLY = "breadth-only: the research proposals stand as the alternatives"
FIRST_RANKER = "first ranking persona spawned"
RE_RANK = "re-rank"
REVISION = "revision round: the approaches are revised against the contested points; the vote is taken again"
HANDED_OVER = "no consensus: the decision was handed to the user"
REOPENED = "the user asked for the unused revision round after the hand-over: the vote is open again"


def vote_passed(rejected: "str | None" = None) -> str:
    """RANKING → PRD_GENERATION; `rejected`: the outcome's name when the vote was a unanimous reject."""
    return "consensus gate passed" + (f" ({rejected})" if rejected else "") + ": the decision document is due"


def vote_reopened(joins: str = "") -> str:
    """PRD_GENERATION → RANKING: a re-rank, or the ranker `joins` that had not voted yet."""
    what = f"{joins} joins the vote" if joins else "re-rank"
    return f"{what}: the vote is taken again; the decision document waits for it"


def document_accepted(counts: str) -> str:
    return f"decision document accepted ({counts})"


def document_missing(send_backs: int) -> str:
    return f"decision document missing after {send_backs} send-back(s)"


def completed(route: "str | None", what: str) -> str:
    """PRD_GENERATION / RANKING → COMPLETE: the route recorded (None: no route) and how the
    document closed (`what`)."""
    return f"decision record written ({route or 'no route'}); {what}"


def lost(deliberation: str) -> str:
    """The session's active deliberation has no state file: the warning that closes it."""
    return (
        f"deliberation: active deliberation {deliberation} has no state file; "
        "it is closed and a new one will open with the next persona"
    )


# --------------------------------------------------------------------------------------------
# illegal transitions


def already_closed(frm: str) -> str:
    return f"{frm} → FAILED: the deliberation is already closed"


def not_legal(frm: str, to: str, legal: "tuple[str, ...]") -> str:
    """`frm` → `to` is no edge of the machine; `legal`: the phases `frm` may go to."""
    return f"{frm} → {to} is not a legal transition (from {frm} only {', '.join(legal) or 'nothing'}, or FAILED)"


# --------------------------------------------------------------------------------------------
# why research is not complete, and the spawns that would skip a phase


def research_waiting(done: int, total: int, running: str) -> str:
    """`done` of `total` research reports are in; `running`: the agents still running, named."""
    return f"{done} of {total} research reports are in; still running: {running}. Wait for them to finish"


def research_short(done: int, needed: int) -> str:
    """Fewer valid research reports than the deliberation's minimum."""
    return (
        f"{done} valid research report(s) recorded, at least {needed} needed. "
        f"Spawn {needed - done} more research persona(s) with independent prompts"
    )


NO_APPROACH_AFTER_RESEARCH = (
    "RESEARCH → RANKING refused: no approach has been proposed. Spawn synthesis-lead "
    "with all research findings to generate at least 2 alternatives first"
)
NO_APPROACH_YET = (
    "DELIBERATION → RANKING refused: no approach has been proposed yet. Spawn synthesis-lead "
    "(or debate-moderator) with all research findings to generate at least 2 alternatives first"
)


def deliberators_running(running: str) -> str:
    """Ranking asked for while the named deliberation agents still run."""
    return f"DELIBERATION → RANKING refused: deliberation agents still running: {running}. Wait for their reports before ranking"


def closed(phase: str) -> str:
    """A ranking spawn in a closed deliberation."""
    return f"the deliberation is {phase}: open a new one for a new question"


def research_incomplete(short: str) -> str:
    """A deliberation role asked for before research is complete (`short`: why it is not)."""
    return f"RESEARCH → DELIBERATION refused: {short}"


def ranking_started(phase: str) -> str:
    """A deliberation role asked for once ranking has started."""
    return (
        f"{phase} → DELIBERATION is not a legal transition: ranking has started. "
        "Re-rank (spawn the personas again) instead of deliberating further"
    )


def revision_used(phase: str, deliberation: str) -> str:
    """A second revision round asked for (a synthesis spawn after the vote)."""
    return (
        f"{phase} → revision refused: the one revision round of deliberation {deliberation} is used "
        "(a revision round is never repeated). Hand the decision to the user: present the options and "
        "the split, then end your turn"
    )
