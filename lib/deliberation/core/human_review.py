"""Which hold applies while a decision awaits a person, and the notice its route needs.

`tool_answer` reads escalations.json's open entries (ids checked, a foreign id skipped) and says
('deny', why) after a hard reject, ('ask', why) for human review, (None, '') for a tool that is
not risky or a single read-only `deliberation` CLI call. `request_notice` is the notice sent
with the decision document's request when the route is known to need a person. Stdlib only and
pure: PreToolUse's fast path calls it; text/review.py holds the words.
"""

from __future__ import annotations

from deliberation.state.ids import is_valid_id
from deliberation.text import review
from deliberation.wire.hookio import RISKY_TOOLS, tool_matches, tool_names

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import Route


def request_notice(delib_id: str, route: str, rules: "list[str]", why: str, decision: "str | None", probes: "list[str]") -> str:
    """Said with the request for the decision document when the route is known to need a person
    (core/announce.py; `why` the details of the `rules` that fired): the main agent tells the
    user in its concluding answer, so the Stop that completes the deliberation goes through."""
    short = review.rule_why(rules)
    return review.route_notice(
        delid=delib_id,
        hard=route == "hard-reject",
        short=short,
        why=why,
        probes=probes,
        message=review.user_message(delib_id, route, decision, short),
    )


def rules_text(route: "Route") -> str:
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


def tool_answer(
    entries: "list[dict]", tool_name: str, risky_tools: str, command: "str | None" = None
) -> "tuple[str | None, str]":
    """PreToolUse while decisions await a person (entries of escalations.json's `open`):
    ('deny', why) after a hard reject, ('ask', why) for human review, (None, '') otherwise.
    The tool must be one of `risky_tools` (a tool-name pattern: hookio.tool_names; one that is
    not falls back to the default list) — string comparisons, never a regular expression.
    A Bash `command` that is a single read-only plugin CLI call (`read_only_cli`) is let through."""
    # every id pasted into a suggested command is a valid id (letters, digits, '-', '_'): an entry
    # with any other is not one this plugin wrote and is skipped
    entries = [e for e in entries if is_valid_id(e.get("deliberation_id"))]
    if not entries:  # nothing awaits a person: no pattern to match (and no `re` to load)
        return None, ""
    names = tool_names(risky_tools) or tool_names(RISKY_TOOLS) or []
    risky = tool_matches(names, tool_name or "")
    if not risky or (tool_name == "Bash" and read_only_cli(command)):
        return None, ""
    rejects = [e for e in entries if e.get("route") == "hard-reject"]
    shown = rejects or entries
    ids = [str(e.get("deliberation_id", "?")) for e in shown]
    lines = [f"- {e.get('reason', '')}; {review.settle_sentence(str(e.get('deliberation_id', '?')))}." for e in shown]
    if rejects:
        return "deny", review.reject_hold(tool_name, lines, ids)
    rules = [r for e in shown for r in rules_named(str(e.get("reason", "")))]
    return "ask", review.review_hold(tool_name, rules, lines, ids)
