"""What the trigger's score says about a prompt: the label of each structural cue it found (listed
beside the vocabulary terms it matched) and the reason of its decision (core/confidence.py
scores and decides). Standard library only, and it imports nothing: every user prompt loads it."""

# the structural cues, by the rule that found them
CUES = {
    "question": "(question)",
    "decision_question": "(decision question)",
    "yes_no_question": "(yes/no question)",
    "verdict": "(verdict asked)",
    "options": "(options)",
    "quantity": "(large quantity)",
    "weakens_protection": "(weakens a protection)",
    "platform_choice": "(platform choice)",
    "many_affected": "(many affected)",
    "irreversible_on_live": "(irreversible step on a live system)",
    "change_to_live": "(change to a live system)",
    "situation": "(decision in a described situation)",
}
NOTIFICATION = "an agent's turn (task notification or hand-back): not a user prompt, not scored"
DISABLED = "trigger disabled in config"


def long_prompt(words: int) -> str:
    return f"(long prompt: {words} words)"


def damped(factor: float, by: str) -> str:
    """A damper scaled the dimension by `factor` (`by`: what the damper found)."""
    return f"×{factor:.2g} {by}"


def forced(marker: str) -> str:
    return f"forced by {marker!r}"


def below(confidence: float, threshold: float, highs: "list[str]") -> str:
    """Confidence under the threshold: it triggers (`highs`: the dimensions at the high level)."""
    return f"confidence {confidence:.2f} < {threshold:.2f} (high: {', '.join(highs) or 'none'})"


def at_or_above(confidence: float, threshold: float) -> str:
    return f"confidence {confidence:.2f} >= {threshold:.2f}"
