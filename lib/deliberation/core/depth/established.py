"""What the challenge and depth steps established about each ranked approach, as facts for the
rankers: the vote ranks the approaches as the depth step left them.

A red-team pass (either round) or a tier-2 worker that refuted, weakened or upheld a ranked
approach WITH evidence — naming the approach, or a hot spot about exactly that approach — gives
one fact: (verdict, claim, evidence, step). Red team 2's verdict on a tier-2 worker's refutation
(its ref, `evidence-chase:R1`) is a fact about that refutation's approach: the last check of the
depth step reaches the rankers beside what it checked (a real-model trial's rankers saw a tier-2
"refuted" that red team 2 had weakened, unmarked). The step — the challenge, the depth check, the
re-check — says which came later; nothing says who said it, how many said it, or what the vote
is: blindness is about the vote, not the evidence. A tier-2 worker the depth synthesis zeroed
(its findings all restate tier 1) gives none. Facts are keyed by the ranked id
(`phases.approaches`), in report order, near-duplicates dropped, at most MAX_PER_APPROACH of the
challenge and depth check each and MAX_RECHECK of the re-check.
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core.depth.hot_spots import (
    Approaches,
    approach_index,
    current,
    finding_index,
    red_team_round,
    resolve_target,
    tier1_agents,
)
from deliberation.core.similarity import similarity
from deliberation.state.models import Deliberation, HotSpot

MAX_PER_APPROACH = 6  # of the challenge and the depth check
# red team 2's facts have their own room: it checked the others, so a full approach must not drop it
# (a real-model trial's B had 6 facts and the re-check of two of them was cut)
MAX_RECHECK = 3
CLAIM_CHARS = 300
EVIDENCE_CHARS = 300
DUPLICATE = 0.8  # similarity at which a second fact restates the first
STEPS = ("red-team", "lens")


@dataclass(frozen=True)
class Fact:
    approach: str  # ranked id
    verdict: str  # refuted | weakened | upheld
    claim: str
    evidence: str
    # "challenge" (red team 1), "depth" (a tier-2 worker), "recheck" (red team 2 on the approach),
    # "recheck_point" (red team 2 on a tier-2 worker's refutation of it) — never a name
    step: str


def _clip(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def spot_approach(spot: HotSpot, findings: dict, approaches: Approaches) -> "str | None":
    """The ranked approach a hot spot is about: its first material that is one, else what it is
    about first (a finding). A contradiction between a finding and approach B is about B (a
    real-model trial's edge-case hunt weakened B through such a hot spot, and the rankers saw B
    unchallenged)."""
    first = None
    for m in spot.material:
        ref = resolve_target(m, findings, approaches)
        if ref in approaches.ranked:
            return ref
        first = first or ref
    return first


def facts(delib: Deliberation) -> "dict[str, list[Fact]]":
    """Ranked approach id → the facts established about it (see the module docstring)."""
    approaches = approach_index(delib)
    if not approaches.ranked:
        return {}
    findings = finding_index(tier1_agents(delib))
    spots = {s.id: s for s in delib.depth.hot_spots}
    zeroed = set(delib.depth.zeroed)
    out: dict[str, list[Fact]] = {}
    checked: dict[str, str] = {}  # a tier-2 refutation's ref → the approach it is about
    listed: set[str] = set()  # the refs of the tier-2 refutations given as facts
    for agent in current(delib.agents):
        if agent.kind not in STEPS or agent.key in zeroed:
            continue
        step = "depth" if agent.kind == "lens" else "recheck" if red_team_round(agent) >= 2 else "challenge"
        for i, r in enumerate(agent.filed.refutations, start=1):
            raw = (r.target or "").strip()
            kind = step
            if raw in checked and step == "recheck":
                if raw not in listed:
                    continue  # the point it re-checks is not among the facts: nothing "above" to read it by
                target: "str | None" = checked[raw]
                kind = "recheck_point"  # its verdict is on the depth check's point, not on the approach
            elif raw in spots:
                target = spot_approach(spots[raw], findings, approaches)
            else:
                target = approaches.of(agent, raw)
            if step == "depth" and target is not None:
                checked[f"{agent.persona}:R{i}"] = target
            evidence = (r.evidence or "").strip()
            claim = (r.claim or "").strip()
            if not evidence or not claim:
                continue  # a refutation without evidence carries no weight (docs/DEPTH_AXIS.md)
            if target is None or target not in approaches.ranked:
                continue
            have = out.setdefault(target, [])
            late = kind in ("recheck", "recheck_point")
            room = MAX_RECHECK if late else MAX_PER_APPROACH
            if sum(1 for f in have if (f.step in ("recheck", "recheck_point")) == late) >= room:
                continue
            if any(similarity(claim, f.claim) >= DUPLICATE for f in have):
                continue
            have.append(Fact(target, r.verdict, _clip(claim, CLAIM_CHARS), _clip(evidence, EVIDENCE_CHARS), kind))
            if step == "depth":
                listed.add(f"{agent.persona}:R{i}")
    return out


def count(delib: Deliberation) -> int:
    """How many facts the rankers were given."""
    return sum(len(v) for v in facts(delib).values())
