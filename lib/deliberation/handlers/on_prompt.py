"""UserPromptSubmit on the slow path (the session has an active deliberation or queued notices).

A `<task-notification>` announces a finished background subagent: it is not a user's prompt
and is never scored; a report it carries is captured if SubagentStop did not record it, and the
queued notices (gate results, depth-axis instructions) are delivered as additional context.
A real prompt is scored like on the fast path, with the notices appended.
"""

from __future__ import annotations

import re

from deliberation import engine, hookio
from deliberation.capture import capture
from deliberation.handlers.common import Ctx, budget_view, record_for_agent

_TAG = r"<{0}>(.*?)</{0}>"


def _tag(text: str, name: str) -> "str | None":
    m = re.search(_TAG.format(name), text, re.S)
    return m.group(1).strip() if m else None


def handle(ctx: Ctx, event: hookio.UserPromptSubmit) -> hookio.Answer:
    if event.is_task_notification:
        _capture_notification(ctx, event.prompt)
        # spawn-budget notices go to the user too: the client shows a UserPromptSubmit's
        # systemMessage, not a SubagentStart's (docs/CLIENT_CHANNELS.md)
        budget = ctx.budget_for_user()
        return hookio.Answer(context=_drain_notices(ctx), system_message=budget)
    answer = _trigger(ctx, event)
    budget = ctx.budget_for_user()
    if budget:
        answer.warn(budget)
    notices = _drain_notices(ctx)
    if notices:
        answer.context = f"{answer.context}\n\n{notices}" if answer.context else notices
    return answer


def _capture_notification(ctx: Ctx, prompt: str) -> "str | None":
    """Capture what a task notification carries; returns a finished workflow's overrun summary."""
    task_id = _tag(prompt, "task-id")
    result = _tag(prompt, "result")
    summary = None
    if task_id:
        from deliberation.handlers import workflow_tool

        summary = workflow_tool.finished_notice(ctx, task_id, (_tag(prompt, "status") or "").lower())
        if summary:
            ctx.notify_budget(summary)
    if not task_id or result is None:
        return summary
    delib, rec = record_for_agent(ctx, task_id, None)
    if rec is not None:
        rec.notified = True  # the main agent has seen this agent's result (Stop waits for it)
    if rec is not None and delib is not None:
        from deliberation import token_usage

        token_usage.count(delib, rec, token_usage.notified_tokens(prompt), "task-notification")
    if rec is None or delib is None or rec.status not in ("spawned", "running"):
        return summary
    d = ctx.cfg.deliberation
    outcome = capture(delib, rec, result, stop_hook_active=True, max_bytes=d.max_report_bytes,
                      retries=d.report_retries, dimensions=[x.name for x in ctx.cfg.ranking.dimensions],
                      now=ctx.now)
    ctx.notes.append(f"report from task notification: {outcome.status}")
    step = engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now)
    if step.block or step.context:
        ctx.notify(delib, "gate1" if step.block else "info", step.block or step.context or "", bool(step.block))
    return summary


def _drain_notices(ctx: Ctx) -> "str | None":
    notices = ctx.tx.session.notices
    if not notices:
        return None
    ctx.tx.session.notices = []
    seen: list[str] = []
    for n in notices:
        if n.text not in seen:
            seen.append(n.text)
    return "Deliberation plugin:\n" + "\n\n".join(seen)


def _trigger(ctx: Ctx, event: hookio.UserPromptSubmit) -> hookio.Answer:
    from deliberation.fastpath import score_prompt

    result, context = score_prompt(event.prompt, ctx.cfg.model_dump(mode="json"))
    ctx.extra["trigger"] = result
    return hookio.Answer(context=context)
