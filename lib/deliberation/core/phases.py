"""The phase state machine of a deliberation (pure).

    IDLE → RESEARCH → DELIBERATION → RANKING → PRD_GENERATION → COMPLETE,   any → FAILED

Each phase requires the previous one; an illegal transition raises `IllegalTransition` whose
message says what is missing. RANKING → RANKING (a re-rank) is allowed: a later ranking report
of the same persona supersedes the earlier one. PRD_GENERATION starts when the vote passes the
consensus gate and ends when the decision document is accepted or recorded missing (prd.py);
a re-rank from it (PRD_GENERATION → RANKING) takes the vote again, and the document waits for
the new one. RANKING → COMPLETE is the decision handed to the user after a vote that failed on
agreement (core/ways_forward.py): no document, outcome no-consensus, human review.

Which stage a spawned agent works in follows from its kind and the phase (`stage_for_spawn`):
research personas spawned in RESEARCH do research, the same personas spawned after it rank;
debate / synthesis / red team work in DELIBERATION; the depth lenses are tier-2 workers of
DELIBERATION (the depth axis decides whether they may run).
"""

from __future__ import annotations

from deliberation.state.models import AgentRecord, Deliberation, Phase, PhaseChange, Stage
from deliberation.text import phases as words

EDGES = {
    "IDLE": ("RESEARCH",),
    "RESEARCH": ("DELIBERATION",),
    "DELIBERATION": ("RANKING",),
    "RANKING": ("RANKING", "PRD_GENERATION", "COMPLETE"),
    "PRD_GENERATION": ("COMPLETE", "RANKING"),
    "COMPLETE": (),
    "FAILED": (),
}
ORDER = ("IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE")
CLOSED = ("COMPLETE", "FAILED")


class IllegalTransition(Exception):
    """A transition the machine refuses; str() says what is missing and what to do."""


def reached(phase: str, target: str) -> bool:
    """True when `phase` is `target` or later (FAILED reaches nothing)."""
    return phase in ORDER and ORDER.index(phase) >= ORDER.index(target)


def transition(delib: Deliberation, to: Phase, why: str, now: float) -> None:
    frm = delib.phase
    if to == "FAILED":
        if frm in CLOSED:
            raise IllegalTransition(words.already_closed(frm))
    elif to not in EDGES.get(frm, ()):
        raise IllegalTransition(words.not_legal(frm, to, EDGES.get(frm, ())))
    if frm == to:
        return
    delib.phase = to
    delib.phase_history.append(PhaseChange(from_phase=frm, to_phase=to, at=now, why=why))


# ---------------------------------------------------------------------------------------------
# what the records say


def current(delib: Deliberation, stage: "str | None" = None, tier: "int | None" = None) -> "list[AgentRecord]":
    """Valid, non-superseded reports (optionally of one stage / tier)."""
    return [
        a
        for a in delib.agents
        if a.status == "reported"
        and a.report is not None
        and not a.superseded
        and (stage is None or a.stage == stage)
        and (tier is None or a.tier == tier)
    ]


def finding_refs(delib: Deliberation, agents: "list[AgentRecord] | None" = None) -> "list[str]":
    """persona:finding-id of every finding of the research reports (or of `agents`): what a
    synthesis or debate prompt must carry (core/isolation.py checks it)."""
    src = current(delib, "research") if agents is None else agents
    return [f"{a.persona}:{f.id}" for a in src for f in a.filed.findings]


def pending(delib: Deliberation, stage: "str | None" = None) -> "list[AgentRecord]":
    return [a for a in delib.agents if a.status in ("spawned", "running") and (stage is None or a.stage == stage)]


def names(agents: "list[AgentRecord]") -> str:
    return ", ".join(f"{a.persona} ({a.agent_id or a.tool_use_id or a.key})" for a in agents) or "none"


def research_shortfall(delib: Deliberation, min_agents: int) -> "str | None":
    """Why research is not complete yet, or None when it is."""
    done = current(delib, "research")
    waiting = pending(delib, "research")
    if waiting:
        return words.research_waiting(len(done), len(done) + len(waiting), names(waiting))
    if len(done) < min_agents:
        return words.research_short(len(done), min_agents)
    return None


def approaches(delib: Deliberation) -> "dict[str, str]":
    """Approaches generated so far: synthesis output when present, else the research proposals.
    These are the approaches the rankers rank; their ids are the one identity of each."""
    return ranked_identities(delib)[0]


def ranked_identities(
    delib: Deliberation, source: "list[AgentRecord] | None" = None
) -> "tuple[dict[str, str], dict[tuple[str, str], str]]":
    """(ranked id → title, (persona, its own approach id) → ranked id) for the reports the ranked
    list comes from (the synthesis, else research): a research report's letters are its own, so a
    second persona's colliding `A` becomes `<persona>:A`, and a title already listed is the same
    approach. `source`: other reports to read the same way (default: the synthesis, else research)."""
    if source is None:
        synth = [a for a in current(delib, "deliberation") if a.kind == "synthesis"]
        source = synth or current(delib, "research") + current(delib, "deliberation")
    found: dict[str, str] = {}
    owners: dict[tuple[str, str], str] = {}
    by_title: dict[str, str] = {}
    for agent in source:
        for ap in agent.filed.approaches:
            title = ap.title.strip().lower()
            if title in by_title:
                owners.setdefault((agent.persona, ap.id), by_title[title])
                continue
            key = ap.id if ap.id not in found else f"{agent.persona}:{ap.id}"
            found[key] = ap.title
            by_title[title] = key
            owners.setdefault((agent.persona, ap.id), key)
    return found, owners


def stage_for_spawn(delib: Deliberation, kind: str, min_agents: int, persona: str = "") -> "tuple[Stage, str | None]":
    """(stage, refusal). `refusal` says what is missing when the spawn would skip a phase.

    In RESEARCH a persona that has not reported researches; one that already reported research
    is spawned again to RANK — once research is complete, the research proposals stand as the
    alternatives (a breadth-only DELIBERATION: the minimum viable deliberation of 2 agents).
    """
    phase = delib.phase
    if kind == "persona":
        if phase == "RESEARCH" and any(a.persona == persona for a in current(delib, "research")):
            if research_shortfall(delib, min_agents) is None:
                if not approaches(delib):
                    return "ranking", words.NO_APPROACH_AFTER_RESEARCH
                return "ranking", None
        if phase in ("IDLE", "RESEARCH"):
            return "research", None
        if phase == "DELIBERATION":
            waiting = pending(delib, "deliberation")
            if waiting:
                return "ranking", words.deliberators_running(names(waiting))
            if not approaches(delib):
                return "ranking", words.NO_APPROACH_YET
            return "ranking", None
        if phase in ("RANKING", "PRD_GENERATION"):
            return "ranking", None  # from PRD_GENERATION: a re-rank, the vote is taken again
        return "ranking", words.closed(phase)
    if kind in ("debate", "synthesis", "red-team", "lens"):
        if phase in ("IDLE", "RESEARCH"):
            short = research_shortfall(delib, min_agents)
            if short:
                return "deliberation", words.research_incomplete(short)
            return "deliberation", None
        if phase == "DELIBERATION":
            return "deliberation", None
        return "deliberation", words.ranking_started(phase)
    return "research", None
