"""The agent report: the fenced JSON block that ends every deliberation subagent's message.

`AgentReport` is the contract (`state_schema/agent_report.schema.json` is generated from it).
`extract_report` finds the block, parses and validates it, and on failure returns a reason that
says precisely what is wrong and shows the expected shape, ready to send back to the subagent.

A report is data, not instructions: it names no persona (that comes from the subagent's type),
and it cannot set a phase beyond the three working phases or a consensus (the library computes
both). Unknown keys are ignored and listed.
"""

from __future__ import annotations

import re
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

REPORT_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
Score = Field(ge=0, le=10)


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class Finding(_Part):
    id: str = Field(pattern=REPORT_ID, description="Short id, unique within this report, e.g. F1.")
    claim: str = Field(min_length=1, max_length=2000)
    evidence: str = Field("", max_length=4000, description="Where it comes from: file:line, doc, measurement.")
    severity: Literal["info", "low", "medium", "high", "critical"] = "medium"


class Approach(_Part):
    id: str = Field(pattern=REPORT_ID, description="Short id, e.g. A, B, keep-status-quo.")
    title: str = Field(min_length=1, max_length=200)
    summary: str = Field("", max_length=2000)


class Concern(_Part):
    target: str = Field("leading", max_length=64, description="Approach id, finding id or 'leading'.")
    concern: str = Field(min_length=1, max_length=2000)
    reason: str = Field(min_length=1, max_length=2000, description="Why: the evidence or argument.")


class Refutation(_Part):
    target: str = Field(min_length=1, max_length=128,
                        description="What is challenged: a finding ('persona:F1'), a hot spot ('H1') or an approach id.")
    verdict: Literal["refuted", "weakened", "upheld"] = "refuted"
    claim: str = Field("", max_length=2000, description="The counter-claim.")
    evidence: str = Field("", max_length=4000, description="Evidence; a refutation without it carries no weight.")


class Conflict(_Part):
    between: list[str] = Field(min_length=2, max_length=10, description="Approach ids, finding refs or persona slugs.")
    about: str = Field(min_length=1, max_length=2000)


class AgentReport(_Part):
    phase: Literal["research", "deliberation", "ranking"]
    summary: str = Field("", max_length=4000)
    findings: list[Finding] = Field(default_factory=list, max_length=50)
    approaches: list[Approach] = Field(default_factory=list, max_length=20)
    scores: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="{approach id: {dimension: 0-10}} for every approach under ranking.")
    verdict: Literal["approve", "reject", "abstain"] = "abstain"
    preferred_approach: "str | None" = Field(None, max_length=64)
    rationale: str = Field("", max_length=4000, description="Why this verdict, in your own words.")
    dissent: list[Concern] = Field(default_factory=list, max_length=30)
    confidence: float = Field(0.5, ge=0, le=1)
    refutations: list[Refutation] = Field(default_factory=list, max_length=50)
    conflicts: list[Conflict] = Field(default_factory=list, max_length=30)
    missed_angles: list[str] = Field(default_factory=list, max_length=30)
    hot_spots: list[str] = Field(default_factory=list, max_length=20, description="Tier 2: ids of the hot spots addressed.")


EXAMPLE = """```json
{
  "phase": "research",
  "summary": "one paragraph",
  "findings": [{"id": "F1", "claim": "...", "evidence": "src/db.py:120", "severity": "high"}],
  "approaches": [{"id": "A", "title": "...", "summary": "..."}],
  "scores": {"A": {"correctness": 8, "risk": 6, "maintainability": 7, "performance": 7, "cost": 5}},
  "verdict": "approve",
  "preferred_approach": "A",
  "rationale": "why, in your own words",
  "dissent": [{"target": "B", "concern": "...", "reason": "..."}],
  "confidence": 0.7,
  "refutations": [{"target": "security-analyst:F1", "verdict": "refuted", "claim": "...", "evidence": "..."}],
  "conflicts": [], "missed_angles": [], "hot_spots": []
}
```"""

_FENCE = re.compile(r"```[ \t]*(json|JSON)?[ \t]*\r?\n(.*?)```", re.S)


class ReportProblem(ValueError):
    """Why a message carries no valid report; `str()` is the send-back text."""


def _fenced_json_blocks(text: str) -> "list[str]":
    blocks = []
    for m in _FENCE.finditer(text):
        body = m.group(2)
        if m.group(1) or body.lstrip().startswith("{"):
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


def extract_report(text: str, max_bytes: int) -> "tuple[AgentReport, list[str]]":
    """Return (report, ignored keys) or raise ReportProblem saying what to fix."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ReportProblem(
            f"Your report is {size} bytes; the limit is {max_bytes}. Shorten findings and evidence "
            f"and end your final message with exactly one fenced JSON block:\n{EXAMPLE}")
    blocks = _fenced_json_blocks(text)
    if not blocks:
        raise ReportProblem(
            "Your final message has no fenced JSON report. End it with exactly one block like:\n"
            + EXAMPLE)
    if len(blocks) > 1:
        raise ReportProblem(
            f"Your final message has {len(blocks)} fenced JSON blocks; end it with exactly ONE "
            "report block (no quoted or example JSON elsewhere):\n" + EXAMPLE)
    try:
        data = orjson.loads(blocks[0])
    except orjson.JSONDecodeError as exc:
        raise ReportProblem(
            f"Your JSON report does not parse ({exc}). Use double quotes, no comments, no trailing "
            "commas:\n" + EXAMPLE) from None
    if not isinstance(data, dict):
        raise ReportProblem("Your JSON report must be an object:\n" + EXAMPLE)
    return _validated(data, "\nExpected shape:\n" + EXAMPLE)


def _validated(data: dict, shape: str) -> "tuple[AgentReport, list[str]]":
    try:
        report = AgentReport.model_validate(data)
    except ValidationError as exc:
        raise ReportProblem("Your JSON report is invalid:\n" + _describe(exc) + shape) from None
    ignored = sorted(k for k in data if k not in AgentReport.model_fields)
    return report, ignored


def report_from_data(data: object, max_bytes: int) -> "tuple[AgentReport, list[str]]":
    """A report given as data — a workflow agent's `StructuredOutput` input — validated by the
    same model as a fenced report. Raises ReportProblem saying what to fix in that call."""
    if not isinstance(data, dict):
        raise ReportProblem("Your StructuredOutput input must be one JSON object (the report).")
    size = len(orjson.dumps(data))
    if size > max_bytes:
        raise ReportProblem(f"Your report is {size} bytes; the limit is {max_bytes}. Shorten findings and "
                            "evidence and call StructuredOutput again.")
    return _validated(data, "\nFix these fields and call StructuredOutput again with the whole report.")
