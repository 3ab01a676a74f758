"""Scripted sessions for the client's other channels to subagents: a Workflow fan-out
inside and outside a deliberation, and SendMessage resumes (the research leak through a resume,
the gate's "document your dissent" followed by a resume).

The main agent loads SendMessage the way the client asks it to (ToolSearch `select:SendMessage`)
and finds agent ids where the model would: in the Agent tool results (`agentId: …`) and in the
plugin's gate reasons. A resumed agent's request is its own conversation plus the client's
"The coordinator sent a message while you were working: …" — `resumed_with(req)` reads it.
A workflow's agents are told their task inside the client's "[Workflow harness — computed task]"
frame; every workflow prompt here starts with `WF-`.
"""

from __future__ import annotations

import re

from fake_api import ApiRequest, ReplyLike, text, tool_use
from scenarios import Scenario, agent_spawns, report_message
from scenarios_gates import (
    BREADTH,
    CACHE,
    DATABASE,
    GATE1_FAILED,
    PANEL,
    RANKING_PASS,
    SHARED,
    StagedDeliberation,
    concern,
    ranking_report,
    spawn_batches,
    unsettled,
)

AGENT_ID = re.compile(r"agentId: (a[0-9a-f]+)")
PERSONA_LINE = re.compile(r"^PERSONA: ([a-z0-9-]+)$", re.M)
COORDINATOR = "The coordinator sent a message while you were working:"
WORKFLOW_LAUNCHED = "Workflow launched in background"
DENIED_WORKFLOW = "PreToolUse:Workflow hook error:"
# a denied SendMessage's tool result is the reason verbatim (no "PreToolUse:… hook error:" prefix,
# unlike a denied Agent or Workflow call) — measured on 2.1.328

META = "export const meta = {{name: '{name}', description: '{description}', phases: [{{title: 'Research'}}]}}\n"


def fan_out(n: int, name: str = "fan-out-research", prefix: str = "WF-RESEARCH") -> str:
    """The measured case: one agent() per item of a literal list, all in parallel."""
    items = ", ".join(f"'angle {i}'" for i in range(1, n + 1))
    return (
        META.format(name=name, description=f"research the question from {n} angles")
        + f"const ANGLES = [{items}]\n"
        + f"return await parallel(ANGLES.map(a => () => agent(`{prefix}: research ${{a}}`, {{label: a, phase: 'Research'}})))\n"
    )


HELPERS = (
    META.format(name="pricing-call-sites", description="list the pricing call sites")
    + "const DIRS = ['orders/', 'checkout/']\n"
    + "return await parallel(DIRS.map(d => () => agent(`WF-HELPER: list the pricing call sites in ${d}`, "
    "{label: d, phase: 'Research'})))\n"
)


# --------------------------------------------------------------------------- request questions


def calls(req: ApiRequest, name: str) -> "list[dict]":
    return [u for u in req.tool_uses if u.get("name") == name]


def notified(req: ApiRequest, tool_use_id: str) -> bool:
    """A <task-notification> names this tool call (a workflow, or a SendMessage's resumed agent)."""
    return any(f"<tool-use-id>{tool_use_id}</tool-use-id>" in n for n in req.task_notifications)


def agent_ids(req: ApiRequest) -> "dict[str, str]":
    """persona slug → agent id of its latest Agent call, read from the tool results."""
    out = {}
    for call in agent_spawns(req):
        result = req.tool_result_for(call["id"])
        persona = PERSONA_LINE.search(call["input"].get("prompt", ""))
        found = AGENT_ID.search(result["text"]) if result else None
        if persona and found:
            out[persona.group(1)] = found.group(1)
    return out


def resumed_with(req: ApiRequest) -> str:
    """The message a SendMessage brought to this (resumed) subagent, '' when none."""
    return req.new_text.split(COORDINATOR, 1)[1] if COORDINATOR in req.new_text else ""


def load_send_message() -> dict:
    return tool_use("ToolSearch", {"query": "select:SendMessage", "max_results": 1})


# --------------------------------------------------------------------------- scenarios


class WorkflowInDeliberation(StagedDeliberation):
    """Research wave → the measured case, a Workflow fanning out 15 research agents (refused: no
    agent of it runs) → a Workflow of 2 helper agents (refused too: inside a deliberation only the
    plugin's own workflow runs) → synthesis → ranking → final. With `early`, the fan-out comes
    right after the prompt, before any deliberation is open (the deliberation is requested)."""

    def __init__(self, *args, early: bool = False, **kw) -> None:
        super().__init__(*args, **kw)
        self.early = early

    def main(self, req: ApiRequest) -> ReplyLike:
        flows = calls(req, "Workflow")
        if self.early and not flows:
            return [
                text("Fanning the research out over 15 angles with a workflow."),
                tool_use("Workflow", {"script": fan_out(15)}),
            ]
        batches = spawn_batches(req)
        if batches and unsettled(req, batches[-1]):
            return self.waiting_text
        if len(batches) == 1 and not self.early:  # research is in: the workflows, before synthesis
            if not flows:
                return [
                    text("Fanning the research out over 15 angles with a workflow."),
                    tool_use("Workflow", {"script": fan_out(15)}),
                ]
            if len(flows) == 1:
                return [
                    text("The plugin refused that; a small helper workflow instead."),
                    tool_use("Workflow", {"script": HELPERS}),
                ]
            result = req.tool_result_for(flows[1]["id"])
            if not (result and result.get("is_error")) and not notified(req, flows[1]["id"]):
                return "Waiting for the helper workflow."
        return super().main(req)

    def subagent(self, req: ApiRequest) -> ReplyLike:
        if "WF-HELPER" in req.agent_prompt:
            return "orders/pricing_client.py:14 and checkout/totals.py:52 call the pricing database."
        if "WF-RESEARCH" in req.agent_prompt:
            return "A research angle (this agent should never have run)."
        return super().subagent(req)


class FanOutOutside(Scenario):
    """No deliberation: a Workflow fanning out `n` agents against a session total below n (the
    plugin lets it run, counts it and says so), then an Agent spawn the total refuses."""

    final_text = "The fan-out is done; the spawn budget refused the extra helper."

    def __init__(self, n: int, background: bool) -> None:
        self.n = n
        self.background = background

    def main(self, req: ApiRequest) -> ReplyLike:
        flows = calls(req, "Workflow")
        if not flows:
            return [text("Running the fan-out workflow you asked for."), tool_use("Workflow", {"script": fan_out(self.n)})]
        if not notified(req, flows[0]["id"]):
            return "Waiting for the workflow."
        if not agent_spawns(req):
            from fake_api import agent_call

            return [
                text("One more helper."),
                agent_call(
                    "PERSONA: helper\nList the pricing call sites.",
                    "general-purpose",
                    run_in_background=None if self.background else False,
                ),
            ]
        return self.final_text

    def subagent(self, req: ApiRequest) -> ReplyLike:
        return "angle researched: nothing new."


# the ranking of the resume scenario: cost-analyst prefers C but documents nothing → Gate 1 fails on
# dissent_documented alone (consensus 1.6 / 1.8 = 0.8889: its scores put A first, so its stated C
# carries no weight against A)
UNDOCUMENTED = dict(RANKING_PASS)
# a light dissent by its scores (C ahead of A by 0.1, no stated preference): the consensus holds
# and only the undocumented dissent fails (a stated dissent weighs at least 0.5)
UNDOCUMENTED["cost-analyst"] = ranking_report({"A": 9.0, "B": 6.0, "C": 9.1}, preferred=None)
DOCUMENTED_COST = ranking_report(
    {"A": 9.0, "B": 6.0, "C": 9.1},
    preferred=None,
    dissent=[concern("A", "the invalidation events need a paid bus tier", "finance/infra-2024.csv:31 quotes it")],
)
DISSENT_REQUEST = "Document your dissent: give a concern and its reason in `dissent`."
LEAK_MARKER = "the security-analyst found:"


class ResumeDeliberation(StagedDeliberation):
    """Research (3 personas) → SendMessage to cost-analyst carrying security-analyst's finding
    (the leak: denied) → synthesis → ranking, where cost-analyst dissents without reasons
    → the consensus gate names it and says to resume it with SendMessage → the main agent does,
    the resumed cost-analyst documents its dissent, and its new report replaces the old one →
    the deliberation concludes."""

    def __init__(self, reports: dict, mode: str = "install", background: bool = False) -> None:
        super().__init__(reports, BREADTH, mode, background)

    def main(self, req: ApiRequest) -> ReplyLike:
        batches = spawn_batches(req)
        if batches and unsettled(req, batches[-1]):
            return self.waiting_text
        sends = calls(req, "SendMessage")
        if not calls(req, "ToolSearch"):
            if len(batches) == 1:
                return [text("Loading SendMessage to follow up with the cost analyst."), load_send_message()]
        elif len(batches) == 1 and not sends:
            finding = self.reports[("security-analyst", "research")]["findings"][0]["claim"]
            return [
                tool_use(
                    "SendMessage",
                    {
                        "to": agent_ids(req)["cost-analyst"],
                        "summary": "follow-up",
                        "message": f"Reconsider: {LEAK_MARKER} {finding}",
                    },
                )
            ]
        if len(batches) == 3 and req.saw(GATE1_FAILED) and len(sends) == 1:
            named = re.search(r"have cost-analyst \(agent (a[0-9a-f]+)\) document, in `dissent`, a concern", req.all_text)
            if named:
                return [
                    text("Asking cost-analyst to document its dissent, as the gate says."),
                    tool_use("SendMessage", {"to": named.group(1), "summary": "document dissent", "message": DISSENT_REQUEST}),
                ]
        if len(sends) == 2 and not notified(req, sends[1]["id"]):
            return "Waiting for the resumed cost-analyst."
        return super().main(req)

    def answer(self, slug: str, phase: str, round_: int, req: ApiRequest) -> ReplyLike:
        if slug == "cost-analyst" and phase == "ranking" and DISSENT_REQUEST in resumed_with(req):
            return report_message(DOCUMENTED_COST, prose="cost-analyst: dissent documented.")
        return super().answer(slug, phase, round_, req)


def resume_reports() -> dict:
    from scenarios_gates import standard_reports

    return standard_reports(ranking=UNDOCUMENTED)


__all__ = ["CACHE", "DATABASE", "SHARED", "PANEL"]
