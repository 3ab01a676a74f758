"""Gate 2 — quality control on Stop, before a deliberation may close (docs/FORMULAS.md, "Gate 2").

`evaluate` reports five checks, each with its figure: method diversity (≥ min_distinct_personas
distinct personas), contradiction transparency (every dissent of any stage has reasons),
complexity handling (≥ min_alternatives approaches), consensus confidence (strong or moderate
pass, weak fails — also for task types whose Gate-1 bar is lower), and improvement evidence
(core/improvement.py: improved, confirmed and flat pass, fell fails as a failure on agreement,
unmeasured does not block). Conformity warnings are listed and block only when configured to.
`with_document` adds the sixth check once the others pass: the decision document is present and
traced (prd.py); it fails while the document is sent back and stays failed when it is recorded
missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import consensus_gate, improvement
from deliberation.core.phases import approaches, current
from deliberation.core.ranking import REJECTED, band, unanimous_reject
from deliberation.state.config import Config
from deliberation.state.models import Check, ConformityWarning, Deliberation, GateResult
from deliberation.text import gates as words
from deliberation.text.gates import quality_next_step
from deliberation.core import prd

SCALE = words.IMPROVEMENT_SCALE


@dataclass(frozen=True)
class Improvement:
    """Gate 2's improvement evidence (core/improvement.py), with the trigger's figure for context."""

    outcome: improvement.ImprovementOutcome
    trigger: "float | None" = None
    trigger_forced: bool = False

    @property
    def before(self) -> "float | None":
        return self.outcome.before

    @property
    def after(self) -> "float | None":
        return self.outcome.after

    @property
    def improved(self) -> bool:
        """Passes: improved, confirmed or unmeasured (flat and fell fail)."""
        return self.outcome.passes

    def figure(self) -> str:
        o = self.outcome
        if o.before is None or o.after is None:
            return words.IMPROVEMENT_STATUS["unmeasured"]
        return words.improvement_figure(o.after, o.before, o.status)

    def pairs(self) -> "list[dict]":
        by: dict[str, dict] = {}
        for p in self.outcome.positions:
            by.setdefault(p.persona, {"persona": p.persona, "before": None, "after": None})[
                "before" if p.stage == "research" else "after"
            ] = p.approach
        return [by[k] for k in sorted(by)]

    def detail(self) -> str:
        o = self.outcome
        return words.improvement_detail(o.decision, o.paired, self.pairs(), list(o.unmatched), self.trigger, self.trigger_forced)

    def to_json(self) -> dict:
        o = self.outcome
        return {
            "before": o.before,
            "after": o.after,
            "improved": self.improved,
            "status": o.status,
            "decision": o.decision,
            "scale": SCALE,
            "paired": o.paired,
            "pairs": self.pairs(),
            "trigger_confidence": self.trigger,
            "trigger_forced": self.trigger_forced,
            "compared": self.detail(),
        }


def improvement_evidence(delib: Deliberation) -> Improvement:
    """The share of the panel for the decision at research and at the blind ranking."""
    return Improvement(improvement.assess(delib), delib.initial_confidence, delib.trigger_forced)


def evaluate(delib: Deliberation, cfg: Config, now: float, conformity: "list[ConformityWarning] | None" = None) -> GateResult:
    """Gate 2 over `delib` with the config's bars (deliberation.min_distinct_personas,
    min_alternatives; gates.strong, moderate, require_improvement; conformity.blocking) and the
    vote's conformity warnings (default: the deliberation's)."""
    min_distinct_personas = cfg.deliberation.min_distinct_personas
    min_alternatives = cfg.deliberation.min_alternatives
    strong, moderate, require_improvement = cfg.gates.strong, cfg.gates.moderate, cfg.gates.require_improvement
    conformity = delib.conformity if conformity is None else conformity
    conformity_blocks = cfg.conformity.blocking
    valid = current(delib)
    checks: list[Check] = []

    personas = sorted({a.persona for a in valid if a.kind == "persona"})
    checks.append(
        Check(
            name="method_diversity",
            passed=len(personas) >= min_distinct_personas,
            figure=words.personas_figure(len(personas), min_distinct_personas),
            measured=len(personas),
            needed=min_distinct_personas,
            detail=", ".join(personas),
        )
    )

    ranked_dissent = {a.key for a in consensus_gate.dissenters(delib, delib.ranking.leading if delib.ranking else None)}
    dissent = [a for a in valid if a.filed.verdict == "reject" or a.key in ranked_dissent]
    bare = [a for a in dissent if not a.filed.dissent]
    checks.append(
        Check(
            name="contradiction_transparency",
            passed=not bare,
            figure=words.dissents_figure(len(dissent) - len(bare), len(dissent)),
            detail=words.without_reasons_detail([f"{a.persona}/{a.stage}" for a in bare]),
            measured=len(dissent) - len(bare),
            needed=len(dissent),
        )
    )

    n_alt = max(len(approaches(delib)), len(delib.ranking.approaches) if delib.ranking else 0)
    checks.append(
        Check(
            name="complexity_handling",
            passed=n_alt >= min_alternatives,
            figure=words.alternatives_figure(n_alt, min_alternatives),
            measured=n_alt,
            needed=min_alternatives,
        )
    )

    consensus = delib.ranking.consensus if delib.ranking else 0.0
    if unanimous_reject(delib.ranking):
        r = delib.ranking
        checks.append(
            Check(
                name="consensus_confidence",
                passed=True,
                figure=words.reject_confidence_figure(r.rejections, REJECTED),
                detail=words.reject_confidence_detail(consensus),
            )
        )
    else:
        label = band(consensus, strong, moderate)
        checks.append(
            Check(
                name="consensus_confidence",
                passed=label != "weak",
                figure=words.band_figure(consensus, label),
                detail=words.band_detail(strong, moderate, delib.task_type, delib.threshold),
                measured=consensus,
                needed=moderate,
            )
        )

    imp = improvement_evidence(delib)
    checks.append(
        Check(
            name="improvement_evidence", passed=imp.improved or not require_improvement, figure=imp.figure(), detail=imp.detail()
        )
    )

    if conformity:
        # a single-model panel is a property of the setup, not evidence of herding in this vote
        herding = [w for w in conformity if w.detector not in ("single_model", "restated_context")]
        checks.append(
            Check(
                name="conformity",
                passed=not (conformity_blocks and herding),
                figure=words.conformity_figure(len(conformity)),
                detail=words.conformity_detail([(w.detector, w.evidence) for w in conformity]),
            )
        )
    passed = all(c.passed for c in checks)
    return GateResult(gate="quality", passed=passed, checks=checks, at=now, next_step="" if passed else next_step(checks))


def document_check(delib: Deliberation) -> Check:
    """Gate 2's decision_document check: the PRD is present and traced (prd.py)."""
    st = delib.prd
    if st.status == "accepted" and st.document is not None:
        t = prd.trace(st.document, prd.citable(delib))
        traced = not t.untraced and not t.unknown
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}{'s' if n != 1 else ''}" for k, n in t.by_kind.items() if n)
        detail = f"{t.citations} citation(s) resolve to {kinds or 'nothing'}"
        if t.uncovered:
            detail += f"; no acceptance criterion verifies {', '.join(t.uncovered)}"
        return Check(
            name="decision_document",
            passed=traced,
            figure=words.document_figure(prd.counts_text(st.document), t.untraced + t.unknown),
            detail=detail,
        )
    why = (st.problem or "no decision document").splitlines()[0]
    if st.status == "missing":
        return Check(name="decision_document", passed=False, figure=words.document_missing_figure(st.send_backs), detail=why)
    return Check(name="decision_document", passed=False, figure=words.document_pending_figure(st.send_backs), detail=why)


def with_document(result: GateResult, delib: Deliberation) -> GateResult:
    """`result` (the deliberation's checks) with the decision_document check added."""
    checks = [c for c in result.checks if c.name != "decision_document"] + [document_check(delib)]
    passed = all(c.passed for c in checks)
    return GateResult(gate="quality", passed=passed, checks=checks, at=result.at, next_step="" if passed else next_step(checks))


def next_step(checks: "list[Check]") -> str:
    return quality_next_step([c.name for c in checks if not c.passed])
