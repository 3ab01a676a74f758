"""UserPromptSubmit on the slow path (the session has an active deliberation or queued notices).

A `<task-notification>` announces a finished background subagent, and an `<agent-message>`
brings a subagent's hand-back (auto mode, core/handback.py): neither is a user's prompt, and
neither is scored — no trigger, no protocol, no new deliberation from an agent's words. A finished workflow's run is closed (core/workflows.py); a deliberation
agent's result now counts as given to the main agent and a report it carries is captured if
SubagentStop did not record it (core/arrival.py). The context then says what the main agent
may be told now (core/news.py): the queued news of every deliberation whose results have all
arrived, or the progress note — unless the notification changes nothing the main agent must act
on, which asks the client for no turn (core/quiet_wait.py). A real prompt is scored like on the
fast path, with that news appended. Either gives the main agent a turn: it is no longer idle.
"""

from __future__ import annotations

import re

from deliberation.app import shadowed
from deliberation.app.handlers.common import Ctx
from deliberation.core import arrival, news, quiet_wait, token_usage, workflows
from deliberation.core.trigger import score_prompt
from deliberation.state.paths import plugin_agent_prefix
from deliberation.text import progress as progress_words
from deliberation.text import workflow as workflow_words
from deliberation.wire import hookio

_TAG = r"<{0}>(.*?)</{0}>"


def _tag(text: str, name: str) -> "str | None":
    m = re.search(_TAG.format(name), text, re.S)
    return m.group(1).strip() if m else None


def handle(ctx: Ctx, event: hookio.UserPromptSubmit) -> hookio.Answer:
    if event.is_agent_turn:
        # spawn-budget notices go to the user too: the client shows a UserPromptSubmit's
        # systemMessage, not a SubagentStart's (docs/CLIENT_CHANNELS.md); the model reads them
        # with the news below, which empties the queue
        if event.is_agent_message:
            arrived, outcome = _handed_back(ctx, event.prompt), None
        else:
            arrived, outcome = _notification(ctx, event.prompt)
        if outcome is None:
            quiet = _quiet(ctx, event.prompt, arrived)
            if isinstance(quiet, quiet_wait.Quiet):
                ctx.notes.append(f"no turn asked: {', '.join(quiet.waiting_for)} still to arrive")
                return hookio.Answer(
                    stop_reason=progress_words.waiting_quietly(
                        quiet.deliberation, quiet.persona, quiet.stage, quiet.have, quiet.of, quiet.waiting_for
                    )
                )
            ctx.notes.append(f"a turn: {quiet.why} {' '.join(quiet.who)}".rstrip())
        ctx.tx.session.main_idle_since = None
        budget = ctx.budget_for_user()
        person = news.for_person(ctx)
        said = news.due(ctx, arrived.delib)
        answer = hookio.Answer(context=workflow_words.outcome_news(outcome, said) if outcome else said, system_message=budget)
        return answer.warn(person) if person else answer
    ctx.tx.session.main_idle_since = None
    result, context = score_prompt(event.prompt, ctx.cfg.model_dump(mode="json"), plugin_agent_prefix())
    taken = shadowed.forced_by_shadow(ctx.layout, shadowed.typed_command(event.prompt), result) if result.get("forced") else None
    ctx.extra["trigger"] = result
    answer = hookio.Answer(context=context) if taken is None else hookio.Answer(context=taken[0], system_message=taken[1])
    budget = ctx.budget_for_user()
    if budget:
        answer.warn(budget)
    person = news.for_person(ctx)
    if person:
        answer.warn(person)
    said = news.due(ctx, None)
    if said:
        answer.context = f"{answer.context}\n\n{said}" if answer.context else said
    return answer


def _quiet(ctx: Ctx, prompt: str, arrived: arrival.Notified) -> quiet_wait.Outcome:
    """Whether this notification may ask for no turn (core/quiet_wait.py decides)."""
    sess = ctx.tx.session
    active = sess.active_deliberation
    delib = arrived.delib if arrived.delib is not None and arrived.delib.id == active else None
    note = quiet_wait.Notification(
        count=prompt.count(hookio.TASK_NOTIFICATION),
        repeat=arrived.repeat,
        status=(_tag(prompt, "status") or "").lower(),
        handback=hookio.is_agent_message(prompt),
    )
    client = quiet_wait.Client(
        idle_since=sess.main_idle_since,
        running_at_stop=sess.running_at_stop,
        news_due=news.due_now(ctx),
        open_workflows=bool(sess.open_workflows),
        now=ctx.now,
        stale_after_s=ctx.cfg.spawn_budget.stale_after_s,
    )
    return quiet_wait.decide(ctx.cfg.deliberation.quiet_waiting, delib, arrived.rec, note, client)


def _handed_back(ctx: Ctx, prompt: str) -> arrival.Notified:
    """What a hand-back message carries: each agent's report (its `<agent-message>` frame),
    captured if the SubagentHandback call's PostToolUse did not record it first. Returns the
    deliberation agent it came from (arrival.Notified), the first one of a deliberation."""
    first = arrival.Notified()
    for agent_id, report in hookio.agent_messages(prompt):
        arrived = arrival.notified(ctx, agent_id, report or None, None, handback=True)
        if first.rec is None:
            first = arrived
    return first


def _notification(ctx: Ctx, prompt: str) -> "tuple[arrival.Notified, str | None]":
    """What a task notification carries: a finished workflow's overrun summary (queued for the
    user) and, for the plugin's workflow, its outcome; a deliberation agent's result. Returns
    (that agent, its deliberation and whether it had notified before — arrival.Notified —, the
    plugin workflow's outcome or None)."""
    task_id = _tag(prompt, "task-id")
    outcome = None
    if task_id:
        summary, outcome = workflows.finished(ctx, task_id, (_tag(prompt, "status") or "").lower(), prompt)
        if summary:
            ctx.notify_budget(summary)
    return arrival.notified(ctx, task_id, _tag(prompt, "result"), token_usage.notified_tokens(prompt)), outcome
