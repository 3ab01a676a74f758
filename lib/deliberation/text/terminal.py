"""Commands printed to a person at a terminal, worded once: each runs as printed from where the
person is — `cmd` is `deliberation` when their PATH has it, else the full path of the plugin's
bin/deliberation (runtime/command_path.terminal_command) — and every line fits `WIDTH` columns
(a long command goes on with a trailing backslash, never broken inside a word).

One form of the review commands everywhere (the README, the demo, the record, `--help`):
`deliberation approve ID` / `deliberation reject ID`, either with an optional `--reason "…"`.
Pure: no I/O.
"""

from __future__ import annotations

import shlex

WIDTH = 100
REASON_NOTE = 'either takes --reason "…" (optional): why, kept with the decision'


def project_flag(project: str, here_finds: str) -> "list[str]":
    """`--project DIR` when the folder the person is in does not find `project` by itself."""
    return [] if project == here_finds else ["--project", shlex.quote(project)]


def command_lines(words: "list[str]", indent: str = "  ", width: int = WIDTH, note: str = "") -> "list[str]":
    """One shell command (`words`, already quoted) in lines of at most `width` columns: a line
    that would be too long goes on after ` \\` on the next, indented by four more; `note` (said
    after two spaces) ends its last line when it fits, else follows on its own."""
    lines = [indent + words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) + 2 > width and lines[-1].strip():
            lines[-1] += " \\"
            lines.append(indent + "    " + word)
        else:
            lines[-1] += " " + word
    if note:
        if len(lines[-1]) + 4 + len(note) <= width:
            lines[-1] += "  # " + note
        else:
            lines.append(indent + "# " + note)
    return lines


def settle_lines(cmd: str, delib_id: str, flag: "list[str]", indent: str = "  ") -> "list[str]":
    """The two commands that settle a decision awaiting review, and the optional reason."""
    return (
        command_lines([cmd, "approve", delib_id, *flag], indent, note="adopt the decision")
        + command_lines([cmd, "reject", delib_id, *flag], indent, note="set it aside")
        + [indent + "# " + REASON_NOTE]
    )


def no_deliberations(root: str, cmd: str) -> "list[str]":
    """`status` in a folder with none: where it looked, and how to look at a project elsewhere."""
    return [
        f"no deliberations in {root}",
        "For a project elsewhere, name it (the demo's is /tmp/deliberation-demo-*/project):",
        *command_lines([cmd, "status", "--project", "DIR"], "  "),
    ]


def pending_heading() -> str:
    return "awaiting your review — settle it with one of:"


def clone_doctor(plugin: str, cmd: str, demo_projects: "list[str]") -> "list[str]":
    """`doctor` run in the plugin's own folder (its clone): not a project, so nothing is wrong
    here; what to check instead."""
    lines = [
        "deliberation doctor: this is the plugin's own folder (its clone), not a project: nothing to",
        "check here, and install.sh will not install into it. To check a project instead:",
        *command_lines([cmd, "doctor", "--project", "DIR"], "  ", note="a project you use it in"),
    ]
    for project in demo_projects[:1]:
        lines += command_lines([cmd, "doctor", "--project", shlex.quote(project)], "  ", note="the demo's project")
    lines.append("To use the plugin in Claude Code, see the README's Install section.")
    return lines
