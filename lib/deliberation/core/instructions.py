"""The orchestration protocol: the text injected into Claude's context when deliberation is
recommended or forced (UserPromptSubmit `additionalContext`) — the one source of it. The
`/deliberate` command's body only asks for the deliberation and points here (the hook injects
this text for its prompt too), so the protocol is said once.

Owns the wording of the protocol and the persona panel suggested per task type. It names the
subagent types exactly (the slugs of `personas.py`), the phases in order, the tier-2 floor
sentences verbatim, and the report rule. The question line holds the question without the
force marker (`confidence.question_of`). Pure; stdlib only; the result stays under `MAX_CHARS`
whatever the question's length.
"""

from __future__ import annotations

from deliberation.core.depth import FLOOR
from deliberation.core.personas import LENSES
from deliberation.core.task_type import threshold as type_threshold
from deliberation.text.workflow import how_to_run

MAX_CHARS = 4000
HEADER = "DELIBERATION PROTOCOL (deliberation plugin)"
QUESTION_CHARS = 400
RANKING_DIMENSIONS = "correctness, risk (10 = lowest), maintainability, performance, cost (10 = cheapest)"

# 3-5 personas per task type, each panel holding at least one pair whose priorities conflict
# (config conformity.conflicting_pairs); the devils-advocate is always there
PANELS = {
    "security": ("security-analyst", "ux-advocate", "performance-engineer", "devils-advocate"),
    "architecture": ("technical-architect", "reliability-engineer", "cost-analyst",
                     "performance-engineer", "devils-advocate"),
    "refactoring": ("maintainability-reviewer", "test-engineer", "product-strategist", "devils-advocate"),
    "documentation": ("ux-advocate", "maintainability-reviewer", "product-strategist", "devils-advocate"),
    "default": ("technical-architect", "security-analyst", "performance-engineer", "cost-analyst",
                "devils-advocate"),
}
MINIMUM = ("product-strategist", "devils-advocate")  # one FOR, one AGAINST
WORKFLOW_NAME = "deliberate"  # meta.name of the plugin's workflows/deliberate.js (docs/WORKFLOW.md)


def workflow_name(prefix: str) -> str:
    """The name the plugin's workflow is run by: `deliberation:deliberate` in the plugin form (the
    client namespaces a plugin's workflows), `deliberate` when install.sh copied it into the project."""
    return f"{prefix}{WORKFLOW_NAME}"


def workflow_call(prefix: str, question: str = "") -> str:
    """The exact Workflow call, the question as its args (one line, bounded)."""
    import json

    q = " ".join((question or "").split())
    q = q if q and len(q) <= 160 else "<the question above, in one line>"
    return f"Workflow({{name: \"{workflow_name(prefix)}\", args: {json.dumps(q, ensure_ascii=False)}}})"


def panel(task_type: str) -> "tuple[str, ...]":
    """The personas suggested for a task type (unknown types get the default panel)."""
    return PANELS.get(task_type, PANELS["default"])


NO_QUESTION = "(none given: state in one sentence the decision under discussion in this conversation, and deliberate on that)"


def _question(question: str) -> str:
    q = " ".join(question.split())
    if not q:
        return NO_QUESTION
    return q if len(q) <= QUESTION_CHARS else q[:QUESTION_CHARS - 1] + "…"


def _dims(dims: dict) -> str:
    keys = ("ambiguity", "complexity", "stakes", "context_dependence")
    return ", ".join(f"{k} {float(dims.get(k, 0.0)):.2f}" for k in keys)


def _namespace(prefix: str) -> str:
    if not prefix:
        return ""
    return f", each written with the plugin's namespace: \"{prefix}<slug>\" (e.g. \"{prefix}security-analyst\")"


def models_line(models: "dict[str, str] | None") -> str:
    """The protocol's line for `models.diverse`: which model each suggested persona runs on."""
    if not models:
        return ""
    listed = ", ".join(f"{p} \"{m}\"" for p, m in models.items())
    return (f"\nModels (models.diverse is on): pass `model` in each persona's Agent call, e.g. {listed}; "
            "personas with conflicting priorities must run on different models, or the spawn is denied.")


ASKED = ("user", "trigger", "agent")  # who asked for the deliberation (protocol_text's `asked`)


def protocol_text(question: str, task_type: str, threshold: float, confidence: float,
                  dims: dict, consensus_threshold: "float | None" = None, prefix: str = "",
                  models: "dict[str, str] | None" = None, asked: str = "trigger") -> str:
    """The protocol for one question (see the module docstring).

    `threshold` and `confidence` are the trigger's (as `confidence.evaluate` returns them);
    `consensus_threshold` is the task type's consensus bar, by default the built-in one of
    `task_type` (pass `evaluate(...)["consensus_threshold"]` to honour a configured table).
    `prefix` is the agent-type namespace of the plugin form (e.g. "deliberation:").
    `models` (persona → model alias) is given when `models.diverse` is on. `asked` (ASKED): who
    asked for it — the user (a force marker or the command), the trigger's score, or the agent's
    own Skill call; only the user's request runs the Workflow tool (text/workflow.how_to_run).
    """
    if asked not in ASKED:
        raise ValueError(f"asked: one of {ASKED}, not {asked!r}")
    bar = type_threshold(task_type) if consensus_threshold is None else float(consensus_threshold)
    people = ", ".join(panel(task_type))
    return f"""{HEADER}
Trigger confidence {confidence:.2f}, threshold {threshold:.2f} ({_dims(dims)}). Task type {task_type}: consensus must reach {bar:.2f}.
Question: {_question(question)}

Decide it with a deliberation, not alone: a decision, not a change (no edits before it is complete).
{how_to_run(asked, workflow_call(prefix, question), _namespace(prefix))}
1. RESEARCH: 3-5 personas with conflicting priorities (at least 2), suggested: {people}. Minimum viable deliberation: {MINIMUM[0]} (FOR) and {MINIMUM[1]} (AGAINST), each stating its position; the plugin compares them. Each prompt = "Phase: research", the question and the same shared project context. Isolation: never paste one agent's findings into another research prompt. Spawn a phase's agents in parallel; wait until every report has reached you before the next phase.
2. DELIBERATION ("Phase: deliberation"): synthesis-lead and debate-moderator with ALL research findings (claim and evidence); then ONE red-team pass. When the plugin lists hot spots, spawn the FRESH {", ".join(LENSES)} workers its note gives (never subagent_type "fork"), each prompt carrying verbatim "{FLOOR[0]}" and "{FLOOR[1]}" and NOT the consensus or synthesis text; then one red team 2. No further rounds.
3. RANKING (blind): the personas again, "Phase: ranking", the question and the approaches exactly as the plugin lists them; never which approach leads nor any agent's scores, verdicts or rationale. Each scores EVERY approach 0-10 on {RANKING_DIMENSIONS}, gives its verdict and a concern with its reason for each approach it would not adopt.
4. PRD: when the vote passes, hand the plugin the decision document it asks for (a Write call it reads), then answer the user in prose.
Resume an agent with SendMessage only when the plugin asks for its new report.{models_line(models)}

Every report must end with one fenced ```json block (the agent definitions show its shape). The plugin enforces this protocol with hook denials and blocks (spawn budget, isolation, phase order, consensus and quality gates); its notes and reasons each name the next step it accepts: follow them. /{prefix}deliberation-status shows progress."""
