"""Ranking: five weighted dimensions → per-agent weighted scores → leading approach → consensus
(docs/FORMULAS.md has the formulas and a worked example; docs/CONSENSUS.md the consensus).

`rank` computes weighted(agent, approach) = Σ w_d · score_d / Σ w_d (0-10) for every approach a
ranking report scored on all five dimensions, picks the leader with `consensus.lead` (approaches
a depth-axis override struck are excluded), and returns the consensus, the leader's level, and
`spread` and `stdev` of its per-agent scores (the conformity detector reads them). A ranker's
verdict says whether to adopt an approach at all: approve, reject (adopt none), abstain (no
vote); when every agent that voted rejects (`unanimous_reject`), the outcome is rejected,
whatever the top score.
"""

from __future__ import annotations

import math
from typing import Literal, TypeGuard

from deliberation.core import consensus as agreement
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


def spread_of(values: "list[float]") -> "tuple[float, float]":
    """(stdev, spread) of the leading approach's per-agent weighted scores."""
    if not values:
        return 0.0, 0.0
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / len(values))
    return round(sd, 4), round(max(values) - min(values), 4)


def ballots(agents: "list[AgentRecord]", scores: "list[ApproachScore]") -> "list[agreement.Ballot]":
    """Each voter's ballot (its weighted scores, verdict and stated preference) for consensus.py."""
    per: dict[str, dict[str, float]] = {}
    for s in scores:
        per.setdefault(s.agent, {})[s.approach] = s.weighted
    return [
        agreement.Ballot(
            agent=a.key, persona=a.persona, scores=per.get(a.key, {}), verdict=a.filed.verdict, stated=a.filed.preferred_approach
        )
        for a in agents
    ]


def voters_of(agents: "list[AgentRecord]") -> "list[AgentRecord]":
    """The valid, current ranking-stage reports: the agents whose vote counts."""
    return [a for a in agents if a.stage == "ranking" and a.status == "reported" and a.report is not None and not a.superseded]


def assess(
    agents: "list[AgentRecord]",
    result: "RankingResult | None",
    struck: "frozenset[str] | set[str]" = frozenset(),
    task_type: str = "default",
    options: agreement.Options = agreement.Options(),
) -> agreement.ConsensusOutcome:
    """The consensus outcome (figures, positions, level, drivers) of a ranking result."""
    if result is None:
        return agreement.assess([], None, {}, options=options)
    return agreement.assess(ballots(voters_of(agents), result.scores), result.leading, result.means, struck, task_type, options)


def rank(
    agents: "list[AgentRecord]",
    weights: "dict[str, float]",
    struck: "frozenset[str] | set[str]" = frozenset(),
    options: agreement.Options = agreement.Options(),
) -> "RankingResult | None":
    """Rank over the valid, current ranking-stage reports; None when there are none."""
    total = sum(weights.values()) or 1.0
    norm = {d: round(w / total, 6) for d, w in weights.items()}
    voters = voters_of(agents)
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
            scores.append(
                ApproachScore.model_construct(
                    agent=agent.key,
                    persona=agent.persona,
                    approach=approach,
                    dimensions={d: float(dims[d]) for d in weights},
                    weighted=w,
                )
            )
            per_approach.setdefault(approach, []).append(w)
    means = {a: round(sum(v) / len(v), 4) for a, v in sorted(per_approach.items())}
    candidates = [a for a in means if a not in struck]
    leading = agreement.lead(candidates, ballots(voters, scores), means, {a: len(v) for a, v in per_approach.items()})
    leading_scores = {s.agent: s.weighted for s in scores if s.approach == leading}
    sd, spread = spread_of(list(leading_scores.values()))
    consensus = agreement.assess(ballots(voters, scores), leading, means, struck, options=options).consensus
    verdicts = [a.filed.verdict for a in voters]
    return RankingResult(
        dimensions=norm,
        approaches=sorted(per_approach),
        scores=scores,
        means=means,
        leading=leading,
        leading_scores=leading_scores,
        consensus=consensus,
        spread=spread,
        stdev=sd,
        agents=len(voters),
        approvals=verdicts.count("approve"),
        rejections=verdicts.count("reject"),
        abstentions=verdicts.count("abstain"),
    )


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
    return agreement.band(consensus, strong, moderate)
