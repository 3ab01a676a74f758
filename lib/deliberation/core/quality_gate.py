"""Gate 2 — quality control on Stop, before a deliberation may close.

Five checks, each reported with its figure:
1. method diversity — distinct personas took part (≥ min_distinct_personas);
2. contradiction transparency — every dissent (any stage) has documented reasons;
3. complexity handling — at least `min_alternatives` approaches were generated;
4. consensus confidence — strong (> 0.85) or moderate (0.70–0.85) pass; weak fails and is
   reported as weak, also for task types whose own Gate-1 bar is lower (documentation 0.50,
   refactoring 0.65): Gate 1 lets such a consensus through early, the quality gate still asks for
   more before the deliberation may close;
5. improvement evidence — the panel's confidence after deliberating exceeds its confidence
   before, on ONE scale (`improvement_evidence`, below).
Conformity warnings are listed with the result; they block only when configured to.
Once those pass, the decision document is read (PRD_GENERATION, prd.py) and a sixth check joins
them (`with_document`): decision_document — the document is present and traced (every
requirement, acceptance criterion and risk cites ids that exist in the deliberation). It fails
while the document is sent back, and stays failed in the record when it is recorded missing.

What improvement evidence compares. The initial confidence (docs/EVIDENCE.md, E4) is the one an agent
gave its own answer before deliberating (0.58 → deliberate); its final confidence is the same
kind of figure after. The plugin's figure of that kind is the `confidence` every report carries
(0-1, the agent's confidence in its own conclusion). So:

    before = mean research-stage `confidence` of the personas that also ranked   (independent,
             before any agent saw another's work)
    after  = mean ranking-stage `confidence` of the same personas                (after the
             findings, the synthesis, the red team and the depth step)
    pass   ⇔ after > before

Paired by persona, so the same agents are compared with themselves; when no persona did both,
the two panels' means are compared and the record says so. Not compared: the consensus score
(a function of the 0-10 ranking scores, another scale) and the trigger's confidence (a word-list
score of the prompt — for a question forced with /deliberate it says nothing about doubt); the
record shows the trigger's figure beside the comparison for context.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core.phases import approaches, current
from deliberation.core.ranking import REJECTED, band, unanimous_reject
from deliberation.state.config import Config
from deliberation.state.models import Check, ConformityWarning, Deliberation, GateResult
from deliberation.text.gates import quality_next_step
from deliberation.core import prd

SCALE = "the agents' own confidence in their conclusion (report field `confidence`, 0-1)"


@dataclass(frozen=True)
class Improvement:
    """Before/after of improvement evidence, on one scale (see the module docstring)."""
    before: "float | None"
    after: "float | None"
    pairs: "tuple[tuple[str, float, float], ...]" = ()   # (persona, research conf, ranking conf)
    paired: bool = True                                  # False: two panels' means compared
    trigger: "float | None" = None
    trigger_forced: bool = False

    @property
    def measured(self) -> bool:
        return self.before is not None and self.after is not None

    @property
    def improved(self) -> bool:
        return self.before is not None and self.after is not None and self.after > self.before

    def figure(self) -> str:
        if not self.measured:
            missing = "research" if self.before is None else "ranking"
            return f"no {missing} confidence recorded: nothing to compare"
        return (f"final {self.after:.2f} {'>' if self.improved else '≤'} initial {self.before:.2f} "
                "(panel self-confidence)")

    def detail(self) -> str:
        if self.paired and self.pairs:
            who = ", ".join(f"{p} {b:.2f}→{a:.2f}" for p, b, a in self.pairs)
            text = (f"compared: {SCALE}, the same {len(self.pairs)} persona(s) at ranking (after) vs "
                    f"at research (before): {who}")
        elif self.measured:
            text = (f"compared: {SCALE}, mean of the ranking panel (after) vs mean of the research "
                    "panel (before) — no persona did both, so different agents are compared")
        else:
            text = f"compares {SCALE} at ranking vs at research"
        if self.trigger is not None:
            how = "forced by the user" if self.trigger_forced else "the trigger's score"
            text += (f"; not compared: the trigger's {self.trigger:.2f} ({how}), a word-list score of "
                     "the prompt on another scale")
        return text

    def to_json(self) -> dict:
        return {"before": self.before, "after": self.after, "improved": self.improved,
                "scale": SCALE, "paired": self.paired,
                "pairs": [{"persona": p, "before": b, "after": a} for p, b, a in self.pairs],
                "trigger_confidence": self.trigger, "trigger_forced": self.trigger_forced,
                "compared": self.detail()}


def _mean(values: "list[float]") -> "float | None":
    return round(sum(values) / len(values), 4) if values else None


def improvement_evidence(delib: Deliberation) -> Improvement:
    """The panel's self-confidence before (research) and after (ranking) deliberating."""
    research = {a.persona: a.filed.confidence for a in current(delib, "research")
                if a.kind == "persona"}
    ranking = {a.persona: a.filed.confidence for a in current(delib, "ranking")}
    both = [p for p in ranking if p in research]
    trigger, forced = delib.initial_confidence, delib.trigger_forced
    if both:
        pairs = tuple((p, round(research[p], 4), round(ranking[p], 4)) for p in sorted(both))
        return Improvement(_mean([research[p] for p in both]), _mean([ranking[p] for p in both]),
                           pairs, True, trigger, forced)
    return Improvement(_mean(list(research.values())), _mean(list(ranking.values())), (), False, trigger, forced)


def evaluate(delib: Deliberation, cfg: Config, now: float,
             conformity: "list[ConformityWarning] | None" = None) -> GateResult:
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
    checks.append(Check(name="method_diversity", passed=len(personas) >= min_distinct_personas,
                        figure=f"{len(personas)} distinct personas (need {min_distinct_personas})",
                        detail=", ".join(personas)))

    dissent = [a for a in valid if a.filed.verdict == "reject"
               or (a.stage == "ranking" and delib.ranking and delib.ranking.leading
                   and a.filed.preferred_approach and a.filed.preferred_approach != delib.ranking.leading)]
    bare = [a for a in dissent if not a.filed.dissent]
    checks.append(Check(name="contradiction_transparency", passed=not bare,
                        figure=f"{len(dissent) - len(bare)} of {len(dissent)} dissents documented",
                        detail=("without reasons: " + ", ".join(f"{a.persona}/{a.stage}" for a in bare)) if bare else ""))

    n_alt = max(len(approaches(delib)), len(delib.ranking.approaches) if delib.ranking else 0)
    checks.append(Check(name="complexity_handling", passed=n_alt >= min_alternatives,
                        figure=f"{n_alt} alternatives (need {min_alternatives})"))

    consensus = delib.ranking.consensus if delib.ranking else 0.0
    if unanimous_reject(delib.ranking):
        r = delib.ranking
        checks.append(Check(name="consensus_confidence", passed=True,
                            figure=f"unanimous reject ({r.rejections} reject, 0 approve): {REJECTED}",
                            detail=f"agreement on the verdict; the consensus score {consensus:.2f} measures "
                                   "support for the top-scored approach, which is not adopted"))
    else:
        label = band(consensus, strong, moderate)
        checks.append(Check(name="consensus_confidence", passed=label != "weak", figure=f"{consensus:.2f} ({label})",
                            detail=f"strong > {strong:.2f}, moderate {moderate:.2f}–{strong:.2f}; "
                                   f"{delib.task_type} threshold {delib.threshold:.2f}"))

    imp = improvement_evidence(delib)
    checks.append(Check(name="improvement_evidence", passed=imp.improved or not require_improvement,
                        figure=imp.figure(), detail=imp.detail()))

    if conformity:
        # a single-model panel is a property of the setup, not evidence of herding in this vote
        herding = [w for w in conformity if w.detector != "single_model"]
        checks.append(Check(name="conformity", passed=not (conformity_blocks and herding),
                            figure=f"{len(conformity)} warning(s)",
                            detail="; ".join(f"{w.detector}: {w.evidence}" for w in conformity)))
    passed = all(c.passed for c in checks)
    return GateResult(gate="quality", passed=passed, checks=checks, at=now,
                      next_step="" if passed else next_step(checks))


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
        return Check(name="decision_document", passed=traced,
                     figure=f"present: {prd.counts_text(st.document)}; "
                            + ("every requirement, criterion and risk traced" if traced
                               else f"untraced: {', '.join(t.untraced + t.unknown)}"),
                     detail=detail)
    why = (st.problem or "no decision document").splitlines()[0]
    if st.status == "missing":
        return Check(name="decision_document", passed=False,
                     figure=f"missing after {st.send_backs} send-back(s)", detail=why)
    return Check(name="decision_document", passed=False,
                 figure=f"not accepted yet (send-back {st.send_backs})", detail=why)


def with_document(result: GateResult, delib: Deliberation) -> GateResult:
    """`result` (the deliberation's checks) with the decision_document check added."""
    checks = [c for c in result.checks if c.name != "decision_document"] + [document_check(delib)]
    passed = all(c.passed for c in checks)
    return GateResult(gate="quality", passed=passed, checks=checks, at=result.at,
                      next_step="" if passed else next_step(checks))


def next_step(checks: "list[Check]") -> str:
    return quality_next_step([c.name for c in checks if not c.passed])
