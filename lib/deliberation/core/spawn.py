"""A subagent asked for with the Agent tool (PreToolUse): allowed and recorded, or refused.

The rules, in order: the spawn budget; while the depth step is open, a non-lens spawn aimed at
a hot spot (a fork, or a generic agent); then, for a deliberation agent, the phase and depth
rules (`next_step.spawn_refusal`, the same call the notes name their next step with), research
isolation (no other agent's findings), complete findings (a synthesis or debate prompt carries
every research agent's), blind ranking (nothing of the vote), and model diversity. Every refusal
is kept in the lineage with its rule and says what to do next; a refused phase step is also kept
on the deliberation. An allowed deliberation spawn enters its stage (the phase transitions of
`enter_stage`), gets its record, and moves the depth step along; every allowed spawn is recorded
in the lineage.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable, Literal

from deliberation.core import agent_model, blind_ranking, engine, isolation, minimum_deliberation, next_step
from deliberation.core import lineage as lin
from deliberation.core import personas, phases, spawn_budget, ways_forward
from deliberation.core.depth import axis as depth_axis
from deliberation.core.turn import Turn
from deliberation.state.models import HOT_SPOT_ID, AgentKind, AgentRecord, Deliberation, GivenContext, Stage
from deliberation.wire import hookio
from deliberation.text import depth as depth_words
from deliberation.text import phases as phase_words

HOT_SPOT_CITED = re.compile(rf"\b{HOT_SPOT_ID}\b")


@dataclass(frozen=True)
class Request:
    """One Agent tool call, with what the shell read for it: the model it asks for (its `model`
    input, else its agent file's) and how to read the model its caller runs on."""

    tool_use_id: "str | None"
    parent: str
    subagent_type: str
    prompt: str
    background: bool
    model: "str | None"
    caller_model: "Callable[[], str | None]"

    @classmethod
    def of(cls, event: hookio.PreToolUse, model: "str | None", caller_model: "Callable[[], str | None]") -> "Request":
        return cls(
            event.tool_use_id,
            event.agent_id or lin.MAIN,
            event.subagent_type,
            event.spawn_prompt,
            event.run_in_background,
            model,
            caller_model,
        )

    @property
    def persona(self) -> str:
        return personas.normalise_agent_type(self.subagent_type)


@dataclass(frozen=True)
class Refused:
    rule: str
    reason: str
    kind: str = ""  # the kind of the outcome, when the text layer names one (a tier-2 denial)


def decide(turn: Turn, req: Request) -> "Refused | None":
    """Allow (None) or refuse the spawn; either way the lineage and the deliberation record it."""
    kind = personas.kind_of(req.subagent_type)
    sb = turn.cfg.spawn_budget
    verdict = spawn_budget.decide(turn.tx.lineage, req.parent, req.subagent_type, kind is not None, sb, turn.now)
    if not verdict.allowed:
        return _refuse(turn, req, verdict.rule, verdict.reason)
    delib = turn.active()
    if kind is None:
        why = _fork_refusal(req, delib)
        if why:
            return _refuse(turn, req, "depth", why, depth_words.Tier2Denied.kind)
        _record_spawn(turn, req, None, None, verdict.depth)
        return None
    if delib is None or delib.phase in phases.CLOSED:
        delib = _reopened(turn, kind) or turn.open_deliberation()
    if ":" in req.subagent_type:  # plugin form: the client namespaces the agent types
        delib.agent_prefix = req.subagent_type.rsplit(":", 1)[0] + ":"
    if delib.two_agent is not None and _goes_full(delib, kind, req.persona):
        if minimum_deliberation.release(delib):
            turn.notes.append("2-agent form released: the full deliberation follows")
    stage, rule, why, checked = _deliberation_rules(turn, req, delib, kind)
    if why is not None:
        if rule in ("phase", "isolation", "blind-ranking"):
            delib.refused_transitions.append(why.splitlines()[0][:300])
            delib.updated_at = turn.now
        tier2 = kind == "lens" and why == depth_axis.check_tier2_spawn(req.subagent_type, req.prompt, delib)
        return _refuse(turn, req, rule, why, depth_words.Tier2Denied.kind if tier2 else "")
    enter_stage(delib, kind, stage, req.persona, turn.now)
    _add_record(turn, req, delib, kind, stage, checked)
    _record_spawn(turn, req, kind, delib.id, verdict.depth)
    return None


def _reopened(turn: Turn, kind: AgentKind) -> "Deliberation | None":
    """A synthesis-lead spawned after the session's last deliberation was handed to the user with
    its revision round unused and not yet settled: the user asked for the round (the main agent had
    asked them which way), so that deliberation reopens rather than a new one on their reply."""
    sess = turn.tx.session
    if kind != "synthesis":
        return None
    last = None
    for did in reversed(sess.deliberations):  # the newest that ran agents (not one a refused spawn opened)
        last = turn.tx.deliberation(did)
        if last is not None and last.agents:
            break
    if last is None or not ways_forward.reopenable(last):
        return None
    ways_forward.reopen(last, turn.now)
    sess.active_deliberation = last.id
    turn.notes.append(f"{last.id} reopened for its revision round")
    return last


def _deliberation_rules(turn: Turn, req: Request, delib: Deliberation, kind: AgentKind) -> "tuple[Stage, str, str | None, str]":
    """(stage, rule, refusal, what the prompt was checked for) of a deliberation spawn."""
    cfg = turn.cfg
    stage, why = next_step.spawn_refusal(delib, cfg, req.subagent_type, req.prompt)
    checked = "not checked"
    if why is None and stage == "research" and cfg.isolation.enabled:
        why, checked = _isolation(turn, req, delib)
    if why is None and kind in ("synthesis", "debate") and cfg.isolation.complete_findings:
        why, checked = _complete_findings(turn, req, delib)
        if why:
            return stage, "isolation", why, checked
    if why is None and stage == "ranking" and cfg.isolation.blind_ranking:
        why, checked = _blind_ranking(turn, req, delib)
        if why:
            return stage, "blind-ranking", why, checked
    if why:
        return stage, "phase", why, checked
    if kind == "persona" and cfg.models.diverse:
        clash = agent_model.diversity_refusal(
            req.persona, stage, req.model, delib.agents, cfg.conformity.conflicting_pairs, cfg.models.pool, req.caller_model()
        )
        if clash:
            return stage, "model_diversity", clash, checked
    return stage, "", None, checked


def enter_stage(delib: Deliberation, kind: str, stage: str, persona: str, now: float) -> None:
    """The phase transitions an allowed spawn makes: the first deliberation role ends research,
    the first ranker starts the vote (after research alone, the proposals stand as the
    alternatives), a ranker after a finished vote is a re-rank, and one after the vote passed
    reopens it."""
    if stage == "deliberation" and delib.phase == "RESEARCH":
        n = len(phases.current(delib, "research"))
        phases.transition(delib, "DELIBERATION", phase_words.research_ended(kind, n), now)
    elif stage == "ranking" and delib.phase in ("RESEARCH", "DELIBERATION"):
        if delib.phase == "RESEARCH":
            phases.transition(delib, "DELIBERATION", phase_words.BREADTH_ONLY, now)
        phases.transition(delib, "RANKING", phase_words.FIRST_RANKER, now)
    elif (
        stage == "ranking"
        and delib.phase == "RANKING"
        and not phases.pending(delib, "ranking")
        and phases.current(delib, "ranking")
    ):
        phases.transition(delib, "RANKING", phase_words.RE_RANK, now)
    elif stage == "ranking" and delib.phase == "PRD_GENERATION":
        engine.reopen_vote(delib, now, persona)
    elif stage == "deliberation" and kind == "synthesis" and delib.phase in ("RANKING", "PRD_GENERATION"):
        ways_forward.start_revision(delib, now)  # way (a): the one revision round is taken


def _add_record(turn: Turn, req: Request, delib: Deliberation, kind: AgentKind, stage: Stage, checked: str) -> None:
    add_agent(
        delib,
        key=req.tool_use_id or f"spawn-{len(delib.agents) + 1}",
        tool_use_id=req.tool_use_id,
        agent_type=req.subagent_type,
        kind=kind,
        stage=stage,
        background=req.background,
        prompt=req.prompt,
        checked=checked,
        model=req.model,
        now=turn.now,
    )


def add_agent(
    delib: Deliberation,
    *,
    key: str,
    tool_use_id: "str | None",
    agent_type: str,
    kind: AgentKind,
    stage: Stage,
    background: bool,
    prompt: str,
    checked: str,
    model: "str | None",
    now: float,
    channel: Literal["agent", "workflow"] = "agent",
    label: str = "",
    wave: int = 0,
) -> AgentRecord:
    """The deliberation's record of a new agent (an Agent call, or an agent of the plugin
    workflow's wave): its tier and red-team round, what it was given; a lens starts the depth
    step's wave."""
    tier, red_team_round = depth_axis.spawn_tier(agent_type, delib)
    rec = AgentRecord(
        key=key,
        tool_use_id=tool_use_id,
        persona=personas.normalise_agent_type(agent_type),
        kind=kind,
        stage=stage,
        tier=tier,
        red_team_round=red_team_round,
        background=background,
        spawned_at=now,
        model_requested=model,
        given=given_context(prompt, agent_type, delib, checked),
        channel=channel,
        label=label,
        wave=wave,
    )
    delib.agents.append(rec)
    delib.last_delivered = ""  # a new spawn: the next gate or progress news is new again
    delib.updated_at = now
    if kind == "lens" and delib.depth.status == "pending":
        delib.depth.status = "deepening"
    if tier == 2:
        depth_axis.refresh_counts(delib, check=False)
    return rec


def _refuse(turn: Turn, req: Request, rule: str, reason: str, kind: str = "") -> Refused:
    turn.refuse(req.tool_use_id, req.parent, req.subagent_type, rule, reason)
    return Refused(rule, reason, kind)


def _goes_full(delib: Deliberation, kind: str, persona: str) -> bool:
    """A spawn that turns a 2-agent deliberation into the full one: a deliberation role, or a
    third research persona while research is open."""
    if kind in ("debate", "synthesis", "red-team"):
        return True
    researched = {a.persona for a in phases.current(delib, "research")}
    return kind == "persona" and delib.phase == "RESEARCH" and persona not in researched


def _fork_refusal(req: Request, delib: "Deliberation | None") -> "str | None":
    """While the depth step is open, a non-lens spawn aimed at a hot spot (a `fork`, which
    inherits the parent's context, or a generic agent) is a tier-2 spawn breaking the rules."""
    if delib is None or delib.depth.status not in depth_axis.HOLDS_RANKING:
        return None
    if not depth_axis.is_tier2_spawn(req.subagent_type, req.prompt, delib):
        return None
    return depth_axis.check_tier2_spawn(req.subagent_type, req.prompt, delib)


def _isolation(turn: Turn, req: Request, delib: Deliberation) -> "tuple[str | None, str]":
    findings = [(f"{a.persona}:{f.id}", f.claim, f.evidence) for a in phases.current(delib, "research") for f in a.filed.findings]
    if not findings:
        return None, "clean (no findings recorded yet)"
    leaked = isolation.check_prompt(
        req.prompt, findings, shared_context=delib.question, threshold=turn.cfg.isolation.leak_threshold
    )
    if not leaked:
        return None, f"clean against {len(findings)} recorded findings"
    return isolation.leak_reason(leaked, findings), "leak: " + ", ".join(leaked)


def _complete_findings(turn: Turn, req: Request, delib: Deliberation) -> "tuple[str | None, str]":
    """A synthesis or debate prompt carries the findings of every research agent that reported
    (those of background agents whose notification has not come yet are named as such)."""
    research = phases.current(delib, "research")
    findings = isolation.recorded_findings(research)
    if not findings:
        return None, "complete: no research findings recorded"
    carried = set(isolation.check_prompt(req.prompt, findings, shared_context="", threshold=turn.cfg.isolation.leak_threshold))
    missing = [ref for ref, _c, _e in findings if ref not in carried]
    if not missing:
        return None, f"complete: carries all {len(findings)} research findings"
    late = [a.persona for a in research if not next_step.arrived(a)]
    role = f"`{req.subagent_type}`"
    return (isolation.missing_reason(role, missing, findings, late), "incomplete: lacks " + ", ".join(missing))


def _blind_ranking(turn: Turn, req: Request, delib: Deliberation) -> "tuple[str | None, str]":
    leaks = blind_ranking.check_prompt(req.prompt, delib, req.subagent_type, [d.name for d in turn.cfg.ranking.dimensions])
    if not leaks:
        return None, "blind ranking: clean"
    return blind_ranking.deny_reason(leaks, delib), "blind ranking: " + ", ".join(k.kind for k in leaks)


def given_context(prompt: str, subagent_type: str, delib: Deliberation, checked: str) -> GivenContext:
    """What a spawned agent was given, for the audit: the prompt's size and hash, the hot spots
    it cites, whether it was a fork, what its prompt was checked for."""
    known = {h.id for h in delib.depth.hot_spots}
    return GivenContext(
        prompt_chars=len(prompt),
        prompt_sha256=hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest(),
        hot_spots=sorted(set(HOT_SPOT_CITED.findall(prompt)) & known),
        fork=personas.normalise_agent_type(subagent_type) == "fork",
        isolation=checked,
    )


def _record_spawn(turn: Turn, req: Request, kind: "AgentKind | None", delib_id: "str | None", depth: int) -> None:
    spawn = lin.record_request(
        turn.tx.lineage,
        tool_use_id=req.tool_use_id,
        parent=req.parent,
        subagent_type=req.subagent_type,
        kind=kind,
        deliberation_id=delib_id,
        depth=depth,
        background=req.background,
        now=turn.now,
    )
    spawn.model_requested = req.model
