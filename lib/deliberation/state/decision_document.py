"""The decision document (PRD) as it is persisted: the models of the one fenced JSON block the
main agent ends its concluding answer with (`state_schema/prd.schema.json`). What it may cite,
how it is captured and sent back: core/prd.py."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deliberation.state.agent_report import REPORT_ID

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any

MARKER: Literal["prd"] = "prd"


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


def _sources(required: bool) -> Any:
    return Field(
        default_factory=list,
        min_length=1 if required else 0,
        max_length=20,
        description="Cited ids: findings persona:F1, dissent persona:D1, refutations persona:R1, hot spots H1.",
    )


class Requirement(_Part):
    id: str = Field(pattern=REPORT_ID, description="Unique, e.g. R1.")
    text: str = Field(min_length=1, max_length=2000, description="What must be true of the implementation.")
    priority: Literal["must", "should", "could"] = "must"
    sources: list[str] = _sources(True)


class NonGoal(_Part):
    text: str = Field(min_length=1, max_length=2000, description="What this decision deliberately does not do.")
    sources: list[str] = _sources(False)


class AcceptanceCriterion(_Part):
    id: str = Field(pattern=REPORT_ID, description="Unique, e.g. AC1.")
    text: str = Field(min_length=1, max_length=2000, description="An observable, checkable condition.")
    verifies: list[str] = Field(
        default_factory=list, max_length=20, description="Ids of the requirements this criterion verifies."
    )
    sources: list[str] = _sources(True)


class Risk(_Part):
    id: str = Field(pattern=REPORT_ID, description="Unique, e.g. RISK1.")
    risk: str = Field(min_length=1, max_length=2000)
    mitigation: str = Field(min_length=1, max_length=2000, description="What is done about it.")
    severity: Literal["info", "low", "medium", "high", "critical"] = "medium"
    sources: list[str] = _sources(True)


class OpenQuestion(_Part):
    question: str = Field(min_length=1, max_length=2000)
    sources: list[str] = _sources(False)


class DecisionDocument(_Part):
    """The decision document the main agent ends its concluding answer with."""

    document: Literal["prd"] = Field(MARKER, description="Marks the block as the decision document.")
    decision: str = Field(min_length=1, max_length=4000, description="What is decided and why, in one paragraph.")
    problem: str = Field("", max_length=4000, description="The problem the decision solves, for a reader who was not there.")
    requirements: list[Requirement] = Field(default_factory=list, max_length=50)
    non_goals: list[NonGoal] = Field(default_factory=list, max_length=30)
    acceptance_criteria: list[AcceptanceCriterion] = Field(default_factory=list, max_length=50)
    risks: list[Risk] = Field(default_factory=list, max_length=30)
    open_questions: list[OpenQuestion] = Field(default_factory=list, max_length=30)
