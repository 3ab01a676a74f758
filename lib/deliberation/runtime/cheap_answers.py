"""The answers to routine events, with the standard library only, so most hooks never import
pydantic.

A hook reaches the slow path (handlers/, pydantic models, locks) only when something is going
on: a subagent spawn or report, an active deliberation in the session, an open escalation.
Everything here reads at most a stat and one small JSON file; only the mid-task net reads the
event log's tail, and only for a tool call that already looks risky.
A session without a deliberation keeps nothing of these events (docs/STORAGE.md): the turn's
prompt waits in prompt.json until its Stop, a refusal under human review is logged.
A state file the fast path does not believe (plain_reads.Distrusted: not sealed by this user's
plugin, a link, a FIFO, too large) sends the event to the slow path, which moves it aside and
says so.
"""

from __future__ import annotations

from deliberation import defaults
from deliberation.core.document_call import target
from deliberation.core.human_review import tool_answer
from deliberation.state.event_log import drop_pending_prompt, keep_pending_prompt, log_line, make_record
from deliberation.state.paths import Layout, plugin_agent_prefix
from deliberation.state.plain_reads import Distrusted, awaiting_approval, commit_pending, open_escalations, section, session_state

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any

    from deliberation.wire import hookio

TRIGGER = defaults.CONFIG["trigger"]  # what an absent setting means


def answer(event: "hookio.Event", layout: Layout, cfg: dict) -> "hookio.Answer | None":
    """The fast-path Answer, or None when the slow path must decide."""
    try:
        return _answer(event, layout, cfg)
    except Distrusted:
        return None


def _answer(event: "hookio.Event", layout: Layout, cfg: dict) -> "hookio.Answer | None":
    from deliberation.wire import hookio

    sid = event.session_id
    if commit_pending(layout, sid):
        return None
    if isinstance(event, hookio.UserPromptSubmit):
        sess = session_state(layout, sid)
        busy = bool(sess and (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")))
        if event.is_agent_turn:  # a task notification or a hand-back message: never scored
            if busy:
                return None
            return hookio.Answer()
        if busy:
            return None
        return trigger_answer(event, layout, cfg)
    if isinstance(event, (hookio.PreToolUse, hookio.PostToolUse)) and event.tool_name in (
        hookio.REPORT_TOOL,
        hookio.HANDBACK_TOOL,
    ):
        # a workflow agent's report, or a subagent's hand-back: the plugin's business only while
        # its session deliberates
        sess = session_state(layout, sid)
        busy = bool(sess and (sess.get("active_deliberation") or sess.get("open_workflows")))
        return None if busy else hookio.Answer()
    if isinstance(event, hookio.PreToolUse):
        if event.is_channel_tool:
            return None
        if event.tool_name == "Skill":
            return skill_answer(event, layout, cfg)
        if event.tool_name in READ_TOOLS:
            guarded = guard_answer(event, layout)
            if guarded is not None or event.tool_name != "Bash":
                return guarded or hookio.Answer()
        if not event.agent_id and target(event.tool_name, event.tool_input, event.cwd or layout.project):
            return None  # the main agent hands over the decision document: read and recorded there
        entries = open_escalations(layout)  # one the slow path must move aside raises Distrusted
        if not entries:
            return net_answer(event, layout, cfg)
        decision, reason = tool_answer(
            entries,
            event.tool_name,
            section(cfg, "escalation").get("risky_tools", hookio.RISKY_TOOLS),
            event.tool_input.get("command"),
        )
        result = hookio.Answer(decision, reason) if decision else hookio.Answer()
        log_line(layout, event, _light(event.raw), result.summary())
        return result
    if isinstance(event, hookio.PostToolUseFailure) and not event.is_channel_tool:
        return hookio.Answer()
    if isinstance(event, hookio.Stop):
        sess = session_state(layout, sid)
        if not sess or not (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")):
            drop_pending_prompt(layout, sid)  # the turn ended without a deliberation
            return hookio.Answer()
        return None
    if event.hook_event_name in ("SessionStart", "SessionEnd") or type(event) is hookio.SessionEvent:
        sess = session_state(layout, sid)
        if not sess or not sess.get("active_deliberation"):
            if event.hook_event_name != "SessionStart":
                return hookio.Answer()
            waiting = awaiting_approval(layout)  # settings of config.json that wait for this user
            if waiting is None:
                return None
            out = hookio.Answer(context=self_rating_text(cfg), system_message=awaiting_text(waiting, layout))
            taken = shadows_text(layout)
            if taken:
                out.warn(taken)
            return out
        return None
    return None


READ_TOOLS = ("Read", "Grep", "Glob", "Bash")


def guard_answer(event: "hookio.ToolEvent", layout: Layout) -> "hookio.Answer | None":
    """A deliberation subagent's read of the state folder: refused (core/state_guard.py)."""
    if not event.agent_id:
        return None
    from deliberation.core.state_guard import refusal
    from deliberation.wire import hookio

    why = refusal(event.tool_name, event.tool_input, event.agent_type, event.cwd or layout.project, layout.project, _real)
    if why is None:
        return None
    result = hookio.Answer.deny(why)
    log_line(layout, event, _light(event.raw), result.summary())
    return result


def _light(raw: dict) -> dict:
    """A risky tool's payload without bulky content (file bodies) for the event log."""
    tool_input = raw.get("tool_input")
    if not isinstance(tool_input, dict):
        return raw
    slim = {k: (v if not isinstance(v, str) or len(v) <= 512 else v[:512] + "…") for k, v in tool_input.items()}
    return {**raw, "tool_input": slim}


def trigger_answer(event: "hookio.UserPromptSubmit", layout: Layout, cfg: dict) -> "hookio.Answer | None":
    """Score a real user prompt; below the threshold inject the deliberation protocol."""
    from deliberation.core.trigger import score_prompt
    from deliberation.wire import hookio

    import time

    from deliberation.state.paths import handled_by
    from deliberation.defaults import LOG_FIELD_CAP_CHARS

    result, context = score_prompt(event.prompt, cfg, plugin_agent_prefix())
    out = hookio.Answer(context=context)
    if result.get("forced"):  # a command the project answers instead of the plugin's: no protocol
        from deliberation.app import shadowed

        taken = shadowed.forced_by_shadow(layout, shadowed.typed_command(event.prompt), result)
        if taken is not None:
            out = hookio.Answer(context=taken[0], system_message=taken[1])
    keep_pending_prompt(
        layout,
        event.session_id,
        make_record(
            event, event.raw, out.summary(), [], "full", LOG_FIELD_CAP_CHARS, time.time(), handled_by(), {"trigger": result}
        ),
    )
    return out


def awaiting_text(waiting: list, layout: Layout) -> "str | None":
    """The person's line about settings that wait for their approval (text/consent.py), if any."""
    if not waiting:
        return None
    from deliberation.text import consent as words

    return words.awaiting([i.pair() for i in waiting], layout.project)


def shadows_text(layout: Layout) -> "str | None":
    """The person's line at a session start: which of the plugin's names a file takes (app/shadowed.py)."""
    from deliberation.app import shadowed
    from deliberation.text import shadows as words

    return words.session_start(shadowed.at_session_start(layout)) or None


def self_rating_text(cfg: dict) -> "str | None":
    """The once-per-session instruction on rating a decision (text/self_rating.py), unless the
    trigger or the self-rating is switched off."""
    trig = section(cfg, "trigger")
    if not trig.get("enabled", TRIGGER["enabled"]) or not trig.get("self_rating", TRIGGER["self_rating"]):
        return None
    from deliberation.text import self_rating

    return self_rating.text(
        section(cfg, "task_types").get("thresholds"), plugin_agent_prefix(), trig.get("threshold", TRIGGER["threshold"])
    )


def skill_answer(event: "hookio.ToolEvent", layout: Layout, cfg: dict) -> "hookio.Answer | None":
    """The deliberate command called through the Skill tool: the protocol for its question."""
    from deliberation.core.trigger import score_skill, skill_question
    from deliberation.wire import hookio

    question = skill_question(event.tool_name, event.tool_input)
    if question is None:
        return hookio.Answer()
    result, context = score_skill(question, cfg, plugin_agent_prefix())
    out = hookio.Answer(context=context)
    from deliberation.app import shadowed

    taken = shadowed.forced_by_shadow(layout, str(event.tool_input.get("skill") or ""), result)
    if taken is not None:  # a skill or command of the project answers that name, not the plugin
        out = hookio.Answer(context=taken[0], system_message=taken[1])
    log_line(layout, event, event.raw, out.summary(), ["deliberate command via Skill"], trigger=result)
    return out


def net_answer(event: "hookio.ToolEvent", layout: Layout, cfg: dict) -> "hookio.Answer | None":
    """The mid-task net (core/tool_net.py) on a Bash or edit call: a note, a hold (`ask`) or nothing.

    The call alone decides whether to look further; only a call that looks risky reads the
    event log's tail (was the last prompt rated risky, was this already said) and the session."""
    from deliberation.wire import hookio

    trig = section(cfg, "trigger")
    mode = trig.get("tool_net", TRIGGER["tool_net"])
    if mode not in ("hold", "note", "ask") or not trig.get("enabled", TRIGGER["enabled"]):
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
    call = tool_net.check(event.tool_name, event.tool_input, risky_prompt=bool(trigger.get("triggered") or trigger.get("held")))
    sess = session_state(layout, event.session_id)
    if call is None or deliberation_since(layout, sess, tail.at if tail else 0.0):
        return hookio.Answer()
    said = f"tool-net:{call.kind}"
    held = tool_net.holds(mode, call.kind) and not event.agent_id
    if not held and tail is not None and said in tail.notes:
        return hookio.Answer()  # said once for this prompt; the model has it
    prefix = plugin_agent_prefix()
    if held:  # every such call waits, each time: a note cannot undo it
        from deliberation.state.paths import hook_env

        out = hookio.Answer.ask(net.ask_text(call.kind, call.what, prefix, headless=tool_net.headless(hook_env())))
    else:
        out = hookio.Answer(
            context=net.note_text(
                call.kind, call.what, prefix, in_subagent=bool(event.agent_id), confidence=trigger.get("confidence")
            )
        )
    # logged so it is said once per prompt; a session that never deliberated keeps the call's ids only
    log_line(layout, event, _light(event.raw), out.summary(), [said], keep="full" if (sess or {}).get("deliberations") else "ids")
    return out


def _project_chose(layout: Layout, env: dict) -> bool:
    from deliberation.state import project_env

    return project_env.supplied(layout.project, env).chose("DELIBERATION")


def _project_off(layout: Layout, env: dict) -> bool:
    """The DELIBERATION off word the hooks see is the project's settings' (state/project_env), and
    this user has not approved that (state/consent): it does not switch the plugin off."""
    from deliberation.state import consent

    return _project_chose(layout, env) and not consent.env_off_approved(layout, env)


def stateless_answer(event: "hookio.Event", layout: Layout, exc: BaseException) -> "hookio.Answer":
    """The answer when the state folder cannot be used (`exc`: the UnsafePath that says where):
    from the event itself, with the defaults — the trigger's protocol, the state guard's refusal,
    the mid-task net's note on a force-push or a production delete, the self-rating — and the
    person's line that names the link to remove (every hook says it, as a failing hook would).
    Nothing is read from or written to the state folder; the user's own DELIBERATION=off still
    switches off."""
    from deliberation.core import off_switch as sw
    from deliberation.state.paths import hook_env
    from deliberation.text import switch as words
    from deliberation.wire import hookio

    env = hook_env()
    value = env.get("DELIBERATION")
    if sw.env_off(value) and (env.get("DELIBERATION_AT_CLIENT_START") == "off" or not _project_chose(layout, env)):
        return hookio.Answer()
    link = getattr(exc, "link", None) or layout.root
    told = words.state_unusable(_shown_path(link, layout.project), str(exc))
    prefix = plugin_agent_prefix()
    if isinstance(event, hookio.UserPromptSubmit):
        if event.is_agent_turn:
            return hookio.Answer(system_message=told)
        from deliberation.core.trigger import score_prompt

        _result, context = score_prompt(event.prompt, None, prefix)
        return hookio.Answer(context=context, system_message=told)
    if event.hook_event_name == "SessionStart":
        return hookio.Answer(context=self_rating_text({}), system_message=told)
    if isinstance(event, hookio.PreToolUse):
        if event.tool_name in READ_TOOLS and event.agent_id:
            from deliberation.core.state_guard import refusal

            why = refusal(event.tool_name, event.tool_input, event.agent_type, event.cwd or layout.project, layout.project, _real)
            if why is not None:
                return hookio.Answer.deny(why, system_message=told)
        if event.tool_name == "Skill":
            from deliberation.core.trigger import score_skill, skill_question

            question = skill_question(event.tool_name, event.tool_input)
            context = score_skill(question, None, prefix)[1] if question is not None else None
            return hookio.Answer(context=context, system_message=told)
        from deliberation.core import tool_net
        from deliberation.text import net

        call = tool_net.check(event.tool_name, event.tool_input)
        if call is not None and tool_net.holds(TRIGGER["tool_net"], call.kind) and not event.agent_id:
            why = net.ask_text(call.kind, call.what, prefix, headless=tool_net.headless(env))
            return hookio.Answer.ask(why, system_message=told)
        if call is not None:
            return hookio.Answer(
                context=net.note_text(call.kind, call.what, prefix, in_subagent=bool(event.agent_id)), system_message=told
            )
    return hookio.Answer(system_message=told)  # every hook says it, as a failing one would: until the link goes


def _shown_path(path: str, project: str) -> str:
    import os

    rel = os.path.relpath(path, project)
    return path if rel.startswith("..") else rel


def _real(path: str) -> str:
    """What a path resolves to (the state guard judges a path by it, not by its spelling)."""
    import os

    return os.path.realpath(path)


def switch_answer(event: "hookio.Event", layout: Layout, now: float) -> "tuple[hookio.Answer, bool] | None":
    """The off switch (core/off_switch), before anything else: (answer, final) or None when the
    checks apply. `final`: the hook answers this and does nothing more (the command's
    confirmation, or silence while off); else the answer's note joins the usual answer."""
    from deliberation.core import off_switch as sw
    from deliberation.state.paths import hook_env
    from deliberation.state.session_switch import clear_switch, read_switch, write_switch
    from deliberation.text import switch as words
    from deliberation.wire import hookio

    def say(w: "Any") -> "hookio.Answer":
        return hookio.Answer(context=w.model, system_message=w.person)

    env = hook_env()
    sid = event.session_id
    try:
        switch = read_switch(layout, sid)
    except ValueError:  # not a session id: the usual path reports it
        return None
    value = env.get("DELIBERATION")
    plugin_form = bool(env.get("CLAUDE_PLUGIN_ROOT"))
    namespace = plugin_agent_prefix() if plugin_form else ""
    off_cmd, on_cmd = sw.command_names(plugin_form, namespace or "deliberation:")
    client_off = env.get("DELIBERATION_AT_CLIENT_START") == "off"
    held = None  # the project's settings env switches the plugin off: it waits for this user's approval
    if sw.env_off(value) and not client_off and _project_off(layout, env):
        held, value = value, None
    if isinstance(event, hookio.UserPromptSubmit) and not event.is_agent_turn and event.prompt.lstrip()[:1] in ("/", "<"):
        command = sw.command_of(event.prompt, namespace)
        if command == "off":
            was_off = sw.checks_off(value, switch)[0]
            write_switch(layout, sid, "off", "command", now)
            return say(words.switched_off("command", on_cmd, already=was_off)), True
        if command == "on":
            over_env = sw.env_off(value) or client_off or (switch or {}).get("by") == "environment"
            if over_env:
                write_switch(layout, sid, "on", "command", now)
            else:
                clear_switch(layout, sid)
            return say(words.switched_on(over_env)), True
    off, by = sw.checks_off(value, switch)
    if event.hook_event_name == "SessionStart":
        said = (event.raw or {}).get("source") != "compact"  # after a compaction it was said already
        if not off and client_off and switch is None:  # a project's settings `env` replaced the user's off
            write_switch(layout, sid, "off", "environment", now)
            return say(words.switched_off("environment", on_cmd, project_env=True)), True
        if off:
            by_project = by == "environment" and not client_off and _project_chose(layout, env)
            told = words.switched_off(by, on_cmd, already=by == "command" and switch is not None, by_project=by_project)
            return (say(told) if said else hookio.Answer()), True
        if held is not None and said:
            from deliberation.text import consent as consent_words

            return hookio.Answer(system_message=words.project_env_held(held, consent_words.command(layout.project))), False
        if env.get("DELIBERATION_AT_CLIENT_START") == "unknown" and value and switch is None and said:
            return hookio.Answer(system_message=words.hidden_env(value, off_cmd)), False
    if off:
        return hookio.Answer(), True
    return None
