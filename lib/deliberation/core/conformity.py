"""Conformity (herding) detectors: agreement that may not come from independent evaluation
(docs/FORMULAS.md, "Conformity", says what each detects and with which figures).

Each detector — `templated_dissent`, `score_clustering`, `dimension_clustering`,
`near_threshold`, `missing_minority`, `same_reasoning`, `two_agent_rule`, `single_model` — takes
the agent records, the ranking and `config.ConformityConfig`, and returns `ConformityWarning`s
naming the agents and the figures behind them. Only valid, current reports count
(`valid_records`); the clustering detectors, missing minority and same reasoning read the
ranking stage, templated dissent every stage. Warnings, not proofs: `detect_all` runs them all.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterable, Literal, Sequence

from deliberation.core.similarity import profile, similarity, similarity_of
from deliberation.state.models import AgentRecord, ConformityWarning, Detector, RankingResult
from deliberation.text import conformity as words

TwoAgentVerdict = Literal["proceed", "investigate", "suspect_herding"]
_EPS = 1e-9  # 7.4 - 7.1 is 0.30000000000000071 in binary floating point
_EXCERPT = 80


# --------------------------------------------------------------------------------------------
# which reports count


def is_valid(record: AgentRecord) -> bool:
    """A record whose report counts: present, not invalid/refused, not superseded."""
    return record.report is not None and record.status not in ("invalid", "refused") and not record.superseded


def valid_records(agents: Iterable[AgentRecord], stage: "str | None" = None) -> "list[AgentRecord]":
    """Valid records, optionally of one stage ('research', 'deliberation', 'ranking')."""
    return [a for a in agents if is_valid(a) and (stage is None or a.stage == stage)]


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _components(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> "list[list[str]]":
    """Connected components (union-find), each in first-seen order, ordered by first member."""
    parent = {n: n for n in nodes}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
    groups: dict[str, list[str]] = {}
    for n in nodes:
        groups.setdefault(find(n), []).append(n)
    return [g for g in groups.values() if len(g) > 1]


# --------------------------------------------------------------------------------------------
# templated dissent


def templated_dissent(agents: Sequence[AgentRecord], threshold: float) -> "list[ConformityWarning]":
    """Dissent (concern + reason) of different personas whose wording is this similar or more.

    The same persona repeating its own concern in a later stage is not templating, so only
    concerns of records with different personas are compared. One warning per group of agents
    linked by similar concerns, with the pairwise similarity figures and one quoted excerpt.
    """
    items = [(a, f"{c.concern} {c.reason}") for a in valid_records(agents) for c in a.filed.dissent]
    profiles = [profile(t) for _, t in items]  # each text shingled once, not once per pair
    pairs: dict[tuple[str, str], tuple[float, str]] = {}
    for (i, (a, ta)), (j, (b, _tb)) in combinations(enumerate(items), 2):
        if a.persona == b.persona or a.key == b.key:
            continue
        s = similarity_of(profiles[i], profiles[j])
        if s >= threshold - _EPS:
            lo, hi = sorted((a.key, b.key))
            key = (lo, hi)
            if key not in pairs or s > pairs[key][0]:
                pairs[key] = (s, ta)
    return _group_warnings("templated_dissent", agents, pairs, threshold, words.TEMPLATED_DISSENT)


def _group_warnings(
    detector: Detector,
    agents: Sequence[AgentRecord],
    pairs: "dict[tuple[str, str], tuple[float, str]]",
    threshold: float,
    what: str,
) -> "list[ConformityWarning]":
    order = [a.key for a in agents]
    persona = {a.key: a.persona for a in agents}
    warnings = []
    for group in _components(order, pairs):
        members = set(group)
        figures = sorted(((s, k, t) for k, (s, t) in pairs.items() if k[0] in members), reverse=True)
        shown = [(persona[k[0]], persona[k[1]], s) for s, k, _ in figures[:6]]
        warnings.append(
            ConformityWarning(
                detector=detector,
                agents=group,
                evidence=words.similar_group(len(group), what, threshold, shown, len(figures) - 6, _excerpt(figures[0][2])),
            )
        )
    return warnings


# --------------------------------------------------------------------------------------------
# score clustering


def leading_scores(agents: Sequence[AgentRecord], ranking: RankingResult) -> "dict[str, float]":
    """The ranking's per-agent scores for the leading approach, minus agents whose report does
    not count (invalid, superseded, not of the ranking stage). Scores of agents the list does
    not know are kept: the ranking computed them."""
    known = _counted(agents)
    return {
        k: v for k, v in ranking.leading_scores.items() if k not in known or (is_valid(known[k]) and known[k].stage == "ranking")
    }


def score_clustering(
    agents: Sequence[AgentRecord], ranking: "RankingResult | None", window: float, min_agents: int
) -> "list[ConformityWarning]":
    """Flag when at least `min_agents` scores for the leading approach span ≤ `window` points."""
    if ranking is None or ranking.leading is None:
        return []
    scores = leading_scores(agents, ranking)
    if len(scores) < min_agents:
        return []
    low, high = min(scores.values()), max(scores.values())
    spread = high - low
    if spread > window + _EPS:
        return []
    return [
        ConformityWarning(
            detector="score_clustering",
            agents=list(scores),
            evidence=words.score_clustering(len(scores), ranking.leading, low, high, window, sorted(scores.values())),
        )
    ]


def _counted(agents: Sequence[AgentRecord]) -> "dict[str, AgentRecord]":
    known = {}
    for a in agents:
        for ident in (a.key, a.agent_id, a.tool_use_id):
            if ident:
                known[ident] = a
    return known


def leading_dimension_scores(agents: Sequence[AgentRecord], ranking: RankingResult) -> "dict[str, dict[str, float]]":
    """dimension → {agent: score} for the leading approach, over the reports that count."""
    known = _counted(agents)
    out: dict[str, dict[str, float]] = {}
    for s in ranking.scores:
        if s.approach != ranking.leading:
            continue
        if s.agent in known and not (is_valid(known[s.agent]) and known[s.agent].stage == "ranking"):
            continue
        for dim, value in s.dimensions.items():
            out.setdefault(dim, {})[s.agent] = value
    return out


def dimension_clustering(
    agents: Sequence[AgentRecord], ranking: "RankingResult | None", window: float, min_agents: int
) -> "list[ConformityWarning]":
    """Flag the dimensions of the leading approach on which at least `min_agents` scores span
    ≤ `window` points. One warning naming every clustered dimension, with its scores."""
    if ranking is None or ranking.leading is None:
        return []
    found = []
    members: list[str] = []
    for dim, scores in leading_dimension_scores(agents, ranking).items():
        if len(scores) < min_agents:
            continue
        low, high = min(scores.values()), max(scores.values())
        if high - low > window + _EPS:
            continue
        found.append(words.dimension_cluster(dim, len(scores), low, high, sorted(scores.values())))
        members += [k for k in scores if k not in members]
    if not found:
        return []
    return [
        ConformityWarning(
            detector="dimension_clustering", agents=members, evidence=words.dimension_clustering(ranking.leading, window, found)
        )
    ]


def near_threshold(
    agents: Sequence[AgentRecord], ranking: "RankingResult | None", threshold: "float | None", margin: float, min_agents: int
) -> "list[ConformityWarning]":
    """Flag when at least `min_agents` weighted scores for the leading approach all lie within
    `margin` points of the consensus bar, threshold × 10 on the 0-10 scale."""
    if ranking is None or ranking.leading is None or threshold is None:
        return []
    scores = leading_scores(agents, ranking)
    if len(scores) < min_agents:
        return []
    bar = threshold * 10
    low, high = min(scores.values()), max(scores.values())
    if low < bar - margin - _EPS or high > bar + margin + _EPS:
        return []
    return [
        ConformityWarning(
            detector="near_threshold",
            agents=list(scores),
            evidence=words.near_threshold(len(scores), ranking.leading, low, high, margin, threshold, sorted(scores.values())),
        )
    ]


# --------------------------------------------------------------------------------------------
# missing minority


def missing_minority(agents: Sequence[AgentRecord], conflicting_pairs: Sequence[Sequence[str]]) -> "list[ConformityWarning]":
    """Unanimous approval (every ranking verdict 'approve', no dissent at all) although both
    personas of at least one conflicting pair took part. One warning naming every such pair."""
    ranked = valid_records(agents, "ranking")
    if len(ranked) < 2:
        return []
    if any(a.filed.verdict != "approve" or a.filed.dissent for a in ranked):
        return []
    present = {a.persona for a in ranked}
    pairs = [(p[0], p[1]) for p in conflicting_pairs if len(p) == 2 and p[0] in present and p[1] in present]
    if not pairs:
        return []
    involved = {p for pair in pairs for p in pair}
    return [
        ConformityWarning(
            detector="missing_minority",
            agents=[a.key for a in ranked if a.persona in involved],
            evidence=words.missing_minority(len(ranked), pairs),
        )
    ]


# --------------------------------------------------------------------------------------------
# same reasoning and the 2-agent rule


def _position(report: Any, leading: "str | None") -> "tuple[str, str | None]":
    return report.verdict, report.preferred_approach or leading


def agree(a: Any, b: Any, leading: "str | None" = None) -> bool:
    """Same verdict (approve or reject; abstentions agree on nothing) and same preferred approach
    (a report naming none is taken to mean the leading approach)."""
    pa, pb = _position(a, leading), _position(b, leading)
    return pa[0] != "abstain" and pa == pb


def same_reasoning(agents: Sequence[AgentRecord], ranking: "RankingResult | None", threshold: float) -> "list[ConformityWarning]":
    """Agreeing ranking agents whose rationales are this similar or more: one warning per group."""
    leading = ranking.leading if ranking else None
    ranked = [a for a in valid_records(agents, "ranking") if a.filed.rationale.strip()]
    # all pairs are compared: position and shingles are computed once per agent, not per pair
    positions = {a.key: _position(a.report, leading) for a in ranked}
    profiles = {a.key: profile(a.filed.rationale) for a in ranked}
    pairs: dict[tuple[str, str], tuple[float, str]] = {}
    for a, b in combinations(ranked, 2):
        pa = positions[a.key]
        if pa[0] == "abstain" or pa != positions[b.key]:  # agree(), precomputed
            continue
        s = similarity_of(profiles[a.key], profiles[b.key])
        if s >= threshold - _EPS:
            pairs[(a.key, b.key)] = (s, a.filed.rationale)
    return _group_warnings("same_reasoning", ranked, pairs, threshold, words.SAME_REASONING)


def two_agent_rule(a: Any, b: Any, threshold: float = 0.6, leading: "str | None" = None) -> TwoAgentVerdict:
    """The minimum viable deliberation (one agent FOR, one AGAINST):
    agreement with different reasoning → 'proceed'; disagreement → 'investigate' (the conflict);
    agreement with the same reasoning (rationale similarity ≥ threshold) → 'suspect_herding'.

    `a` and `b` are AgentReports or AgentRecords (their report is used)."""
    ra, rb = getattr(a, "report", a), getattr(b, "report", b)
    if ra is None or rb is None or not agree(ra, rb, leading):
        return "investigate"
    if ra.rationale.strip() and rb.rationale.strip() and similarity(ra.rationale, rb.rationale) >= threshold - _EPS:
        return "suspect_herding"
    return "proceed"


# --------------------------------------------------------------------------------------------
# a panel on one model


def single_model(agents: Sequence[AgentRecord]) -> "list[ConformityWarning]":
    """Every valid ranking report came from an agent that ran on the same model (at least two
    agents, the model known for each: the client's resolved model, else the one asked for)."""
    ranked = valid_records(agents, "ranking")
    if len(ranked) < 2:
        return []
    models = {a.key: a.model or a.model_requested for a in ranked}
    if any(m is None for m in models.values()) or len(set(models.values())) != 1:
        return []
    model = next(iter(models.values()))
    return [
        ConformityWarning(
            detector="single_model",
            agents=list(models),
            evidence=words.single_model(len(ranked), model),
            recommendation=words.SINGLE_MODEL_FIX,
        )
    ]


# --------------------------------------------------------------------------------------------
# all detectors


def detect_all(
    agents: Sequence[AgentRecord], ranking: "RankingResult | None", cfg: Any, threshold: "float | None" = None
) -> "list[ConformityWarning]":
    """Run every detector; `cfg` is the Config or its `conformity` section; `threshold` is the
    deliberation's consensus threshold (near_threshold is skipped without it).

    What this cannot do: agents that genuinely agree — reaching the same conclusion from
    independent evidence, or for different reasons worded alike — look exactly like herding to
    these detectors, and agents that herd but vary their wording and scores pass unseen. A
    warning means "this agreement is not evidence of independence; re-run the affected agents
    with fresh isolation and compare", never "these agents herded".
    """
    c = getattr(cfg, "conformity", cfg)
    return [
        *templated_dissent(agents, c.templated_similarity),
        *score_clustering(agents, ranking, c.clustering_window, c.min_agents_for_clustering),
        *dimension_clustering(agents, ranking, c.clustering_window, c.min_agents_for_clustering),
        *near_threshold(agents, ranking, threshold, c.near_threshold_margin, c.min_agents_for_clustering),
        *missing_minority(agents, c.conflicting_pairs),
        *same_reasoning(agents, ranking, c.same_reasoning_similarity),
        *single_model(agents),
    ]
