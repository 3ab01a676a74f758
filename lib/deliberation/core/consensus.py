"""Consensus: how far the blind ranking panel agrees on the decision (docs/CONSENSUS.md §1 gives
the formula, its properties and why this one).

`lead` picks the approach the most rankers prefer (ties: the highest mean weighted score, then the
most rankers that scored it, then id). `position` reads each ranker's stance from its own ballot:
a reject opposes with full firmness; else the approach it states (when it scored it), else its
top weighted score (a tie at the top is indifferent); its firmness is |margin| / CLEAR_MARGIN,
capped at 1, and at least STATED_DISSENT when it states another approach. `assess` returns
S / (S + O + DOUBT) with the leader's level beside it (`ConsensusOutcome.review`: a weak leader of
a security or architecture decision; the level never enters the figure); `band` names it. Monotone, independent of ids and
order. Pure and stdlib only; returns data (`ConsensusOutcome`), never prose.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Iterable, Literal, Mapping

from deliberation import catalogue

CLEAR_MARGIN = 1.0  # weighted points: a preference this wide (or wider) is fully firm
STATED_DISSENT = 0.5  # the least weight of a dissent the ranker states in preferred_approach
DOUBT = 0.2  # the prior weight of doubt in S / (S + O + DOUBT)
ACCEPTABLE_LEVEL = 6.0  # a leader whose mean weighted score is below this: best of weak options
STRONG = 0.85  # GatesConfig.strong default
MODERATE = 0.70  # GatesConfig.moderate default
REVIEW_TYPES = tuple(t.name for t in catalogue.TASK_TYPES if t.review)  # a weak leader goes to a person for these

Stance = Literal["support", "oppose", "indifferent"]
Band = Literal["strong", "moderate", "weak"]


@dataclass(frozen=True)
class Options:
    """The consensus figures' knobs (defaults justified in docs/CONSENSUS.md)."""

    clear_margin: float = CLEAR_MARGIN
    doubt: float = DOUBT
    acceptable_level: float = ACCEPTABLE_LEVEL
    strong: float = STRONG
    moderate: float = MODERATE
    review_types: "tuple[str, ...]" = REVIEW_TYPES


@dataclass(frozen=True)
class Ballot:
    """One ranker's vote as the consensus reads it."""

    agent: str
    persona: str
    scores: "Mapping[str, float]"  # approach → weighted score (0-10)
    verdict: str = "abstain"  # approve | reject | abstain
    stated: "str | None" = None  # its preferred_approach, as reported


Basis = Literal["stated", "scores", "reject", "verdict", "tie"]


@dataclass(frozen=True)
class Position:
    """One ranker's position on the leader."""

    agent: str
    persona: str
    stance: Stance
    preferred: "str | None"  # the approach it preferred (None: reject, or a tie)
    margin: "float | None"  # leader minus its best alternative, in points
    firmness: float  # 0-1: the weight its position carries
    basis: "Basis"

    @property
    def abstained(self) -> bool:
        """It expressed nothing: no usable scores, no approval, no reject."""
        return self.stance == "indifferent" and self.basis == "verdict"


@dataclass(frozen=True)
class Driver:
    """A property of the vote that set the band, with its figure and the agents behind it."""

    name: Literal[
        "unanimous",
        "clear_margins",
        "narrow_margins",
        "dissent",
        "rejections",
        "indifferent",
        "doubt",
        "tie_for_lead",
        "no_alternative",
        "no_vote",
    ]
    figure: float
    agents: "tuple[str, ...]" = ()


@dataclass(frozen=True)
class ConsensusOutcome:
    leader: "str | None"
    consensus: float
    band: Band
    support: float
    opposition: float
    doubt: float
    positions: "tuple[Position, ...]" = ()
    level: "float | None" = None  # the leader's mean weighted score (0-10)
    acceptable_level: float = ACCEPTABLE_LEVEL
    tied: "tuple[tuple[str, float], ...]" = ()  # (approach, its consensus) tied for the lead
    drivers: "tuple[Driver, ...]" = ()
    review: bool = False  # weak options on a security/architecture decision

    def _agents(self, stance: Stance) -> "tuple[str, ...]":
        return tuple(p.agent for p in self.positions if p.stance == stance)

    @property
    def supporters(self) -> "tuple[str, ...]":
        return self._agents("support")

    @property
    def dissenters(self) -> "tuple[str, ...]":
        return self._agents("oppose")

    @property
    def indifferent(self) -> "tuple[str, ...]":
        return self._agents("indifferent")

    @property
    def unanimous(self) -> bool:
        """Every ranker preferred the leader: none opposed it, none was indifferent (a ranker
        that abstained and scored nothing expressed nothing and is left out, as in a vote)."""
        voiced = [p for p in self.positions if not p.abstained]
        return bool(voiced) and all(p.stance == "support" for p in voiced)

    @property
    def weak_options(self) -> bool:
        """The leader is the best of weak options: its level is below the acceptable level."""
        return self.level is not None and self.level < self.acceptable_level

    def to_json(self) -> dict:
        return {
            "leader": self.leader,
            "consensus": self.consensus,
            "band": self.band,
            "support": self.support,
            "opposition": self.opposition,
            "doubt": self.doubt,
            "unanimous": self.unanimous,
            "level": self.level,
            "acceptable_level": self.acceptable_level,
            "weak_options": self.weak_options,
            "review": self.review,
            "positions": [asdict(p) for p in self.positions],
            "tied": [{"approach": a, "consensus": c} for a, c in self.tied],
            "drivers": [{"name": d.name, "figure": d.figure, "agents": list(d.agents)} for d in self.drivers],
        }


def band(consensus: float, strong: float = STRONG, moderate: float = MODERATE) -> Band:
    """strong (> strong), moderate (≥ moderate), else weak."""
    if consensus > strong:
        return "strong"
    if consensus >= moderate:
        return "moderate"
    return "weak"


# --------------------------------------------------------------------------------------------
# one ranker's position


def _clip01(x: float) -> float:
    return 0.0 if x <= 0 else 1.0 if x >= 1 else x


def position(
    ballot: Ballot, leader: str, struck: "frozenset[str] | set[str]" = frozenset(), clear_margin: float = CLEAR_MARGIN
) -> Position:
    """`ballot`'s position on `leader` (see the module docstring).

    `struck`: approaches the depth step struck from the lead. A ranker may still prefer one —
    it then dissents — but a ranker that prefers the leader is not weighed against a struck
    approach: its margin is over its best remaining alternative."""
    scores = dict(ballot.scores)
    mk = dict(agent=ballot.agent, persona=ballot.persona)
    if ballot.verdict == "reject":
        return Position(**mk, stance="oppose", preferred=None, margin=_margin(scores, leader), firmness=1.0, basis="reject")
    others = {a: s for a, s in scores.items() if a != leader}
    stated = ballot.stated if ballot.stated in scores else None
    if leader not in scores or not others:
        # nothing to weigh the leader against: the verdict (and the stated approach) is the position
        if leader not in scores and others:
            best = stated or _top(others)
            return Position(**mk, stance="oppose", preferred=best, margin=None, firmness=1.0, basis="verdict")
        if ballot.verdict == "approve" and stated in (None, leader):
            return Position(**mk, stance="support", preferred=leader, margin=None, firmness=1.0, basis="verdict")
        return Position(**mk, stance="indifferent", preferred=None, margin=None, firmness=0.0, basis="verdict")
    basis: Basis
    if stated is None:
        top = _top(scores)
        if top is None and scores[leader] == max(scores.values()):
            return Position(**mk, stance="indifferent", preferred=None, margin=0.0, firmness=0.0, basis="tie")
        choice, basis = top, "scores"
    else:
        choice, basis = stated, "stated"
    if choice == leader:
        rest = {a: s for a, s in others.items() if a not in struck}
        if not rest:  # every alternative was struck: nothing left to weigh it against
            return Position(**mk, stance="support", preferred=leader, margin=None, firmness=1.0, basis="verdict")
        lead_by = round(scores[leader] - max(rest.values()), 4)
        return Position(
            **mk, stance="support", preferred=leader, margin=lead_by, firmness=_clip01(lead_by / clear_margin), basis=basis
        )
    margin = _margin(scores, leader)
    against = (scores[choice] if choice is not None else max(others.values())) - scores[leader]
    firmness = _clip01(against / clear_margin)
    if basis == "stated":  # said in so many words: never a dissent of no weight
        firmness = max(firmness, STATED_DISSENT)
    return Position(**mk, stance="oppose", preferred=choice, margin=margin, firmness=firmness, basis=basis)


def preference(ballot: Ballot) -> "str | None":
    """The approach `ballot` prefers, independent of any leader: none for a reject, else the one
    it states when it scored it, else its single top weighted score (None on a tie at the top)."""
    if ballot.verdict == "reject" or not ballot.scores:
        return None
    if ballot.stated in ballot.scores:
        return ballot.stated
    return _top(ballot.scores)


def votes(ballots: "Iterable[Ballot]") -> "dict[str, int]":
    """Approach → how many rankers prefer it (`preference`)."""
    out: dict[str, int] = {}
    for b in ballots:
        p = preference(b)
        if p is not None:
            out[p] = out.get(p, 0) + 1
    return out


def lead(
    candidates: "Iterable[str]",
    ballots: "Iterable[Ballot]",
    means: "Mapping[str, float]",
    scored: "Mapping[str, int] | None" = None,
) -> "str | None":
    """The leading approach among `candidates`: the one the most rankers prefer; ties broken by
    the highest mean weighted score, then the most rankers that scored it, then the lexically smallest
    id. A vote for a non-candidate (a struck approach) counts for none of them."""
    cands = [a for a in candidates if a in means]
    if not cands:
        return None
    v = votes(ballots)
    n = scored or {}
    return max(cands, key=lambda a: (v.get(a, 0), means[a], n.get(a, 0), _neg_id(a)))


def _neg_id(approach_id: str) -> "tuple[int, ...]":
    """Tie-break key that prefers the lexically smallest id under max()."""
    return tuple(-ord(c) for c in approach_id)


def _margin(scores: "Mapping[str, float]", leader: str) -> "float | None":
    others = [s for a, s in scores.items() if a != leader]
    if leader not in scores or not others:
        return None
    return round(scores[leader] - max(others), 4)


def _top(scores: "Mapping[str, float]") -> "str | None":
    """The single top-scored approach (None when the top is tied)."""
    best = max(scores.values())
    top = [a for a, s in scores.items() if s == best]
    return top[0] if len(top) == 1 else None


# --------------------------------------------------------------------------------------------
# the panel


def _figures(positions: "list[Position]", doubt: float) -> "tuple[float, float, float]":
    s = math.fsum(sorted(p.firmness for p in positions if p.stance == "support"))
    o = math.fsum(sorted(p.firmness for p in positions if p.stance == "oppose"))
    c = s / (s + o + doubt) if s + o + doubt > 0 else 0.0
    return round(s, 4), round(o, 4), round(c, 4)


def _sorted(positions: "Iterable[Position]") -> "tuple[Position, ...]":
    return tuple(sorted(positions, key=lambda p: (p.persona, p.agent)))


def assess(
    ballots: "Iterable[Ballot]",
    leader: "str | None",
    means: "Mapping[str, float]",
    struck: "frozenset[str] | set[str]" = frozenset(),
    task_type: str = "default",
    options: Options = Options(),
) -> ConsensusOutcome:
    """The panel's consensus on `leader`, with its level and what drove the band.

    `means`: approach → mean weighted score (the ranking's); approaches that as many rankers
    prefer as the leader and whose mean ties the leader's (and are not struck) are tied for the lead, and the consensus is the lowest of
    theirs, so that relabelling approaches never changes it."""
    ballots = list(ballots)
    if leader is None:
        return ConsensusOutcome(
            None,
            0.0,
            "weak",
            0.0,
            0.0,
            options.doubt,
            acceptable_level=options.acceptable_level,
            drivers=(Driver("no_vote", 0.0),),
        )
    positions = [position(b, leader, struck, options.clear_margin) for b in ballots]
    s, o, c = _figures(positions, options.doubt)
    tied: list[tuple[str, float]] = []
    top = means.get(leader)
    if top is not None:
        v = votes(ballots)
        for other in sorted(
            a for a, m in means.items() if m == top and a != leader and a not in struck and v.get(a, 0) == v.get(leader, 0)
        ):
            oc = _figures([position(b, other, struck, options.clear_margin) for b in ballots], options.doubt)[2]
            tied.append((other, oc))
    consensus = min([c] + [oc for _, oc in tied])
    label = band(consensus, options.strong, options.moderate)
    level = top
    weak = level is not None and level < options.acceptable_level
    outcome = ConsensusOutcome(
        leader=leader,
        consensus=consensus,
        band=label,
        support=s,
        opposition=o,
        doubt=options.doubt,
        positions=_sorted(positions),
        level=level,
        acceptable_level=options.acceptable_level,
        tied=tuple([(leader, c)] + tied) if tied else (),
        review=weak and task_type in options.review_types,
    )
    return _with_drivers(outcome, options)


def _with_drivers(out: ConsensusOutcome, options: Options) -> ConsensusOutcome:
    """Name the properties of the vote behind its band, largest effect first."""
    ps = out.positions
    drivers: list[Driver] = []
    total = out.support + out.opposition + out.doubt
    if not ps:
        drivers.append(Driver("no_vote", 0.0))
    if out.unanimous and all(p.firmness >= 1.0 for p in ps):
        drivers.append(Driver("unanimous", 1.0, out.supporters))
        drivers.append(Driver("clear_margins", out.support, out.supporters))
    elif out.unanimous:
        drivers.append(Driver("unanimous", 1.0, out.supporters))
    narrow = [p for p in ps if p.stance == "support" and p.firmness < 1.0]
    if narrow:
        # firmness the supporters' narrow margins did not carry
        lost = round(math.fsum(sorted(1.0 - p.firmness for p in narrow)), 4)
        drivers.append(Driver("narrow_margins", lost, tuple(p.agent for p in narrow)))
    preferring = [p for p in ps if p.stance == "oppose" and p.basis != "reject"]
    if preferring:
        mass = round(math.fsum(sorted(p.firmness for p in preferring)), 4)
        drivers.append(Driver("dissent", round(mass / total, 4) if total else 0.0, tuple(p.agent for p in preferring)))
    rejecting = [p for p in ps if p.basis == "reject"]
    if rejecting:
        drivers.append(
            Driver("rejections", round(len(rejecting) / total, 4) if total else 0.0, tuple(p.agent for p in rejecting))
        )
    if out.indifferent:
        drivers.append(Driver("indifferent", float(len(out.indifferent)), out.indifferent))
    if ps and all(p.margin is None for p in ps if p.basis != "reject"):
        drivers.append(Driver("no_alternative", 0.0))
    if out.tied:
        drivers.append(Driver("tie_for_lead", float(len(out.tied)), tuple(a for a, _ in out.tied)))
    drivers.append(Driver("doubt", round(out.doubt / total, 4) if total else 1.0))
    return replace(out, drivers=tuple(drivers))
