"""What a record leads with: the outcome, the route, what the reader must do, then why.

Pure functions over the typed record (`record_model.DecisionRecord`, `decision_record.build`),
shared by the Markdown and the HTML record so that both open with the same four things:

- headline — the decision, or "No consensus", "Rejected", "FAILED", "In progress";
- route — where the decision went and the state of its review (who settled it, when, why);
- action — what the reader must do, with the exact commands when a person must decide;
- why — the figures and rules behind it, in a few short lines.

Also here: the mark of a gate check. A check that passed but carries warnings (conformity:
"4 warning(s)") is a warning, never a plain pass: it is never shown beside a green tick.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from deliberation.state import record_model as R

from deliberation.text.terminal import REASON_NOTE

WARNED = re.compile(r"^[1-9]\d* warning")


def check_mark(check: "R.CheckRow") -> str:
    """'pass', 'warn' (passed, but with warnings) or 'fail'."""
    if not check.passed:
        return "fail"
    return "warn" if WARNED.match(str(check.figure or "")) else "pass"


def gate_mark(gate: "R.GateRow | None") -> str:
    """'not run', 'failed', 'passed with warnings' or 'passed'."""
    if gate is None:
        return "not run"
    if not gate.passed:
        return "failed"
    return "passed with warnings" if any(check_mark(c) == "warn" for c in gate.checks) else "passed"


def _when(ts: "float | None") -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "at an unrecorded time"


def _first(text: str) -> str:
    """`text` on one line, whole: a record cuts no quote."""
    return " ".join((text or "").split())


def kind_of(rec: "R.DecisionRecord") -> str:
    """failed | open | rejected | no-consensus | decided."""
    d = rec.decision
    if rec.phase == "FAILED":
        return "failed"
    if d.approach is None:
        return "open"
    if d.outcome == "rejected":
        return "rejected"
    if not d.meets_threshold:
        return "no-consensus"
    return "decided"


@dataclass(frozen=True)
class Outcome:
    """What a record leads with: its kind (failed | open | rejected | no-consensus | decided),
    the headline, the route, the action (with `commands` when a person must decide) and why."""

    kind: str
    headline: str
    route: str
    action: str
    commands: "list[str]"
    must_act: bool
    why: "list[str]"


def outcome(rec: "R.DecisionRecord") -> Outcome:
    """The outcome of one record (pure)."""
    d, r, did = rec.decision, rec.route, rec.deliberation_id
    kind = kind_of(rec)
    headline = {
        "failed": "FAILED — no decision",
        "open": f"In progress — no decision yet (phase {rec.phase})",
        "rejected": "Rejected — no approach adopted",
        "no-consensus": f"No consensus — the leading approach, {d.title} ({d.approach}), is below the threshold",
        "decided": f"Decision: {d.title} ({d.approach})",
    }[kind]
    commands: list[str] = []
    must_act = False
    if r is None:
        route = "not routed yet"
    else:
        route = r.route
        review = r.review
        if review == "pending":
            route += " — awaiting a person's review"
        elif review in ("approved", "rejected"):
            reason = f": “{_first(r.review_reason or '')}”" if r.review_reason else ""
            route += f" — {review} by {r.reviewed_by or 'someone'} on {_when(r.reviewed_at)}{reason}"
    if kind == "failed":
        action = (
            "Nothing can be approved: the deliberation failed before a decision (why below). "
            "Ask again to open a new deliberation if the question still needs one."
        )
    elif kind == "open":
        action = "Nothing yet: the deliberation is still running."
    elif r is not None and r.review == "pending":
        must_act = True
        head = "hard reject: " if r.route == "hard-reject" else ""
        action = (
            f"{head.capitalize()}A person must approve or reject this decision; until then risky tools ask first. "
            f"Run one of these, in Claude Code with ! before it — {REASON_NOTE}:"
        )
        commands = [f"deliberation approve {did}", f"deliberation reject {did}"]
    elif r is not None and r.review in ("approved", "rejected"):
        action = f"Nothing: a person has {r.review} it."
    elif r is not None and r.route == "auto-reject":
        action = "Nothing: no approach is adopted (auto-reject)."
    elif r is not None:
        action = "Nothing: the route needs no review."
    else:
        action = "Nothing yet: the route is decided when the deliberation concludes."
    why: list[str] = []
    if d.consensus is not None:
        verdict = "meets" if d.meets_threshold else "is below"
        why.append(
            f"Consensus {d.consensus:.2f} {verdict} the {rec.task_type} threshold {d.threshold:.2f} "
            f"({d.band} consensus); verdicts {d.approvals} approve · {d.rejections} reject · "
            f"{d.abstentions} abstain."
        )
    if r is not None:
        fired = [x for x in r.rules if x.rule != "COLD_START"]
        if fired:
            why.append("Escalated by " + "; ".join(f"{x.rule}: {_first(x.detail)}" for x in fired) + ".")
        if any(x.rule == "COLD_START" for x in r.rules):
            why.append(f"No reversal history for the class {r.decision_class} yet (cold start).")
    if kind == "failed":
        why += [_first(x) for x in rec.failure_reasons] or ["No reason was recorded."]
    warned = [
        name
        for name, g in (("Gate 1", rec.gates.consensus), ("Gate 2", rec.gates.quality))
        if gate_mark(g) == "passed with warnings"
    ]
    if rec.conformity:
        why.append(
            f"{len(rec.conformity)} conformity warning(s)"
            + (f" ({', '.join(warned)} passed with warnings)" if warned else "")
            + ": see Conformity warnings."
        )
    return Outcome(kind, headline, route, action, commands, must_act, why)
