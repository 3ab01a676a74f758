"""Which of the plugin's names a file of the project answers instead (core/shadows.py says why a
name is no proof; state/client_files.py where the client looks).

- `files_for(layout, name)`: the files that answer the slash command `/name` (or the skill of that
  name) in place of the plugin's — in the install.sh form its own copy in `.claude/commands/`, as
  install.sh writes it, is the plugin's and not counted. The prompt hook asks it for the deliberate
  command before it injects the protocol.
- `at_session_start(layout)`: every plugin command and the plugin's workflow a file takes, for the
  session start's line to the person (`deliberation doctor` adds the agent files).
Paths come relative to the project when inside it. Standard library only: the prompt hook and the
session start run it on the fast path (a few stats when nothing shadows; saved workflows are read
only when there are some).
"""

from __future__ import annotations

import os

from deliberation import plugin_root
from deliberation.state import client_files
from deliberation.state.paths import Layout, hook_env, plugin_agent_prefix

COMMAND_FILES = ("deliberate.md", "deliberation-status.md", "off.md", "on.md")  # the plugin's commands/
COMMAND_LIMIT = 64 * 1024


def _shown(path: str, project: str) -> str:
    rel = os.path.relpath(path, project)
    return path if rel.startswith("..") else rel


def _installed_copy(project: str, name: str) -> "tuple[str, bytes] | None":
    """install.sh form: (path, content) of the plugin's own copy of the command `name`."""
    from deliberation.text import commands as texts

    for file_name in COMMAND_FILES:
        if texts.installed_name(file_name)[: -len(".md")] != name:
            continue
        body = texts.body(file_name, "project")
        if body is not None:
            data = body.encode("utf-8")
        else:
            try:
                with open(os.path.join(plugin_root(), "commands", file_name), "rb") as fh:
                    data = fh.read(COMMAND_LIMIT)
            except OSError:
                return None
        return os.path.join(project, ".claude", "commands", name + ".md"), data
    return None


def files_for(layout: Layout, name: str) -> "list[str]":
    """The files that answer `/name` instead of the plugin ([] when none)."""
    found = client_files.command_files(layout.project, name, client_files.home_of(hook_env()))
    if not found:
        return []
    ours = _installed_copy(layout.project, name)  # install.sh's own copy (in either form: both may be there)
    out = []
    for path in found:
        if ours is not None and path == ours[0]:
            from deliberation.state import safe_read

            try:
                same = safe_read.read_bytes(path, COMMAND_LIMIT, root=layout.project).strip() == ours[1].strip()
            except OSError:
                same = False
            if same:
                continue
        out.append(_shown(path, layout.project))
    return out


def plugin_commands(prefix: "str | None" = None) -> "list[str]":
    """The names the plugin's commands are typed by in this form (and `deliberate`, the force
    marker's command, in the plugin form too: a project's command of that name would take it)."""
    from deliberation.text import commands as texts

    prefix = plugin_agent_prefix() if prefix is None else prefix
    stems = [f[: -len(".md")] for f in COMMAND_FILES]
    if prefix:
        return [prefix + s for s in stems] + ["deliberate"]
    return [texts.installed_name(f)[: -len(".md")] for f in COMMAND_FILES]


def at_session_start(layout: Layout, prefix: "str | None" = None) -> "list[tuple[str, str, list[str]]]":
    """(kind, name, files) of every plugin command and of the plugin's workflow a file takes."""
    prefix = plugin_agent_prefix() if prefix is None else prefix
    out: "list[tuple[str, str, list[str]]]" = []
    for name in plugin_commands(prefix):
        files = files_for(layout, name)
        if files:
            out.append(("command", "/" + name, files))
    saved = client_files.workflow_files(layout.project, client_files.home_of(hook_env()))
    if saved:
        from deliberation.core import shadows
        from deliberation.core.instructions import workflow_name
        from deliberation.state import safe_read

        name = workflow_name(prefix)
        try:
            shipped = safe_read.read_bytes(os.path.join(plugin_root(), "workflows", "deliberate.js"), client_files.SCRIPT_LIMIT)
        except OSError:
            shipped = None
        _ok, bad = shadows.workflow_sources(name, saved, shipped)
        if bad:
            out.append(("workflow", name, [_shown(p, layout.project) for p in bad]))
    return out


def typed_command(prompt: str) -> "str | None":
    """The slash command a prompt starts with, as the client resolves it (`deliberation:deliberate`)."""
    text = prompt.lstrip()
    if not text.startswith("/") or len(text) < 2:
        return None
    word = text[1:].split(None, 1)[0]
    return word if word and "/" not in word else None


def forced_by_shadow(layout: Layout, command: "str | None", result: dict) -> "tuple[str, str] | None":
    """When the trigger was forced by a command a file of the project answers: (the model's note,
    the person's line), and `result` no longer says triggered or forced — the user asked for the
    plugin's command and got the repository's; the plugin adds no protocol as if they had asked it."""
    if not command or not (result.get("forced") or result.get("triggered")):
        return None
    files = files_for(layout, command.lstrip("/"))
    if not files:
        return None
    from deliberation.text import shadows as words

    result["triggered"] = result["forced"] = False
    result["shadowed_by"] = files[:5]
    return words.command_shadowed(command.lstrip("/"), files), words.command_shadowed_person(command.lstrip("/"), files)
