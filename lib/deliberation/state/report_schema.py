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
Every byte of it is in each of the agent's requests, so `wire` drops what constrains nothing —
titles, defaults, `minItems: 0`, the `type` beside an enum of strings — spells an optional
string `{"type": ["string", "null"]}` and puts a part used once in its place instead of a `$ref`;
every enum, pattern, bound and `required` stays, and so do the (short) descriptions: they tell the
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
    return wire(AgentReport.model_json_schema())


_UNCONSTRAINING = ("title", "default")


def wire(node: Any, names: bool = False) -> Any:
    """A pydantic JSON Schema as a StructuredOutput tool's input schema: the same constraints,
    without the keys that constrain nothing (`names`: `node` maps property names, kept all)."""
    if isinstance(node, list):
        return [wire(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {k: wire(v) for k, v in node.items()}
    out = {
        k: wire(v, names=k in ("properties", "$defs"))
        for k, v in node.items()
        if k not in _UNCONSTRAINING and not (k == "minItems" and v == 0)
    }
    if out.get("type") == "string" and isinstance(out.get("enum"), list) and all(isinstance(e, str) for e in out["enum"]):
        del out["type"]  # the enum's values are strings: the type says nothing more
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        if isinstance(kept.get("type"), str) and not set(kept) & set(out):
            del out["anyOf"]
            out = {**kept, **out, "type": [kept["type"], "null"]}
    return out


def inline(schema: "dict[str, Any]") -> "dict[str, Any]":
    """`schema` with each part its properties refer to once put in place of the `$ref` (a part
    used twice stays in `$defs`)."""
    defs = schema.get("$defs", {})
    counts: "dict[str, int]" = {}
    _count(schema.get("properties", {}), counts)
    once = {k for k in defs if counts.get(k) == 1 and not _refs(defs[k])}

    def put(node: Any) -> Any:
        if isinstance(node, list):
            return [put(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) == 1 and ref.rsplit("/", 1)[-1] in once:
            return copy.deepcopy(defs[ref.rsplit("/", 1)[-1]])
        return {k: put(v) for k, v in node.items()}

    out = {k: put(v) for k, v in schema.items() if k != "$defs"}
    kept = {k: v for k, v in defs.items() if k not in once}
    return {"$defs": kept, **out} if kept else out


def _count(node: Any, counts: "dict[str, int]") -> None:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            name = node["$ref"].rsplit("/", 1)[-1]
            counts[name] = counts.get(name, 0) + 1
        for v in node.values():
            _count(v, counts)
    elif isinstance(node, list):
        for v in node:
            _count(v, counts)


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
    props["phase"] = {"enum": [stage]}
    required = list(schema.get("required", []))
    if stage == "research":
        props["findings"]["minItems"] = 1
        required.append("findings")
    if stage == "ranking":
        dims = list(dimensions)
        ids = list(approaches)
        # every key is checked by additionalProperties (no `properties` listed): each approach's
        # scores, each dimension 0-10; `required` names the ones that must be there
        score = {"type": "number", "minimum": 0, "maximum": 10}
        per = {"type": "object", "required": dims, "additionalProperties": score}
        scores: "dict[str, Any]" = {"type": "object", "additionalProperties": per}
        if ids:
            scores["required"] = ids
        props["scores"] = scores
        required.append("scores")
    if tier2:
        props["hot_spots"]["minItems"] = 1
        required.append("hot_spots")
    schema["required"] = list(dict.fromkeys(required))
    used = _refs(props)
    schema["$defs"] = {k: v for k, v in schema.get("$defs", {}).items() if k in used}
    return inline(schema)


def _refs(node: Any) -> "set[str]":
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values())) if node else found
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node)) if node else set()
    return set()
