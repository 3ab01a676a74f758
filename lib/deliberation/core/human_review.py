"""What the main agent and the user are told while a decision awaits a person (L3).

Stdlib only and pure: PreToolUse's fast path answers risky tools from escalations.json with
`tool_answer`. The request for the decision document carries `request_notice` when the route
is known to need a person, so the model tells the user in its concluding answer that the
decision is not final, why, and by which command a person settles it (`user_message`); the Stop
holds the main agent once with `main_agent_notice` only when that answer lacks it or the route
changed at the close (core/announce.py). The same words reach it when a risky tool is asked
about: interactively a person reads them in the permission prompt; in a headless run (`claude -p`) the client turns `ask`
into a denial and the model reads them verbatim as the tool's error (docs/HOOK_ANSWERS.md).
"""

from __future__ import annotations

from deliberation.state.ids import is_valid_id
from deliberation.text import review
from deliberation.wire.hookio import RISKY_TOOLS


def commands_hint(delib_id: str) -> str:
    return f"approve with `deliberation approve {delib_id}`, reject with `deliberation reject {delib_id}`"


def settle_sentence(delib_id: str) -> str:
    """How a person settles it — the user's own command, which the model must pass on."""
    return (f"a person settles it with `deliberation approve {delib_id}` (adopt the decision) or "
            f"`deliberation reject {delib_id}` (set it aside), run by the user — in Claude Code as "
            f"`! deliberation approve {delib_id}`, or in a terminal")


def user_message(delib_id: str, route: str, decision: "str | None", rules: str = "") -> str:
    """What the main agent tells the user of a decision on `route` (human-review or
    hard-reject): that it is not final, and the commands that settle it."""
    what = f"approach {decision}" if decision else "the outcome"
    because = f" ({rules})" if rules else ""
    if route == "hard-reject":
        return (f"The deliberation's decision ({what}) was hard-rejected{because}, so I will not apply it. "
                f"A person can override that with `deliberation approve {delib_id}`, or confirm it with "
                f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation reject {delib_id}`).")
    return (f"The deliberation chose {what}, but the decision is not final: it awaits your "
            f"review{because}. Approve it with `deliberation approve {delib_id}` or reject it with "
            f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation approve {delib_id}`); "
            "until then I will not apply it.")


def main_agent_notice(delib_id: str, route: str, why: str, decision: "str | None", rules: str = "") -> str:
    """The Stop hold when a deliberation concludes on `route` (human-review or hard-reject) and
    the concluding answer did not tell the user (core/announce.py): what the model must tell
    the user in its final answer. `why` is the escalation reason, `rules` the short form of the
    rules that fired (e.g. "T2: unanimous pass at …")."""
    what = f"approach {decision}" if decision else "the outcome"
    if route == "hard-reject":
        head = (f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is HARD-REJECTED: {why}. "
                "Do not apply it. Edit, Write, Bash and the other risky tools are denied until a person "
                "overrides: " + settle_sentence(delib_id) + ".")
    else:
        head = (f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is NOT final: it awaits "
                f"HUMAN REVIEW — {why}. Until a person decides, Edit, Write, Bash and the other risky "
                "tools ask for a person's yes (in a headless run they are refused); "
                + settle_sentence(delib_id) + ".")
    message = user_message(delib_id, route, decision, rules)
    return f"{head}\nNext: give your final answer now, and tell the user: \"{message}\""


def request_notice(delib_id: str, route: str, rules: "list[str]", why: str, decision: "str | None",
                   probes: "list[str]") -> str:
    """Said with the request for the decision document when the route is known to need a person
    (core/announce.py; `why` the details of the `rules` that fired): the main agent tells the
    user in its concluding answer, so the Stop that completes the deliberation goes through."""
    short = review.rule_why(rules)
    return review.route_notice(delid=delib_id, hard=route == "hard-reject", short=short, why=why, probes=probes,
                               message=user_message(delib_id, route, decision, short))


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
