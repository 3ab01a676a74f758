"""The slash commands' bodies, in the words true for the install form they run in.

The plugin form (a marketplace install or `claude --plugin-dir`) ships `commands/*.md` as they
are: the client names them `/<plugin>:<command>`, the hooks come with the plugin, and its
command line is on the Bash tool's PATH. `install.sh` copies them into the project's
`.claude/commands/`, where they are `/<command>` and the hooks are wired in by install.sh.
`commands/<name>.md` is `body(name, "plugin")` (tests/unit/test_command_texts.py checks it), and
install writes `body(name, "project")`. Commands not named here are copied as they are.
Pure; standard library only (install.sh runs it with a bare interpreter).
"""

from __future__ import annotations

FORMS = ("plugin", "project")
PLUGIN = "deliberation"  # .claude-plugin/plugin.json's name: the plugin form's namespace


def command_name(command: str, form: str) -> str:
    """How the user types a command in a form: `/deliberation:deliberate` or `/deliberate`."""
    return f"/{PLUGIN}:{command}" if form == "plugin" else f"/{command}"


def _no_protocol(form: str) -> str:
    if form == "plugin":
        return (
            "If there is no DELIBERATION PROTOCOL in your context, the plugin's hooks did not "
            "answer this prompt (on the plugin's first session they wait until its Python "
            "environment is set up; a hook that fails warns the user): tell the user that no "
            "deliberation started, that `deliberation doctor` in a shell says why, and stop."
        )
    return (
        "If there is no DELIBERATION PROTOCOL in your context, the plugin's hooks are not "
        "running in this project: tell the user that no deliberation started and that the "
        "plugin's install.sh wires its hooks into this project, and stop."
    )


def deliberate(form: str) -> str:
    return f"""---
description: Deliberate on a decision with independent persona subagents (research, deliberation, ranking) under the plugin's gates
argument-hint: <the question or decision to deliberate>
---

Deliberate on this decision before acting on it: $ARGUMENTS

The deliberation plugin adds its DELIBERATION PROTOCOL for this question to your context with this
message: follow it, and follow the plugin's notes, refusals and holds, which each name the next
step it accepts. {command_name("deliberation-status", form)} shows its progress. {_no_protocol(form)}
"""


def _not_on_path(form: str) -> str:
    if form == "plugin":
        return (
            "If the shell reports that `deliberation` is not found, say that the plugin's "
            "command-line tool is not on PATH yet: Claude Code puts an installed plugin's `bin/` "
            "folder on it when it starts, so restart Claude Code."
        )
    return (
        "If the shell reports that `deliberation` is not found, say that the plugin's "
        "command-line tool is not on PATH: add the plugin's `bin` folder (or the `.venv/bin` "
        "folder install.sh made) to PATH."
    )


def deliberation_status(form: str) -> str:
    return f"""---
description: Show this project's deliberations (phase, agents, consensus, gates, route)
argument-hint: "[--open] [--session SESSION_ID] [--json]"
allowed-tools: Bash(deliberation:*)
---

Run `deliberation status $ARGUMENTS` with the Bash tool and show its output to the user as it
is, then add at most two sentences on what the active deliberation needs next (for example the
phase it waits for or the gate that failed). Run nothing else.

{_not_on_path(form)}
"""


COMMANDS = {"deliberate.md": deliberate, "deliberation-status.md": deliberation_status}


def body(file_name: str, form: str) -> "str | None":
    """The body of `commands/<file_name>` in a form; None for a command not worded here."""
    words = COMMANDS.get(file_name)
    if words is None or form not in FORMS:
        return None
    return words(form)


def installed_name(file_name: str) -> str:
    """The file name a copied command gets in a project. The plugin form namespaces its commands
    (`commands/off.md` is `/deliberation:off`); a project's own commands are not, so a command
    whose name does not already say deliberation gets the prefix (`/deliberation-off`), and no
    bare `/off` or `/on` lands among the project's commands."""
    return file_name if file_name.startswith("deliberat") else "deliberation-" + file_name
