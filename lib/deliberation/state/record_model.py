"""The decision record's JSON shape: `DecisionRecord`, the contract of
`deliberation report ID --format json` (`state_schema/decision_record.schema.json`).

`decision_record.record_json` builds the record as data; `decision_record.build` validates it into
this model, which the Markdown and HTML records render from; `publish` validates it against this model
before `deliberation report --format json` prints it, and the tests validate every record they
build, so a key renamed in one place and not the other fails loudly instead of drifting
silently. (The Stop hook stores the record unvalidated: a drift must never keep a deliberation
from completing.) Every model
forbids unknown keys: the schema says `additionalProperties: false` everywhere, so a consumer
can rely on it. Times are UTC strings (`2026-01-01 09:00:00 UTC`, or null), tokens integers,
scores 0-10, consensus and confidences 0-1.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deliberation.state.models import DepthOverride, HotSpot, Route, TwoAgentCheck, WaysForward

Severity = Literal["info", "low", "medium", "high", "critical"]
Stage = Literal["research", "deliberation", "ranking"]


class _R(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ImprovementPair(_R):
    persona: str
    before: "str | None" = Field(description="The approach its research report preferred (null: none matched).")
    after: "str | None" = Field(description="The approach it preferred as a blind ranker (null: no position).")


class Improvement(_R):
    """Gate 2's improvement evidence: the share of the panel whose position is the decision, at
    research (each persona alone) and at the blind ranking."""

    before: "float | None"
    after: "float | None"
    improved: bool = Field(description="The check passes: improved, confirmed or unmeasured.")
    status: "Literal['improved', 'confirmed', 'flat', 'fell', 'unmeasured']"
    decision: "str | None"
    scale: str
    paired: bool
    pairs: list[ImprovementPair]
    trigger_confidence: "float | None"
    trigger_forced: bool
    compared: str


class Decision(_R):
    approach: "str | None" = Field(description="The leading (top-scored) approach id; null before the vote.")
    title: "str | None"
    summary: "str | None"
    consensus: "float | None"
    threshold: float
    meets_threshold: bool
    band: "Literal['strong', 'moderate', 'weak'] | None"
    text: "str | None" = Field(description="The recorded decision: the adopted approach id, or the rejection.")
    outcome: "Literal['adopted', 'rejected', 'no-consensus'] | None"
    adopted: "str | None" = Field(description="The adopted approach id; null when nothing was adopted.")
    spread: "float | None"
    stdev: "float | None"
    approvals: "int | None"
    rejections: "int | None"
    abstentions: "int | None"
    agents: "int | None"
    mean: "float | None" = Field(description="Mean weighted score (0-10) of the leading approach.")


class ApproachRow(_R):
    id: str
    title: str
    summary: str
    mean: "float | None"
    leading: bool
    struck: bool = Field(description="Struck from the lead by an evidence-backed tier-2 refutation.")


class Alternative(ApproachRow):
    gap: "float | None" = Field(description="Mean score minus the leading approach's.")


class ScoreRow(_R):
    agent: str
    persona: str
    label: str
    scores: dict[str, float] = Field(description="Approach id → weighted score (0-10).")


class BreakdownRow(_R):
    dimension: str
    weight: float
    by_agent: "dict[str, float | None]"
    mean: "float | None"
    contribution: "float | None"


class SourceRef(_R):
    id: str = Field(
        description="The cited id: persona:F1 (finding), persona:D1 (dissent), persona:C1 (refutation: a challenge; "
        "the hooks say persona:R1), H1 (hot spot)."
    )
    kind: Literal["finding", "dissent", "refutation", "hot_spot", "unknown"]
    persona: str
    text: str = Field(description="What the cited item says (a claim, concern, counter-claim or hot spot).")


class RequirementRow(_R):
    id: str
    text: str
    priority: Literal["must", "should", "could"]
    sources: list[SourceRef]
    verified_by: list[str] = Field(description="Acceptance criteria that name this requirement in `verifies`.")


class NonGoalRow(_R):
    text: str
    sources: list[SourceRef]


class CriterionRow(_R):
    id: str
    text: str
    verifies: list[str]
    sources: list[SourceRef]


class RiskRow(_R):
    id: str
    risk: str
    mitigation: str
    severity: Severity
    sources: list[SourceRef]


class QuestionRow(_R):
    question: str
    sources: list[SourceRef]


class DocumentBody(_R):
    decision: str
    problem: str
    requirements: list[RequirementRow]
    non_goals: list[NonGoalRow]
    acceptance_criteria: list[CriterionRow]
    risks: list[RiskRow]
    open_questions: list[QuestionRow]


class Trace(_R):
    items: int = Field(description="Document items that cite (requirements, criteria, risks, non-goals, questions).")
    citations: int
    by_kind: dict[str, int] = Field(description="Distinct cited items per kind (finding, dissent, refutation, hot_spot).")
    untraced: list[str] = Field(description="Requirements, criteria or risks none of whose citations resolve.")
    unknown: list[str] = Field(description="Cited ids that do not exist in the deliberation.")
    uncovered: list[str] = Field(description="Requirements no acceptance criterion verifies.")


class Prd(_R):
    """The decision document (PRD) and how PRD_GENERATION went."""

    status: Literal["not_due", "due", "accepted", "missing"]
    due_at: "str | None"
    closed_at: "str | None"
    send_backs: int
    problem: "str | None" = Field(description="Why the last document read was not accepted.")
    document: "DocumentBody | None"
    trace: "Trace | None"


class FindingRow(_R):
    id: "str | None" = Field(description="The id a decision document cites it by (null: shadowed by an earlier item).")
    local_id: str = Field(description="The id in its report.")
    claim: str
    evidence: str
    severity: Severity
    cited_by: list[str] = Field(description="Decision-document items that cite it.")


class RefutationRow(_R):
    id: "str | None"
    target: str
    verdict: Literal["refuted", "weakened", "upheld"]
    claim: str
    evidence: str
    cited_by: list[str]


class FindingGroup(_R):
    """One agent's findings (and refutations), in record order."""

    agent: str
    label: str
    persona: str
    kind: Literal["persona", "debate", "synthesis", "red-team", "lens"]
    stage: Stage
    tier: int
    findings: list[FindingRow]
    refutations: list[RefutationRow]


class DissentRow(_R):
    id: "str | None"
    agent: str
    label: str
    persona: str
    stage: Stage
    verdict: Literal["approve", "reject", "abstain"]
    target: str
    concern: str
    reason: str


class UndocumentedDissent(_R):
    agent: str
    label: str
    why: str


class CheckRow(_R):
    name: str
    passed: bool
    figure: str
    detail: str


class GateRow(_R):
    gate: Literal["consensus", "quality"]
    passed: bool
    at: str
    next_step: str
    checks: list[CheckRow]


class Gates(_R):
    consensus: "GateRow | None"
    quality: "GateRow | None"


class Independence(_R):
    """What the panel established beyond what it was given (core/independence.py)."""

    findings: int = Field(description="Findings of the current research and deliberation reports.")
    restated: list[str] = Field(description="Refs of the findings that only restate the shared context or the question.")
    beyond: int = Field(description="Findings the panel established beyond the shared context.")
    dropped: list[str] = Field(description="Conclusion sentences dropped from the shared context the main agent gave.")


class ConformityRow(_R):
    detector: str
    agents: list[str]
    evidence: str
    recommendation: str


class Tier2Refutation(_R):
    target: str
    verdict: str
    claim: str
    evidence: str


class Tier2Row(_R):
    agent: str
    label: str
    lens: str
    kind: str
    status: str
    zeroed: bool
    hot_spots: list[str]
    summary: str
    refutations: list[Tier2Refutation]


class DepthTokens(_R):
    used: int
    counted: str
    agents_by_source: dict[str, int]
    agents_not_counted: int


class Depth(_R):
    posture: str
    enabled: bool
    status: str
    passes: int
    workers_per_wave: int
    skipped_reason: str
    clamped: str
    hot_spots: list[HotSpot]
    tier2_by_lens: dict[str, int]
    overrides: list[DepthOverride]
    zeroed: list[str]
    tier2: list[Tier2Row]
    tokens: DepthTokens = Field(description="What the depth budget counted (each agent's last response).")
    basis: str


class AgentUsageRow(_R):
    agent: str
    label: str
    persona: str
    kind: str
    stage: Stage
    tier: int
    background: bool
    status: str
    model: "str | None" = Field(description="The model it ran on (else the one asked for); null when not known.")
    calls: "int | None" = Field(description="API responses; null when the transcript could not be read.")
    input_tokens: "int | None"
    cache_creation_input_tokens: "int | None"
    cache_read_input_tokens: "int | None"
    output_tokens: "int | None"
    total_tokens: int
    source: str = Field(description="'transcript' (every call), '<source> (last response only)' or 'not counted'.")
    complete: bool = Field(description="All of the agent's calls are counted.")
    wall_s: "float | None" = Field(description="Spawn to report, seconds.")
    priced_at: "str | None" = Field(description="The price key (cost.prices.models) it was priced at; null: not priced.")


class StageUsage(_R):
    agents: int
    tokens: int


class Money(_R):
    amount: float
    currency: str
    as_of: str = Field(description="The date of the configured prices.")
    source: str = Field(description="Where the configured prices come from.")
    agents_priced: int
    agents_not_priced: int
    by_model: dict[str, float] = Field(description="Price key → amount.")
    rates_per_mtok: dict[str, dict[str, float]] = Field(description="Price key → its rates per million tokens.")


class Usage(_R):
    """What the deliberation cost (cost.py)."""

    agents: int
    agents_from_transcripts: int
    agents_last_response_only: int
    agents_not_counted: int
    total_tokens: int
    breakdown: dict[str, int]
    calls: int
    by_stage: dict[str, StageUsage]
    one_agent_tokens: "int | None" = Field(
        description="Mean tokens of a research persona: one agent studying the question alone."
    )
    multiple_of_one_agent: "float | None"
    main_agent: "dict[str, int] | None" = Field(
        None,
        description="The main agent's own calls and tokens from the prompt that asked for the deliberation to its "
        "conclusion (its transcript); null when not read.",
    )
    checkpoints: "dict[str, int] | None" = Field(None, description="The plugin workflow's checkpoint agents' calls and tokens.")
    deliberation_tokens: "int | None" = Field(None, description="Subagents, checkpoints and the main agent together.")
    main_share: "float | None" = Field(None, description="The main agent's share of deliberation_tokens.")
    single_answer_tokens: "int | None" = Field(
        None, description="The main agent's first call on the question: what one agent answering alone would make."
    )
    multiple_with_main: "float | None" = Field(None, description="deliberation_tokens ÷ single_answer_tokens.")
    wall_time_s: "float | None" = Field(description="First spawn to conclusion.")
    agent_time_s: float = Field(description="Sum of the agents' own spawn-to-report times.")
    per_agent: list[AgentUsageRow]
    money: "Money | None" = Field(description="Only with prices in the config (cost.prices); null = tokens only.")
    counted: str
    summary: str


class PhaseRow(_R):
    from_: str = Field(alias="from")
    to: str
    at: str
    why: str


class Revision(_R):
    status: str
    replaced_at: str
    why: str


class Participant(_R):
    key: str
    label: str
    persona: str
    kind: str
    stage: Stage
    tier: int
    status: str
    verdict: "str | None"
    preferred: "str | None"
    confidence: "float | None"
    superseded: bool
    problem: "str | None"
    model: "str | None" = Field(description="The model it ran on, else the one asked for.")
    resumes: int = Field(description="Times it was resumed with SendMessage.")
    revisions: list[Revision] = Field(description="Earlier reports a resumed run replaced.")


class ModelsUsed(_R):
    ran_on: dict[str, int] = Field(description="Model → agents that ran on it.")
    unknown: int
    single_model: bool = Field(description="The ranking panel ran on a single model (a conformity warning).")


class DecisionRecord(_R):
    """A deliberation's decision record as structured data."""

    deliberation_id: str
    session_id: str
    question: str
    task_type: str
    task_type_overridden: bool
    threshold: float
    phase: Literal["IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE", "FAILED"]
    created_at: str
    updated_at: str
    initial_confidence: "float | None"
    improvement: Improvement
    decision: Decision
    dimensions: dict[str, float]
    approaches: list[ApproachRow]
    scores: list[ScoreRow]
    leading_breakdown: list[BreakdownRow]
    alternatives: list[Alternative]
    prd: Prd
    findings: list[FindingGroup]
    dissent: list[DissentRow]
    undocumented_dissent: list[UndocumentedDissent]
    gates: Gates
    conformity: list[ConformityRow]
    independence: "Independence | None" = None
    depth: Depth
    two_agent: "TwoAgentCheck | None"
    ways: "WaysForward | None" = Field(
        None,
        description="Set when a gate failed on agreement: the ways forward offered, the revision round "
        "and the vote it answered, and when the decision was handed to the user.",
    )
    route: "Route | None"
    usage: Usage
    warnings: list[str]
    failure_reasons: list[str]
    phase_history: list[PhaseRow]
    participants: list[Participant]
    models: ModelsUsed


def publish(record: dict) -> dict:
    """`record` checked against `DecisionRecord` (ValidationError when it drifted), as JSON data."""
    return DecisionRecord.model_validate(record).model_dump(mode="json", by_alias=True)
