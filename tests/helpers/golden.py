"""The golden answers: one file per answer kind and case under tests/data/answers/.

Each case builds its outcome the way the rules do (a gate evaluated over a built deliberation,
the figures a Stop or the spawn budget passes on) and names the text-layer function that words
it. A case file holds that input and the words it renders to:

    {"render": "gates.gate_failed", "input": {...}}
    --- model
    <what the model reads>
    --- person
    <what the person sees>

(a function that returns one text has the single section `--- text`). tests/unit/test_answer_texts.py
renders every file's input and compares, and checks that the files are the cases listed here.

Regenerate after a change of wording or of a rule's outcome, then review the diff:

    python -m tests.helpers.golden          # rewrite tests/data/answers/ from the cases below
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from deliberation.core import consensus_gate
from deliberation.core.ranking import rank
from deliberation.state.models import ConformityWarning
from deliberation.text import Words
from tests.helpers import payloads as P
from tests.helpers.gates import gate2

ROOT = Path(__file__).resolve().parents[1] / "data" / "answers"
W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
DID = "d-5e55a7c1-1"
CALL = 'Workflow({name: "deliberation:deliberate", args: {question: "Redis or the database?"}})'


# --------------------------------------------------------------------------------------------
# rendering a case


def function(name: str) -> Callable[..., Any]:
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(f"deliberation.text.{module}"), attr)


def render(name: str, data: Any) -> "dict[str, str]":
    """The sections a case renders to: {'text': …} or {'model': …, 'person': …} (absent ones left out)."""
    fn = function(name)
    params = list(inspect.signature(fn).parameters.values())
    hint = fn.__annotations__.get(params[0].name) if len(params) == 1 else None
    model = _model(fn, hint)
    out = fn(model.model_validate(data)) if model is not None else fn(**data)
    if isinstance(out, Words):
        return {k: v for k, v in (("model", out.model), ("person", out.person)) if v is not None}
    return {"text": out}


def _model(fn, hint) -> "type[BaseModel] | None":
    if hint is None:
        return None
    cls = getattr(importlib.import_module(fn.__module__), hint, None) if isinstance(hint, str) else hint
    return cls if isinstance(cls, type) and issubclass(cls, BaseModel) else None


def dump(name: str, data: Any) -> str:
    head = json.dumps({"render": name, "input": data}, indent=1, ensure_ascii=False, sort_keys=True)
    body = "".join(f"--- {k}\n{v}\n" for k, v in render(name, data).items())
    return f"{head}\n{body}"


def parse(text: str) -> "tuple[str, Any, dict[str, str]]":
    """(render, input, sections) of a case file."""
    head, sep, rest = text.partition("\n--- ")
    doc = json.loads(head)
    sections: dict[str, str] = {}
    for chunk in ("--- " + rest).split("\n--- ") if sep else []:
        key, _, value = chunk.removeprefix("--- ").partition("\n")
        sections[key] = value[:-1] if value.endswith("\n") else value
    return doc["render"], doc["input"], sections


# --------------------------------------------------------------------------------------------
# the cases


def _gate1(phase="RANKING", task_type="architecture", table=None, extra=(), min_agents=2, two_agent=None):
    table = table or {"A": (9, 9, 9, 9, 9), "B": (6, 6, 6, 6, 6)}
    agents = [P.agent_record(p, "ranking", P.ranking_json(table, preferred="A"), key=f"k-{p}")
              for p in ("security-analyst", "performance-engineer", "cost-analyst")] + list(extra)
    d = P.make_deliberation(agents, phase=phase, task_type=task_type, did=DID)
    d.ranking = rank(d.agents, W)
    if two_agent:
        from deliberation.state.models import TwoAgentCheck

        d.two_agent = TwoAgentCheck(verdict=two_agent, agents=["security-analyst", "performance-engineer"],
                                    detail="same position")
    r = consensus_gate.evaluate(d, min_agents, 0)
    return {"deliberation": d.id, "result": r.model_dump(mode="json")}


def _gate2(before=0.5, after=0.8, a_score=8.8, personas=("security-analyst", "performance-engineer", "cost-analyst"),
           scored=("A", "B"), **bars):
    def research(persona):
        return P.agent_record(persona, "research", {
            "findings": [{"id": "F1", "claim": f"{persona} claim", "evidence": "e"}],
            "approaches": [{"id": "A", "title": "outbox"}, {"id": "B", "title": "dual write"}],
            "verdict": "abstain", "dissent": [], "confidence": before}, key=f"r-{persona}")
    table = {"A": (a_score,) * 5, "B": (5,) * 5}
    agents = [research(p) for p in personas]
    agents += [P.agent_record(p, "ranking", P.ranking_json({k: table[k] for k in scored}, preferred="A",
                                                           confidence=after), key=f"k-{p}") for p in personas]
    d = P.make_deliberation(agents, initial_confidence=0.5, did=DID)
    d.ranking = rank(d.agents, W)
    return {"deliberation": d.id, "result": gate2(d, **bars).model_dump(mode="json")}


def _dissenter():
    return P.agent_record("ux-advocate", "ranking", P.ranking_json({"A": (9, 9, 9, 9, 9), "B": (10, 10, 10, 10, 10)},
                                                                     preferred="B"), key="a-ux-1")


CONFORMITY = [ConformityWarning(detector="score_clustering", agents=["k-a", "k-b", "k-c"],
                                evidence="3 agents within 0.3 points on A (8.4–8.6).").model_dump(mode="json")]
REQUEST = "Next: write the decision document (PRD) in your concluding answer — the deliberation closes with it."
TWO = dict(deliberation=DID, agents=["performance-engineer", "security-analyst"], detail="both prefer A")
HOLD = "Deliberation d-5e55a7c1-1 — quality gate FAILED:\n- complexity_handling: FAIL — 1 alternatives (need 2)\nNext: generate at least one more alternative."


def cases() -> "dict[str, tuple[str, Any]]":
    """case path (kind/case) → (text-layer function, its input)."""
    return {
        # Gate 1 — the hold names each failed check with its figure, then the next step
        "gate1/phase_before_ranking": ("gates.gate_failed", _gate1(phase="DELIBERATION")),
        "gate1/phase_in_research": ("gates.gate_failed", _gate1(phase="RESEARCH")),
        "gate1/phase_two_agent_form": ("gates.gate_failed", _gate1(phase="RESEARCH", two_agent="proceed")),
        "gate1/too_few_rankers": ("gates.gate_failed", _gate1(min_agents=4)),
        "gate1/consensus_below_threshold": ("gates.gate_failed", _gate1(
            table={"A": (6.2,) * 5, "B": (5,) * 5}, task_type="architecture")),
        "gate1/dissent_undocumented": ("gates.gate_failed", _gate1(task_type="default", extra=[_dissenter()])),
        # Gate 2 — every check with pass/FAIL and its figure
        "gate2/improvement_evidence": ("gates.gate_failed", _gate2(before=0.9, after=0.8)),
        "gate2/method_diversity": ("gates.gate_failed", _gate2(min_distinct_personas=4)),
        "gate2/complexity_handling": ("gates.gate_failed", _gate2(scored=("A",), min_alternatives=3)),
        "gate2/weak_consensus": ("gates.gate_failed", _gate2(a_score=6.0)),
        # what follows a report
        "notes/vote_passed": ("notes.vote_passed", dict(deliberation=DID, leading="A", consensus=0.86,
                                                        threshold=0.80, request=REQUEST)),
        "notes/vote_passed_with_conformity": ("notes.vote_passed", dict(
            deliberation=DID, leading="A", consensus=0.86, threshold=0.80, conformity=CONFORMITY, request=REQUEST)),
        "notes/unanimous_reject": ("notes.vote_passed", dict(
            deliberation=DID, rejected=True, rejections=3, request=REQUEST,
            concerns=[{"persona": "security-analyst", "concern": "dual write loses events", "reason": "no outbox"},
                      {"persona": "cost-analyst", "concern": "the CDC licence", "reason": "per-core pricing"}])),
        "notes/two_agent_no_position": ("notes.two_agent_form", dict(TWO, verdict="no_position", case="no_position")),
        "notes/two_agent_proceed": ("notes.two_agent_form", dict(TWO, verdict="proceed", case="agree")),
        "notes/two_agent_suspect_herding": ("notes.two_agent_form", dict(TWO, verdict="suspect_herding", case="agree")),
        "notes/two_agent_depth_off": ("notes.two_agent_form", dict(
            TWO, verdict="investigate", case="depth_off", why="ceiling dialled down: task type 'documentation' is off")),
        "notes/two_agent_deepen": ("notes.two_agent_form", dict(
            TWO, verdict="investigate", case="deepen", instruction="Depth axis: …the depth step's instruction…")),
        "notes/two_agent_depth_skipped": ("notes.two_agent_form", dict(
            TWO, verdict="investigate", case="skipped", why="depth skipped: budget — used 6 of 6 tier-2 agents.")),
        "notes/depth_skipped": ("notes.depth_skipped", dict(reason="depth skipped: budget — used 400000 of 400000 "
                                                                   "subagent tokens (depth.token_budget).")),
        "notes/not_finished": ("notes.not_finished", dict(deliberation=DID, phase="DELIBERATION",
                                                          progress="…the progress note…")),
        "notes/reminder": ("notes.reminder", dict(progress="…the progress note…")),
        # the Stop
        "stop/held": ("stop.stop_held", dict(deliberation=DID, hold=HOLD, count=2, limit=3)),
        "stop/failed": ("stop.stop_failed", dict(deliberation=DID, hold=HOLD, limit=3)),
        "stop/document_sent_back": ("stop.document_sent_back", dict(problem="…what is wrong, and the block to write…")),
        "stop/completed": ("stop.completed", dict(deliberation=DID, leading="A", consensus=0.86, threshold=0.80,
                                                  task_type="architecture", route="auto-execute",
                                                  record=".claude/deliberation/records/d-5e55a7c1-1.md",
                                                  document="2 requirements, 2 acceptance criteria, 1 risk")),
        "stop/completed_unanimous_reject": ("stop.completed", dict(
            deliberation=DID, rejected=True, rejections=3, route="auto-reject", record="records/d-5e55a7c1-1.md",
            document="1 risk")),
        "stop/completed_document_missing": ("stop.completed", dict(
            deliberation=DID, leading="A", consensus=0.86, threshold=0.80, task_type="architecture",
            route="auto-execute", record="records/d-5e55a7c1-1.md", send_backs=1,
            problem="no decision document block in the concluding answer")),
        "stop/completed_awaits_review": ("stop.completed", dict(
            deliberation=DID, leading="A", consensus=0.91, threshold=0.85, task_type="security", route="human-review",
            record="records/d-5e55a7c1-1.md", document="1 requirement, 1 acceptance criterion, 1 risk",
            review={"notice": "…what the main agent must tell the user (core/human_review.py)…",
                    "message": "HUMAN REVIEW NEEDED: …"})),
        # a spawn or a message refused
        "refusals/research_leak": ("refusals.research_leak", dict(
            refs=["security-analyst:F1", "cost-analyst:F2"],
            claims={"security-analyst:F1": "Dual-write doubles the credential surface for the orders database "
                                           "during the whole migration window",
                    "cost-analyst:F2": "A six-hour window costs 40k"})),
        "refusals/research_leak_in_a_message": ("refusals.research_leak", dict(
            refs=["cost-analyst:F2"], claims={"cost-analyst:F2": "A six-hour window costs 40k"},
            subject="this message to research agent security-analyst (agent a1)",
            instead="send it nothing of other agents' findings")),
        "refusals/findings_missing": ("refusals.findings_missing", dict(
            role="`synthesis-lead`", missing=["cost-analyst:F1"],
            table=[["security-analyst:F1", "Sessions hold PII", "src/session.py:10"],
                   ["cost-analyst:F1", "Replicas cost 4.1k a month", ""]])),
        "refusals/findings_missing_not_arrived": ("refusals.findings_missing", dict(
            role="`debate-moderator`", missing=["cost-analyst:F1"],
            table=[["cost-analyst:F1", "Replicas cost 4.1k a month", "the price sheet"]], late=["cost-analyst"])),
        "refusals/vote_in_ranking_prompt": ("refusals.vote_in_ranking_prompt", dict(
            leaks=[["leader", "A leads"], ["scores", "8.6/10"], ["order", "B, A instead of A, B"]],
            listed="Approaches, in this order:\n- A: outbox\n- B: dual write")),
        "refusals/vote_in_message": ("refusals.vote_in_message", dict(
            ranker="cost-analyst (agent a3)", leaks=[["verdicts", "security-analyst approves A"]])),
        "refusals/model_clash": ("refusals.model_clash", dict(
            persona="performance-engineer", other="security-analyst", stage="research", other_model="opus",
            free_model="sonnet", partners=["security-analyst"])),
        "refusals/model_clash_no_free_model": ("refusals.model_clash", dict(
            persona="performance-engineer", other="security-analyst", stage="research", other_model="opus",
            free_model=None, partners=["security-analyst", "ux-advocate"])),
        # the spawn budget and the Workflow tool
        "budget/active_refusal": ("budget.active_refusal", dict(parent="main", active=12, max_active=12,
                                                                types=["security-analyst"], reserved=0)),
        "budget/active_refusal_with_workflow": ("budget.active_refusal", dict(
            parent="a1b2c3", active=12, max_active=12, types=["general-purpose", "workflow"], reserved=4)),
        "budget/total_refusal": ("budget.total_refusal", dict(used=60, max_total=60, reserved=0)),
        "budget/total_refusal_of_a_workflow": ("budget.total_refusal", dict(used=58, max_total=60, reserved=3,
                                                                             what="a workflow")),
        "budget/depth_refusal": ("budget.depth_refusal", dict(subagent_type="general-purpose", depth=4, max_depth=3)),
        "budget/resume_refusal": ("budget.resume_refusal", dict(label="security-analyst (agent a1)", parent="main",
                                                                active=12, max_active=12)),
        "budget/workflow_too_big": ("budget.workflow_too_big", dict(bound=9, bound_why="line 3: × 9", slots="8 spawn slot(s) are left")),
        "budget/workflow_unbounded": ("budget.workflow_unbounded", dict(
            bound_why="line 4: an agent() call inside a while loop", slots="8 spawn slot(s) are left")),
        "budget/workflow_overrun": ("budget.workflow_overrun", dict(
            name="fanout", passed="the main agent has 13 subagents running at once (budget 12)")),
        "budget/unannounced_overrun": ("budget.unannounced_overrun", dict(
            passed="this session has started 61 subagents (budget 60 in all)", subagent_type="general-purpose")),
        "budget/workflow_finished": ("budget.workflow_finished", dict(name="fanout", overrun=3, agents=15,
                                                                      max_active=12, max_total=60)),
        "budget/workflow_size_warning": ("budget.workflow_size_warning", dict(bound=20, why="20 calls", left=8)),
        "budget/workflow_size_warning_unbounded": ("budget.workflow_size_warning", dict(bound=None, why="no bound: the call names no script", left=8)),
        "budget/workflow_named_agents": ("budget.workflow_named_agents", dict(named=["security-analyst"])),
        "workflow/foreign_copy": ("workflow.foreign_copy", dict(file="deliberate.js", call=CALL)),
        "workflow/foreign_copy_installed": ("workflow.foreign_copy", dict(file="mine.js", call="")),
        "workflow/other_workflow_open": ("workflow.other_workflow", dict(deliberation=DID, phase="RESEARCH", call=CALL)),
        "workflow/other_workflow_requested": ("workflow.other_workflow", dict(deliberation="", phase="", call=CALL)),
        "workflow/nested": ("workflow.nested", {}),
        "workflow/already_running": ("workflow.already_running", dict(deliberation=DID)),
        "workflow/panel_refused": ("workflow.panel_refused", dict(why="unknown persona: wizard", call=CALL)),
        "workflow/nothing_to_run": ("workflow.nothing_to_run", dict(
            deliberation=DID, why="the vote has passed", progress="Next: write the decision document.")),
        "workflow/launched": ("workflow.launched", dict(deliberation=DID, wave="research",
                                                        personas=["security-analyst", "cost-analyst"])),
        "workflow/foreign_script": ("workflow.foreign_script", dict(name="deliberation:deliberate")),
        "workflow/report_refused": ("workflow.report_refused", dict(problem="findings[0].evidence: required")),
        "workflow/foreign_report": ("workflow.foreign_report", {}),
        "workflow/message_refused": ("workflow.message_refused", dict(
            who="deliberation:security-analyst (agent a1)", persona="security-analyst",
            agent_type="deliberation:security-analyst", call=CALL)),
        "workflow/message_refused_unknown": ("workflow.message_refused", dict(
            who="workflow-subagent (agent a2)", persona="", agent_type="", call="")),
        "workflow/outcome_news": ("workflow.outcome_news", dict(outcome="Deliberation d-1 — the plugin's workflow "
                                                                "has finished.", news="Next: write the document.")),
        # the off switch for one session: the command's confirmation, the environment's note
        "switch/off_by_command": ("switch.switched_off", dict(by="command", on_cmd="/deliberation:on")),
        "switch/off_already": ("switch.switched_off", dict(by="command", on_cmd="/deliberation:on", already=True)),
        "switch/off_by_environment": ("switch.switched_off", dict(by="environment", on_cmd="/deliberation-on")),
        "switch/off_by_environment_a_project_replaced": ("switch.switched_off", dict(
            by="environment", on_cmd="/deliberation:on", project_env=True)),
        "switch/on": ("switch.switched_on", dict(over_env=False)),
        "switch/on_over_environment": ("switch.switched_on", dict(over_env=True)),
        "switch/hidden_environment": ("switch.hidden_env", dict(value="on", off_cmd="/deliberation:off")),
        "switch/prune_failed": ("switch.prune_failed", dict(reason="PermissionError: [Errno 13] sessions")),
        # the once-per-session self-rating: the default bars (project form), configured ones (plugin form)
        "self_rating/default": ("self_rating.text", dict()),
        "self_rating/plugin_configured_bars": ("self_rating.text", dict(
            thresholds={"security": 0.9, "architecture": 0.85}, prefix="deliberation:")),
        # the mid-task net: the note after a risky call, after a risky prompt's edit, in a subagent; a hold
        "net/note_force_push": ("net.note_text", dict(kind="force-push", what="git push --force origin main")),
        "net/note_sensitive_edit": ("net.note_text", dict(
            kind="sensitive-edit", what="src/billing/charge.py", prefix="deliberation:", confidence=0.42)),
        "net/note_in_a_subagent": ("net.note_text", dict(
            kind="destroys-data", what="psql $PROD_DATABASE_URL -c 'DROP TABLE users_old'", in_subagent=True)),
        "net/ask_production_migration": ("net.ask_text", dict(
            kind="production-migration", what="alembic -x env=production upgrade head")),
    }


def write_all() -> "list[str]":
    """Rewrite every case file (and remove files of cases no longer listed); the paths written."""
    written = []
    wanted = cases()
    for case, (name, data) in wanted.items():
        path = ROOT / f"{case}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(name, data), encoding="utf-8")
        written.append(str(path.relative_to(ROOT)))
    for path in ROOT.rglob("*.txt"):
        if str(path.relative_to(ROOT))[:-4] not in wanted:
            path.unlink()
    return written


if __name__ == "__main__":
    for rel in write_all():
        print(rel)
    sys.exit(0)
