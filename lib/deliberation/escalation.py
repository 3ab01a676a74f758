"""The route after the vote: auto-execute, human review (L3) or hard reject (DESIGN.md §6).

Votes come from the ranking reports' verdicts: approve = pass, reject = fail, abstain is left
out. The vote **passes** when approvals outnumber rejections (the accept path). Its pattern:
unanimous pass (approvals only), unanimous fail (rejections only), split (both), or none (no
vote at all, which cannot auto-execute and is treated like a split). The confidence is the
ranking's consensus score (0-1).

Rules — every rule that fires is recorded in `Route.rules`, in this order:
- **T1** known-reversal class on the accept path: the vote passes and the class is
  reversal-prone in the registry. → human review, or the hard-reject path when
  `escalation.known_reversal = "reject"`.
- **T2** unanimous pass at confidence ≥ `escalation.unanimous_confidence` (0.9) on a
  reversal-prone class — unanimity is the warning. → human review. (Every T2 case is also a
  T1 case; T2 is recorded separately because it is the deployable claim of `deliberation
  eval`, where T1 is the oracle upper bound.)
- **D** split vote (or no vote). → human review.
- **PROBE** a probe failed or timed out on a vote that is not a unanimous fail; it overrides a
  unanimous pass. → human review, or hard reject when `escalation.probe_failure = "reject"`.
- **COLD_START** the class has no history in the registry: the recurrence arm is blind, the
  route falls back to D. Informational: it never escalates by itself.
Route: hard-reject if a fired rule asks for it, else human-review if any of T1/T2/D/PROBE
fired, else auto-execute (a unanimous vote that nothing flagged). Escalated routes start with
`review = "pending"` until a person approves or rejects.

Registry matching is `reversals.matching_entries` (exact class or its task type).
Pure: no I/O. The store-backed wiring lives in `adjudication.apply_route`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from deliberation import reversals
from deliberation.config import EscalationConfig
from deliberation.decision_class import decision_class
from deliberation.state import Deliberation, ProbeRun, ReversalRegistry, Route, RouteRule

Pattern = Literal["unanimous-pass", "unanimous-fail", "split", "none"]
ESCALATING = ("T1", "T2", "D", "PROBE")


@dataclass(frozen=True)
class Vote:
    """The vote of a deliberation, as routing sees it."""
    approvals: int
    rejections: int
    abstentions: int = 0
    confidence: "float | None" = None

    @property
    def pattern(self) -> Pattern:
        if self.approvals and self.rejections:
            return "split"
        if self.approvals:
            return "unanimous-pass"
        if self.rejections:
            return "unanimous-fail"
        return "none"

    @property
    def passes(self) -> bool:
        return self.approvals > self.rejections

    def describe(self) -> str:
        conf = "" if self.confidence is None else f", confidence {self.confidence:.2f}"
        return f"{self.approvals} approve / {self.rejections} reject / {self.abstentions} abstain{conf}"


# -- reading a deliberation -------------------------------------------------------------------


def _ranking_reports(delib: Deliberation):
    return [a.report for a in delib.agents
            if a.stage == "ranking" and a.status == "reported" and not a.superseded and a.report]


def vote_of(delib: Deliberation) -> Vote:
    """The vote: the ranking result's counts when there is one, else the ranking reports' verdicts."""
    r = delib.ranking
    if r is not None:
        return Vote(r.approvals, r.rejections, r.abstentions, r.consensus)
    reports = _ranking_reports(delib)
    verdicts = [rep.verdict for rep in reports]
    conf = round(sum(rep.confidence for rep in reports) / len(reports), 6) if reports else None
    return Vote(verdicts.count("approve"), verdicts.count("reject"), verdicts.count("abstain"), conf)


def reports_text(delib: Deliberation) -> str:
    """Summaries, findings, rationales and concerns of every report (for class tags)."""
    parts: list[str] = []
    for a in delib.agents:
        rep = a.report
        if rep is None or a.superseded:
            continue
        parts.append(rep.summary)
        parts.extend(f"{f.claim} {f.evidence}" for f in rep.findings)
        parts.extend(f"{x.title} {x.summary}" for x in rep.approaches)
        parts.append(rep.rationale)
        parts.extend(f"{c.concern} {c.reason}" for c in rep.dissent)
    return "\n".join(p for p in parts if p)


def class_of(delib: Deliberation, cfg: EscalationConfig) -> str:
    """The deliberation's decision class (see decision_class.py)."""
    return decision_class(delib.task_type, delib.question, reports_text(delib), cfg.class_tags)


# -- the rules --------------------------------------------------------------------------------


def _probe_failures(probes: "list[ProbeRun]") -> "list[str]":
    out = []
    for p in probes:
        if p.passed:
            continue
        if p.timed_out:
            out.append(f"{p.name} timed out after {p.duration_s:.1f}s")
        elif p.exit_code is None:
            out.append(f"{p.name} could not run ({p.error or 'no exit status'})")
        else:
            out.append(f"{p.name} exited {p.exit_code}")
    return out


def fired_rules(cls: str, vote: Vote, registry: ReversalRegistry, probes: "list[ProbeRun]",
                cfg: EscalationConfig) -> "list[RouteRule]":
    """Every rule that fires, in the documented order."""
    rules: list[RouteRule] = []
    prone = reversals.is_reversal_prone(registry, cls)
    count = reversals.reversal_count(registry, cls)
    pattern = vote.pattern
    if vote.passes and prone:
        rules.append(RouteRule(rule="T1", detail=(
            f"class {cls} was reversed {count} time(s) before and this decision is on the accept path")))
    high = vote.confidence is not None and vote.confidence >= cfg.unanimous_confidence
    if pattern == "unanimous-pass" and high and prone:
        rules.append(RouteRule(rule="T2", detail=(
            f"unanimous pass at confidence {vote.confidence:.2f} >= {cfg.unanimous_confidence:.2f} "
            f"on reversal-prone class {cls}: unanimity is the warning")))
    if pattern in ("split", "none"):
        what = "split vote" if pattern == "split" else "no approve/reject vote"
        rules.append(RouteRule(rule="D", detail=f"{what} ({vote.describe()})"))
    failures = _probe_failures(probes)
    if failures and pattern != "unanimous-fail":
        over = " overrides the unanimous pass" if pattern == "unanimous-pass" else ""
        rules.append(RouteRule(rule="PROBE", detail=f"probe failed{over}: " + "; ".join(failures)))
    if not reversals.has_history(registry, cls):
        rules.append(RouteRule(rule="COLD_START", detail=(
            f"class {cls} has no history in the reversal registry: the recurrence arm (T1/T2) "
            "is blind here, routing falls back to the split-vote rule D")))
    return rules


def route_of(rules: "list[RouteRule]", cfg: EscalationConfig) -> str:
    names = {r.rule for r in rules}
    if ("T1" in names and cfg.known_reversal == "reject") or \
       ("PROBE" in names and cfg.probe_failure == "reject"):
        return "hard-reject"
    if names & set(ESCALATING):
        return "human-review"
    return "auto-execute"


def compute_route(cls: str, vote: Vote, registry: ReversalRegistry, probes: "list[ProbeRun]",
                  cfg: EscalationConfig) -> Route:
    """The route of a decision of class `cls` with this vote, registry and probe results."""
    rules = fired_rules(cls, vote, registry, probes, cfg)
    route = route_of(rules, cfg)
    return Route(route=route, decision_class=cls, unanimous=vote.pattern.startswith("unanimous"),
                 rules=rules, probes=list(probes),
                 review="not_needed" if route == "auto-execute" else "pending")


def route_for(delib: Deliberation, registry: ReversalRegistry, probes: "list[ProbeRun]",
              cfg: EscalationConfig, cls: "str | None" = None) -> Route:
    """`compute_route` for a deliberation (its class computed unless given)."""
    return compute_route(cls or class_of(delib, cfg), vote_of(delib), registry, probes, cfg)


def summary(route: Route) -> str:
    """One line: 'human-review (T2, PROBE) for security/auth'."""
    fired = [r.rule for r in route.rules if r.rule != "COLD_START"]
    why = f" ({', '.join(fired)})" if fired else ""
    cold = " [cold start: no reversal history]" if any(r.rule == "COLD_START" for r in route.rules) else ""
    return f"{route.route}{why} for class {route.decision_class}{cold}"
