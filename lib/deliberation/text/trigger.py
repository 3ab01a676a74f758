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


# what each act of core/acts.py does, and what it loses: the hold before an act the user decided
ACT_WHAT = {
    "force-push": (
        "a force-push or deletion of a shared branch or tags",
        "the commits or tags it drops, for everyone who has them",
    ),
    "rewrite-history": ("a rewrite of the repository's history", "history as every clone has it: each must be redone"),
    "disable-auth": ("switching off an access control", "the protection itself while it is off, and what gets in meanwhile"),
    "open-access": ("opening access to data or a system", "control over who reads it: what is read cannot be unread"),
    "change-retention": ("a change of how long data is kept", "every record older than the new limit, at the next purge"),
    "destroy-infra": ("destroying infrastructure", "the resources and the data in them"),
    "prod-migration": ("a migration against production", "production data or schema as they are now"),
    "rewrite-stored-data": ("rewriting stored data in place", "the original values, unless a backup holds them"),
    "remove-public-interface": ("removing a public interface", "every client that still calls it"),
    "move-money": ("moving money", "the money sent: a refund or a charge is not taken back"),
    "rotate-secret": ("rotating or revoking a secret", "every client still using the old one, until it is updated"),
    "delete-data": ("deleting data", "the data deleted, unless a backup holds it"),
    "change-price": (
        "a price change for existing customers",
        "their trust and revenue if it is wrong: a charge is not taken back",
    ),
    "switch-for-everyone": (
        "turning a change on for every user at once",
        "a gradual rollout: whatever breaks, breaks for everyone",
    ),
    "store-sensitive": ("storing sensitive data", "the data's safety: once stored or logged, copies spread to backups and logs"),
    "change-public-interface": ("changing a public interface", "every client that relies on it as it is"),
    "change-dns": ("a DNS change", "the old address for everyone whose resolver caches it, until the TTL runs out"),
    "message-everyone": ("a message to every user", "nothing can call a sent message back"),
    "move-platform": ("moving to another platform", "an easy way back"),
    "change-identity": ("changing how people sign in", "every session and account link made the old way"),
    "decision-question": ("a decision with stakes", "what the wrong choice costs"),
}


def act_asked(kind: str) -> str:
    """The reason of a deliberation started because a question is about an act of core/acts.py."""
    return f"a question about {ACT_WHAT[kind][0]} (act: {kind})"


def act_hold(kind: str, prefix: str = "") -> str:
    """What the model reads when a plain instruction asks for an irreversible act: one look at
    what it destroys and the user's yes, no deliberation (the user decided it)."""
    what, lost = ACT_WHAT[kind]
    return (
        f"Deliberation plugin: this request asks for {what}, which is hard or impossible to undo. The user decided it, so no "
        f"deliberation is needed, but before you take that step tell the user in a line or two what it will lose "
        f"({lost}) and ask them to confirm; take it only after their explicit yes. If the request leaves the choice "
        f'open, deliberate instead: call the Skill tool with skill "{prefix}deliberate" and args = the decision in one sentence.'
    )
