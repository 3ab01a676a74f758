"""What a risky tool call is told while a decision awaits a person (the PreToolUse hold).

Stdlib only: PreToolUse's fast path words it (core/human_review.tool_answer). The hold's short
reason follows the rules that routed the decision to a person — a split vote is not told what a
unanimous pass on a reversal-prone class is told.
"""

from __future__ import annotations

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


def route_notice(delid: str, hard: bool, short: str, why: str, probes: "list[str]", message: str) -> str:
    """Said with the request for the decision document when its route will need a person
    (core/human_review.request_notice): why (`short`, the rules' details `why`), the probes still
    to run, and `message`, the sentence to tell the user."""
    what = "is HARD-REJECTED" if hard else "goes to HUMAN REVIEW"
    detail = f" ({why})" if why else ""
    ran = (f" Probes {', '.join(probes)} run when you stop; if one changes the route, the Stop tells you."
           if probes else "")
    return (f"Route: when deliberation {delid} closes, its decision {what} — {short}{detail}.{ran} "
            "Say so in your concluding answer, with the deliberation id and the `deliberation approve` "
            f"command (then your stop goes through without a hold); tell the user: \"{message}\"")
