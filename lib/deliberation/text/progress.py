"""The words of the progress note and the next accepted step.

The rules (core/next_step.py) decide which step the plugin accepts next and what the main
agent has been given; they pass the figures here — the deliberation's id, task type, threshold
and phase, per stage how many reports it has, the agent types to spawn (as the Agent tool takes
them), the finding references a prompt must carry — and the instructions other rules word
(the ranking instruction, the tier-2 worker blocks, the ways forward).
"""

from __future__ import annotations


def spawn_phrase(types: "list[str] | tuple[str, ...]") -> str:
    """`a`, `a` and `b`, `a`, `b` and `c` — agent types in backquotes, as the Agent tool takes them."""
    quoted = [f"`{t}`" for t in types]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


# --------------------------------------------------------------------------------------------
# what the main agent has been given


def given_summary(stages: "list[tuple[str, int, int, list[str]]]") -> str:
    """'Reports you have: research 1 of 3 (security-analyst); …'. Each stage begun so far is
    (stage, reports the main agent has, agents of the stage, the personas it has them of)."""
    parts = []
    for stage, have, of, who in stages:
        part = f"{stage} {have} of {of}"
        parts.append(part + (f" ({', '.join(who)})" if who else ""))
    return "Reports you have: " + "; ".join(parts) + "." if parts else "No reports yet."


def still_to_arrive(who: "list[str]", background: bool) -> str:
    """The agents whose result the main agent does not have yet (`background`: some of them run
    in the background); empty when there are none."""
    if not who:
        return ""
    how = " (each background agent's report comes with its task notification)" if background else ""
    return f"Still to arrive: {', '.join(who)}{how}."


def progress(deliberation: str, task_type: str, threshold: float, phase: str, summary: str, coming: str, next_text: str) -> str:
    """The progress note: where the deliberation is, what the main agent has (`summary`), what is
    still to arrive (`coming`), and the next accepted step (`next_text`, may be empty)."""
    head = f"Deliberation {deliberation} ({task_type}, threshold {threshold:.2f}), phase {phase}. {summary}"
    return " ".join(p for p in (head, coming) if p) + (f"\n{next_text}" if next_text else "")


def with_next(text: str, next_text: str) -> str:
    """News said with the next accepted step as it stands now."""
    return f"{text}\n{next_text}" if next_text else text


# --------------------------------------------------------------------------------------------
# the next accepted step


def wait_for(who: "list[str]") -> str:
    return f"Next: wait for {', '.join(who)} — a step that needs their reports is refused or incomplete before they arrive."


def rank(types: "tuple[str, ...]", instruction: str) -> str:
    """Spawn the research personas again to rank; `instruction`: the blind ranking's."""
    return (
        f"Next: spawn the research personas again to RANK every approach — {spawn_phrase(types)} — "
        'each prompt starting "Phase: ranking" with the question. ' + instruction
    )


def choose(ways: str) -> str:
    """The vote failed on agreement; `ways`: the ways forward, worded (text/gates.py)."""
    return "Next: the vote failed on agreement.\n" + ways


CONCLUDE = (
    "Next: present the decision, the scores, the alternatives and the "
    "dissent; the quality gate and the route follow when you stop."
)


def more_research(short: str) -> str:
    """Research is short (`short`: by how much and what to spawn, text/phases.py)."""
    return f'Next: {short} ("Phase: research", the question and the shared project context only).'


def synthesise(types: "tuple[str, ...]", refs: "list[str]") -> str:
    """Spawn synthesis (and debate); `refs`: persona:finding-id of every research finding."""
    return (
        f'Next: spawn {spawn_phrase(types)} — each prompt starting "Phase: '
        'deliberation" with the question and the findings of EVERY research agent '
        f"(claim and evidence of {', '.join(refs) or 'none recorded'}); a prompt that lacks any of them is refused."
    )


def red_team(types: "tuple[str, ...]") -> str:
    """Spawn the one red-team pass before the depth step."""
    return (
        f'Next: spawn ONE {spawn_phrase(types)} — prompt starting "Phase: '
        'deliberation" with the question, the approaches and every research finding — '
        "to break the converged points (refutations with evidence, missed angles). "
        "Ranking is refused until this red-team pass has reported; the plugin then "
        "says whether the depth step opens."
    )


def tier2_workers(types: "tuple[str, ...]", blocks: str) -> str:
    """Spawn the depth step's workers; `blocks`: each worker's exact call (text/depth.py)."""
    return (
        f"Next: spawn the tier-2 worker(s) {spawn_phrase(types)} of the depth step, "
        "fresh (never a fork), each with the Agent tool and exactly this "
        "subagent_type and prompt:\n" + blocks
    )


def refused(why: str) -> str:
    """Nothing the rules accept in protocol order: what the ranking rule asks for."""
    return f"Next: {why}"


# --------------------------------------------------------------------------------------------
# the blind ranking's instruction

RANKING_RULE = (
    "Ranking is blind: give each ranker the question, the shared context and the approaches "
    "in the neutral order below — never which approach leads, is preferred or recommended, and "
    "no agent's scores, verdicts or rationale; ask for its own scores on every approach, its "
    "verdict (approve = adopt its preferred approach, reject = adopt none) and a concern with "
    "its reason for each approach it would not adopt. The plugin computes the leader after the "
    "vote and reads dissent against it."
)
APPROACH_LIST_HEAD = "Approaches to rank (neutral order; it ranks nothing):"
APPROACH_FACTS_NOTE = (
    "Under an approach: what the checks established about it, each point with its evidence and its step — "
    "the challenge, then the depth check of the contested points, then the re-check; a later step checked "
    "the earlier ones. Facts to weigh with your own reading, not anyone's ranking."
)
# the step of each fact under an approach (core/depth/established.py): which came later
FACT_STEP = {
    "challenge": "challenge",
    "depth": "depth check",
    "recheck": "re-check",
    "recheck_point": "re-check, of a depth-check point above, not of the approach",
}


def approach_fact(verdict: str, claim: str, evidence: str, step: str = "") -> str:
    """One fact under an approach in the ranking list (core/depth/established.py), with its step."""
    label = FACT_STEP.get(step, "")
    return f"    · {verdict}" + (f" ({label})" if label else "") + f": {claim} (evidence: {evidence})"


def ranking_instruction(listed: str) -> str:
    """The rule of blind ranking, then the approaches in the neutral order (`listed`, may be empty)."""
    return f"{RANKING_RULE}\n{listed}" if listed else RANKING_RULE


# --------------------------------------------------------------------------------------------
# a task notification that asks for no turn (core/quiet_wait.py)


def waiting_quietly(
    deliberation: str, persona: str, stage: str, have: int, of: int, waiting_for: "tuple[str, ...] | list[str]"
) -> str:
    """The stopReason of a quiet notification — one line for the person (the client shows it)
    and for the model (it reads it after "Operation stopped by hook: " with the next request)."""
    who = ", ".join(waiting_for[:-1]) + " and " + waiting_for[-1] if len(waiting_for) > 1 else "".join(waiting_for)
    rest = (
        "their task notifications come by themselves, and the last one brings the next step"
        if len(waiting_for) > 1
        else "its task notification comes by itself and brings the next step"
    )
    return (
        f"Deliberation {deliberation}: {persona}'s {stage} report is in ({have} of {of}); {who} still to report. "
        f"No turn needed now: {rest}."
    )
