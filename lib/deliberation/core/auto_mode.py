"""Auto mode, the permission mode interactive sessions start in: which spawns the plugin lets
through without anyone's check (pure; the shell reads the files).

In auto mode a classifier reviews every action that is not read-only. When the client cannot
reach it (a gateway that does not pass it through), each such action waits for the person,
an Agent spawn among them (measured: docs/CLIENT_CHANNELS.md), so a deliberation of a dozen
agents stalls on a keypress per agent. A PreToolUse `allow` takes the place of that check
(measured: no classifier review, no prompt; a user's deny rule still refuses the spawn, an ask
rule no longer asks). So the plugin answers `allow` for exactly the spawns whose agent can only
read — never a spawn the rules refused, never outside auto mode, never when the user asked to
be asked:

- the spawn is a deliberation agent's that the plugin's own rules accepted;
- the session is in auto mode (the hook payload's `permission_mode`);
- every agent definition of that type the client may load declares `tools:` within
  READ_ONLY_TOOLS (no `tools:` line gives an agent every tool, so it does not count), and there
  is at least one — the definitions are read for what they grant, whatever their file is called;
- no `permissions.ask` rule of the user's or the project's settings names the Agent tool;
- `deliberation.allow_read_only_agents` is on (a committed false turns it off: it tightens).

What such an agent does afterwards — its reads — needs no check in auto mode either.
"""

from __future__ import annotations

from typing import Iterable

from deliberation.wire.hookio import AUTO_MODE

READ_ONLY_TOOLS = frozenset({"Read", "Grep", "Glob"})
SPAWN_TOOLS = ("Agent", "Task")


def frontmatter(text: str) -> "dict[str, str]":
    """The `key: value` lines of an agent file's front matter (lower-case keys; {} without one)."""
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    out: "dict[str, str]" = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            out[key.strip().lower()] = value.strip().strip("\"'")
    return out


def tools_of(definition: str) -> "frozenset[str] | None":
    """The tools an agent definition grants (None: no `tools:` line — every tool)."""
    value = frontmatter(definition).get("tools")
    if value is None:
        return None
    value = value.strip("[]")
    return frozenset(t.strip().strip("\"'") for t in value.split(",") if t.strip())


def defines(definition: str, slug: str) -> bool:
    """The definition is the agent type `slug` (its front matter's `name`, as the client reads it)."""
    return frontmatter(definition).get("name") == slug


def read_only(definitions: "Iterable[str]") -> bool:
    """At least one definition, and each grants only tools within READ_ONLY_TOOLS."""
    seen = False
    for d in definitions:
        tools = tools_of(d)
        if tools is None or not tools <= READ_ONLY_TOOLS:
            return False
        seen = True
    return seen


def asks_for_spawns(ask_rules: "Iterable[str]") -> bool:
    """A `permissions.ask` rule names the Agent tool (`Agent`, `Agent(x)`, the older `Task`)."""
    return any(isinstance(r, str) and r.strip().split("(", 1)[0].strip() in SPAWN_TOOLS for r in ask_rules)


def allows(
    enabled: bool,
    permission_mode: "str | None",
    deliberation_spawn: bool,
    definitions: "Iterable[str]",
    ask_rules: "Iterable[str]",
) -> bool:
    """Whether an accepted spawn is answered `allow` (module docstring)."""
    return (
        enabled
        and permission_mode == AUTO_MODE
        and deliberation_spawn
        and not asks_for_spawns(ask_rules)
        and read_only(definitions)
    )
