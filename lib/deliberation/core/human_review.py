"""What follows while a decision awaits a person (L3): the hold of a risky tool call, and which
Bash calls pass it (pure, stdlib only).

PreToolUse's fast path answers risky tools from escalations.json with `tool_answer`: `deny`
after a hard reject, `ask` for human review — interactively a person reads the reason in the
permission prompt; in a headless run (`claude -p`) the client turns `ask` into a denial and the
model reads the reason verbatim as the tool's error (docs/HOOK_ANSWERS.md). The Stop hook holds
the main agent once with `main_agent_notice` when a deliberation concludes on such a route. The
words of both are text/review.py's.
"""

from __future__ import annotations

from deliberation.state.ids import is_valid_id
from deliberation.text import review
from deliberation.text.review import main_agent_notice as main_agent_notice  # the Stop hold's words (core/stop.py)
from deliberation.text.review import settle_sentence
from deliberation.wire.hookio import RISKY_TOOLS


def rules_text(route) -> str:
    """'T2: unanimous pass at …; D: …' — the rules that sent a route to a person."""
    return "; ".join(f"{r.rule}: {r.detail}" for r in route.rules if r.rule != "COLD_START")


def rules_named(reason: str) -> "list[str]":
    """The rule names an escalation reason carries ("… routed to human-review — T2: …; D: … — …")."""
    import re

    return re.findall(r"(?:^|— |; )([A-Z][A-Z0-9_]*): ", reason)


# the plugin's own CLI subcommands that only read state: the hold lets a Bash call through when
# it is exactly one of these (the status answer tells the model to run `deliberation status`)
READ_ONLY_COMMANDS = ("status", "show", "latest", "report", "lineage", "log")
_SHELL_CONTROL = (";", "&", "|", "`", "$(", ">", "<", "\n", "\r")


def read_only_cli(command: "str | None") -> bool:
    """`command` is a single read-only invocation of the plugin's CLI (`deliberation status`,
    `deliberation show ID`, …) with no shell control character: nothing else runs, nothing is
    written (no `-o FILE`). approve, reject, trust and config are not read-only."""
    if not isinstance(command, str) or any(c in command for c in _SHELL_CONTROL):
        return False
    words = command.split()
    if any(w in ("-o", "--output") or w.startswith(("-o", "--output=")) for w in words):
        return False  # `report -o FILE` writes a file
    return len(words) >= 2 and words[0] == "deliberation" and words[1] in READ_ONLY_COMMANDS


def tool_answer(entries: "list[dict]", tool_name: str, risky_tools: str,
                command: "str | None" = None) -> "tuple[str | None, str]":
    """PreToolUse while decisions await a person (entries of escalations.json's `open`):
    ('deny', why) after a hard reject, ('ask', why) for human review, (None, '') otherwise.
    The tool must fully match `risky_tools`; an invalid regex falls back to the default list.
    A Bash `command` that is a single read-only plugin CLI call (`read_only_cli`) is let through."""
    # every id pasted into a suggested command is a valid id (letters, digits, '-', '_'): an entry
    # with any other is not one this plugin wrote and is skipped
    entries = [e for e in entries if is_valid_id(e.get("deliberation_id"))]
    if not entries:  # nothing awaits a person: no pattern to match (and no `re` to load)
        return None, ""
    import re

    try:
        risky = re.fullmatch(risky_tools or RISKY_TOOLS, tool_name or "") is not None
    except re.error:
        risky = re.fullmatch(RISKY_TOOLS, tool_name or "") is not None
    if not risky or (tool_name == "Bash" and read_only_cli(command)):
        return None, ""
    rejects = [e for e in entries if e.get("route") == "hard-reject"]
    shown = rejects or entries
    ids = [str(e.get("deliberation_id", "?")) for e in shown]
    lines = [f"- {e.get('reason', '')}; {settle_sentence(str(e.get('deliberation_id', '?')))}." for e in shown]
    if rejects:
        return "deny", review.reject_hold(tool_name, lines, ids)
    rules = [r for e in shown for r in rules_named(str(e.get("reason", "")))]
    return "ask", review.review_hold(tool_name, rules, lines, ids)
