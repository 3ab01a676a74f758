"""What is said while a decision awaits a person: a risky tool's hold (PreToolUse), the Stop's
hold when the concluding answer did not tell the user (`main_agent_notice`), the notice sent with
the decision document's request (`route_notice`), and the sentence the user is told with the
commands that settle it (`user_message`).

Stdlib only: PreToolUse's fast path words the hold (core/human_review.tool_answer). The hold's
short reason follows the rules that routed the decision to a person — a split vote is not told
what a unanimous pass on a reversal-prone class is told.
"""

from __future__ import annotations

# why each escalating rule hands the decision to a person, in the order they are named
RULE_WHY = {
    "NO_CONSENSUS": "the panel reached no consensus: the choice is the user's",
    "D": "the panel's vote was not unanimous (a voter rejected it or preferred another approach)",
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
    return (
        f"{tool} needs a person's yes: a deliberation's decision awaits human review "
        f"({rule_why(rules)}). In a headless run this call is refused.\n" + "\n".join(lines) + "\n" + _tell(ids)
    )


def reject_hold(tool: str, lines: "list[str]", ids: "list[str]") -> str:
    """The `deny` reason for a risky `tool` after a hard reject nobody has overridden."""
    return (
        f"{tool} is denied: a deliberation's decision was hard-rejected and nobody "
        "has overridden it (human review).\n" + "\n".join(lines) + "\n" + _tell(ids)
    )


def _tell(ids: "list[str]") -> str:
    return (
        "Tell the user that the decision awaits their review and that they settle it with "
        + " / ".join(f"`deliberation approve {i}` or `deliberation reject {i}`" for i in ids)
        + "; do not retry this call before a person has."
    )


def route_notice(delid: str, hard: bool, short: str, why: str, probes: "list[str]", message: str) -> str:
    """Said with the request for the decision document when its route will need a person
    (core/human_review.request_notice): why (`short`, the rules' details `why`), the probes still
    to run, and `message`, the sentence to tell the user."""
    what = "is HARD-REJECTED" if hard else "goes to HUMAN REVIEW"
    detail = f" ({why})" if why else ""
    ran = f" Probes {', '.join(probes)} run when you stop; if one changes the route, the Stop tells you." if probes else ""
    return (
        f"Route: when deliberation {delid} closes, its decision {what} — {short}{detail}.{ran} "
        "Say so in your concluding answer, with the deliberation id and the `deliberation approve` "
        f'command (then your stop goes through without a hold); tell the user: "{message}"'
    )


def commands_hint(delib_id: str) -> str:
    return f"approve with `deliberation approve {delib_id}`, reject with `deliberation reject {delib_id}`"


def settle_sentence(delib_id: str) -> str:
    """How a person settles it — the user's own command, which the model must pass on."""
    return (
        f"a person settles it with `deliberation approve {delib_id}` (adopt the decision) or "
        f"`deliberation reject {delib_id}` (set it aside), run by the user — in Claude Code as "
        f"`! deliberation approve {delib_id}`, or in a terminal"
    )


def user_message(delib_id: str, route: str, decision: "str | None", rules: str = "") -> str:
    """What the main agent tells the user of a decision on `route` (human-review or
    hard-reject): that it is not final, and the commands that settle it."""
    what = f"approach {decision}" if decision else "the outcome"
    because = f" ({rules})" if rules else ""
    if route == "hard-reject":
        return (
            f"The deliberation's decision ({what}) was hard-rejected{because}, so I will not apply it. "
            f"A person can override that with `deliberation approve {delib_id}`, or confirm it with "
            f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation reject {delib_id}`)."
        )
    return (
        f"The deliberation chose {what}, but the decision is not final: it awaits your "
        f"review{because}. Approve it with `deliberation approve {delib_id}` or reject it with "
        f"`deliberation reject {delib_id}` (in Claude Code: `! deliberation approve {delib_id}`); "
        "until then I will not apply it."
    )


def main_agent_notice(delib_id: str, route: str, why: str, decision: "str | None", rules: str = "") -> str:
    """The Stop hold when a deliberation concludes on `route` (human-review or hard-reject) and
    the concluding answer did not tell the user (core/announce.py decides): what the model must tell
    the user in its final answer. `why` is the escalation reason, `rules` the short form of the
    rules that fired (e.g. "T2: unanimous pass at …")."""
    what = f"approach {decision}" if decision else "the outcome"
    if route == "hard-reject":
        head = (
            f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is HARD-REJECTED: {why}. "
            "Do not apply it. Edit, Write, Bash and the other risky tools are denied until a person "
            "overrides: " + settle_sentence(delib_id) + "."
        )
    else:
        head = (
            f"Deliberation {delib_id} is COMPLETE but its decision ({what}) is NOT final: it awaits "
            f"HUMAN REVIEW — {why}. Until a person decides, Edit, Write, Bash and the other risky "
            "tools ask for a person's yes (in a headless run they are refused); " + settle_sentence(delib_id) + "."
        )
    message = user_message(delib_id, route, decision, rules)
    return f'{head}\nNext: give your final answer now, and tell the user: "{message}"'


def read_only_spawn(agent_type: str, tools: "list[str]") -> str:
    """The reason of the `allow` a read-only deliberation spawn gets in auto mode (core/auto_mode.py):
    shown with the call, so the person knows why no check asked them."""
    return (
        f"Deliberation plugin: {agent_type} only reads ({', '.join(tools)}), so in auto mode it starts "
        "without a classifier check or a prompt (deliberation.allow_read_only_agents)."
    )
