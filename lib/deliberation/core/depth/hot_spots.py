"""Hot spots: the contested points of a deliberation, computed from its tier-1 reports after the
propose pass and the first red-team pass (docs/DEPTH_AXIS.md, "How the hot spots are chosen").

`find_hot_spots(delib)` returns the refuted points, contradictions and missed angles, merged
(same target, or `similarity` ≥ DEDUP_SIMILARITY), ordered by `priority`, numbered H1, H2… and
cut to MAX_HOT_SPOTS; `all_hot_spots` keeps the rest, numbered after them. The same reports
always give the same ids. `assign` gives each lens the points `LENS_CAN` says it can work on, at
most HOT_SPOTS_PER_LENS each. The reading helpers (`current`, `tier1_agents`, `red_team_agents`,
`finding_index`, `resolve_target`) are shared with depth/axis.py. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from deliberation.core.personas import normalise_agent_type
from deliberation.core.phases import ranked_identities
from deliberation.state.agent_report import Finding
from deliberation.core.similarity import similarity
from deliberation.state.models import AgentRecord, Deliberation, HotSpot, HotSpotKind
from deliberation.text import depth as words

DEDUP_SIMILARITY = 0.8
MAP_SIMILARITY = 0.7  # a research proposal whose title is this close to one ranked approach's is that approach
_REF = re.compile(r"\b([a-z][a-z0-9-]+):([A-Za-z0-9][A-Za-z0-9_.-]{0,15})\b")
MAX_HOT_SPOTS = 6  # hot spots a depth wave deepens (the rest are recorded, not dug into)
HOT_SPOTS_PER_LENS = 3  # hot spots one tier-2 worker gets
ID_LIMIT = 999  # the id pattern allows H1..H999
CLAIM_CHARS = 240
WEIGHTY = ("refuted", "weakened")
TWO_AGENT_NOTE = "2-agent rule: "  # the material line of the minimum viable deliberation's conflict
SEVERITY = {"critical": 4, "high": 3, "medium": 2, "low": 1, "info": 0}
KIND_ORDER = ("refuted", "contradiction", "missed_angle")
LENS_ORDER = ("evidence-chase", "counter-model", "edge-case-hunt")
# the hot spots each lens can work on: (kind, what it is about) → lenses, the better fit first
LENS_CAN = {
    ("refuted", "finding"): ("evidence-chase", "counter-model"),
    ("refuted", "approach"): ("evidence-chase", "counter-model", "edge-case-hunt"),
    ("contradiction", "finding"): ("evidence-chase", "counter-model"),
    ("contradiction", "approach"): ("evidence-chase", "counter-model", "edge-case-hunt"),
    ("contradiction", "none"): ("evidence-chase", "counter-model"),
    ("missed_angle", "none"): ("edge-case-hunt", "evidence-chase"),
}


# --------------------------------------------------------------------------------------------
# reading the reports


def current(agents: "list[AgentRecord]") -> "list[AgentRecord]":
    """Agents with a valid report that no later report replaced, in recorded order."""
    return [a for a in agents if a.status == "reported" and a.report is not None and not a.superseded]


def red_team_round(agent: AgentRecord) -> int:
    """1 for the first red-team pass, 2 for red team 2 (explicit round, else by tier)."""
    if agent.red_team_round is not None:
        return agent.red_team_round
    return 2 if agent.tier == 2 else 1


def is_tier2(agent: AgentRecord) -> bool:
    """Lens workers and red team 2 form tier 2."""
    if agent.kind == "lens" or agent.tier == 2:
        return True
    return agent.kind == "red-team" and red_team_round(agent) >= 2


def tier1_agents(delib: Deliberation) -> "list[AgentRecord]":
    return [a for a in current(delib.agents) if not is_tier2(a)]


def red_team_agents(delib: Deliberation, round_: int) -> "list[AgentRecord]":
    return [a for a in current(delib.agents) if a.kind == "red-team" and red_team_round(a) == round_]


def finding_index(agents: "list[AgentRecord]") -> "dict[str, tuple[AgentRecord, Finding]]":
    """`"<persona>:<finding id>"` → (agent, finding); the first report of a persona wins a clash."""
    index: dict[str, tuple[AgentRecord, Finding]] = {}
    for agent in agents:
        for f in agent.filed.findings:
            index.setdefault(f"{agent.persona}:{f.id}", (agent, f))
    return index


class Approaches(dict):
    """Approach key → title: the ranked approaches under their ranked ids (phases.approaches),
    every other tier-1 report's approaches under `<persona>:<its id>` — a research report's
    letters are that persona's own, so `A` of two personas are two approaches. `ranked`: the
    keys the rankers rank; `own`: (persona, the id it wrote) → key."""

    def __init__(self, titles: "dict[str, str]", ranked: "frozenset[str]", own: "dict[tuple[str, str], str]") -> None:
        super().__init__(titles)
        self.ranked = ranked
        self.own = own

    def owner(self, key: str) -> str:
        """The persona whose own approach `key` is ('' for a ranked one)."""
        if key in self.ranked:
            return ""
        return next((p for (p, _i), k in self.own.items() if k == key), "")

    def of(self, agent: AgentRecord, raw: "str | None") -> "str | None":
        """The key of the approach `agent` means by `raw` (its own id first, then a ranked id)."""
        t = (raw or "").strip()
        if not t:
            return None
        if (agent.persona, t) in self.own:
            return self.own[(agent.persona, t)]
        return t if t in self else None


def taken_over(delib: Deliberation, ranked: "dict[str, str]") -> "dict[tuple[str, str], str]":
    """(research persona, its own approach id) → the ranked id that took it over: the synthesis
    names the research proposals an approach takes over by their refs (`security-analyst:B`) in its
    summary, else the titles say it (similarity ≥ MAP_SIMILARITY to exactly one ranked title).
    One identity per approach from research to record: mapped, never re-lettered."""
    synth = [a for a in current(delib.agents) if a.kind == "synthesis" and a.stage == "deliberation"]
    out: dict[tuple[str, str], str] = {}
    for agent in synth:
        for ap in agent.filed.approaches:
            if ap.id not in ranked:
                continue
            for who, aid in _REF.findall(f"{ap.title} {ap.summary}"):
                out.setdefault((normalise_agent_type(who), aid), ap.id)
    if not synth:
        return out
    for agent in current(delib.agents):
        if agent.stage != "research":
            continue
        for ap in agent.filed.approaches:
            if (agent.persona, ap.id) in out:
                continue
            close = [k for k, title in ranked.items() if similarity(ap.title, title) >= MAP_SIMILARITY]
            if len(close) == 1:
                out[(agent.persona, ap.id)] = close[0]
    return out


def approach_index(delib: Deliberation) -> Approaches:
    """Every tier-1 approach with one identity each (see Approaches)."""
    titles, own = ranked_identities(delib)
    if not titles:  # no recorded proposal stage: the tier-1 reports' approaches are the list
        titles, own = ranked_identities(delib, tier1_agents(delib))
    index = dict(titles)
    owned = {**taken_over(delib, titles), **dict(own)}
    for agent in tier1_agents(delib):
        for ap in agent.filed.approaches:
            if (agent.persona, ap.id) in owned:
                continue
            key = f"{agent.persona}:{ap.id}"
            index.setdefault(key, ap.title)
            owned[(agent.persona, ap.id)] = key
    return Approaches(index, frozenset(titles), owned)


def resolve_target(target: str, findings: "dict[str, tuple[AgentRecord, Finding]]", approaches: "dict[str, str]") -> "str | None":
    """A refutation target as a canonical finding ref or approach key; None if it names neither.

    Accepts `persona:F1` or `persona:A` (a plugin prefix such as `deliberation:` is dropped), a
    ranked approach id, or a bare finding id when exactly one persona has a finding with that id.
    """
    t = (target or "").strip()
    if not t:
        return None
    own = getattr(approaches, "own", {})
    if ":" in t:
        who, fid = t.rsplit(":", 1)
        persona, fid = normalise_agent_type(who), fid.strip()
        ref = f"{persona}:{fid}"
        if ref in findings:
            return ref
        if (persona, fid) in own:
            return own[(persona, fid)]
        if ref in approaches:
            return ref
    if t in approaches:
        return t
    bare = [ref for ref in findings if ref.rsplit(":", 1)[1] == t]
    return bare[0] if len(bare) == 1 else None


def _severity(ref: str, findings: dict) -> int:
    return SEVERITY.get(findings[ref][1].severity, 2) if ref in findings else 0


def _clip(text: str, n: int = CLAIM_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# --------------------------------------------------------------------------------------------
# candidates


@dataclass
class _Candidate:
    kind: HotSpotKind
    statement: str
    core: str  # the text compared when merging near-identical hot spots
    key: str = ""  # same non-empty key → same point (e.g. the same target)
    material: list = field(default_factory=list)
    sources: list = field(default_factory=list)
    targets: list = field(default_factory=list)  # resolved finding refs / approach ids it is about
    refuted: bool = False  # a refutation (not only a weakening) is behind it
    severity: int = 0  # the most severe finding at stake (SEVERITY)
    by_red_team: bool = False  # the red team itself contests it

    def absorb(self, other: "_Candidate") -> None:
        self.material += [m for m in other.material if m not in self.material]
        self.sources += [s for s in other.sources if s not in self.sources]
        self.targets += [t for t in other.targets if t not in self.targets]
        self.refuted = self.refuted or other.refuted
        self.severity = max(self.severity, other.severity)
        self.by_red_team = self.by_red_team or other.by_red_team


def _note(who: str, verdict: str, claim: str, evidence: str) -> str:
    """A challenger's point as the lenses read it: its claim and evidence, not its verdict."""
    note = f"{who}: {_clip(claim) or '(no counter-claim)'}"
    return note + (f" — evidence: {_clip(evidence)}" if evidence.strip() else "")


def _describe_target(ref: str, findings: dict, approaches: dict) -> "tuple[str, str, str]":
    """(label, claim/title, owner persona or '') for a resolved target."""
    if ref in findings:
        agent, f = findings[ref]
        return ref, f.claim, agent.persona
    owner = approaches.owner(ref) if isinstance(approaches, Approaches) else ""
    return f"approach {ref}", approaches.get(ref, ""), owner


def _refuted(delib: Deliberation, findings: dict, approaches: dict) -> "list[_Candidate]":
    out = []
    for rt in red_team_agents(delib, 1):
        for r in rt.filed.refutations:
            if r.verdict not in WEIGHTY or not r.evidence.strip():
                continue
            ref = resolve_target(r.target, findings, approaches)
            if ref is None:
                continue
            label, text, owner = _describe_target(ref, findings, approaches)
            out.append(
                _Candidate(
                    kind="refuted",
                    statement=words.spot_challenged(label, _clip(text), _clip(r.claim)),
                    core=f"{text} {r.claim}",
                    key=f"target:{ref}",
                    material=[ref, _note(rt.persona, r.verdict, r.claim, r.evidence)],
                    sources=[s for s in (owner, rt.persona) if s],
                    targets=[ref],
                    refuted=r.verdict == "refuted",
                    severity=_severity(ref, findings),
                    by_red_team=True,
                )
            )
    return out


def _debate_conflicts(delib: Deliberation, findings: dict, approaches: dict) -> "list[_Candidate]":
    out = []
    for agent in tier1_agents(delib):
        if agent.kind != "debate":
            continue
        for c in agent.filed.conflicts:
            refs = [resolve_target(b, findings, approaches) or b.strip() for b in c.between]
            # sides that resolve to one ranked approach (two research variants the synthesis
            # merged) are named as the debate named them: "between C, C" said nothing
            shown = refs if len(set(refs)) == len(refs) else [b.strip() for b in c.between]
            out.append(
                _Candidate(
                    kind="contradiction",
                    statement=words.spot_conflict(shown, _clip(c.about)),
                    core=c.about,
                    material=refs + [f"{agent.persona}: {_clip(c.about)}"],
                    sources=[agent.persona],
                    targets=[t for t in refs if t in findings or t in approaches],
                    severity=max([_severity(t, findings) for t in refs] or [0]),
                )
            )
    return out


def _cross_refutations(delib: Deliberation, findings: dict, approaches: dict) -> "list[_Candidate]":
    """A tier-1 agent (not the red team) refuting or weakening another agent's finding/approach."""
    out = []
    for agent in tier1_agents(delib):
        if agent.kind == "red-team":
            continue
        for r in agent.filed.refutations:
            if r.verdict not in WEIGHTY:
                continue
            ref = _resolve_by(agent, r.target, findings, approaches)
            if ref is None:
                continue
            label, text, owner = _describe_target(ref, findings, approaches)
            if owner == agent.persona:
                continue
            out.append(
                _Candidate(
                    kind="contradiction",
                    statement=words.spot_contradicts(agent.persona, label, _clip(text), _clip(r.claim)),
                    core=f"{text} {r.claim}",
                    key=f"target:{ref}",
                    material=[ref, _note(agent.persona, r.verdict, r.claim, r.evidence)],
                    sources=[s for s in (owner, agent.persona) if s],
                    targets=[ref],
                    refuted=r.verdict == "refuted",
                    severity=_severity(ref, findings),
                )
            )
    return out


def _resolve_by(agent: AgentRecord, target: str, findings: dict, approaches: dict) -> "str | None":
    """`target` as `agent` means it: its own approach letter before a ranked id."""
    if isinstance(approaches, Approaches):
        mine = approaches.own.get((agent.persona, (target or "").strip()))
        if mine is not None:
            return mine
    return resolve_target(target, findings, approaches)


def _opposed_approaches(delib: Deliberation, approaches: dict) -> "list[_Candidate]":
    """An approach a persona prefers and approves while another persona rejects or opposes it.
    Each persona's letters are read as its own approaches (Approaches.of): a tally of `A` across
    personas whose `A`s are different approaches is no split."""
    personas = [a for a in tier1_agents(delib) if a.kind == "persona"]

    def of(agent: AgentRecord, raw: "str | None") -> "str | None":
        return approaches.of(agent, raw) if isinstance(approaches, Approaches) else raw

    out = []
    for aid, title in approaches.items():
        supporters = [a for a in personas if of(a, a.filed.preferred_approach) == aid and a.filed.verdict == "approve"]
        if not supporters:
            continue
        backing = {s.persona for s in supporters}
        notes: list[str] = []
        opponents: list[str] = []
        for a in personas:
            rep = a.filed
            if a.persona in backing:
                continue
            reasons = [
                f"{a.persona} concern: {_clip(c.concern)} — {_clip(c.reason)}" for c in rep.dissent if of(a, c.target) == aid
            ]
            other = of(a, rep.preferred_approach) if rep.preferred_approach else None
            if rep.verdict == "reject" and rep.preferred_approach and other != aid:
                reasons.append(f"{a.persona} rejects and prefers {other or rep.preferred_approach}: {_clip(rep.rationale)}")
            if reasons:
                opponents.append(a.persona)
                notes += [n for n in reasons if n not in notes]
        if not opponents:
            continue
        names = sorted(backing)
        out.append(
            _Candidate(
                kind="contradiction",
                statement=words.spot_split(aid, _clip(title), names, list(dict.fromkeys(opponents))),
                core=f"{title} " + " ".join(notes),
                key=f"approach-split:{aid}",
                material=[aid] + notes,
                sources=names + [p for p in dict.fromkeys(opponents)],
                targets=[aid],
            )
        )
    return out


def _missed(delib: Deliberation) -> "list[_Candidate]":
    out = []
    for rt in red_team_agents(delib, 1):
        for angle in rt.filed.missed_angles:
            if angle.strip():
                out.append(
                    _Candidate(
                        kind="missed_angle",
                        statement=words.spot_missed(_clip(angle)),
                        core=angle,
                        material=[f"{rt.persona} (missed angle): {_clip(angle)}"],
                        sources=[rt.persona],
                    )
                )
    return out


def _merge(cands: "list[_Candidate]") -> "list[_Candidate]":
    kept: list[_Candidate] = []
    for c in cands:
        twin = next((k for k in kept if (c.key and c.key == k.key) or similarity(c.core, k.core) >= DEDUP_SIMILARITY), None)
        if twin is None:
            kept.append(c)
        else:
            twin.absorb(c)
    return kept


# --------------------------------------------------------------------------------------------
# the answer


def _two_agent_conflict(delib: Deliberation) -> "list[_Candidate]":
    """The minimum viable deliberation's disagreement itself (its 2-agent rule said investigate)."""
    check = getattr(delib, "two_agent", None)
    if check is None or check.verdict != "investigate":
        return []
    return [
        _Candidate(
            kind="contradiction",
            statement=words.spot_two_agents(_clip(check.detail)),
            core=check.detail,
            key="two-agent",
            material=[f"{TWO_AGENT_NOTE}{check.detail}"],
            sources=list(check.agents),
        )
    ]


def upheld_targets(delib: Deliberation, findings: dict, approaches: dict) -> "set[str]":
    """Findings and approaches the first red-team pass UPHELD with evidence (and did not also
    refute or weaken): settled points."""
    upheld, broken = set(), set()
    for rt in red_team_agents(delib, 1):
        for r in rt.filed.refutations:
            ref = resolve_target(r.target, findings, approaches)
            if ref is None:
                continue
            if r.verdict == "upheld" and r.evidence.strip():
                upheld.add(ref)
            elif r.verdict in WEIGHTY:
                broken.add(ref)
    return upheld - broken


def _about(c: _Candidate, approaches: dict) -> str:
    if any(t in approaches for t in c.targets):
        return "approach"
    return "finding" if c.targets else "none"


def priority(c: _Candidate, approaches: dict, order: int) -> tuple:
    """Sort key: kind, refuted before weakened, about an approach before a finding, severity,
    agents involved, then the reports' order (see the module docstring)."""
    about = {"approach": 0, "finding": 1, "none": 2}[_about(c, approaches)]
    return (KIND_ORDER.index(c.kind), 0 if c.refuted or c.kind != "refuted" else 1, about, -c.severity, -len(c.sources), order)


def _candidates(delib: Deliberation, two_agent: bool) -> "list[_Candidate]":
    tier1 = tier1_agents(delib)
    findings = finding_index(tier1)
    approaches = approach_index(delib)
    if two_agent:
        # the pair's own refutations of each other, then their disagreement (by approach title:
        # each research report numbers its own approaches, so ids are not compared)
        cands = _two_agent_conflict(delib) + _cross_refutations(delib, findings, approaches)
    else:
        cands = (
            _refuted(delib, findings, approaches)
            + _debate_conflicts(delib, findings, approaches)
            + _cross_refutations(delib, findings, approaches)
            + _opposed_approaches(delib, approaches)
            + _missed(delib)
        )
    settled = upheld_targets(delib, findings, approaches)
    cands = [c for c in cands if c.by_red_team or not c.targets or not all(t in settled for t in c.targets)]
    merged = _merge(cands)
    ranked = sorted(enumerate(merged), key=lambda ic: priority(ic[1], approaches, ic[0]))
    return [c for _i, c in ranked][:ID_LIMIT]


def all_hot_spots(delib: Deliberation, two_agent: bool = False) -> "list[HotSpot]":
    """Every contested point, prioritised and numbered H1, H2, … (see the module docstring).

    Empty until a first red-team report exists: hot spots are computed after that pass. With
    `two_agent` (the minimum viable deliberation, whose AGAINST agent stands in for the red
    team) they are computed from the two research reports, the pair's disagreement included.
    """
    if not two_agent and not red_team_agents(delib, 1):
        return []
    return [
        HotSpot(id=f"H{i}", kind=c.kind, statement=c.statement, material=c.material, sources=c.sources)
        for i, c in enumerate(_candidates(delib, two_agent), start=1)
    ]


def find_hot_spots(delib: Deliberation, two_agent: bool = False, limit: int = MAX_HOT_SPOTS) -> "list[HotSpot]":
    """The hot spots the depth step deepens: the first `limit` of `all_hot_spots`."""
    return all_hot_spots(delib, two_agent)[: max(0, limit)]


def spot_about(spot: HotSpot, findings: dict, approaches: dict) -> str:
    """'approach', 'finding' or 'none': what a hot spot is about (for the lenses). The minimum
    viable deliberation's disagreement is about the decision itself: an approach."""
    if any(m.startswith(TWO_AGENT_NOTE) for m in spot.material):
        return "approach"
    refs = {resolve_target(m, findings, approaches) for m in spot.material if len(m) <= 128 and "\n" not in m} - {None}
    if any(r in approaches for r in refs):
        return "approach"
    return "finding" if refs else "none"


def lenses_for(spot: HotSpot, findings: dict, approaches: dict) -> "tuple[str, ...]":
    """The lenses that can work on `spot`, the better fit first (LENS_CAN)."""
    about = spot_about(spot, findings, approaches)
    if spot.kind == "missed_angle":
        about = "none"
    elif about == "none" and spot.kind == "refuted":
        about = "finding"
    return LENS_CAN.get((spot.kind, about), LENS_CAN[("contradiction", "none")])


def choose(
    spots: "list[HotSpot] | tuple[HotSpot, ...]",
    k: int,
    can: "dict[str, tuple[str, ...]]",
    lenses: "tuple[str, ...]" = LENS_ORDER,
) -> "list[str]":
    """The (at most k) lenses of a wave: greedily, the lens that can work on the most hot spots
    no chosen lens covers yet, then (every spot covered) the one that can work on the most —
    a second angle, as the ceiling posture is the widest; ties: the one whose spots come first
    in priority, then `lenses` order. A lens no hot spot gives work to is never chosen."""
    chosen: list[str] = []
    covered: set[str] = set()
    order = {h.id: i for i, h in enumerate(spots)}
    while len(chosen) < k:
        best = None
        for lens in lenses:
            if lens in chosen:
                continue
            able = [h.id for h in spots if lens in can[h.id]]
            if not able:
                continue
            new = [i for i in able if i not in covered]
            key = (-len(new), -len(able), min(order[i] for i in (new or able)), lenses.index(lens))
            if best is None or key < best[0]:
                best = (key, lens, able)
        if best is None:
            break
        chosen.append(best[1])
        covered.update(best[2])
    return sorted(chosen, key=lenses.index)


def assign(
    spots: "list[HotSpot] | tuple[HotSpot, ...]",
    lenses: "list[str] | tuple[str, ...]",
    can: "dict[str, tuple[str, ...]]",
    per_lens: int = HOT_SPOTS_PER_LENS,
) -> "dict[str, tuple[str, ...]]":
    """lens → the hot spot ids it digs into, in priority order, at most `per_lens` each: first
    every hot spot goes to the capable lens with the fewest so far (the better fit on a tie), so
    that each is covered where the lenses have room; then each lens fills its room with the
    other hot spots it can work on, highest priority first (a second angle on the top points)."""
    got: dict[str, list[str]] = {lens: [] for lens in lenses}
    order = {h.id: i for i, h in enumerate(spots)}
    for h in spots:
        able = [lens for lens in can[h.id] if lens in got and len(got[lens]) < per_lens]
        if able:
            pick = min(able, key=lambda lens: (len(got[lens]), can[h.id].index(lens)))
            got[pick].append(h.id)
    for lens in lenses:
        for h in spots:
            if len(got[lens]) >= per_lens:
                break
            if lens in can[h.id] and h.id not in got[lens]:
                got[lens].append(h.id)
    return {lens: tuple(sorted(ids, key=order.__getitem__)) for lens, ids in got.items() if ids}


def hot_spot_target(spot: HotSpot, findings: dict, approaches: dict) -> "str | None":
    """The finding ref or approach id a hot spot is about (its first resolvable material)."""
    for m in spot.material:
        ref = resolve_target(m, findings, approaches)
        if ref is not None:
            return ref
    return None
