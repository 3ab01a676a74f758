"""The answers to routine events, with the standard library only, so most hooks never import
pydantic.

A hook reaches the slow path (handlers/, pydantic models, locks) only when something is going
on: a subagent spawn or report, an active deliberation in the session, an open escalation.
Everything here reads at most a stat and one small JSON file; it never reads the event log.
"""

from __future__ import annotations

from deliberation.core.human_review import tool_answer
from deliberation.state.event_log import log_line
from deliberation.state.paths import Layout, plugin_agent_prefix
from deliberation.state.plain_reads import (commit_pending, escalations_readable, open_escalations, section,
                                            session_state)


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
    if isinstance(event, (hookio.PreToolUse, hookio.PostToolUse)) and event.tool_name == hookio.REPORT_TOOL:
        # a workflow agent's report: the plugin's business only while its session deliberates
        sess = session_state(layout, sid)
        busy = bool(sess and (sess.get("active_deliberation") or sess.get("open_workflows")))
        return None if busy else hookio.Answer()
    if isinstance(event, hookio.PreToolUse):
        if event.is_channel_tool:
            return None
        entries = open_escalations(layout)
        if not entries:
            # an escalations.json that does not read as an index goes to the slow path (quarantine + warning)
            return hookio.Answer() if escalations_readable(layout.escalations) else None
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
            return hookio.Answer()
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
