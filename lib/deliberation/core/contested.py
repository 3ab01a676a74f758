"""What is contested after a vote: the data both ways forward from a failed gate render
(docs/CONSENSUS.md §5).

`contested(delib)` returns the split (per approach the rankers that preferred it and their
firmness, rejections as "adopt none"), the contenders and the contender × dimension pairs whose
scores diverge most between rankers, and each dissenter with its margin and documented concerns
(about the leader first). Bounded to fit one hook answer (DEFAULT_TOP, MAX_DISSENTERS,
MAX_CONCERNS, CLIP); ties broken by name, so the same vote gives the same data. Who scored what
is for the main agent and the person, never for a ranking prompt (blind_ranking refuses it).
Pure: data, no prose.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from deliberation.core import consensus, phases, ranking
from deliberation.core.depth.axis import struck_approaches
from deliberation.state.models import Deliberation

DEFAULT_TOP = 5
MAX_DISSENTERS = 6
MAX_CONCERNS = 2
CLIP = 240
NONE = "(adopt none)"


@dataclass(frozen=True)
class Divergence:
    approach: str
    dimension: str  # a ranking dimension, or "weighted" for the weighted score
    low: float
    high: float
    spread: float  # high − low
    stdev: float
    low_by: "tuple[str, ...]"  # personas at the low end
    high_by: "tuple[str, ...]"


@dataclass(frozen=True)
class Concern:
    target: str
    concern: str
    reason: str


@dataclass(frozen=True)
class Dissent:
    agent: str
    persona: str
    preferred: "str | None"  # the approach it preferred; NONE for a reject; None for a tie
    margin: "float | None"  # the leader's score minus its best alternative (negative: against)
    firmness: float
    concerns: "tuple[Concern, ...]"


@dataclass(frozen=True)
class Share:
    approach: str  # an approach id, or NONE
    rankers: int
    firmness: float


@dataclass(frozen=True)
class Contested:
    leader: "str | None"
    consensus: float
    band: str
    split: "tuple[Share, ...]" = ()
    approaches: "tuple[Divergence, ...]" = ()
    dimensions: "tuple[Divergence, ...]" = ()
    dissenters: "tuple[Dissent, ...]" = ()
    more_dissenters: int = 0  # dissenters left out by the bound

    def to_json(self) -> dict:
        return asdict(self)


def _clip(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= CLIP else text[: CLIP - 1].rstrip() + "…"


def _divergence(approach: str, dimension: str, by_persona: "dict[str, float]") -> "Divergence | None":
    if len(by_persona) < 2:
        return None
    values = list(by_persona.values())
    low, high = min(values), max(values)
    m = math.fsum(values) / len(values)
    sd = math.sqrt(math.fsum((v - m) ** 2 for v in values) / len(values))
    return Divergence(
        approach,
        dimension,
        low,
        high,
        round(high - low, 4),
        round(sd, 4),
        tuple(sorted(p for p, v in by_persona.items() if v == low)),
        tuple(sorted(p for p, v in by_persona.items() if v == high)),
    )


def _ranked(items: "list[Divergence]", top: int) -> "tuple[Divergence, ...]":
    items = [d for d in items if d.spread > 0]
    items.sort(key=lambda d: (-d.spread, -d.stdev, d.approach, d.dimension))
    return tuple(items[: max(0, top)])


def contested(delib: Deliberation, outcome: "consensus.ConsensusOutcome | None" = None, top: int = DEFAULT_TOP) -> Contested:
    """What the vote of `delib` contests (see the module docstring). `outcome`: its consensus
    outcome when the caller has it (consensus_gate.outcome_of: the same computation)."""
    r = delib.ranking
    out = outcome or ranking.assess(delib.agents, r, struck_approaches(delib), delib.task_type)
    if r is None or out.leader is None:
        return Contested(None, 0.0, "weak")
    leader = out.leader
    # the split: who preferred what, and how firmly
    shares: dict[str, list[float]] = {}
    for p in out.positions:
        if p.stance == "indifferent" or p.abstained:
            continue
        key = NONE if p.basis == "reject" else (p.preferred or "")
        if key:
            shares.setdefault(key, []).append(p.firmness)
    split = tuple(
        sorted(
            (Share(a, len(f), round(math.fsum(f), 4)) for a, f in shares.items()),
            key=lambda s: (-s.rankers, -s.firmness, s.approach),
        )
    )
    contenders = [leader] + sorted(a for a in shares if a not in (leader, NONE) and a in r.means)
    # divergences over the contenders' scores
    weighted: dict[str, dict[str, float]] = {}
    raw: dict[tuple[str, str], dict[str, float]] = {}
    for s in r.scores:
        if s.approach not in contenders:
            continue
        weighted.setdefault(s.approach, {})[s.persona] = s.weighted
        for dim, v in s.dimensions.items():
            raw.setdefault((s.approach, dim), {})[s.persona] = v
    approaches = _ranked([d for a in contenders if (d := _divergence(a, "weighted", weighted.get(a, {})))], top)
    dimensions = _ranked([d for (a, dim), v in raw.items() if (d := _divergence(a, dim, v))], top)
    # the dissenters and their concerns, the leader's first
    by_key = {a.key: a for a in phases.current(delib, "ranking")}
    dis: list[Dissent] = []
    for p in out.positions:
        if p.stance == "support" or p.abstained:
            continue
        agent = by_key.get(p.agent)
        concerns = []
        if agent is not None:
            mine = [c for c in agent.filed.dissent if c.concern.strip()]
            mine.sort(key=lambda c: (c.target.strip() not in (leader, "leading"),))
            concerns = [Concern(c.target.strip(), _clip(c.concern), _clip(c.reason)) for c in mine[:MAX_CONCERNS]]
        preferred = NONE if p.basis == "reject" else p.preferred
        dis.append(Dissent(p.agent, p.persona, preferred, p.margin, p.firmness, tuple(concerns)))
    dis.sort(key=lambda d: (-d.firmness, d.persona, d.agent))
    return Contested(
        leader,
        out.consensus,
        out.band,
        split,
        approaches,
        dimensions,
        tuple(dis[:MAX_DISSENTERS]),
        max(0, len(dis) - MAX_DISSENTERS),
    )
