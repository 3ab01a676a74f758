"""What the protocol says for one prompt: the panel per task type, the consensus bar, the
question as quoted (whitespace folded, cut at QUESTION_CHARS, a placeholder when empty) and the
exact Workflow call (the question inline when it fits 160 characters on one line); text/protocol.py
words them. The result stays under MAX_CHARS whatever the question's length. Pure; stdlib only:
a triggering prompt loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from deliberation import catalogue
from deliberation.core.depth import FLOOR
from deliberation.core.personas import LENSES
from deliberation.core.task_type import threshold as type_threshold
from deliberation.text import protocol as words

MAX_CHARS = 4000
QUESTION_CHARS = 400

# 3-5 personas per task type (the catalogue's panels), each holding at least one pair whose
# priorities conflict (config conformity.conflicting_pairs); the devils-advocate is always there
PANELS = {t.name: t.panel for t in catalogue.TASK_TYPES}
MINIMUM = catalogue.MINIMUM_PANEL  # one FOR, one AGAINST
# the workflow's panel when its call names none: 3 research agents where 5 cost two more research
# and two more ranking agents, each request carrying the client's whole system prompt (EVIDENCE E12)
WORKFLOW_PANEL = 3
WORKFLOW_NAME = "deliberate"  # meta.name of the plugin's workflows/deliberate.js (docs/WORKFLOW.md)


def workflow_name(prefix: str) -> str:
    """The name the plugin's workflow is run by: `deliberation:deliberate` in the plugin form (the
    client namespaces a plugin's workflows), `deliberate` when install.sh copied it into the project."""
    return f"{prefix}{WORKFLOW_NAME}"


def workflow_call(prefix: str, question: str = "") -> str:
    """The exact Workflow call, the question as its args (one line, bounded)."""
    import json

    q = " ".join((question or "").split())
    q = q if q and len(q) <= 160 else words.QUESTION_PLACEHOLDER
    return f'Workflow({{name: "{workflow_name(prefix)}", args: {json.dumps(q, ensure_ascii=False)}}})'


def panel(task_type: str) -> "tuple[str, ...]":
    """The personas suggested for a task type (unknown types get the default panel)."""
    return PANELS.get(task_type, PANELS[catalogue.DEFAULT_TASK_TYPE])


def default_panel(task_type: str, pairs: "Sequence[Sequence[str]]", size: int = WORKFLOW_PANEL) -> "tuple[str, ...]":
    """The workflow's panel when its call names none: the first `size` personas of the task
    type's panel (its order; the first such choice in that order) that still hold what the whole
    panel holds of a pair whose priorities conflict (`pairs`: config conformity.conflicting_pairs)
    and the devils-advocate. A panel of `size` or fewer is the whole panel."""
    full = panel(task_type)
    if len(full) <= size:
        return full

    def holds(group: "tuple[str, ...]") -> "tuple[bool, bool]":
        return (
            any(len(p) == 2 and p[0] != p[1] and set(p) <= set(group) for p in pairs),
            catalogue.DEVILS_ADVOCATE in group,
        )

    need = holds(full)
    for group in combinations(full, size):
        if all(got or not wanted for got, wanted in zip(holds(group), need)):
            return group
    return full[:size]  # reached only below 3: a pair and the devils-advocate are at most 3 personas


def _question(question: str) -> str:
    q = " ".join(question.split())
    if not q:
        return words.NO_QUESTION
    return q if len(q) <= QUESTION_CHARS else q[: QUESTION_CHARS - 1] + "…"


def _dims(dims: dict) -> str:
    keys = ("ambiguity", "complexity", "stakes", "context_dependence")
    return ", ".join(f"{k} {float(dims.get(k, 0.0)):.2f}" for k in keys)


ASKED = ("user", "trigger", "agent")  # who asked for the deliberation (protocol_text's `asked`)


def protocol_text(
    question: str,
    task_type: str,
    threshold: float,
    confidence: float,
    dims: dict,
    consensus_threshold: "float | None" = None,
    prefix: str = "",
    models: "dict[str, str] | None" = None,
    asked: str = "trigger",
    dimensions: "list[dict] | None" = None,
) -> str:
    """The protocol for one question (see the module docstring).

    `threshold` and `confidence` are the trigger's (as `confidence.evaluate` returns them);
    `consensus_threshold` is the task type's consensus bar, by default the built-in one of
    `task_type` (pass `evaluate(...)["consensus_threshold"]` to honour a configured table).
    `prefix` is the agent-type namespace of the plugin form (e.g. "deliberation:").
    `models` (persona → model alias) is given when `models.diverse` is on. `asked` (ASKED): who
    asked for it — the user (a force marker or the command), the trigger's score, or the agent's
    own Skill call; only the user's request runs the Workflow tool (text/protocol.how_to_run).
    `dimensions` are the configured ranking dimensions (config `ranking.dimensions`), default
    the catalogue's.
    """
    if asked not in ASKED:
        raise ValueError(f"asked: one of {ASKED}, not {asked!r}")
    bar = type_threshold(task_type) if consensus_threshold is None else float(consensus_threshold)
    return words.protocol(
        confidence,
        threshold,
        _dims(dims),
        task_type,
        bar,
        _question(question),
        workflow_call(prefix, question),
        prefix,
        ", ".join(panel(task_type)),
        list(MINIMUM),
        list(LENSES),
        list(FLOOR),
        models,
        asked,
        dimensions,
    )
