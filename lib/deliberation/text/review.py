"""What the main agent and the user are told while a decision awaits a person: the Stop's hold
when a deliberation concludes on a route that needs one, and a risky tool call's hold.

Stdlib only: PreToolUse's fast path words the tool hold (core/human_review.tool_answer). The
hold's short reason follows the rules that routed the decision to a person — a split vote is
not told what a unanimous pass on a reversal-prone class is told.
"""

from __future__ import annotations


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


# why each escalating rule hands the decision to a person, in the order they are named
RULE_WHY = {
    "NO_CONSENSUS": "the panel reached no consensus: the choice is the user's",
    "D": "the panel's vote was split",
    "T1": "every accepted decision of this class goes to a person",
    "T2": "unanimity on a reversal-prone class is not confidence",
    "PROBE": "a probe found this decision novel for its class",
}


def rule_why(rules: "list[str]") -> str:
    """The short reason of the rules that fired ('; '-joined, in RULE_WHY's order)."""
    named = set(rules)
    why = [w for rule, w in RULE_WHY.items() if rule in named]
    return "; ".join(why) or "a rule sent it to a person"


def review_hold(tool: str, rules: "list[str]", lines: "list[str]", ids: "list[str]") -> str:
    """The `ask` reason for a risky `tool` while decisions `ids` await human review: `rules` the
    escalating rules of their routes, `lines` one line per open escalation (its reason and how a
    person settles it)."""
    return (f"{tool} needs a person's yes: a deliberation's decision awaits human review "
            f"({rule_why(rules)}). In a headless run this call is refused.\n"
            + "\n".join(lines) + "\n" + _tell(ids))


def reject_hold(tool: str, lines: "list[str]", ids: "list[str]") -> str:
    """The `deny` reason for a risky `tool` after a hard reject nobody has overridden."""
    return (f"{tool} is denied: a deliberation's decision was hard-rejected and nobody "
            "has overridden it (human review).\n" + "\n".join(lines) + "\n" + _tell(ids))


def _tell(ids: "list[str]") -> str:
    return ("Tell the user that the decision awaits their review and that they settle it with "
            + " / ".join(f"`deliberation approve {i}` or `deliberation reject {i}`" for i in ids)
            + "; do not retry this call before a person has.")
