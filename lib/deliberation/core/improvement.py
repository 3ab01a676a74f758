"""Improvement evidence a blind, honest panel can show (docs/CONSENSUS.md, "Improvement").

Gate 2's fifth check compares a *before* and an *after* on one scale. The scale is the
**share of the panel whose position is the decision** — the same question asked of two
independent readings of the same panel:

    before = the research positions: each research persona's `preferred_approach` (or its
             reject: adopt none), stated alone, before any agent saw another's work
    after  = the ranking positions: each blind ranker's preference (consensus.position: its
             stated approach, else its top weighted score; a reject adopts none)
    share  = positions for the decision / positions taken                       (0-1)

The decision is the approach the vote adopted (the ranking's leader), or "adopt none" when the
panel unanimously rejected. A position that is no position — an abstention without a preferred
approach, a tie at the top, a research preference whose approach cannot be found among the
ranked ones — is left out of its share. Positions are paired by persona when the same personas
took both (the same agents compared with themselves); otherwise the two panels are compared.

Research reports number their own approaches, so a research preference is matched to the
ranked approaches by title: the same title (case and spacing aside), else the one ranked
approach whose title shares enough of its words (`title_overlap` ≥ MATCH: the share of the
shorter title's content words found in the other — titles are a few words, so a renamed
"Stateless JWTs" is still "Switch to stateless JWTs"), the only one at that best figure.

Not compared: a ranker's self-reported `confidence` — fresh blind rankers get no new evidence,
so an honest one's confidence cannot rise, and the check would measure how agents word their
doubt; the trigger's confidence — a word-list score of the prompt, absent for a forced question.

The verdict (`status`):
- `improved`  after > before: the deliberation moved the panel towards its decision. Pass.
- `confirmed` after = before = 1: every position was the decision before the panel deliberated,
              and still is. Pass: the rule's "exceeds" cannot be met above unanimity, and
              holding the session for it would ask for a re-vote that can only repeat itself.
- `flat`      after = before < 1: the deliberation moved nobody — the positions the personas took
              alone are the ones they ranked blind. Passes, reported as flat: blind rankers
              with no new evidence cannot move, holding the session for it costs a re-vote that
              repeats itself, and the consensus check already judges whether they agree.
- `fell`      after < before: the deliberation broke an agreement (the red team or the depth
              step found something). Fails (blocks when gates.require_improvement): a failure on
              agreement with two ways forward — a revision round against the contested points,
              or the user's decision (core/ways_forward.py).
- `unmeasured` no research position (or no ranking position) to compare. Does not block — the
              research cannot be re-taken blind — and the record says it was not measured.

Pure, stdlib only over the deliberation's records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from deliberation.core import consensus, phases, ranking
from deliberation.core.similarity import token_set

MATCH = 0.6   # title overlap at which a research preference is one of the ranked approaches
NONE = "(adopt none)"

Status = Literal["improved", "confirmed", "flat", "fell", "unmeasured"]


@dataclass(frozen=True)
class StagePosition:
    persona: str
    stage: Literal["research", "ranking"]
    approach: "str | None"     # the ranked approach id it preferred, NONE for a reject
    for_decision: bool


@dataclass(frozen=True)
class ImprovementOutcome:
    decision: "str | None"              # the adopted approach id, NONE for a unanimous reject
    before: "float | None"
    after: "float | None"
    status: Status
    paired: bool
    positions: "tuple[StagePosition, ...]" = ()
    unmatched: "tuple[str, ...]" = ()   # research personas whose preference matched no ranked approach

    @property
    def passes(self) -> bool:
        """Pass unless the deliberation moved the panel away from its decision."""
        return self.status != "fell"

    def to_json(self) -> dict:
        return {"decision": self.decision, "before": self.before, "after": self.after,
                "status": self.status, "passes": self.passes, "paired": self.paired,
                "positions": [p.__dict__ for p in self.positions], "unmatched": list(self.unmatched)}


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


def research_position(agent, catalogue: "dict[str, str]") -> "tuple[str | None, bool]":
    """(approach id or NONE, matched) of a research report; (None, True) when it took no position."""
    rep = agent.report
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


def assess(delib, outcome: "consensus.ConsensusOutcome | None" = None) -> ImprovementOutcome:
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
