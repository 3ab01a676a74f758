"""Ranking: five weighted dimensions → per-agent weighted scores → leading approach → consensus.

For every ranking report and every approach it scored on all five dimensions:

    weighted(agent, approach) = Σ_d w_d · score_d / Σ_d w_d                      (0-10)

The leading approach has the highest mean weighted score (ties: more agents scored it, then id).
Over the leading approach's per-agent scores s_1..s_n (mean m, population stdev σ):

    consensus = (m / 10) · (1 − σ / 10)                                          (0-1)

— the level of support, discounted by disagreement. Worked example (README): three agents give
A 8.2, 7.6 and 8.8 → m = 8.2, σ = 0.4899 → consensus = 0.82 · 0.95101 = 0.7798.
`spread` = max − min of the s_i (the conformity detector's clustering window reads it).
Approaches struck by a depth-axis override are excluded from the lead.

Verdicts: a ranking agent's `verdict` says whether the panel should adopt an approach at all —
approve (adopt one: its `preferred_approach`), reject (adopt none of the listed approaches),
abstain (no vote). When every agent that voted rejects (`unanimous_reject`), the outcome is
"rejected — no approach adopted", whatever the scores of the top-scored approach.
"""

from __future__ import annotations

import math
from typing import Literal, TypeGuard

from deliberation.state.models import AgentRecord, ApproachScore, RankingResult
from deliberation.text.notes import REJECTED as REJECTED  # the outcome of a unanimous reject, as texts name it


def weighted_score(scores: "dict[str, float]", weights: "dict[str, float]") -> "float | None":
    """Weighted mean of one agent's scores for one approach; None if a dimension is missing."""
    total = sum(weights.values())
    if total <= 0:
        return None
    for d in weights:
        if d not in scores:
            return None
    return sum([w * float(scores[d]) for d, w in weights.items()]) / total


def consensus_score(values: "list[float]") -> "tuple[float, float, float]":
    """(consensus, stdev, spread) of the leading approach's per-agent weighted scores."""
    if not values:
        return 0.0, 0.0, 0.0
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / len(values))
    consensus = max(0.0, min(1.0, (m / 10.0) * (1.0 - sd / 10.0)))
    return round(consensus, 4), round(sd, 4), round(max(values) - min(values), 4)


def rank(agents: "list[AgentRecord]", weights: "dict[str, float]",
         struck: "frozenset[str] | set[str]" = frozenset()) -> "RankingResult | None":
    """Rank over the valid, current ranking-stage reports; None when there are none."""
    total = sum(weights.values()) or 1.0
    norm = {d: round(w / total, 6) for d, w in weights.items()}
    voters = [a for a in agents if a.stage == "ranking" and a.status == "reported"
              and a.report is not None and not a.superseded]
    if not voters:
        return None
    scores: list[ApproachScore] = []
    per_approach: dict[str, list[float]] = {}
    for agent in voters:
        for approach, dims in sorted(agent.filed.scores.items()):
            w = weighted_score(dims, weights)
            if w is None:
                continue
            w = round(w, 4)
            # every value already has its field's exact type: construct without re-validating
            # (one validation per agent × approach was half the cost of ranking 100 × 20)
            scores.append(ApproachScore.model_construct(
                agent=agent.key, persona=agent.persona, approach=approach,
                dimensions={d: float(dims[d]) for d in weights}, weighted=w))
            per_approach.setdefault(approach, []).append(w)
    means = {a: round(sum(v) / len(v), 4) for a, v in sorted(per_approach.items())}
    candidates = [a for a in means if a not in struck]
    leading = max(candidates, key=lambda a: (means[a], len(per_approach[a]), _neg(a))) if candidates else None
    leading_scores = {s.agent: s.weighted for s in scores if s.approach == leading}
    consensus, sd, spread = consensus_score(list(leading_scores.values()))
    verdicts = [a.filed.verdict for a in voters]
    return RankingResult(
        dimensions=norm, approaches=sorted(per_approach), scores=scores, means=means,
        leading=leading, leading_scores=leading_scores, consensus=consensus, spread=spread,
        stdev=sd, agents=len(voters), approvals=verdicts.count("approve"),
        rejections=verdicts.count("reject"), abstentions=verdicts.count("abstain"))


def _neg(approach_id: str) -> "tuple[int, ...]":
    """Tie-break key that prefers the lexically smallest id under max()."""
    return tuple(-ord(c) for c in approach_id)


def unanimous_reject(result: "RankingResult | None") -> "TypeGuard[RankingResult]":
    """Every agent that voted rejected (abstentions do not vote): no approach is adopted."""
    return result is not None and result.rejections > 0 and result.approvals == 0


def outcome(result: "RankingResult | None") -> "Literal['adopted', 'rejected'] | None":
    """'rejected' (unanimous reject), 'adopted' (a leading approach), or None (no vote yet)."""
    if result is None:
        return None
    if unanimous_reject(result):
        return "rejected"
    return "adopted" if result.leading else None




def band(consensus: float, strong: float, moderate: float) -> str:
    if consensus > strong:
        return "strong"
    if consensus >= moderate:
        return "moderate"
    return "weak"
