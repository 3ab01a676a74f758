"""PreToolUse (`Task|Agent|Workflow|SendMessage|StructuredOutput|SubagentHandback`, and the risky tools): may this call run?

An Agent spawn is decided by core/spawn.py (the budget, phase order, context isolation, blind
ranking, the depth axis' rules, model diversity); every refusal is a `deny` whose reason says
what to do next, and an allowed spawn answers nothing (so the user's own permission settings
still apply) — but in auto mode a deliberation agent that can only read is answered `allow`, so
it waits for no classifier and no person (core/auto_mode.py). The Workflow and SendMessage tools have their own modules (workflow_tool,
send_message_tool); a workflow agent's report (StructuredOutput) is checked by
core/plugin_workflow.py, a report handed back (SubagentHandback) by core/handback.py; the main agent's Write of the decision document is read and recorded by
core/document_handover.py; a risky tool gets the human-review answer while a decision awaits a person.
"""

from __future__ import annotations

import os

from deliberation.app import adjudication, permissions, shadowed, vouch
from deliberation.app.handlers import send_message_tool, workflow_tool
from deliberation.app.handlers.common import Ctx, requested_model, transcript_model
from deliberation.core import auto_mode, document_call, document_handover, drafter_call, drafting, handback, personas
from deliberation.core import plugin_workflow, spawn, state_guard
from deliberation.core.trigger import score_skill, skill_question
from deliberation.state.paths import plugin_agent_prefix
from deliberation.text import refusals as refusal_words
from deliberation.text import review as review_words
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    answer = _decide(ctx, event)
    if answer.decision == "deny" and answer.reason and not answer.system_message and event.is_channel_tool:
        answer.system_message = refusal_words.refused_for_person(_what(event), answer.reason)
    return answer


def _what(event: hookio.PreToolUse) -> str:
    """What a refused call was, for the person's line."""
    if event.tool_name == hookio.WORKFLOW_TOOL:
        return f"the workflow {event.workflow_name}" if event.workflow_name else "the workflow"
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        return f"a message to {event.message_to or 'an agent'}"
    return event.subagent_type


def _decide(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        return workflow_tool.pre(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        return send_message_tool.pre(ctx, event)
    if event.tool_name == hookio.REPORT_TOOL:
        return plugin_workflow.report_checked(ctx, event)
    if event.tool_name == hookio.HANDBACK_TOOL:
        return handback.checked(ctx, event)
    if event.tool_name == "Skill":
        return _skill(ctx, event)
    asked = document_call.target(event.tool_name, event.tool_input, event.cwd or ctx.layout.project)
    if asked is not None and not event.agent_id:  # the main agent hands over the decision document
        return document_handover.handed(ctx, asked, event.tool_input.get("content"))
    if event.tool_name in state_guard.TOOLS and event.agent_id:
        why = state_guard.refusal(  # by the type as the client gave it: a foreign agent named like a persona is kept out too
            event.tool_name,
            event.tool_input,
            event.raw.get("agent_type") if isinstance(event.raw.get("agent_type"), str) else event.agent_type,
            event.cwd or ctx.layout.project,
            ctx.layout.project,
            os.path.realpath,  # a path is judged by what it resolves to
        )
        if why is not None:
            return hookio.Answer.deny(why)
    if not event.is_subagent_tool:
        return _review(ctx, event)
    if ctx.vouch is not None:
        foreign = vouch.refusal(event, ctx.vouch, ctx.layout.project)
        if foreign is not None:  # a persona asked for by a type that is not the plugin's agent
            ctx.refuse(event.tool_use_id, event.agent_id or "main", event.subagent_type, "agent_not_shipped", foreign)
            return hookio.Answer.deny(foreign)
    plugin_workflow.before_spawn(ctx, event.subagent_type)
    request = spawn.Request.of(
        event,
        requested_model(ctx, event.subagent_type, event.spawn_model),
        caller_model=lambda: transcript_model(event.transcript_path),
    )
    refused = spawn.decide(ctx, request)
    if refused:
        return hookio.Answer.deny(refused.reason).saying(refused.kind)
    if drafting.is_drafter(event.subagent_type):  # the drafter gets every report as its prompt
        return drafter_call.spawned(ctx, event)
    return _auto_mode(ctx, event)


def _auto_mode(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    """An accepted deliberation spawn whose agent can only read starts without auto mode's check
    (core/auto_mode.py); any other accepted spawn answers nothing: the user's permission settings apply."""
    if event.permission_mode != hookio.AUTO_MODE or personas.kind_of(event.subagent_type) is None:
        return hookio.Answer()
    definitions = permissions.agent_definitions(ctx.layout.project, event.subagent_type, plugin_agent_prefix())
    if not auto_mode.allows(
        ctx.cfg.deliberation.allow_read_only_agents,
        event.permission_mode,
        True,
        definitions,
        permissions.ask_rules(ctx.layout.project),
    ):
        return hookio.Answer()
    tools = sorted(set().union(*(auto_mode.tools_of(d) or frozenset() for d in definitions)))
    ctx.notes.append("auto mode: a read-only agent, allowed")
    return hookio.Answer("allow", review_words.read_only_spawn(event.subagent_type, tools))


def _skill(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    """The deliberate command called through the Skill tool: its protocol, as on the fast path."""
    question = skill_question(event.tool_name, event.tool_input)
    if question is None:
        return hookio.Answer()
    result, context = score_skill(question, ctx.cfg.model_dump(mode="json"), plugin_agent_prefix())
    taken = shadowed.forced_by_shadow(ctx.layout, str(event.tool_input.get("skill") or ""), result)
    ctx.extra["trigger"] = result  # the first persona's deliberation takes its question from here
    ctx.notes.append("deliberate command via Skill")
    if taken is not None:  # a skill or command of the project answers that name, not the plugin
        return hookio.Answer(context=taken[0], system_message=taken[1])
    return hookio.Answer(context=context)


def _review(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    # validated load: a corrupt escalations.json is quarantined and reported, never read as empty
    decision, reason = adjudication.review_answer(
        adjudication.open_index(ctx.store), event.tool_name, ctx.cfg.escalation.risky_tools, event.tool_input.get("command")
    )
    return hookio.Answer(decision, reason) if decision else hookio.Answer()
