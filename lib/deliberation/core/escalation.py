"""The route after the vote: auto-execute, auto-reject, human review or hard reject
(docs/ESCALATION.md states the policies and why D+T2+PROBE is the default).

Input: the ranking verdicts (approve = pass, reject = fail, abstain left out), each ranker's
preference (`consensus.position`), the decision class, the reversal registry and the probe runs.
`fired_rules` records every rule of the policy that fires, in order T1, T2, D, PROBE, COLD_START
(informational); T2 reads the judges' confidence (the mean self-reported confidence of the
rankers that voted pass), never the consensus score. The route is hard-reject if a fired rule
asks for it, else human-review if any escalating rule fired, else auto-execute (unanimous pass)
or auto-reject (unanimous fail); an escalated route starts with `review = "pending"`. Pure: the
store-backed wiring is app/adjudication.apply_route.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Literal

from deliberation.core import consensus_gate, reversals
from deliberation.state.config import EscalationConfig, ProbeConfig
from deliberation.core.decision_class import decision_class, task_type_of
from deliberation.core.task_type import classify
from deliberation.state.models import Deliberation, ProbeRun, ReversalRegistry, Route, RouteName, RouteRule
from deliberation.text import route as words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.agent_report import AgentReport

Pattern = Literal["unanimous-pass", "unanimous-fail", "split", "none"]
ESCALATING = ("T1", "T2", "D", "PROBE")
POLICIES = {"D+T2+PROBE": ("D", "T2", "PROBE"), "T1+D+T2+PROBE": ("T1", "D", "T2", "PROBE")}
DEFAULT_POLICY = "D+T2+PROBE"
AUTOMATIC = ("auto-execute", "auto-reject")  # routes that need no person


@dataclass(frozen=True)
class Vote:
    """The vote of a deliberation, as routing sees it. `confidence` is the judges' confidence
    (mean self-reported confidence of the agents that voted pass, else of all voters);
    `consensus` the ranking's consensus score, for the record."""

    approvals: int
    rejections: int
    abstentions: int = 0
    confidence: "float | None" = None
    consensus: "float | None" = None
    dissents: int = 0  # rankers that did not reject but did not prefer the leader either

    @property
    def pattern(self) -> Pattern:
        if self.approvals and (self.rejections or self.dissents):
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
        return words.vote(self.approvals, self.rejections, self.abstentions, self.dissents, self.confidence)


# -- reading a deliberation -------------------------------------------------------------------


def _ranking_reports(delib: Deliberation) -> "list[AgentReport]":
    return [a.report for a in delib.agents if a.stage == "ranking" and a.status == "reported" and not a.superseded and a.report]


def judges_confidence(reports: "list[AgentReport]") -> "float | None":
    """Mean self-reported confidence of the reports that voted pass (of all voters when none did)."""
    voters = [r for r in reports if r.verdict in ("approve", "reject")]
    chosen = [r for r in voters if r.verdict == "approve"] or voters
    return round(sum(r.confidence for r in chosen) / len(chosen), 4) if chosen else None


def vote_of(delib: Deliberation) -> Vote:
    """The vote: the ranking result's counts when there is one, else the ranking reports'
    verdicts; the judges' confidence from the current ranking reports."""
    reports = _ranking_reports(delib)
    conf = judges_confidence(reports)
    r = delib.ranking
    if r is not None:
        others = [
            p
            for p in consensus_gate.outcome_of(delib).positions
            if p.stance != "support" and p.basis != "reject" and not p.abstained
        ]
        return Vote(r.approvals, r.rejections, r.abstentions, conf, r.consensus, len(others))
    verdicts = [rep.verdict for rep in reports]
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


def class_now(delib: Deliberation, cfg: EscalationConfig, keywords: "dict | None" = None) -> str:
    """The class today's catalogue gives the deliberation's question: its task type classified
    again (`keywords`: the configured task_types.keywords), then its tag (reversals.reclassified)."""
    return decision_class(classify(delib.question, keywords), delib.question, reports_text(delib), cfg.class_tags)


# -- the rules --------------------------------------------------------------------------------


def _probe_failures(probes: "list[ProbeRun]") -> "list[str]":
    out = []
    for p in probes:
        if p.passed:
            continue
        if p.timed_out:
            out.append(words.probe_timed_out(p.name, p.duration_s))
        elif p.exit_code is None:
            out.append(words.probe_not_run(p.name, p.error))
        else:
            out.append(words.probe_exited(p.name, p.exit_code))
    return out


def policy_rules(cfg: EscalationConfig) -> "tuple[str, ...]":
    return POLICIES.get(cfg.policy, POLICIES[DEFAULT_POLICY])


def fired_rules(
    cls: str, vote: Vote, registry: ReversalRegistry, probes: "list[ProbeRun]", cfg: EscalationConfig
) -> "list[RouteRule]":
    """Every rule of the configured policy that fires, in the documented order."""
    run = policy_rules(cfg)
    rules: list[RouteRule] = []
    prone = reversals.is_reversal_prone(registry, cls)
    count = reversals.reversal_count(registry, cls)
    pattern = vote.pattern
    if "T1" in run and vote.passes and prone:
        rules.append(RouteRule(rule="T1", detail=words.t1(cls, count)))
    high = vote.confidence is not None and vote.confidence >= cfg.unanimous_confidence
    if "T2" in run and pattern == "unanimous-pass" and high and prone:
        rules.append(RouteRule(rule="T2", detail=words.t2(vote.confidence, cfg.unanimous_confidence, cls, count)))
    if "D" in run and pattern in ("split", "none"):
        rules.append(RouteRule(rule="D", detail=words.split(pattern, vote.describe())))
    failures = _probe_failures(probes)
    if "PROBE" in run and failures and pattern != "unanimous-fail":
        rules.append(RouteRule(rule="PROBE", detail=words.probe_failed(pattern == "unanimous-pass", failures)))
    if not reversals.has_history(registry, cls):
        rules.append(RouteRule(rule="COLD_START", detail=words.cold_start(cls)))
    return rules


def policy_notes(
    cls: str, vote: Vote, registry: ReversalRegistry, rules: "list[RouteRule]", cfg: EscalationConfig
) -> "list[str]":
    """What the policy knowingly left out, for the record (a person reading it should know)."""
    names = {r.rule for r in rules}
    if "T1" in policy_rules(cfg) or not vote.passes or not reversals.is_reversal_prone(registry, cls) or names & set(ESCALATING):
        return []
    return [
        words.not_escalated(
            cls, reversals.reversal_count(registry, cls), vote.pattern, vote.confidence, cfg.unanimous_confidence, cfg.policy
        )
    ]


def route_of(rules: "list[RouteRule]", cfg: EscalationConfig, pattern: str = "unanimous-pass") -> RouteName:
    names = {r.rule for r in rules}
    if ("T1" in names and cfg.known_reversal == "reject") or ("PROBE" in names and cfg.probe_failure == "reject"):
        return "hard-reject"
    if names & set(ESCALATING):
        return "human-review"
    return "auto-reject" if pattern == "unanimous-fail" else "auto-execute"


def decided_by(route: str, rules: "list[RouteRule]", cfg: EscalationConfig) -> str:
    """What set the route: the deciding rule(s), or the unanimous vote nothing flagged."""
    names = [r.rule for r in rules if r.rule in ESCALATING]
    if route == "hard-reject":
        return ", ".join(
            n for n in names if (n == "T1" and cfg.known_reversal == "reject") or (n == "PROBE" and cfg.probe_failure == "reject")
        )
    if route == "human-review":
        return ", ".join(names)
    return words.unanimous(route)


def compute_route(cls: str, vote: Vote, registry: ReversalRegistry, probes: "list[ProbeRun]", cfg: EscalationConfig) -> Route:
    """The route of a decision of class `cls` with this vote, registry and probe results."""
    rules = fired_rules(cls, vote, registry, probes, cfg)
    route = route_of(rules, cfg, vote.pattern)
    return Route(
        route=route,
        decision_class=cls,
        unanimous=vote.pattern.startswith("unanimous"),
        rules=rules,
        probes=list(probes),
        policy=cfg.policy,
        decided_by=decided_by(route, rules, cfg),
        judges_confidence=vote.confidence,
        notes=policy_notes(cls, vote, registry, rules, cfg),
        review="not_needed" if route in AUTOMATIC else "pending",
    )


def route_for(
    delib: Deliberation, registry: ReversalRegistry, probes: "list[ProbeRun]", cfg: EscalationConfig, cls: "str | None" = None
) -> Route:
    """`compute_route` for a deliberation (its class computed unless given)."""
    return compute_route(cls or class_of(delib, cfg), vote_of(delib), registry, probes, cfg)


def matching_probes(probes: "list[ProbeConfig]", cls: str) -> "list[ProbeConfig]":
    """Probes whose `classes` globs cover the class or its task type (app/probes.py runs them)."""
    names = {cls, task_type_of(cls)}
    return [p for p in probes if any(fnmatch.fnmatchcase(n, g) for g in p.classes for n in names)]


def summary(route: Route) -> str:
    """One line: 'human-review (T2, PROBE) for class security/auth, policy D+T2+PROBE'."""
    fired = [r.rule for r in route.rules if r.rule != "COLD_START"]
    return words.summary(route.route, fired, route.decision_class, route.policy, any(r.rule == "COLD_START" for r in route.rules))
