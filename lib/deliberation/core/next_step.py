"""The next step the plugin will accept, and what the main agent has been given (pure).

`spawn_refusal` applies PreToolUse's rules for a deliberation spawn in PreToolUse's order (the
phase order, the depth axis' hold on ranking, the tier-2 and red-team rules), so the step a note
names is found by asking the rules that refuse steps, never restated beside them. `next_step`
walks the protocol's candidates — more research, synthesis, the red-team pass, the depth step's
workers, red team 2, ranking, the conclusion — and names the first one accepted, with what its
prompt must carry. `arrived` / `to_arrive`: a background report reaches the main agent only with
its task notification (`AgentRecord.notified`), so notes count what has arrived and name what is
still to come. Spawn lines name agent types as the Agent tool takes them, in backquotes.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import blind_ranking, minimum_deliberation, personas, phases, prd, ways_forward
from deliberation.core.depth import axis as depth_axis
from deliberation.state.config import Config
from deliberation.state.models import AgentRecord, Deliberation, Stage
from deliberation.text import gates as gates_text
from deliberation.text import phases as phase_words
from deliberation.text import progress as words

DONE = ("reported", "invalid")


# --------------------------------------------------------------------------------------------
# what the main agent has been given


def arrived(agent: AgentRecord) -> bool:
    """The main agent has this agent's result (report or failure) in its conversation."""
    return agent.status in DONE and (agent.notified or not agent.background)


def to_arrive(delib: Deliberation, stage: "str | None" = None) -> "list[AgentRecord]":
    """Spawned agents whose result the main agent does not have yet: still running, or finished
    in the background with the task notification still to come."""
    return [a for a in delib.agents if a.status != "refused" and not arrived(a) and (stage is None or a.stage == stage)]


def given(delib: Deliberation, stage: "str | None" = None) -> "list[AgentRecord]":
    """Valid current reports the main agent has been given."""
    return [a for a in phases.current(delib, stage) if arrived(a)]


def _who(agents: "list[AgentRecord]") -> "list[str]":
    return [a.persona for a in agents]


def _slots(delib: Deliberation, stage: str) -> "list[AgentRecord]":
    """The stage's agents, one per persona and pass (a persona spawned again — a re-rank, a
    resend — is its latest spawn), in the order first spawned; refused spawns are none."""
    latest: dict[tuple, AgentRecord] = {}
    for a in delib.agents:
        if a.stage == stage and a.status != "refused":
            latest[(a.persona, a.tier, a.red_team_round)] = a
    return list(latest.values())


def stage_given(delib: Deliberation, stage: str) -> "tuple[list[AgentRecord], int]":
    """The stage's agents (one per persona and pass: a re-ranked persona counts once) the main
    agent has a counted report of, and how many agents the stage has."""
    slots = _slots(delib, stage)
    return [a for a in slots if a.status == "reported" and not a.superseded and arrived(a)], len(slots)


def given_summary(delib: Deliberation) -> str:
    """'Reports you have: research 1 of 3 (security-analyst); …' — per stage begun so far, how
    many of its agents the main agent has a counted report of (`stage_given`), of how many."""
    stages = []
    for stage in ("research", "deliberation", "ranking"):
        have, of = stage_given(delib, stage)
        if of:
            stages.append((stage, len(have), of, _who(have)))
    return words.given_summary(stages)


def still_to_arrive_text(delib: Deliberation) -> str:
    coming = to_arrive(delib)
    return words.still_to_arrive(_who(coming), any(a.background for a in coming))


# --------------------------------------------------------------------------------------------
# the spawn rules, in PreToolUse's order


def spawn_refusal(delib: Deliberation, cfg: Config, subagent_type: str, prompt: str = "") -> "tuple[Stage, str | None]":
    """(stage, refusal) for a deliberation spawn of `subagent_type`: the stage it would work in
    and why the phase or depth rules refuse it (None: accepted). Budget and the checks on the
    prompt's content are PreToolUse's own; `prompt` matters for tier-2 workers only."""
    kind = personas.kind_of(subagent_type)
    if kind is None:
        return "research", None
    if kind == "synthesis" and delib.phase in ("RANKING", "PRD_GENERATION"):
        if ways_forward.revision_allowed(delib):  # way (a): the one revision round
            return "deliberation", None
        if ways_forward.revision_used(delib):
            return "deliberation", phase_words.revision_used(delib.phase, delib.id)
    stage, refusal = phases.stage_for_spawn(
        delib, kind, cfg.deliberation.min_agents, personas.normalise_agent_type(subagent_type)
    )
    if refusal is None and stage == "ranking":
        refusal = depth_axis.ranking_spawn_refusal(delib, cfg)
    if refusal is None and kind == "lens":
        refusal = depth_axis.check_tier2_spawn(subagent_type, prompt, delib)
    if refusal is None and kind == "red-team":
        refusal = depth_axis.check_red_team_spawn(delib, cfg)
    return stage, refusal


# --------------------------------------------------------------------------------------------
# the next accepted step


@dataclass(frozen=True)
class NextStep:
    action: str  # wait | spawn | conclude | document | none
    text: str  # "Next: …" (empty for none)
    agent_types: "tuple[str, ...]" = ()


def agent_type(delib: Deliberation, slug: str) -> str:
    return f"{delib.agent_prefix}{slug}"


finding_refs = phases.finding_refs  # persona:finding-id of every research finding


def _accepted(delib: Deliberation, cfg: Config, slug: str, prompt: str = "") -> bool:
    return spawn_refusal(delib, cfg, agent_type(delib, slug), prompt)[1] is None


def _two_agent_form(delib: Deliberation) -> bool:
    return delib.two_agent is not None and delib.two_agent.verdict != "no_position"


def _rankers(delib: Deliberation) -> "list[str]":
    seen: list[str] = []
    for a in phases.current(delib, "research"):
        if a.kind == "persona" and a.persona not in seen:
            seen.append(a.persona)
    return seen


def ranking_step(delib: Deliberation, cfg: Config) -> "NextStep | None":
    """Spawn the research personas again to rank — when the rules accept it."""
    rankers = [p for p in _rankers(delib) if _accepted(delib, cfg, p)]
    if not rankers:
        return None
    types = tuple(agent_type(delib, p) for p in rankers)
    return NextStep("spawn", words.rank(types, blind_ranking.ranking_instruction(delib)), types)


def next_step(delib: Deliberation, cfg: Config) -> NextStep:
    """The step the plugin will accept next (see the module docstring)."""
    if delib.phase in phases.CLOSED:
        return NextStep("none", "")
    coming = to_arrive(delib)
    if coming:
        return NextStep("wait", words.wait_for(_who(coming)))
    ways = delib.ways
    if ways is not None and ways.revision == "reranking" and not phases.current(delib, "ranking"):
        step = ranking_step(delib, cfg)  # the revision round's fresh, blind ranking
        if step is not None:
            return step
    failed = ways_forward.failing(delib)
    if failed is not None and ways is not None and ways.handed_over_at is None:
        return NextStep("choose", words.choose(gates_text.ways_forward(ways_forward.view(delib))))
    if delib.phase == "PRD_GENERATION":  # the vote passed: the decision document closes it
        return NextStep("document", prd.request_text(delib))
    if delib.phase == "RANKING":
        return NextStep("conclude", words.CONCLUDE)
    short = phases.research_shortfall(delib, cfg.deliberation.min_agents)
    if delib.phase == "RESEARCH" and short:
        return NextStep("spawn", words.more_research(short))
    deliberated = {a.kind for a in phases.current(delib, "deliberation")}
    challenged = any(a.kind in ("red-team", "lens") for a in delib.agents if a.status != "refused")
    if (
        not _two_agent_form(delib)
        and "synthesis" not in deliberated
        and not challenged
        and _accepted(delib, cfg, personas.SYNTHESIS)
    ):
        roles = [personas.SYNTHESIS] + ([personas.DEBATE] if "debate" not in deliberated else [])
        types = tuple(agent_type(delib, r) for r in roles)
        return NextStep("spawn", words.synthesise(types, finding_refs(delib)), types)
    if (
        depth_axis.depth_enabled(delib, cfg)[0]
        and not depth_axis.red_team_done(delib, 1)
        and not minimum_deliberation.applies(delib)
        and not _two_agent_form(delib)
        and _accepted(delib, cfg, personas.RED_TEAM)
    ):
        types = (agent_type(delib, personas.RED_TEAM),)
        return NextStep("spawn", words.red_team(types), types)
    missing = depth_axis.missing_workers(delib)
    if missing:
        accepted = [a for a in missing if _accepted(delib, cfg, a.lens, depth_axis.worker_prompt(a.lens, a.hot_spots, delib))]
        if accepted:
            types = tuple(agent_type(delib, a.lens) for a in accepted)
            return NextStep(
                "spawn", words.tier2_workers(types, depth_axis.worker_blocks(delib, accepted, delib.depth.hot_spots)), types
            )
    if delib.depth.status == "red_team_2" and _accepted(delib, cfg, personas.RED_TEAM):
        return NextStep("spawn", depth_axis.red_team_2_instruction(delib), (agent_type(delib, personas.RED_TEAM),))
    step = ranking_step(delib, cfg)
    if step is not None:
        return step
    # nothing the rules accept in protocol order: say what the ranking rule asks for
    rankers = _rankers(delib)
    why = (
        spawn_refusal(delib, cfg, agent_type(delib, rankers[0]))[1]
        if rankers
        else phases.research_shortfall(delib, cfg.deliberation.min_agents)
    )
    return NextStep("none", words.refused(why) if why else "")


def with_next(delib: Deliberation, cfg: Config, text: str) -> str:
    """`text` followed by the next accepted step as it stands now (news said with its step)."""
    return words.with_next(text, next_step(delib, cfg).text)


def progress_text(delib: Deliberation, cfg: Config) -> str:
    """The progress note: where the deliberation is, what the main agent has, what is still to
    arrive, and the next step the plugin will accept."""
    return words.progress(
        delib.id,
        delib.task_type,
        delib.threshold,
        delib.phase,
        given_summary(delib),
        still_to_arrive_text(delib),
        next_step(delib, cfg).text,
    )
