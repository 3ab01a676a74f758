"""The agent report: the fenced JSON block that ends every deliberation subagent's message.

`AgentReport` is the contract (`state_schema/agent_report.schema.json` is generated from it).
`extract_report` finds the block, parses and validates it, and on failure returns a reason that
says precisely what is wrong and shows the expected shape, ready to send back to the subagent.

A report is data, not instructions: it names no persona (that comes from the subagent's type),
and it cannot set a phase beyond the three working phases or a consensus (the library computes
both). Unknown keys are ignored and listed.
"""

from __future__ import annotations

import json
import re
from typing import Literal

import orjson
from deliberation import catalogue
from pydantic import BaseModel, ConfigDict, Field, ValidationError

REPORT_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
Score = Field(ge=0, le=10)


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class Finding(_Part):
    id: str = Field(pattern=REPORT_ID, description="Unique in the report, e.g. F1.")
    claim: str = Field(min_length=1, max_length=2000)
    evidence: str = Field("", max_length=4000, description="file:line, document or measurement.")
    severity: Literal["info", "low", "medium", "high", "critical"] = "medium"


class Approach(_Part):
    id: str = Field(pattern=REPORT_ID)
    title: str = Field(min_length=1, max_length=200)
    summary: str = Field("", max_length=2000)


class Concern(_Part):
    target: str = Field("leading", max_length=64, description="Approach id, finding id or 'leading'.")
    concern: str = Field(min_length=1, max_length=2000)
    reason: str = Field(min_length=1, max_length=2000, description="The evidence or argument.")


class Refutation(_Part):
    target: str = Field(
        min_length=1,
        max_length=128,
        description="A finding (persona:F1), hot spot (H1) or approach id.",
    )
    verdict: Literal["refuted", "weakened", "upheld"] = "refuted"
    claim: str = Field("", max_length=2000, description="The counter-claim.")
    evidence: str = Field("", max_length=4000, description="Without it a refutation carries no weight.")


class Conflict(_Part):
    between: list[str] = Field(min_length=2, max_length=10, description="Approach ids, finding refs or persona slugs.")
    about: str = Field(min_length=1, max_length=2000)


class AgentReport(_Part):
    phase: Literal["research", "deliberation", "ranking"]
    summary: str = Field("", max_length=4000)
    findings: list[Finding] = Field(default_factory=list, max_length=50)
    approaches: list[Approach] = Field(default_factory=list, max_length=20)
    scores: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="{approach id: {dimension: 0-10}} for every approach under ranking."
    )
    verdict: Literal["approve", "reject", "abstain"] = "abstain"
    preferred_approach: "str | None" = Field(None, max_length=64)
    rationale: str = Field("", max_length=4000, description="Why, in your own words.")
    dissent: list[Concern] = Field(default_factory=list, max_length=30)
    confidence: float = Field(0.5, ge=0, le=1)
    refutations: list[Refutation] = Field(default_factory=list, max_length=50)
    conflicts: list[Conflict] = Field(default_factory=list, max_length=30)
    missed_angles: list[str] = Field(default_factory=list, max_length=30)
    hot_spots: list[str] = Field(default_factory=list, max_length=20, description="Tier 2: the hot spot ids addressed.")


# What each kind of agent reports: exactly the fields its phase needs, in the order shown — each
# one a field of its stage's workflow schema too (report_schema.FIELDS: a deliberation-phase role
# has no verdict and no scores to give). The agent files' examples and every send-back's example
# are these shapes (tests/unit/test_agents.py and test_agent_report.py check both against
# state_schema/agent_report.schema.json and the stage schemas).
SHAPES: "dict[str, tuple[str, ...]]" = {
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
    ),
    "ranking": ("phase", "summary", "scores", "verdict", "preferred_approach", "rationale", "dissent", "confidence"),
    "synthesis": ("phase", "summary", "approaches", "conflicts", "preferred_approach", "rationale", "confidence"),
    "debate": ("phase", "summary", "findings", "conflicts", "confidence"),
    "red-team": ("phase", "summary", "refutations", "missed_angles", "confidence"),
    "lens": ("phase", "hot_spots", "summary", "findings", "refutations", "confidence"),
}
DIMENSION_NAMES = tuple(d.name for d in catalogue.DIMENSIONS)
# the example's scores, one per dimension in order (cycled for a configured set of more)
_EXAMPLE_SCORES = {"A": (8, 6, 7, 7, 5), "B": (6, 7, 6, 5, 8)}
_FINDING = {"id": "F1", "claim": "...", "evidence": "src/db.py:120", "severity": "high"}
_DISSENT = {"target": "B", "concern": "...", "reason": "the evidence or the argument"}
EXAMPLES: "dict[str, dict]" = {
    "research": {
        "phase": "research",
        "summary": "one paragraph",
        "findings": [_FINDING],
        "approaches": [
            {"id": "A", "title": "a short name", "summary": "what is done"},
            {"id": "B", "title": "a short name", "summary": "what is done"},
        ],
        "verdict": "approve",
        "preferred_approach": "A",
        "rationale": "why, in your own words",
        "dissent": [_DISSENT],
        "confidence": 0.7,
    },
    "ranking": {
        "phase": "ranking",
        "summary": "",
        "scores": {
            "A": dict(zip(DIMENSION_NAMES, _EXAMPLE_SCORES["A"])),
            "B": dict(zip(DIMENSION_NAMES, _EXAMPLE_SCORES["B"])),
        },
        "verdict": "approve",
        "preferred_approach": "A",
        "rationale": "why, in your own words",
        "dissent": [_DISSENT],
        "confidence": 0.7,
    },
    "synthesis": {
        "phase": "deliberation",
        "summary": "one paragraph",
        "approaches": [
            {"id": "A", "title": "a short name", "summary": "what is done (persona:F1)"},
            {"id": "B", "title": "a short name", "summary": "what is done (persona:F2)"},
        ],
        "conflicts": [{"between": ["A", "B"], "about": "the crux"}],
        "preferred_approach": "A",
        "rationale": "why, in your own words",
        "confidence": 0.6,
    },
    "debate": {
        "phase": "deliberation",
        "summary": "one paragraph",
        "findings": [_FINDING],
        "conflicts": [{"between": ["persona:F1", "persona:F2"], "about": "the crux; what would settle it"}],
        "confidence": 0.6,
    },
    "red-team": {
        "phase": "deliberation",
        "summary": "one paragraph",
        "refutations": [{"target": "persona:F1", "verdict": "refuted", "claim": "...", "evidence": "..."}],
        "missed_angles": ["what nobody examined"],
        "confidence": 0.6,
    },
    "lens": {
        "phase": "deliberation",
        "hot_spots": ["H1"],
        "summary": "one paragraph",
        "findings": [_FINDING],
        "refutations": [{"target": "H1", "verdict": "weakened", "claim": "...", "evidence": "..."}],
        "confidence": 0.7,
    },
}
_KIND_SHAPES = {"synthesis": "synthesis", "debate": "debate", "red-team": "red-team", "lens": "lens"}


def shape_of(kind: "str | None", stage: str) -> str:
    """The report shape of an agent: a persona's is its stage's, a role's its own."""
    if kind in _KIND_SHAPES:
        return _KIND_SHAPES[kind]
    return "ranking" if stage == "ranking" else "research"


def example(shape: str, dimensions: "list[str] | None" = None, *, compact: bool = False) -> str:
    """The shape's example as a fenced JSON block, one line per field (`compact`: the object on
    one line, as the agent files show it); a ranking's scores on `dimensions` (the configured
    names; default the catalogue's)."""
    data = EXAMPLES[shape]
    if dimensions and "scores" in data and tuple(dimensions) != DIMENSION_NAMES:
        data = {**data, "scores": {k: _scores(dimensions, v) for k, v in _EXAMPLE_SCORES.items()}}
    return fenced(data, compact=compact)


def fenced(data: "dict", *, compact: bool = False) -> str:
    """`data` as a fenced JSON block: one line per field, or (`compact`) the object on one line."""
    if compact:
        return "```json\n" + json.dumps(data, ensure_ascii=False) + "\n```"
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in data.items()]
    return "```json\n{\n" + ",\n".join(lines) + "\n}\n```"


def _scores(dimensions: "list[str]", values: "tuple[int, ...]") -> "dict[str, int]":
    return {d: values[i % len(values)] for i, d in enumerate(dimensions)}


# a fence of backticks or tildes (CommonMark allows both), closed by the same kind
_FENCE = re.compile(r"(```|~~~)[ \t]*(json|JSON)?[ \t]*\r?\n(.*?)\1", re.S)
AGAIN = (
    "Send your whole final message again: your analysis in prose as before, then this one "
    "corrected JSON block as the last thing in it."
)
# the same for a report handed back with the SubagentHandback tool (auto mode): the call is refused,
# so the agent calls again
HANDBACK_AGAIN = (
    "Call SubagentHandback again with your whole report as its message: your analysis in prose as "
    "before, then this one corrected JSON block as the last thing in it."
)
# an agent that has the tool (auto mode) but ended with text: its final message is not delivered
HANDBACK_DELIVER = (
    "Deliver your whole report with SubagentHandback (its message): your analysis in prose as before, "
    "then this one corrected JSON block as the last thing in it. A final message is not delivered here."
)


def again(handback: bool, can_hand_back: bool) -> str:
    """How the agent sends its report again: the refused SubagentHandback call again, the tool
    it has but did not use, or its final message."""
    if handback:
        return HANDBACK_AGAIN
    return HANDBACK_DELIVER if can_hand_back else AGAIN


class ReportProblem(ValueError):
    """Why a message carries no valid report; `str()` is the send-back text."""


def _fenced_json_blocks(text: str) -> "list[str]":
    blocks = []
    for m in _FENCE.finditer(text):
        body = m.group(3)
        if m.group(2) or body.lstrip().startswith("{"):
            blocks.append(body)
    return blocks


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"]) or "(report)"
        lines.append(f"- {loc}: {err['msg']}")
    more = len(exc.errors()) - 8
    if more > 0:
        lines.append(f"- … and {more} more")
    return "\n".join(lines)


# ---- what a model plausibly writes where the meaning is plain
_PARTS: "dict[str, type[BaseModel]]" = {
    "findings": Finding,
    "approaches": Approach,
    "dissent": Concern,
    "refutations": Refutation,
    "conflicts": Conflict,
}
_WORDS = {"phase", "verdict", "severity"}  # closed vocabularies, read in any case


def _plain(value: object, model: "type[BaseModel]") -> object:
    """One object with its `null`s for fields that have a default dropped and its vocabulary
    words lower-cased."""
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        field = model.model_fields.get(key)
        if item is None and field is not None and not field.is_required():
            continue
        if key in _WORDS and isinstance(item, str):
            item = item.strip().lower()
        out[key] = item
    return out


def _title_from(summary: object) -> "str | None":
    """An approach's title from its summary: the first sentence, at most 80 characters."""
    if not isinstance(summary, str) or not summary.strip():
        return None
    first = re.split(r"(?<=[.;:!?])\s", summary.strip(), maxsplit=1)[0].rstrip(".;:")
    return first if len(first) <= 80 else first[:79].rstrip() + "…"


def lenient(data: dict) -> dict:
    """The report as meant: `null` for an optional field is its default, `"Approve"` is
    `"approve"`, a confidence of 75 is 0.75 (above 10: a percentage; 1-10 could be a 0-10 scale
    and is refused), an approach without a title takes it from its
    summary. Anything else is validated as written."""
    out = _plain(data, AgentReport)
    assert isinstance(out, dict)
    for key, model in _PARTS.items():
        if isinstance(out.get(key), list):
            out[key] = [_plain(item, model) for item in out[key]]
    for item in out.get("approaches") or []:
        if isinstance(item, dict) and not (isinstance(item.get("title"), str) and item["title"].strip()):
            title = _title_from(item.get("summary"))
            if title:
                item["title"] = title
    confidence = out.get("confidence")
    if isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and 10 < confidence <= 100:
        out["confidence"] = confidence / 100
    return out


def extract_report(
    text: str,
    max_bytes: int,
    shape: str = "research",
    handback: bool = False,
    can_hand_back: bool = False,
    dimensions: "list[str] | None" = None,
) -> "tuple[AgentReport, list[str]]":
    """Return (report, ignored keys) or raise ReportProblem saying what to fix, with the
    example of the agent's `shape` (SHAPES). `handback`: the text is a SubagentHandback call's
    message (its refusal asks for the call again), else the agent's final message;
    `can_hand_back`: the agent has that tool (auto mode), so its report goes there;
    `dimensions`: the configured ranking dimensions the example scores on."""
    shown = f"The {shape} report's fields:\n{example(shape, dimensions)}\n{again(handback, can_hand_back)}"
    where = "SubagentHandback message" if handback else "final message"
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ReportProblem(
            f"Your report is {size} bytes; the limit is {max_bytes}. Shorten findings and evidence "
            f"and end your {where} with exactly one fenced JSON block. {shown}"
        )
    blocks = _fenced_json_blocks(text)
    if not blocks:
        raise ReportProblem(f"Your {where} has no fenced JSON report. " + shown)
    if len(blocks) > 1:
        raise ReportProblem(
            f"Your {where} has {len(blocks)} fenced JSON blocks; end it with exactly ONE "
            "report block (no quoted or example JSON elsewhere). " + shown
        )
    try:
        data = orjson.loads(blocks[0])
    except orjson.JSONDecodeError as exc:
        raise ReportProblem(
            f"Your JSON report does not parse ({exc}). Use double quotes, no comments, no trailing commas. " + shown
        ) from None
    if not isinstance(data, dict):
        raise ReportProblem("Your JSON report must be an object. " + shown)
    return _validated(data, shown)


def _validated(data: dict, shown: str) -> "tuple[AgentReport, list[str]]":
    try:
        report = AgentReport.model_validate(lenient(data))
    except ValidationError as exc:
        raise ReportProblem("Your JSON report is invalid; fix these fields:\n" + _describe(exc) + "\n" + shown) from None
    ignored = sorted(k for k in data if k not in AgentReport.model_fields)
    return report, ignored


def report_from_data(data: object, max_bytes: int) -> "tuple[AgentReport, list[str]]":
    """A report given as data — a workflow agent's `StructuredOutput` input — validated by the
    same model as a fenced report. Raises ReportProblem saying what to fix in that call."""
    if not isinstance(data, dict):
        raise ReportProblem("Your StructuredOutput input must be one JSON object (the report).")
    size = len(orjson.dumps(data))
    if size > max_bytes:
        raise ReportProblem(
            f"Your report is {size} bytes; the limit is {max_bytes}. Shorten findings and "
            "evidence and call StructuredOutput again."
        )
    return _validated(data, "Call StructuredOutput again with the whole report, these fields fixed.")
