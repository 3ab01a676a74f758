"""The words of the conformity warnings: what each herding detector saw, with its figures, and
what to do about a panel on one model.

The detectors (core/conformity.py) decide which agents cluster, how similar their words are and
against which bar; they pass the figures here, already ordered, as plain values.
"""

from __future__ import annotations

SAME_REASONING = "agree on the same position with the same reasoning"
TEMPLATED_DISSENT = "dissent repeats the same language"
SINGLE_MODEL_FIX = (
    "run personas whose priorities conflict on different models (models.diverse in "
    "the config, or the Agent tool's `model`) and re-rank"
)


def similar_group(size: int, what: str, threshold: float, pairs: "list[tuple[str, str, float]]", more: int, excerpt: str) -> str:
    """A group of `size` agents whose words are this similar (`what`: SAME_REASONING or
    TEMPLATED_DISSENT); `pairs`: the most similar pairs shown (persona, persona, similarity),
    `more` pairs not shown, `excerpt` from the most similar text."""
    shown = "; ".join(f"{a} × {b} {s:.2f}" for a, b, s in pairs)
    rest = f"; … {more} more pairs" if more > 0 else ""
    return f'{size} agents: {what} (similarity ≥ {threshold:.2f}): {shown}{rest}; e.g. "{excerpt}"'


def score_clustering(n: int, leading: str, low: float, high: float, window: float, scores: "list[float]") -> str:
    listed = ", ".join(f"{v:.2f}" for v in scores)
    return (
        f"{n} agents scored leading approach {leading} within "
        f"{low:.2f}–{high:.2f} (spread {high - low:.2f} ≤ window {window:.2f}): {listed}"
    )


def dimension_cluster(dimension: str, n: int, low: float, high: float, scores: "list[float]") -> str:
    """One dimension's cluster (a part of `dimension_clustering`)."""
    listed = ", ".join(f"{v:.2f}" for v in scores)
    return f"{dimension}: {n} agents within {low:.2f}–{high:.2f} (spread {high - low:.2f}): {listed}"


def dimension_clustering(leading: str, window: float, found: "list[str]") -> str:
    return f"leading approach {leading}, one dimension at a time (window {window:.2f}): " + "; ".join(found)


def near_threshold(n: int, leading: str, low: float, high: float, margin: float, threshold: float, scores: "list[float]") -> str:
    listed = ", ".join(f"{v:.2f}" for v in scores)
    return (
        f"{n} agents scored leading approach {leading} within {low:.2f}–{high:.2f}, "
        f"all within {margin:.2f} of the bar {threshold * 10:.2f} (threshold {threshold:.2f} × 10): {listed}"
    )


def missing_minority(n: int, pairs: "list[tuple[str, str]]") -> str:
    shown = ", ".join(f"{a} × {b}" for a, b in pairs)
    return f"unanimous approval: {n} of {n} ranking agents approve with 0 dissent, including conflicting personas {shown}"


RESTATED_RECOMMENDATION = (
    "read the findings beyond the shared context before relying on the consensus; re-run research with a context "
    "of facts only (files, constraints, the question's terms) if the decisive point came from the context"
)


def beyond_context(findings: int, restated: int, dropped: int) -> str:
    """One line: what the panel established beyond the shared context it was given (the record, the outcome)."""
    line = f"Beyond the shared context: {findings - restated} of {findings} findings are the panel's own; {restated} only restate it."
    return line + (f" {dropped} conclusion sentence(s) were dropped from the context." if dropped else "")


def restated_context(restated: int, of: int, refs: "list[str]") -> str:
    shown = f" ({', '.join(refs)})" if refs else ""
    return (
        f"{restated} of {of} research findings only restate the shared context the agents were given{shown}: "
        "the consensus rests on the main agent's framing, not on what the panel established itself"
    )


def single_model(n: int, model: "str | None") -> str:
    return (
        f"all {n} ranking agents ran on {model}: judges on one model share its "
        "priors, and a panel that shares priors can vote unanimously and wrongly"
    )
