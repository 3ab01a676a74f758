"""The drafter's material and the main agent's short outcome (core/drafting.py)."""

from __future__ import annotations

APPROACHES_HEAD = "The approaches that were ranked:"
REJECTED = "No approach is adopted: the vote rejected them all."
NOT_A_DOCUMENT = "the report is not a JSON object of the decision document's shape"
DISSENT_SHOWN = 3
DISSENT_CHARS = 160
CHALLENGED_SHOWN = 3  # weakened or refuted facts about the adopted approach the outcome names
EVIDENCE_CHARS = 100


NOT_RECORDED = "The drafter's decision document was not recorded: write it yourself as follows."


def not_due(deliberation: str, phase: str) -> str:
    """A drafter spawned when no decision document is due."""
    where = f"deliberation {deliberation} is in {phase}" if deliberation else "no deliberation is open"
    return (
        f"Drafter spawn denied: the drafter writes a deliberation's decision document once its vote has passed, and "
        f"{where}. Next: follow the deliberation's current step; spawn the drafter when the plugin asks for the document."
    )


def send_back(problem: str) -> str:
    """The drafter's document could not be recorded: what to fix (said to the drafter, once)."""
    return (
        f"Your decision document was not recorded: {problem}\nFix exactly that and end your answer again with the "
        "whole document as ONE fenced json block, citing only the ids your task lists."
    )


def offer(agent_type: str) -> str:
    """The turn-by-turn request's shortest way: the drafter writes the document from every report."""
    return (
        f'Shortest way: spawn the drafter — Agent({{subagent_type: "{agent_type}", description: "decision document", '
        'prompt: "draft"}) in the foreground; the plugin hands it every report whole and records its document, and '
        "its result tells you what to say. Otherwise write it yourself, in this shape:"
    )


def adopted(approach: str, title: str, summary: str, consensus: float) -> str:
    line = f"Adopted: {approach} — {title}"
    said = summary.strip().rstrip(".")
    return line + (f". {said}" if said and said != title.strip().rstrip(".") else "") + f" (consensus {consensus:.2f})"


def rules(minimums: "list[tuple[str, int]] | list[list]") -> str:
    need = ", ".join(f"{section.replace('_', ' ')}: {n}" for section, n in minimums if n) or "nothing"
    return (
        f"It needs at least: {need}. Every requirement, acceptance criterion and risk lists in `sources` the ids "
        "of the items below it follows from (at least one each, exactly as written: `persona:F1`, `persona:D1`, "
        "`persona:R1`, `H1`); non-goals and open questions may cite them too; an acceptance criterion names in "
        "`verifies` the requirements it checks. Cite only ids listed above."
    )


def left_out(short: int, left: int) -> str:
    """The line after the short items: how many are shown short, how many not at all."""
    said = (
        [f"the last {short} {'item above shows' if short == 1 else 'items above show'} only the id and the start of the text"]
        if short
        else []
    )
    if left:
        said.append(f"{left} more, of lower priority (medium and low findings, upheld refutations), are left out")
    return f"({'; '.join(said)}. Cite only ids listed here.)"


def material(
    deliberation: str,
    question: str,
    decision: str,
    approaches: str,
    whole: "list[str]",
    short: "list[str]",
    left: int,
    shape: "list[str]",
) -> str:
    """The drafter's prompt: what the document rests on, whole, the rest short, then the shape."""
    total = len(whole) + len(short) + left
    rest = [*short, left_out(len(short), left)] if short or left else []
    return "\n".join(
        [
            f"Phase: decision document of deliberation {deliberation}",
            f"Question: {question}",
            f"Decision (the vote's outcome — write it down, do not reopen it): {decision}",
            "",
            approaches,
            "",
            (
                f"The items of the deliberation you may cite ({len(whole) + len(short)} of {total}), what the decision "
                "rests on first (the vote's dissent, the hot spots and depth verdicts, high and critical findings), "
                "each with its text and evidence while they fit:"
                if rest
                else f"Every item of the deliberation you may cite ({total}), each with its text and evidence:"
            ),
            *whole,
            *rest,
            "",
            "Write the decision document from these items alone: the decision and why, the problem for a reader "
            "who was not there, the requirements, acceptance criteria and risks that follow from the items (a "
            "dissent or a refutation that stands is a risk or an open question, never dropped). Shape:",
            *shape,
            "Report it by calling the StructuredOutput tool with the document as its input; when no such tool "
            "is offered, end your answer with the document as ONE fenced ```json block and nothing after it.",
        ]
    )


def outcome(
    deliberation: str,
    decision: str,
    dissent: "list[tuple[str, str, bool]]",
    route: str,
    record_path: str,
    counts: str,
    applies: bool,
    challenged: "list[tuple[str, str, str]] | None" = None,
    rests_on: "list[tuple[str, str, str]] | None" = None,
) -> str:
    """What the main agent carries once the drafter's document is recorded."""
    lines = [f"Deliberation {deliberation} decided. {decision}"]
    if rests_on:
        shown = "; ".join(f"{ref}: {_clip(claim)} ({_clip(evidence, EVIDENCE_CHARS)})" for ref, claim, evidence in rests_on)
        lines.append(f"It rests on (findings with their evidence — what to tell the user it rests on): {shown}")
    if challenged:
        shown = "; ".join(
            f"{verdict}: {_clip(claim)} ({_clip(evidence, EVIDENCE_CHARS)})"
            for verdict, claim, evidence in challenged[:CHALLENGED_SHOWN]
        )
        more = f" (+{len(challenged) - CHALLENGED_SHOWN} more in the document)" if len(challenged) > CHALLENGED_SHOWN else ""
        lines.append(
            f"Challenged in the adopted approach ({len(challenged)}; the challenge and depth steps, with evidence — "
            f"the document's risks carry them; tell the user with the decision, and narrow any step they weaken): {shown}{more}"
        )
    if dissent:
        shown = "; ".join(
            f"{who}{' (against the adopted approach)' if against else ''}: {_clip(c)}"
            for who, c, against in dissent[:DISSENT_SHOWN]
        )
        more = f" (+{len(dissent) - DISSENT_SHOWN} more in the record)" if len(dissent) > DISSENT_SHOWN else ""
        lines.append(f"Dissent ({len(dissent)}): {shown}{more}")
    else:
        lines.append("Dissent: none recorded.")
    lines.append(
        f"Decision document: drafted from every report and recorded ({counts}); the decision record is "
        f"written to {record_path} when the deliberation closes. Do not write or hand over another document."
    )
    if route:
        lines.append(route)
    lines.append(
        "Next: "
        + (
            "if the user asked you to make the change, make it now as decided (nothing holds this decision); then "
            if applies and not route
            else ""
        )
        + "give the user your concluding answer in prose — the decision, its dissent and the alternatives, "
        "and the user's next step. The deliberation closes when you stop."
    )
    return "\n".join(lines)


def _clip(text: str, n: int = DISSENT_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
