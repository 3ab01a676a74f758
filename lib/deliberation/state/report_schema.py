"""The report schema each workflow agent is given: `AgentReport` (agent_report.py) as JSON Schema,
narrowed to the agent's stage.

The client offers a workflow agent a `StructuredOutput` tool whose input schema is exactly what
the script passes (docs/WORKFLOW.md), and checks the report against it after the plugin's
PreToolUse hook has validated it with the model itself. So the schema is generated from the
model, never written by hand, and only ever narrows it:

- only the fields the stage uses are listed (the model's defaults stand for the rest);
- `phase` is the stage's one value;
- research: at least one finding;
- ranking: `scores` must name every approach under ranking, each with every configured
  dimension, 0-10;
- tier 2 (a depth-axis lens): `hot_spots` must name at least one hot spot.

What a schema cannot say (a reject without documented dissent, a tier-2 refutation's evidence)
is left to the hook's validation (`capture.semantic_problem`), which denies with the problem.
Titles are dropped (every byte is in each agent's request); descriptions stay: they tell the
agent what a field means.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Iterable

from deliberation.state.agent_report import AgentReport

STAGES = ("research", "deliberation", "ranking")
# the report's fields each stage uses (the rest keep their defaults; an agent may still send them)
FIELDS = {
    "research": (
        "phase",
        "summary",
        "findings",
        "approaches",
        "verdict",
        "preferred_approach",
        "rationale",
        "dissent",
        "confidence",
        "missed_angles",
    ),
    "deliberation": (
        "phase",
        "summary",
        "findings",
        "approaches",
        "preferred_approach",
        "rationale",
        "confidence",
        "refutations",
        "conflicts",
        "missed_angles",
        "hot_spots",
    ),
    "ranking": ("phase", "summary", "scores", "verdict", "preferred_approach", "rationale", "dissent", "confidence"),
}


@lru_cache(maxsize=1)
def _base() -> "dict[str, Any]":
    return _strip_titles(AgentReport.model_json_schema())


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def stage_schema(
    stage: str, *, dimensions: "Iterable[str]" = (), approaches: "Iterable[str]" = (), tier2: bool = False
) -> "dict[str, Any]":
    """The JSON Schema of a report of `stage` (see the module docstring). `approaches` and
    `dimensions` shape a ranking's `scores`; `tier2` requires `hot_spots`."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    schema = copy.deepcopy(_base())
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k in FIELDS[stage]}
    props = schema["properties"]
    props["phase"] = {"type": "string", "enum": [stage], "description": f'Always "{stage}".'}
    required = list(schema.get("required", []))
    if stage == "research":
        props["findings"]["minItems"] = 1
        required.append("findings")
    if stage == "ranking":
        dims = list(dimensions)
        ids = list(approaches)
        score = {"type": "number", "minimum": 0, "maximum": 10}
        per = {"type": "object", "properties": {d: score for d in dims}, "required": dims}
        scores = {"type": "object", "description": props["scores"].get("description", ""), "additionalProperties": per}
        if ids:
            scores["properties"] = {a: per for a in ids}
            scores["required"] = ids
        props["scores"] = scores
        required.append("scores")
    if tier2:
        props["hot_spots"]["minItems"] = 1
        required.append("hot_spots")
    schema["required"] = list(dict.fromkeys(required))
    used = _refs(props)
    schema["$defs"] = {k: v for k, v in schema.get("$defs", {}).items() if k in used}
    if not schema["$defs"]:
        del schema["$defs"]
    return schema


def _refs(node: Any) -> "set[str]":
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values())) if node else found
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node)) if node else set()
    return set()
