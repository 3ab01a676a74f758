"""Scripted sessions that run the deliberation as the plugin's own workflow (docs/WORKFLOW.md).

The main agent makes the one call the protocol names — `Workflow({name, args})` — ends its turn,
and when the workflow's task notification arrives answers with the decision document the plugin
asked for (`concluding_answer`). The real client runs workflows/deliberate.js; the subagents it
starts are told apart the way a model would: a persona by its system prompt (the agent file's
body, "# Security Analyst — deliberation persona"), its stage by the "Phase: …" line of its
prompt (which arrives inside the client's "[Workflow harness — computed task]" frame, every line
indented by two spaces), a checkpoint by its prompt. Each answers by calling StructuredOutput;
after a denial it reads the reason and calls again, as a model does.
"""

from __future__ import annotations

import json
import re

from fake_api import ApiRequest, ReplyLike, text, tool_use
from scenarios import CITABLE_LINE, Scenario, concluding_answer, decision_document
from scenarios_gates import RANKING_PASS, RED_TEAM_CLEAN, RESEARCH, SYNTHESIS

PHASE_LINE = re.compile(r"^\s*Phase: ([a-z-]+)\s*$", re.M)
CHECKPOINT = re.compile(r"Checkpoint of the deliberation workflow after its ([a-z0-9-]+) wave")
CHECKPOINT_VALUES = re.compile(r"with exactly (\{.*?\}) and nothing else")
TITLE = re.compile(r"^# (.+?) — deliberation (?:persona|role)\s*$", re.M)
DENIED = "PreToolUse:StructuredOutput hook error:"
DRAFTING = "Phase: decision document of deliberation "
WORKFLOW_LAUNCHED = "Workflow launched in background"
PANEL = ["security-analyst", "performance-engineer", "cost-analyst"]
DEBATE = {
    "phase": "deliberation",
    "summary": "The perspectives disagree on nothing the synthesis leaves open.",
    "conflicts": [],
    "confidence": 0.6,
}


def _titles() -> "dict[str, str]":
    from deliberation.core.personas import ALL

    return {title: slug for slug, (title, _prio) in ALL.items()}


def persona_of(req: ApiRequest) -> "str | None":
    """The persona or role of a subagent, from its system prompt (the agent file's heading)."""
    m = TITLE.search(req.system)
    return _titles().get(m.group(1).strip()) if m else None


def phase_of(req: ApiRequest) -> "str | None":
    m = PHASE_LINE.search(req.agent_prompt)
    return m.group(1) if m else None


def report_schema(req: ApiRequest) -> dict:
    for tool in req.body.get("tools") or []:
        if tool.get("name") == "StructuredOutput":
            return tool.get("input_schema") or {}
    return {}


def calls(req: ApiRequest, name: str) -> "list[dict]":
    return [u for u in req.tool_uses if u.get("name") == name]


def notified(req: ApiRequest, tool_use_id: str) -> bool:
    return any(f"<tool-use-id>{tool_use_id}</tool-use-id>" in n for n in req.task_notifications)


def standard_table() -> dict:
    """(slug, stage) → report: the passing deliberation of the gate scenarios, with a debate."""
    table: dict = {(slug, "research"): r for slug, r in RESEARCH.items()}
    table[("synthesis-lead", "deliberation")] = SYNTHESIS
    table[("debate-moderator", "deliberation")] = DEBATE
    table[("red-team", "deliberation")] = RED_TEAM_CLEAN
    for slug, r in RANKING_PASS.items():
        table[(slug, "ranking")] = r
    return table


class WorkflowDeliberation(Scenario):
    """The one-call deliberation.

    mode       "plugin" (`deliberation:deliberate`) or "install" (`deliberate`, from .claude/workflows/)
    args       the Workflow call's args (default: the question and a 3-persona panel)
    reports    (slug, stage) → report dict (default: `standard_table`)
    first_bad  slugs whose FIRST StructuredOutput call is invalid (then corrected after the denial)
    never      slugs that never produce a valid report (every call invalid: the client's cap)
    """

    final_text = "Decision: A (per-node price cache with a 30 s TTL and invalidation events); dissent recorded."
    waiting_text = "The deliberation runs as the plugin's workflow; I will wait for its notification."

    def __init__(
        self,
        question: str,
        mode: str = "plugin",
        args=None,
        reports: "dict | None" = None,
        first_bad: "set[str] | None" = None,
        never: "set[str] | None" = None,
        name: "str | None" = None,
    ) -> None:
        self.question = question
        self.mode = mode
        self.args = (
            args
            if args is not None
            else {
                "question": question,
                "personas": PANEL,
                "context": "the order service (orders/), the pricing database and its replicas, a checkout budget of 120 ms",
            }
        )
        self.reports = reports or standard_table()
        self.first_bad = first_bad or set()
        self.never = never or set()
        self.name = name or ("deliberation:deliberate" if mode == "plugin" else "deliberate")

    # -- main agent ------------------------------------------------------------------

    def main(self, req: ApiRequest) -> ReplyLike:
        flows = calls(req, "Workflow")
        if not flows:
            return [
                text("I will run the deliberation as the plugin's workflow."),
                tool_use("Workflow", {"name": self.name, "args": self.args}),
            ]
        result = req.tool_result_for(flows[-1]["id"])
        if result is not None and result.get("is_error"):
            return self.refused(req, result["text"])
        if not notified(req, flows[-1]["id"]):
            return self.waiting_text
        return self.final(req)

    def refused(self, req: ApiRequest, reason: str) -> ReplyLike:
        return f"The plugin refused the workflow: {reason[:300]}"

    def final(self, req: ApiRequest) -> ReplyLike:
        return concluding_answer(self.final_text, req)

    # -- subagents -------------------------------------------------------------------

    def subagent(self, req: ApiRequest) -> ReplyLike:
        if "StructuredOutput" not in req.tool_names:
            return "No report tool was offered."
        done = [r for r in req.tool_results if "Structured output provided successfully" in r["text"]]
        if done:
            return "Reported."
        cp = CHECKPOINT.search(req.agent_prompt)
        if cp:
            given = CHECKPOINT_VALUES.search(req.agent_prompt)
            return [tool_use("StructuredOutput", json.loads(given.group(1)) if given else {"checkpoint": cp.group(1)})]
        if DRAFTING in req.agent_prompt:
            return [text("drafter reporting."), tool_use("StructuredOutput", self.drafted(req))]
        slug, stage = persona_of(req), phase_of(req)
        if stage is None and "tier-2 worker" in req.agent_prompt:
            stage = "deliberation"
        tries = sum(1 for r in req.tool_results if DENIED in r["text"])
        report = self.report_for(slug or "", stage or "", req)
        if slug in self.never or (slug in self.first_bad and tries == 0):
            report = {k: v for k, v in report.items() if k != "phase"}  # invalid: no phase
        return [text(f"{slug} reporting."), tool_use("StructuredOutput", report)]

    def drafted(self, req: ApiRequest) -> dict:
        """The drafter's document: what a model that follows its material writes, citing the items
        it was handed whole (each `- id (kind…): text` line)."""
        ids = [(m.group(1), m.group(2)) for line in req.agent_prompt.splitlines() if (m := CITABLE_LINE.match(line.strip()))]
        return decision_document(ids, "No approach is adopted" in req.agent_prompt)

    def report_for(self, slug: str, stage: str, req: ApiRequest) -> dict:
        report = dict(self.reports.get((slug, stage)) or {"phase": stage, "summary": "nothing to add", "confidence": 0.5})
        if stage == "ranking":  # score exactly the approaches the schema names
            wanted = report_schema(req).get("properties", {}).get("scores", {}).get("required") or []
            scores = report.get("scores") or {}
            fallback = next(iter(scores.values()), {})
            report["scores"] = {a: scores.get(a, fallback) for a in wanted} or scores
        return json.loads(json.dumps(report))
