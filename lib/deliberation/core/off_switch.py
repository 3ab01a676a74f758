"""The off switch for one session: which hooks' checks apply (what is said when it flips: text/switch.py).

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
        by = switch.get("by")
        return switch["checks"] == "off", by if by in ("command", "environment") else "command"
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
        text = text[end + len("</command-message>") :].lstrip()
    if text.startswith("<command-name>"):
        end = text.find("</command-name>", 0, 200)
        if end < 0:
            return None
        text = text[len("<command-name>") : end]
    if not text.startswith("/"):
        return None
    word = text[1:].split(None, 1)[0] if text[1:].strip() else ""
    if word in PREFIXED:
        return PREFIXED[word]
    for ns in (*NAMESPACES, namespace):
        if ns and word.startswith(ns):
            name = word[len(ns) :]
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
