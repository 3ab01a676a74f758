"""Gate 2 — quality control on Stop, before a deliberation may close.

Five checks (DESIGN §3), each reported with its figure:
1. method diversity — distinct personas took part (≥ min_distinct_personas);
2. contradiction transparency — every dissent (any stage) has documented reasons;
3. complexity handling — at least `min_alternatives` approaches were generated;
4. consensus confidence — strong (> 0.85) or moderate (0.70–0.85) pass; weak fails and is
   reported as weak, also for task types whose own Gate-1 bar is lower (documentation 0.50,
   refactoring 0.65): Gate 1 lets such a consensus through early, the quality gate still asks for
   more before the deliberation may close;
5. improvement evidence — the final confidence (consensus) exceeds the initial one (the
   trigger's confidence for the question; without it, the research agents' mean self-confidence).
Conformity warnings are listed with the result; they block only when configured to.
"""

from __future__ import annotations

from deliberation.phases import approaches, current
from deliberation.ranking import band
from deliberation.state import Check, ConformityWarning, Deliberation, GateResult


def initial_confidence(delib: Deliberation) -> "tuple[float | None, str]":
    if delib.initial_confidence is not None:
        return delib.initial_confidence, "trigger"
    research = current(delib, "research")
    if not research:
        return None, "none"
    return round(sum(a.report.confidence for a in research) / len(research), 4), "research self-confidence"  # type: ignore[union-attr]


def evaluate(delib: Deliberation, *, min_distinct_personas: int, min_alternatives: int,
             strong: float, moderate: float, require_improvement: bool,
             conformity: "list[ConformityWarning]", conformity_blocks: bool, now: float) -> GateResult:
    valid = current(delib)
    checks: list[Check] = []

    personas = sorted({a.persona for a in valid if a.kind == "persona"})
    checks.append(Check(name="method_diversity", passed=len(personas) >= min_distinct_personas,
                        figure=f"{len(personas)} distinct personas (need {min_distinct_personas})",
                        detail=", ".join(personas)))

    dissent = [a for a in valid if a.report.verdict == "reject"  # type: ignore[union-attr]
               or (a.stage == "ranking" and delib.ranking and delib.ranking.leading
                   and a.report.preferred_approach and a.report.preferred_approach != delib.ranking.leading)]  # type: ignore[union-attr]
    bare = [a for a in dissent if not a.report.dissent]  # type: ignore[union-attr]
    checks.append(Check(name="contradiction_transparency", passed=not bare,
                        figure=f"{len(dissent) - len(bare)} of {len(dissent)} dissents documented",
                        detail=("without reasons: " + ", ".join(f"{a.persona}/{a.stage}" for a in bare)) if bare else ""))

    n_alt = max(len(approaches(delib)), len(delib.ranking.approaches) if delib.ranking else 0)
    checks.append(Check(name="complexity_handling", passed=n_alt >= min_alternatives,
                        figure=f"{n_alt} alternatives (need {min_alternatives})"))

    consensus = delib.ranking.consensus if delib.ranking else 0.0
    label = band(consensus, strong, moderate)
    checks.append(Check(name="consensus_confidence", passed=label != "weak", figure=f"{consensus:.2f} ({label})",
                        detail=f"strong > {strong:.2f}, moderate {moderate:.2f}–{strong:.2f}; "
                               f"{delib.task_type} threshold {delib.threshold:.2f}"))

    initial, source = initial_confidence(delib)
    if initial is None:
        improved, fig = False, f"final {consensus:.2f}, no initial confidence recorded"
    else:
        improved = consensus > initial
        fig = f"final {consensus:.2f} {'>' if improved else '≤'} initial {initial:.2f} ({source})"
    checks.append(Check(name="improvement_evidence", passed=improved or not require_improvement, figure=fig))

    if conformity:
        # a single-model panel is a property of the setup, not evidence of herding in this vote
        herding = [w for w in conformity if w.detector != "single_model"]
        checks.append(Check(name="conformity", passed=not (conformity_blocks and herding),
                            figure=f"{len(conformity)} warning(s)",
                            detail="; ".join(f"{w.detector}: {w.evidence}" for w in conformity)))
    passed = all(c.passed for c in checks)
    return GateResult(gate="quality", passed=passed, checks=checks, at=now,
                      next_step="" if passed else next_step(checks))


_NEXT = {
    "method_diversity": "spawn research personas with different priorities (e.g. security-analyst and performance-engineer) for the missing perspectives, then re-rank",
    "contradiction_transparency": "ask each dissenting agent to document its concerns with reasons: resume it with SendMessage (to = its agent id; its new report replaces the old one) or spawn it again; its report's `dissent` needs concern + reason",
    "complexity_handling": "generate at least one more alternative — add it (e.g. 'keep the status quo') to the ranking prompt — and re-rank: spawn the personas again to score all of them (synthesis-lead cannot run once ranking has started)",
    "consensus_confidence": "consensus is weak: re-rank with the disagreement and its evidence named in the ranking prompts (deliberation roles cannot run once ranking has started), or hand the decision to the user",
    "improvement_evidence": "the deliberation did not raise confidence above the starting point: investigate the open questions before concluding, or tell the user the decision stays uncertain",
    "conformity": "re-run the flagged agents with fresh isolation (new spawns, no shared findings) and re-rank",
}


def next_step(checks: "list[Check]") -> str:
    return "; then ".join(_NEXT[c.name] for c in checks if not c.passed and c.name in _NEXT)


def reason_text(delib: Deliberation, result: GateResult) -> str:
    lines = [f"Deliberation {delib.id} — quality gate FAILED:"]
    lines += [f"- {c.name}: {'pass' if c.passed else 'FAIL'} — {c.figure}" for c in result.checks]
    lines.append(f"Next: {result.next_step}.")
    return "\n".join(lines)
