"""What the mid-task net says (core/tool_net.py finds the call): the note the model reads after a
risky call ran with no deliberation on record, and the reason shown with a call held for the
user's yes. Each says what the call does and the next step: the deliberate command through the
Skill tool, or the user's word. Imports nothing: it is said on the fast path."""

from __future__ import annotations

# what a call of each kind (core/tool_net.KINDS) does, in words
WHAT = {
    "force-push": "force-pushes a shared branch, changing its history for everyone who has it",
    "history-rewrite": "rewrites the repository's history",
    "destroys-data": "destroys data that may not come back",
    "destroys-infrastructure": "destroys infrastructure",
    "production-migration": "changes production data or its schema",
    "deletes-release": "deletes a published release or tag that others may build from",
    "sensitive-edit": "changes auth, payment or migration code",
}


# what a held step of each irreversible kind loses, said before it runs
LOST = {
    "force-push": "the commits on the remote branch that this push drops, for everyone who has pulled it",
    "history-rewrite": "the repository's history as everyone has it: every clone and open branch must be redone",
    "destroys-data": "the data it deletes, unless a backup holds it",
    "destroys-infrastructure": "the resources it destroys and the data in them",
    "production-migration": "production data or schema as they are now (a rollback may not restore them)",
    "deletes-release": "the release and its tag for everyone who pins or downloads it",
    "sensitive-edit": "nothing yet (an edit can be undone)",
}


def _skill(prefix: str) -> str:
    return f"{prefix}deliberate"


def _shown(kind: str, what: str) -> str:
    """The part of the call that showed the risk: a command quoted as code, a path as it is."""
    return f"`{what}`" if kind != "sensitive-edit" else what


def note_text(kind: str, what: str, prefix: str = "", in_subagent: bool = False, confidence: "float | None" = None) -> str:
    """The note the model reads after the call ran (PreToolUse additionalContext)."""
    what = _shown(kind, what)
    if in_subagent:
        return (
            f"Deliberation plugin: this call {WHAT[kind]} ({what}), and no deliberation is on record. "
            "Take no further step of this kind: finish by reporting to the main agent that this step needs "
            "the user's decision or a deliberation."
        )
    if kind == "sensitive-edit":
        rated = f" (confidence {confidence:.2f})" if confidence is not None else ""
        head = (
            f"Deliberation plugin: this edit of auth, payment or migration code ({what}) came after a prompt "
            f"the plugin rated a risky decision{rated}, and no deliberation is on record."
        )
    else:
        head = f"Deliberation plugin: this call ran; it {WHAT[kind]} ({what}). No deliberation is on record."
    return (
        head + " If the user did not explicitly decide this step, do not go on alone: call the Skill tool "
        f'with skill "{_skill(prefix)}" and args = the decision in one sentence, then follow the protocol '
        "it returns; or stop and ask the user to confirm. If the user did decide it, say so in one line and go on."
    )


def ask_text(kind: str, what: str, prefix: str = "", headless: bool = False) -> str:
    """The reason shown with a held call (PreToolUse ask). Interactive (auto mode too) the person
    reads it in the client's "requires confirmation" prompt and the model if they refuse; headless
    the client refuses the call itself and only the model reads it, so it says to stop and ask."""
    what = _shown(kind, what)
    deliberate = f'the Skill tool with skill "{_skill(prefix)}" and args = the decision in one sentence'
    if headless:
        return (
            f"Deliberation plugin: this call {WHAT[kind]} ({what}); it was held, and nobody can confirm it in this run. "
            f"It would lose {LOST[kind]}. Do not retry it or work around it: stop and ask the user, saying what the step "
            f"will lose, and go on only with their explicit yes. If no one decided this step, {deliberate} is the way to decide it."
        )
    return (
        f"Deliberation plugin: this call {WHAT[kind]} ({what}). It would lose {LOST[kind]}. "
        "Say yes only if you decided this step. If it is refused, do not retry it: if the user asked for this step, "
        "tell them what it will lose and ask the user to confirm it explicitly; if no one decided it, call "
        f"{deliberate}, then follow the protocol it returns."
    )
