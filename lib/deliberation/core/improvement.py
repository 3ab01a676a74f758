"""Gate 2's improvement check: the share of the panel whose position is the decision, before
(each research persona's stated preference, alone) and after (each blind ranker's position).

`assess` returns the two shares and a status: `improved`, `confirmed` (1 before and after) and
`flat` pass, `fell` fails (a failure on agreement, core/ways_forward.py), `unmeasured` (no
position to compare) does not block. A research preference is matched to a ranked approach by
title (`title_overlap` ≥ MATCH, a single best match only); positions are paired by persona when
the same personas took both; a position that is none (an abstention, a tie, an unmatched title)
is left out. Self-reported confidence is never compared (docs/CONSENSUS.md §4 says why). Pure,
stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from deliberation.core import consensus, phases, ranking
from deliberation.core.similarity import token_set

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import AgentRecord, Deliberation

MATCH = 0.6  # title overlap at which a research preference is one of the ranked approaches
NONE = "(adopt none)"

Status = Literal["improved", "confirmed", "flat", "fell", "unmeasured"]


@dataclass(frozen=True)
class StagePosition:
    persona: str
    stage: Literal["research", "ranking"]
    approach: "str | None"  # the ranked approach id it preferred, NONE for a reject
    for_decision: bool


@dataclass(frozen=True)
class ImprovementOutcome:
    decision: "str | None"  # the adopted approach id, NONE for a unanimous reject
    before: "float | None"
    after: "float | None"
    status: Status
    paired: bool
    positions: "tuple[StagePosition, ...]" = ()
    unmatched: "tuple[str, ...]" = ()  # research personas whose preference matched no ranked approach

    @property
    def passes(self) -> bool:
        """Pass unless the deliberation moved the panel away from its decision."""
        return self.status != "fell"

    def to_json(self) -> dict:
        return {
            "decision": self.decision,
            "before": self.before,
            "after": self.after,
            "status": self.status,
            "passes": self.passes,
            "paired": self.paired,
            "positions": [p.__dict__ for p in self.positions],
            "unmatched": list(self.unmatched),
        }


def _norm(title: str) -> str:
    return " ".join(title.lower().split())


def title_overlap(a: str, b: str) -> float:
    """Share of the shorter title's content words (stemmed, stop words dropped) in the other."""
    ta, tb = token_set(a), token_set(b)
    if not ta or not tb:
        return 0.0
    return round(len(ta & tb) / min(len(ta), len(tb)), 6)


def match_title(title: str, catalogue: "dict[str, str]") -> "str | None":
    """The ranked approach id a research approach's title names (None: no single match)."""
    if not title.strip():
        return None
    same = [aid for aid, t in catalogue.items() if _norm(t) == _norm(title)]
    if len(same) == 1:
        return same[0]
    scored = sorted(((title_overlap(title, t), aid) for aid, t in catalogue.items()), reverse=True)
    if not scored or scored[0][0] < MATCH or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def research_position(agent: AgentRecord, catalogue: "dict[str, str]") -> "tuple[str | None, bool]":
    """(approach id or NONE, matched) of a research report; (None, True) when it took no position."""
    rep = agent.report
    if rep is None:
        return None, True
    if rep.verdict == "reject":
        return NONE, True
    pref = rep.preferred_approach
    if not pref:
        return None, True
    own = {ap.id: ap.title for ap in rep.approaches}
    title = own.get(pref)
    if title is None:  # it named a ranked approach id directly
        return (pref, True) if pref in catalogue else (None, False)
    found = match_title(title, catalogue)
    return found, found is not None


def _share(positions: "list[StagePosition]") -> "float | None":
    return round(sum(p.for_decision for p in positions) / len(positions), 4) if positions else None


def assess(delib: Deliberation, outcome: "consensus.ConsensusOutcome | None" = None) -> ImprovementOutcome:
    """Improvement evidence of `delib` (its ranking must be computed); `outcome`: the ranking's
    consensus outcome when the caller has it (ranking.assess), else computed here."""
    r = delib.ranking
    if r is None or (r.leading is None and not ranking.unanimous_reject(r)):
        return ImprovementOutcome(None, None, None, "unmeasured", False)
    decision: str = NONE if ranking.unanimous_reject(r) else (r.leading or NONE)
    out = outcome or ranking.assess(delib.agents, r)
    titles = phases.approaches(delib)
    catalogue = {aid: titles.get(aid, aid) for aid in r.approaches}
    by_key = {a.key: a for a in delib.agents}
    after: dict[str, StagePosition] = {}
    for p in out.positions:
        if p.stance == "indifferent":
            continue
        approach = NONE if p.basis == "reject" else (p.preferred or "")
        persona = by_key[p.agent].persona if p.agent in by_key else p.persona
        after[persona] = StagePosition(persona, "ranking", approach or None, approach == decision)
    before: dict[str, StagePosition] = {}
    unmatched: list[str] = []
    for a in phases.current(delib, "research"):
        if a.kind != "persona" or a.persona in before:
            continue
        held, matched = research_position(a, catalogue)
        if not matched:
            unmatched.append(a.persona)
        if held is not None:
            before[a.persona] = StagePosition(a.persona, "research", held, held == decision)
    both = sorted(set(before) & set(after))
    paired = bool(both)
    pb = [before[p] for p in both] if paired else [before[p] for p in sorted(before)]
    pa = [after[p] for p in both] if paired else [after[p] for p in sorted(after)]
    b, f = _share(pb), _share(pa)
    if b is None or f is None:
        status: Status = "unmeasured"
    elif f > b:
        status = "improved"
    elif f == b == 1.0:
        status = "confirmed"
    elif f == b:
        status = "flat"
    else:
        status = "fell"
    return ImprovementOutcome(decision, b, f, status, paired, tuple(pb + pa), tuple(sorted(unmatched)))
