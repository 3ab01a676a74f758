"""The files behind the client's permission check of a spawn (core/auto_mode.py decides): the
agent definitions the client may load for an agent type, and the `permissions.ask` rules of the
settings it reads. Every read is bounded and goes through state/safe_read (a project's files are
someone else's input: read for what they grant, never followed through a link).
"""

from __future__ import annotations

import os

from deliberation import plugin_root
from deliberation.core import auto_mode, personas
from deliberation.state import project_env, safe_read, user_data
from deliberation.state.paths import hook_env
from deliberation.wire import fastjson

MAX_AGENT_FILES = 200
AGENT_FILE_LIMIT = 64 * 1024
SETTINGS_LIMIT = 1 << 20
# the managed settings file of each platform (the organisation's, read by the client before any other)
MANAGED_SETTINGS = ("/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json")


def agent_definitions(project: str, subagent_type: str, prefix: str) -> "list[str]":
    """The text of every agent file that defines `subagent_type` for the client: with the plugin's
    namespace (`prefix`, plugin form) the plugin's own agents/ folder, without one the project's
    .claude/agents/ — each file judged by the `name` in its front matter, not by its file name.
    [] for another plugin's namespace, or when none defines it."""
    slug = personas.normalise_agent_type(subagent_type)
    if not slug:
        return []
    if ":" in subagent_type:
        if not prefix or not subagent_type.startswith(prefix):
            return []
        folder, root = os.path.join(plugin_root(), "agents"), None
    else:
        folder, root = os.path.join(project, ".claude", "agents"), project
    found = []
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))[:MAX_AGENT_FILES]
    except OSError:
        return []
    for name in names:
        try:
            text = safe_read.read_bytes(os.path.join(folder, name), AGENT_FILE_LIMIT, root).decode("utf-8", "replace")
        except OSError:
            continue
        if auto_mode.defines(text, slug):
            found.append(text)
    return found


def ask_rules(project: str) -> "list[str]":
    """The `permissions.ask` rules of the managed, user, project and local settings. The user's
    folder comes from the hook's own environment (in the warm worker, the request's) — never from a
    HOME or CLAUDE_CONFIG_DIR the project's settings supplied — and the account's home folder is
    read too: a rule found anywhere keeps the check, so reading more only tightens."""
    env = hook_env()
    by = project_env.supplied(project, env)
    homes = dict.fromkeys(h for h in (by.own(env, "HOME"), user_data.home()) if h)
    config_dirs = [by.own(env, "CLAUDE_CONFIG_DIR")] + [os.path.join(h, ".claude") for h in homes]
    paths = [
        *MANAGED_SETTINGS,
        *dict.fromkeys(os.path.join(d, "settings.json") for d in config_dirs if d),
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.local.json"),
    ]
    rules: "list[str]" = []
    for path in paths:
        try:
            data = fastjson.loads(safe_read.read_bytes(path, SETTINGS_LIMIT))
        except (OSError, ValueError, RecursionError):
            continue
        perms = data.get("permissions") if isinstance(data, dict) else None
        ask = perms.get("ask") if isinstance(perms, dict) else None
        if isinstance(ask, list):
            rules.extend(r for r in ask if isinstance(r, str))
    return rules
