"""The words of a SendMessage to a deliberation agent (a resume): why one is refused and the next
step, and why one the plugin let through is recorded as a revision.

The rules (core/resume.py) decide — a closed deliberation, agents that work independently, a
stage that is over, a ranker's vote, one pass of the red team and the lenses — and pass the
figures here: who sends and receives (`who`: "persona (agent id)"), stages, phases, ids.
"""

from __future__ import annotations


def who(persona: str, agent: str) -> str:
    return f"{persona} (agent {agent})"


# --------------------------------------------------------------------------------------------
# why the plugin asked for a new report


def recorded_invalid(problem: str) -> str:
    """The agent's report was recorded invalid (`problem`: its first line)."""
    return f"its report was recorded invalid ({problem})"


DISSENT_ASKED = "the consensus gate asked it to document its dissent (concern + reason)"


def requested(asked: str) -> str:
    """What the record keeps with a report replaced because the plugin asked for it."""
    return f"requested by the plugin: {asked}"


UNASKED = "a revision the plugin did not ask for (SendMessage resume)"
UNSEEN_RESUME = "resumed without the plugin seeing a SendMessage (its hook does not match that tool): recorded as a revision"


# --------------------------------------------------------------------------------------------
# refusals


def closed(deliberation: str, phase: str, rec: str) -> str:
    return (
        f"Deliberation {deliberation} is {phase}: the reports of {rec} are final. Next: for "
        "a new question spawn fresh personas with the Agent tool (a new deliberation opens)."
    )


def independence(sender: str, sender_stage: str, rec: str, rec_stage: str) -> str:
    """An agent messages another, and one of them researches or ranks."""
    return (
        f"{sender} may not message {rec}: {sender_stage} and {rec_stage} agents of a "
        "deliberation work independently. Next: put what you found in your own report; the "
        "main agent shares findings in DELIBERATION."
    )


def stage_over(rec: str, stage: str, deliberation: str, phase: str, case: str) -> str:
    """A resumed agent would continue in its stage, which is over. `case` names the next step:
    rank_fresh (a researcher after research, or not a persona), share_findings (a researcher
    while deliberation runs), re_rank (a deliberation role), document (a ranker after the vote
    passed), re_rank_blind (a ranker otherwise)."""
    step = {
        "rank_fresh": "spawn it again with the Agent tool for ranking (a fresh agent given only the approaches)",
        "share_findings": "give its findings to the deliberation roles in their spawn prompts, or spawn it again "
        "to rank when deliberation is done",
        "re_rank": "re-rank instead: spawn the personas again for RANKING",
        "document": "the vote has passed: hand the plugin the decision document it asked for (the Write call it "
        "named) — or, to change the vote, spawn the ranking personas again for a fresh, blind re-rank",
        "re_rank_blind": "spawn the ranking personas again for a fresh, blind re-rank",
    }[case]
    return (
        f"{rec} worked in the {stage.upper()} stage, and deliberation {deliberation} is now in "
        f"{phase}; a resumed agent continues in its own stage, which is over. Next: {step}."
    )


def ranker_steered(rec: str, running: bool) -> str:
    """A message to a ranker the plugin did not ask to revise (`running`: it is still ranking)."""
    state = "is ranking" if running else "already ranked"
    return (
        f"{rec} {state}; a ranker's vote changes only when the plugin asks for it "
        "(a dissent to document, an invalid report), so no message may steer it. Next: to "
        "re-rank, spawn the ranking personas again with the Agent tool (fresh, blind votes)."
    )


def one_pass(rec: str) -> str:
    """A red-team or tier-2 agent that already reported."""
    return (
        f"{rec} already reported, and the red team and the tier-2 lenses run one pass each "
        "(the depth axis is linear, never rounds). Next: continue with the step the last gate "
        "reason named — or, to repair a report the plugin recorded as invalid, resume it then."
    )


def reviewed(rec: str) -> str:
    """A synthesis or debate agent whose work the red team has reviewed."""
    return (
        f"{rec} already reported, and the red team has reviewed that work: a revision now "
        "would leave the red-team pass behind it. Next: rank the approaches as they stand "
        "(spawn the personas again for RANKING)."
    )


def leak_subject(rec: str) -> str:
    """How a research leak refusal names a message (text/refusals.research_leak)."""
    return f"this message to research agent {rec}"


LEAK_INSTEAD = "send it nothing of other agents' findings"
