"""UserPromptSubmit on the slow path (the session has an active deliberation or queued notices).

A `<task-notification>` announces a finished background subagent: it is not a user's prompt
and is never scored; a report it carries is captured if SubagentStop did not record it, and
the agent's result now counts as given to the main agent (`notified`). The context then says
what the main agent has been given: while results of its deliberation are still to arrive, the
progress note (what it has, what is still to come, what to do next); once everything has
arrived, the queued news (gate results, depth-axis instructions) — or the progress note if
there is none. Notes never run ahead of the results they follow from.
A real prompt is scored like on the fast path, with the news that may be said appended.
"""

from __future__ import annotations

import re

from deliberation.core import engine, next_step
from deliberation.wire import hookio
from deliberation.core.capture import capture
from deliberation.app.handlers.common import Ctx, budget_view, queue, record_for_agent

_TAG = r"<{0}>(.*?)</{0}>"


def _tag(text: str, name: str) -> "str | None":
    m = re.search(_TAG.format(name), text, re.S)
    return m.group(1).strip() if m else None


def handle(ctx: Ctx, event: hookio.UserPromptSubmit) -> hookio.Answer:
    if event.is_task_notification:
        delib, outcome = _capture_notification(ctx, event.prompt)
        # spawn-budget notices go to the user too: the client shows a UserPromptSubmit's
        # systemMessage, not a SubagentStart's (docs/CLIENT_CHANNELS.md)
        budget = ctx.budget_for_user()
        news = _news(ctx, delib)
        if outcome:  # the plugin's workflow ended: its outcome, then any other news
            news = f"Deliberation plugin:\n{outcome}" + (f"\n\n{news}" if news else "")
        return hookio.Answer(context=news, system_message=budget)
    answer = _trigger(ctx, event)
    budget = ctx.budget_for_user()
    if budget:
        answer.warn(budget)
    news = _news(ctx, None)
    if news:
        answer.context = f"{answer.context}\n\n{news}" if answer.context else news
    return answer


def _capture_notification(ctx: Ctx, prompt: str):
    """Capture what a task notification carries: (the deliberation the notified agent belongs
    to — None if it is no deliberation agent —, the outcome of the plugin's workflow when it was one of its runs)."""
    task_id = _tag(prompt, "task-id")
    result = _tag(prompt, "result")
    outcome = None
    if task_id:
        from deliberation.app.handlers import workflow_tool

        summary, outcome = workflow_tool.finished_notice(ctx, task_id, (_tag(prompt, "status") or "").lower(),
                                                         prompt)
        if summary:
            ctx.notify_budget(summary)
    if not task_id:
        return None, outcome
    delib, rec = record_for_agent(ctx, task_id, None)
    if rec is None or delib is None:
        return None, outcome
    rec.notified = True  # the main agent has this agent's result (notes and Stop count on it)
    from deliberation.core import token_usage

    token_usage.count(delib, rec, token_usage.notified_tokens(prompt), "task-notification")
    if result is None or rec.status not in ("spawned", "running"):
        return delib, outcome
    d = ctx.cfg.deliberation
    outcome = capture(delib, rec, result, stop_hook_active=True, max_bytes=d.max_report_bytes,
                      retries=d.report_retries, dimensions=[x.name for x in ctx.cfg.ranking.dimensions],
                      now=ctx.now)
    ctx.notes.append(f"report from task notification: {outcome.status}")
    queue(ctx, engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now), delib)
    return delib, outcome


def _news(ctx: Ctx, notified) -> "str | None":
    """What may be said now: the queued news of every deliberation whose results have all
    reached the main agent (the rest stays queued), and for the deliberation of the agent just
    notified, its progress note when no news of it is said."""
    sess = ctx.tx.session
    delibs: dict = {}
    waiting: dict = {}
    said: list[str] = []
    kept = []
    then_next: list[str] = []
    for n in sess.notices:
        if not n.deliberation_id:  # a session-wide notice (the spawn budget): nothing to wait for
            waiting[""] = False
        elif n.deliberation_id not in waiting:
            d = delibs[n.deliberation_id] = ctx.tx.deliberation(n.deliberation_id)
            waiting[n.deliberation_id] = bool(d is not None and d.phase not in ("COMPLETE", "FAILED")
                                              and next_step.to_arrive(d))
        if waiting[n.deliberation_id]:
            kept.append(n)
            continue
        if n.text not in said:
            said.append(n.text)
        if n.then_next and n.deliberation_id not in then_next and delibs.get(n.deliberation_id) is not None:
            then_next.append(n.deliberation_id)
    spoke_of = {n.deliberation_id for n in sess.notices if not waiting[n.deliberation_id]}
    sess.notices = kept
    for did in then_next:  # the step as it stands now, after all of that deliberation's news
        nxt = next_step.next_step(delibs[did], ctx.cfg).text
        if nxt:
            said.append(nxt)
    if notified is not None and notified.id not in spoke_of and notified.phase not in ("COMPLETE", "FAILED"):
        said.append(engine.progress_text(notified, ctx.cfg))
    if not said:
        return None
    return "Deliberation plugin:\n" + "\n\n".join(said)


def _trigger(ctx: Ctx, event: hookio.UserPromptSubmit) -> hookio.Answer:
    from deliberation.core.trigger import score_prompt
    from deliberation.state.paths import plugin_agent_prefix

    result, context = score_prompt(event.prompt, ctx.cfg.model_dump(mode="json"), plugin_agent_prefix())
    ctx.extra["trigger"] = result
    return hookio.Answer(context=context)
