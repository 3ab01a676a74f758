"""The off switch's words: what the person and the model read when one session's checks are
switched off or on (core/off_switch.py decides which; runtime/cheap_answers.py answers with it).

Standard library only: every hook of a switched-off session answers with these before it reads
config or state.
"""

from __future__ import annotations

from deliberation.text import Words

WHAT = "no trigger, spawn budget, depth limit, gate or review hold applies"


def switched_off(by: str, on_cmd: str, already: bool = False, project_env: bool = False, by_project: bool = False) -> Words:
    """The checks are off, by `command` or `environment` (`project_env`: the user's
    DELIBERATION=off reached the client, and a project's settings replaced it for the hooks;
    `by_project`: the project's settings `env` set it, and this user approved that)."""
    if already:
        return Words(
            person=f"Deliberation checks are already off for this session; {on_cmd} switches them on.",
            model=f"The deliberation plugin's checks were already off for this session. Tell the user so "
            f"in one sentence; {on_cmd} switches them on.",
        )
    if by == "environment":
        where = (
            " (DELIBERATION=off in the environment you started the client with; this project's settings "
            "replace it for the hooks, which does not switch them on)"
            if project_env
            else " (DELIBERATION=off in this project's .claude/settings.json `env`, which you approved with `deliberation trust`)"
            if by_project
            else " (DELIBERATION=off)"
        )
        return Words(
            person=f"Deliberation checks are off for this session{where}: {WHAT}, and nothing of the "
            f"session is recorded. {on_cmd} switches them on.",
            model="The deliberation plugin's checks are off for this session (DELIBERATION=off): it "
            "injects no protocol and refuses or holds nothing.",
        )
    return Words(
        person=f"Deliberation checks are off for this session: {WHAT} until {on_cmd}, and nothing more "
        "of the session is recorded.",
        model=f"The user switched the deliberation plugin's checks off for this session: its hooks now "
        f"allow everything and say nothing more. Confirm that to the user in one sentence; {on_cmd} "
        "switches them back on.",
    )


def switched_on(over_env: bool) -> Words:
    """The checks are on again (`over_env`: over a DELIBERATION=off the session started with)."""
    extra = " (over DELIBERATION=off)" if over_env else ""
    return Words(
        person=f"Deliberation checks are on again for this session{extra}.",
        model="The user switched the deliberation plugin's checks back on for this session: its trigger, "
        "spawn budget, gates and review holds apply again from the next prompt. Confirm that to the "
        "user in one sentence.",
    )


def project_env_held(value: str, approve: str) -> str:
    """The person's note at a session start when the project's `.claude/settings.json` `env` sets
    DELIBERATION to an off word this user has not approved: the plugin stays on."""
    return (
        f"Deliberation: this project's .claude/settings.json `env` sets DELIBERATION={value[:40]!r}, which would switch "
        "the plugin off for every session here; a repository's settings switch nothing off without you, so its "
        f"checks stay on. To let the project switch it off, run in a terminal: {approve}"
    )


def hidden_env(value: str, off_cmd: str) -> str:
    """The person's note when a DELIBERATION value that is not off reaches the hooks and the
    client's own environment cannot be read (not Linux): a project's settings may have replaced
    the user's DELIBERATION=off."""
    return (
        f"Deliberation: the hooks see DELIBERATION={value[:40]!r}. If you started the client with "
        f"DELIBERATION=off, this project's .claude/settings.json `env` replaced it; type {off_cmd} to switch "
        "the checks off for this session."
    )


def state_unusable(link: str, why: str) -> str:
    """The person's line when the state folder cannot be used: `link` is the entry that leads out
    of it (a link a repository may commit) or stands in its place (a file)."""
    from deliberation.names import command_word, inert, quoted

    return (
        f"deliberation plugin: {quoted(link)} cannot be this project's state folder ({inert(why, 300)}), so the plugin "
        "keeps no state here: it answers each event from the event alone — the trigger, the mid-task net, the state "
        "guard — and no deliberation is tracked, gated or recorded. If this project did not mean it (a repository can "
        f"commit such a link or file), remove it: rm {command_word(link)}"
    )


def prune_failed(reason: str) -> str:
    """The person's note when a session start's upkeep (the .gitignore, the prune) failed."""
    return f"deliberation plugin: pruning the state folder failed ({reason}); `deliberation gc` retries, and the session goes on"
