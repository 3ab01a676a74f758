"""The answers to routine events, with the standard library only, so most hooks never import
pydantic.

A hook reaches the slow path (handlers/, pydantic models, locks) only when something is going
on: a subagent spawn or report, an active deliberation in the session, an open escalation.
Everything here reads at most a stat and one small JSON file; it never reads the event log.
"""

from __future__ import annotations

from deliberation import defaults
from deliberation.core.human_review import tool_answer
from deliberation.state.event_log import log_line
from deliberation.state.paths import Layout, plugin_agent_prefix
from deliberation.state.plain_reads import (commit_pending, escalations_readable, open_escalations, section,
                                            session_state)

TRIGGER = defaults.CONFIG["trigger"]  # what an absent setting means


def answer(event, layout: Layout, cfg: dict):
    """The fast-path Answer, or None when the slow path must decide."""
    from deliberation.wire import hookio

    sid = event.session_id
    if commit_pending(layout, sid):
        return None
    if isinstance(event, hookio.UserPromptSubmit):
        sess = session_state(layout, sid)
        busy = bool(sess and (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")))
        if event.is_task_notification:
            if busy:
                return None
            log_line(layout, event, event.raw, {}, ["task-notification"])
            return hookio.Answer()
        if busy:
            return None
        return trigger_answer(event, layout, cfg)
    if isinstance(event, hookio.PreToolUse):
        if event.is_channel_tool:
            return None
        if event.tool_name == "Skill":
            return skill_answer(event, layout, cfg)
        entries = open_escalations(layout)
        if not entries:
            # an escalations.json that does not read as an index goes to the slow path (quarantine + warning)
            return net_answer(event, layout, cfg) if escalations_readable(layout.escalations) else None
        decision, reason = tool_answer(entries, event.tool_name,
                                         section(cfg, "escalation").get("risky_tools", hookio.RISKY_TOOLS))
        result = hookio.Answer(decision, reason) if decision else hookio.Answer()
        log_line(layout, event, _light(event.raw), result.summary())
        return result
    if isinstance(event, hookio.PostToolUseFailure) and not event.is_channel_tool:
        return hookio.Answer()
    if isinstance(event, hookio.Stop):
        sess = session_state(layout, sid)
        if not sess or not (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")):
            log_line(layout, event, event.raw, {})
            return hookio.Answer()
        return None
    if event.hook_event_name in ("SessionStart", "SessionEnd") or type(event) is hookio.SessionEvent:
        sess = session_state(layout, sid)
        if not sess or not sess.get("active_deliberation"):
            return hookio.Answer(context=self_rating_text(cfg) if event.hook_event_name == "SessionStart" else None)
        return None
    return None


def _light(raw: dict) -> dict:
    """A risky tool's payload without bulky content (file bodies) for the event log."""
    tool_input = raw.get("tool_input")
    if not isinstance(tool_input, dict):
        return raw
    slim = {k: (v if not isinstance(v, str) or len(v) <= 512 else v[:512] + "…") for k, v in tool_input.items()}
    return {**raw, "tool_input": slim}


def trigger_answer(event, layout: Layout, cfg: dict):
    """Score a real user prompt; below the threshold inject the deliberation protocol."""
    from deliberation.core.trigger import score_prompt
    from deliberation.wire import hookio

    result, context = score_prompt(event.prompt, cfg, plugin_agent_prefix())
    out = hookio.Answer(context=context)
    log_line(layout, event, event.raw, out.summary(), trigger=result)
    return out


def self_rating_text(cfg: dict) -> "str | None":
    """The once-per-session instruction on rating a decision (text/self_rating.py), unless the
    trigger or the self-rating is switched off."""
    trig = section(cfg, "trigger")
    if not trig.get("enabled", TRIGGER["enabled"]) or not trig.get("self_rating", TRIGGER["self_rating"]):
        return None
    from deliberation.text import self_rating

    return self_rating.text(section(cfg, "task_types").get("thresholds"), plugin_agent_prefix())


def skill_answer(event, layout: Layout, cfg: dict):
    """The deliberate command called through the Skill tool: the protocol for its question."""
    from deliberation.core.trigger import score_skill, skill_question
    from deliberation.wire import hookio

    question = skill_question(event.tool_name, event.tool_input)
    if question is None:
        return hookio.Answer()
    result, context = score_skill(question, cfg, plugin_agent_prefix())
    out = hookio.Answer(context=context)
    log_line(layout, event, event.raw, out.summary(), ["deliberate command via Skill"], trigger=result)
    return out


def net_answer(event, layout: Layout, cfg: dict):
    """The mid-task net (core/tool_net.py) on a Bash or edit call: a note, a hold (`ask`) or nothing.

    The call alone decides whether to look further; only a call that looks risky reads the
    event log's tail (was the last prompt rated risky, was this already said) and the session."""
    from deliberation.wire import hookio

    trig = section(cfg, "trigger")
    mode = trig.get("tool_net", TRIGGER["tool_net"])
    if mode not in ("note", "ask") or not trig.get("enabled", TRIGGER["enabled"]):
        return hookio.Answer()
    from deliberation.core import tool_net

    edit = event.tool_name in tool_net.EDIT_TOOLS
    if edit:
        path = event.tool_input.get("file_path") or event.tool_input.get("notebook_path")
        if not isinstance(path, str) or not tool_net.is_sensitive_code(path):
            return hookio.Answer()
    elif tool_net.check(event.tool_name, event.tool_input) is None:
        return hookio.Answer()
    from deliberation.state.plain_reads import deliberation_since, since_last_prompt
    from deliberation.text import net

    tail = since_last_prompt(layout, event.session_id)
    trigger = (tail.trigger if tail else None) or {}
    call = tool_net.check(event.tool_name, event.tool_input, risky_prompt=bool(trigger.get("triggered")))
    if call is None or deliberation_since(layout, session_state(layout, event.session_id), tail.at if tail else 0.0):
        return hookio.Answer()
    said = f"tool-net:{call.kind}"
    if mode == "note" and tail is not None and said in tail.notes:
        return hookio.Answer()  # said once for this prompt; the model has it
    prefix = plugin_agent_prefix()
    if mode == "ask" and not event.agent_id:
        out = hookio.Answer.ask(net.ask_text(call.kind, call.what, prefix))
    else:
        out = hookio.Answer(context=net.note_text(call.kind, call.what, prefix, in_subagent=bool(event.agent_id),
                                                       confidence=trigger.get("confidence")))
    log_line(layout, event, _light(event.raw), out.summary(), [said])
    return out
