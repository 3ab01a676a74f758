"""What the main agent and the user are told while a decision awaits a person (L3).

Stdlib only and pure: PreToolUse's fast path answers risky tools from escalations.json with
`tool_answer`, and the Stop hook holds the main agent once with `main_agent_notice` when a
deliberation concludes on a route that needs a person — so the model learns, before its final
answer, that the decision is not final, why, by which command a person settles it, and what to
tell the user. The same words reach it when a risky tool is asked about: interactively a person
reads them in the permission prompt; in a headless run (`claude -p`) the client turns `ask`
into a denial and the model reads them verbatim as the tool's error (docs/HOOK_ANSWERS.md).
"""

from __future__ import annotations

from deliberation.state.ids import is_valid_id
from deliberation.wire.hookio import RISKY_TOOLS


def commands_hint(delib_id: str) -> str:
    return f"approve with `deliberation approve {delib_id}`, reject with `deliberation reject {delib_id}`"


def settle_sentence(delib_id: str) -> str:
    """How a person settles it — the user's own command, which the model must pass on."""
    return (f"a person settles it with `deliberation approve {delib_id}` (adopt the decision) or "
            f"`deliberation reject {delib_id}` (set it aside), run by the user — in Claude Code as "
            f"`! deliberation approve {delib_id}`, or in a terminal")


def main_agent_notice(delib_id: str, route: str, why: str, decision: "str | None", rules: str = "") -> str:
    """The Stop hold when a deliberation concludes on `route` (human-review or hard-reject):
    what the model must tell the user in its final answer. `why` is the escalation reason,
    `rules` the short form of the rules that fired (e.g. "T2: unanimous pass at …")."""
    what = f"approach {decision}" if decision else "the outcome"
    because = f" ({rules})" if rules else ""
    if route == "hard-reject":
        head = (f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is HARD-REJECTED: {why}. "
                "Do not apply it. Edit, Write, Bash and the other risky tools are denied until a person "
                "overrides: " + settle_sentence(delib_id) + ".")
        message = (f"The deliberation's decision ({what}) was hard-rejected{because}, so I will not apply it. "
                   f"A person can override that with `deliberation approve {delib_id}`, or confirm it with "
                   f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation reject {delib_id}`).")
    else:
        head = (f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is NOT final: it awaits "
                f"HUMAN REVIEW — {why}. Until a person decides, Edit, Write, Bash and the other risky "
                "tools ask for a person's yes (in a headless run they are refused); "
                + settle_sentence(delib_id) + ".")
        message = (f"The deliberation chose {what}, but the decision is not final: it awaits your "
                   f"review{because}. Approve it with `deliberation approve {delib_id}` or reject it with "
                   f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation approve {delib_id}`); "
                   "until then I will not apply it.")
    return f"{head}\nNext: give your final answer now, and tell the user: \"{message}\""


def rules_text(route) -> str:
    """'T2: unanimous pass at …; D: …' — the rules that sent a route to a person."""
    return "; ".join(f"{r.rule}: {r.detail}" for r in route.rules if r.rule != "COLD_START")


def tool_answer(entries: "list[dict]", tool_name: str, risky_tools: str) -> "tuple[str | None, str]":
    """PreToolUse while decisions await a person (entries of escalations.json's `open`):
    ('deny', why) after a hard reject, ('ask', why) for human review, (None, '') otherwise.
    The tool must fully match `risky_tools`; an invalid regex falls back to the default list."""
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
    if not risky:
        return None, ""
    rejects = [e for e in entries if e.get("route") == "hard-reject"]
    shown = rejects or entries
    ids = [str(e.get("deliberation_id", "?")) for e in shown]
    lines = [f"- {e.get('reason', '')}; {settle_sentence(str(e.get('deliberation_id', '?')))}." for e in shown]
    tell = ("Tell the user that the decision awaits their review and that they settle it with "
            + " / ".join(f"`deliberation approve {i}` or `deliberation reject {i}`" for i in ids)
            + "; do not retry this call before a person has.")
    if rejects:
        return "deny", (f"{tool_name} is denied: a deliberation's decision was hard-rejected and nobody "
                        "has overridden it (human review).\n" + "\n".join(lines) + "\n" + tell)
    return "ask", (f"{tool_name} needs a person's yes: a deliberation's decision awaits human review "
                   "(unanimity on a reversal-prone class is not confidence). In a headless run this "
                   "call is refused.\n" + "\n".join(lines) + "\n" + tell)
