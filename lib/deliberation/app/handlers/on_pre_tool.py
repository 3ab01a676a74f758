"""PreToolUse (`Task|Agent|Workflow|SendMessage`): spawn budget, phase order, context isolation
(research prompts carry no other agent's findings; synthesis and debate prompts carry every
research agent's findings; ranking prompts carry nothing of the vote), depth-axis rules, model
diversity. The phase and depth rules are applied through next_step.spawn_refusal — the same
call the notes name their next step with.

Every refusal is a `deny` whose reason tells Claude what to do next; an allowed spawn answers
nothing (so the user's own permission settings still apply) and is recorded in the lineage and,
for a deliberation agent, in the deliberation. The Workflow and SendMessage tools have their own
modules (workflow_tool, send_message_tool); risky tools get the human-review answer.
"""

from __future__ import annotations

from deliberation.core import engine, personas, phases, spawn_budget
from deliberation.core.depth import axis as depth_axis
from deliberation.wire import hookio
from deliberation.core import lineage as lin
from deliberation.app.handlers.common import Ctx, deny, requested_model, transcript_model


def handle(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        from deliberation.app.handlers import workflow_tool

        return workflow_tool.pre(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        from deliberation.app.handlers import send_message_tool

        return send_message_tool.pre(ctx, event)
    if event.tool_name == hookio.REPORT_TOOL:
        from deliberation.app.handlers import plugin_workflow

        return plugin_workflow.report_pre(ctx, event)
    if not event.is_subagent_tool:
        return _review(ctx, event)
    parent = event.agent_id or lin.MAIN
    kind = personas.kind_of(event.subagent_type)
    sb = ctx.cfg.spawn_budget
    verdict = spawn_budget.decide(ctx.tx.lineage, parent, event.subagent_type, kind is not None,
                                  sb.max_active_children, sb.max_depth, sb.stale_after_s, ctx.now,
                                  max_total=sb.max_session_total)
    if not verdict.allowed:
        return deny(ctx, event, parent, verdict.rule, verdict.reason)
    delib = ctx.active()
    model = requested_model(ctx, event.subagent_type, event.spawn_model)
    if kind is None:
        refusal = _fork_refusal(event, delib)
        if refusal:
            return deny(ctx, event, parent, "depth", refusal)
        _record_spawn(ctx, event, parent, None, None, verdict.depth, model)
        return hookio.Answer()
    if delib is None or delib.phase in phases.CLOSED:
        delib = ctx.open_deliberation()
    elif delib.workflow is not None:
        from deliberation.app.handlers import plugin_workflow

        plugin_workflow.release_unlaunched(ctx, delib)
    if ":" in event.subagent_type:  # plugin form: the client namespaces the agent types
        delib.agent_prefix = event.subagent_type.rsplit(":", 1)[0] + ":"
    if delib.two_agent is not None and _goes_full(delib, kind, event.subagent_type):
        from deliberation.core import minimum_deliberation

        if minimum_deliberation.release(delib):
            ctx.notes.append("2-agent form released: the full deliberation follows")
    from deliberation.core import next_step

    stage, refusal = next_step.spawn_refusal(delib, ctx.cfg, event.subagent_type, event.spawn_prompt)
    isolation = "not checked"
    if refusal is None and stage == "research" and ctx.cfg.isolation.enabled:
        refusal, isolation = _isolation(ctx, event, delib)
    if refusal is None and kind in ("synthesis", "debate") and ctx.cfg.isolation.complete_findings:
        refusal, isolation = _complete_findings(ctx, event, delib)
        if refusal:
            delib.refused_transitions.append(refusal.splitlines()[0][:300])
            delib.updated_at = ctx.now
            return deny(ctx, event, parent, "isolation", refusal)
    if refusal is None and stage == "ranking" and ctx.cfg.isolation.blind_ranking:
        refusal, isolation = _blind_ranking(ctx, event, delib)
        if refusal:
            delib.refused_transitions.append(refusal.splitlines()[0][:300])
            delib.updated_at = ctx.now
            return deny(ctx, event, parent, "blind-ranking", refusal)
    if refusal:
        delib.refused_transitions.append(refusal.splitlines()[0][:300])
        delib.updated_at = ctx.now
        return deny(ctx, event, parent, "phase", refusal)
    if kind == "persona" and ctx.cfg.models.diverse:
        from deliberation.core import agent_model

        clash = agent_model.diversity_refusal(personas.normalise_agent_type(event.subagent_type), stage, model,
                                              delib.agents, ctx.cfg.conformity.conflicting_pairs,
                                              ctx.cfg.models.pool, transcript_model(event.transcript_path))
        if clash:
            return deny(ctx, event, parent, "model_diversity", clash)
    engine.add_agent(delib, key=event.tool_use_id or f"spawn-{len(delib.agents) + 1}", tool_use_id=event.tool_use_id,
                     agent_type=event.subagent_type, kind=kind, stage=stage, background=event.run_in_background,
                     prompt=event.spawn_prompt, isolation=isolation, model=model, now=ctx.now)
    _record_spawn(ctx, event, parent, kind, delib.id, verdict.depth, model)
    return hookio.Answer()


def _goes_full(delib, kind: str, subagent_type: str) -> bool:
    """A spawn that turns a 2-agent deliberation into the full one: a deliberation role, or a
    third research persona while research is open."""
    if kind in ("debate", "synthesis", "red-team"):
        return True
    researched = {a.persona for a in phases.current(delib, "research")}
    return kind == "persona" and delib.phase == "RESEARCH" and \
        personas.normalise_agent_type(subagent_type) not in researched


def _review(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    from deliberation.app import adjudication

    # validated load: a corrupt escalations.json is quarantined and reported, never read as empty
    decision, reason = adjudication.review_answer(adjudication.open_index(ctx.store), event.tool_name,
                                                  ctx.cfg.escalation.risky_tools)
    return hookio.Answer(decision, reason) if decision else hookio.Answer()


def _fork_refusal(event: hookio.PreToolUse, delib) -> "str | None":
    """While the depth step is open, a non-lens spawn aimed at a hot spot (a `fork`, which
    inherits the parent's context, or a generic agent) is a tier-2 spawn breaking the rules."""
    if delib is None or delib.depth.status not in depth_axis.HOLDS_RANKING:
        return None
    if not depth_axis.is_tier2_spawn(event.subagent_type, event.spawn_prompt, delib):
        return None
    return depth_axis.check_tier2_spawn(event.subagent_type, event.spawn_prompt, delib)


def _isolation(ctx: Ctx, event: hookio.PreToolUse, delib) -> "tuple[str | None, str]":
    from deliberation.core import isolation

    findings = [(f"{a.persona}:{f.id}", f.claim, f.evidence)
                for a in phases.current(delib, "research") for f in a.report.findings]  # type: ignore[union-attr]
    if not findings:
        return None, "clean (no findings recorded yet)"
    leaked = isolation.check_prompt(event.spawn_prompt, findings, shared_context=delib.question,
                                    threshold=ctx.cfg.isolation.leak_threshold)
    if not leaked:
        return None, f"clean against {len(findings)} recorded findings"
    return isolation.leak_reason(leaked, findings), "leak: " + ", ".join(leaked)


def _complete_findings(ctx: Ctx, event: hookio.PreToolUse, delib) -> "tuple[str | None, str]":
    """A synthesis or debate prompt carries the findings of every research agent that reported
    (those of background agents whose notification has not come yet are named as such)."""
    from deliberation.core import isolation, next_step

    research = phases.current(delib, "research")
    findings = isolation.recorded_findings(research)
    if not findings:
        return None, "complete: no research findings recorded"
    carried = set(isolation.check_prompt(event.spawn_prompt, findings, shared_context="",
                                         threshold=ctx.cfg.isolation.leak_threshold))
    missing = [ref for ref, _c, _e in findings if ref not in carried]
    if not missing:
        return None, f"complete: carries all {len(findings)} research findings"
    late = [a.persona for a in research if not next_step.arrived(a)]
    role = f"`{event.subagent_type}`"
    return (isolation.missing_reason(role, missing, findings, late),
            "incomplete: lacks " + ", ".join(missing))


def _blind_ranking(ctx: Ctx, event: hookio.PreToolUse, delib) -> "tuple[str | None, str]":
    from deliberation.core import blind_ranking

    leaks = blind_ranking.check_prompt(event.spawn_prompt, delib, event.subagent_type,
                                       [d.name for d in ctx.cfg.ranking.dimensions])
    if not leaks:
        return None, "blind ranking: clean"
    return blind_ranking.deny_reason(leaks, delib), "blind ranking: " + ", ".join(k.kind for k in leaks)


def _record_spawn(ctx: Ctx, event: hookio.PreToolUse, parent: str, kind, delib_id, depth: int,
                  model: "str | None") -> None:
    spawn = lin.record_request(ctx.tx.lineage, tool_use_id=event.tool_use_id, parent=parent,
                               subagent_type=event.subagent_type, kind=kind, deliberation_id=delib_id,
                               depth=depth, background=event.run_in_background, now=ctx.now)
    spawn.model_requested = model
