"""PostToolUse (`Task|Agent|Workflow|SendMessage|StructuredOutput|SubagentHandback`): an Agent
call returned (core/arrival.py: the spawn linked to its agent, a foreground report and what
follows from it); a Workflow launched; a SendMessage answered; a workflow agent's accepted report
filed (core/plugin_workflow.py); a report handed back filed (core/handback.py)."""

from __future__ import annotations

from deliberation.app.handlers.common import Ctx
from deliberation.core import arrival, drafter_call, drafting, handback, plugin_workflow, send_message, workflows
from deliberation.wire import hookio


def handle(ctx: Ctx, event: hookio.PostToolUse) -> hookio.Answer:
    if event.tool_name == hookio.WORKFLOW_TOOL:
        return workflows.launched(ctx, event)
    if event.tool_name == hookio.SEND_MESSAGE_TOOL:
        return send_message.answered(ctx, event)
    if event.tool_name == hookio.REPORT_TOOL:
        return plugin_workflow.report_accepted(ctx, event)
    if event.tool_name == hookio.HANDBACK_TOOL:
        return handback.delivered(ctx, event)
    if not event.is_subagent_tool:
        return hookio.Answer()
    if drafting.is_drafter(event.subagent_type):
        arrival.agent_returned(ctx, event)
        return drafter_call.returned(ctx, event)
    return arrival.agent_returned(ctx, event)
