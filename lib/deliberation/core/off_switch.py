"""The off switch for one session: which hooks' checks apply, and what is said when it flips.

Two ways to switch the checks off, both reachable where the user is (docs/STORAGE.md):
- `DELIBERATION=off claude` — the environment the hooks see. Only an off word counts: there is
  no value that switches checks ON, so a project's settings.json `env` (which reaches the hooks)
  can narrow but never widen. When that `env` replaces the user's own `DELIBERATION=off`, the
  session start finds the user's value in the client's environment (runtime/client_env).
- `/deliberation:off` and `/deliberation:on` (the plugin form; `/deliberation-off` and
  `/deliberation-on` where install.sh copied the commands): the prompt hook recognises the
  typed command or the client's expansion of it (`<command-name>/deliberation:off</command-name>`)
  and keeps the choice in the session's switch.json, which wins over the environment.

Pure and stdlib-only (the fast path decides with it): no file is read here.
"""

from __future__ import annotations

OFF_WORDS = frozenset({"off", "0", "false", "no"})
COMMANDS = {"off", "on"}
NAMESPACES = ("deliberation:",)
PREFIXED = {"deliberation-off": "off", "deliberation-on": "on"}


def env_off(value: "str | None") -> bool:
    """Whether an environment value switches the checks off (nothing switches them on)."""
    return isinstance(value, str) and value.strip().lower() in OFF_WORDS


def checks_off(env_value: "str | None", switch: "dict | None") -> "tuple[bool, str]":
    """(off, by): the session's own switch (`command`, or `environment` recorded at its start)
    wins; else the environment."""
    if isinstance(switch, dict) and switch.get("checks") in ("off", "on"):
        by = switch.get("by") if switch.get("by") in ("command", "environment") else "command"
        return switch["checks"] == "off", by
    return env_off(env_value), "environment"


def command_of(prompt: str, namespace: str = "") -> "str | None":
    """'off' / 'on' when `prompt` is the switch command — typed (`/deliberation:off`,
    `/deliberation-off`, with or without arguments) or as the client expands it
    (`<command-message>…</command-message>\\n<command-name>/deliberation:off</command-name>`);
    `namespace` is the plugin form's prefix when its name is not `deliberation` (`mine:`)."""
    text = prompt.lstrip()
    if text.startswith("<command-message>"):
        end = text.find("</command-message>", 0, 400)
        if end < 0:
            return None
        text = text[end + len("</command-message>"):].lstrip()
    if text.startswith("<command-name>"):
        end = text.find("</command-name>", 0, 200)
        if end < 0:
            return None
        text = text[len("<command-name>"):end]
    if not text.startswith("/"):
        return None
    word = text[1:].split(None, 1)[0] if text[1:].strip() else ""
    if word in PREFIXED:
        return PREFIXED[word]
    for ns in (*NAMESPACES, namespace):
        if ns and word.startswith(ns):
            name = word[len(ns):]
            if name in COMMANDS:
                return name
            if name in PREFIXED:
                return PREFIXED[name]
    return None


def command_names(plugin_form: bool, namespace: str = "deliberation:") -> "tuple[str, str]":
    """The off and on commands as the user types them in this install form."""
    if plugin_form:
        return f"/{namespace}off", f"/{namespace}on"
    return "/deliberation-off", "/deliberation-on"


WHAT = "no trigger, spawn budget, depth limit, gate or review hold applies"


def switched_off(by: str, on_cmd: str, already: bool = False, project_env: bool = False) -> "tuple[str, str]":
    """(what the person reads, what the model reads) when the checks are off."""
    if already:
        return (f"Deliberation checks are already off for this session; {on_cmd} switches them on.",
                f"The deliberation plugin's checks were already off for this session. Tell the user so in one "
                f"sentence; {on_cmd} switches them on.")
    if by == "environment":
        where = (" (DELIBERATION=off in the environment you started the client with; this project's settings "
                 "replace it for the hooks, which does not switch them on)" if project_env else " (DELIBERATION=off)")
        return (f"Deliberation checks are off for this session{where}: {WHAT}, and nothing of the session "
                f"is recorded. {on_cmd} switches them on.",
                "The deliberation plugin's checks are off for this session (DELIBERATION=off): it injects no "
                "protocol and refuses or holds nothing.")
    return (f"Deliberation checks are off for this session: {WHAT} until {on_cmd}, and nothing more of the "
            "session is recorded.",
            f"The user switched the deliberation plugin's checks off for this session: its hooks now allow "
            f"everything and say nothing more. Confirm that to the user in one sentence; {on_cmd} switches them "
            "back on.")


def switched_on(over_env: bool) -> "tuple[str, str]":
    """(person, model) when the checks are switched back on."""
    extra = " (over DELIBERATION=off)" if over_env else ""
    return (f"Deliberation checks are on again for this session{extra}.",
            "The user switched the deliberation plugin's checks back on for this session: its trigger, spawn "
            "budget, gates and review holds apply again from the next prompt. Confirm that to the user in one "
            "sentence.")


def hidden_env(value: str, off_cmd: str) -> str:
    """The person's note when a DELIBERATION value that is not off reaches the hooks and the
    client's own environment cannot be read (not Linux): a project's settings may have replaced
    the user's DELIBERATION=off."""
    return (f"Deliberation: the hooks see DELIBERATION={value[:40]!r}. If you started the client with "
            f"DELIBERATION=off, this project's .claude/settings.json `env` replaced it; type {off_cmd} to switch "
            "the checks off for this session.")
