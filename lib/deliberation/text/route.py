"""The words of the route after the vote: each fired rule's detail, what the policy knowingly
left out, the vote as one line, and the route's one-line summary.

The rules (core/escalation.py) decide which rules fire and which route follows; they pass the
figures here: the decision class, reversal counts, the judges' confidence and its bar, the vote's
counts, the probes that failed.
"""

from __future__ import annotations

from typing import Sequence


def vote(approvals: int, rejections: int, abstentions: int, dissents: int, confidence: "float | None") -> str:
    """'3 approve / 0 reject / 0 abstain, but 1 ranker that did not reject prefers another
    approach (judges' confidence 0.91)': the counts first, then — said as the exception it is,
    never as a fourth count beside them — the rankers that did not reject the leader yet scored
    another approach highest."""
    conf = "" if confidence is None else f" (judges' confidence {confidence:.2f})"
    who = "ranker that did not reject prefers" if dissents == 1 else "rankers that did not reject prefer"
    other = f", but {dissents} {who} another approach" if dissents else ""
    return f"{approvals} approve / {rejections} reject / {abstentions} abstain{other}{conf}"


def probe_timed_out(name: str, seconds: float) -> str:
    return f"{name} timed out after {seconds:.1f}s"


def probe_not_run(name: str, error: str) -> str:
    return f"{name} could not run ({error or 'no exit status'})"


def probe_exited(name: str, code: int) -> str:
    return f"{name} exited {code}"


def t1(cls: str, count: int) -> str:
    return f"class {cls} was reversed {count} time(s) before and this decision is on the accept path"


def t2(confidence: "float | None", bar: float, cls: str, count: int) -> str:
    """T2: a unanimous pass at high judges' confidence on a reversal-prone class (it fires only
    with a confidence)."""
    return (
        f"unanimous pass at judges' confidence {confidence or 0.0:.2f} >= {bar:.2f} "
        f"on reversal-prone class {cls} (reversed {count} time(s)): unanimity is the warning"
    )


def split(pattern: str, vote: str) -> str:
    """Rule D: a split vote (`pattern` split) or none; `vote`: the vote's line."""
    what = "split vote" if pattern == "split" else "no approve/reject vote"
    return f"{what}: {vote}"


def probe_failed(overrides_pass: bool, failures: "list[str]") -> str:
    over = " overrides the unanimous pass" if overrides_pass else ""
    return f"probe failed{over}: " + "; ".join(failures)


def cold_start(cls: str) -> str:
    return (
        f"class {cls} has no history in the reversal registry: the recurrence arm (T1/T2) "
        "is blind here, routing falls back to the split-vote rule D"
    )


def not_escalated(cls: str, count: int, pattern: str, confidence: "float | None", bar: float, policy: str) -> str:
    """A reversal-prone class passed without T2, and T1 is not in the policy: what the record says."""
    why = (
        "the vote is unanimous but the judges' confidence "
        + (f"{confidence:.2f} < {bar:.2f}" if confidence is not None else "is unknown")
        if pattern == "unanimous-pass"
        else f"the vote pattern is {pattern}"
    )
    return (
        f"class {cls} was reversed {count} time(s) before, yet this "
        f"accepted decision is not escalated: {why}, so T2 does not fire, and T1 (escalate every "
        f"accepted decision of a reversed class) is not in policy {policy}; set "
        "escalation.policy to T1+D+T2+PROBE to escalate it"
    )


def unanimous(route: str) -> str:
    """What set an automatic route: the unanimous vote nothing flagged."""
    return "unanimous reject" if route == "auto-reject" else "unanimous pass, no rule fired"


def summary(route: str, fired: "Sequence[str]", cls: str, policy: str, cold: bool) -> str:
    """One line: 'human-review (T2, PROBE) for class security/auth, policy D+T2+PROBE'."""
    why = f" ({', '.join(fired)})" if fired else ""
    cold_note = " [cold start: no reversal history]" if cold else ""
    in_policy = f", policy {policy}" if policy else ""
    return f"{route}{why} for class {cls}{in_policy}{cold_note}"


def reclassified(entries: "Sequence[Sequence[str]]") -> str:
    """What `deliberation registry` says of labelled decisions the catalogue now classes elsewhere
    ((class in the registry, decision, class now): core/reversals.reclassified); "" for none."""
    if not entries:
        return ""
    return "\n".join(
        [
            "reclassified: the task types now class these decisions' questions elsewhere, so their labels no "
            "longer reach new decisions of that class (relabel one with `deliberation reverse ID` or `confirm ID` "
            "to file it under its new class; docs/CATALOGUES.md):",
            *(f"  {d}: filed under {old}, classed {now} today" for old, d, now in entries),
        ]
    )
