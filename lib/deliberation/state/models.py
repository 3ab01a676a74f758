"""Persisted state models — the source of truth for every state file's schema.

Files (see docs/ARCHITECTURE.md): SessionState (`sessions/<sid>/session.json`), Lineage
(`sessions/<sid>/lineage.json`), Deliberation (`deliberations/<id>.json`), EscalationIndex
(`escalations.json`), ReversalRegistry (`reversals.json`), Adjudication (one line of
`adjudications.jsonl`), EventRecord (one line of `sessions/<sid>/events.jsonl`), PendingPrompt
(`sessions/<sid>/prompt.json`, during a turn), SessionSwitch (`sessions/<sid>/switch.json`), CommitJournal (`sessions/<sid>/commit.journal`,
while a transaction commits).

Every file model carries `schema_version`. Pure data: no I/O here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deliberation import SCHEMA_VERSION
from deliberation.state.decision_document import DecisionDocument
from deliberation.state.agent_report import AgentReport

Phase = Literal["IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE", "FAILED"]
PHASE_ORDER = ("IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE")
Stage = Literal["research", "deliberation", "ranking"]
AgentKind = Literal["persona", "debate", "synthesis", "red-team", "lens"]
Detector = Literal[
    "templated_dissent",
    "score_clustering",
    "dimension_clustering",
    "near_threshold",
    "missing_minority",
    "same_reasoning",
    "two_agent_rule",
    "single_model",
    "restated_context",
]
HotSpotKind = Literal["refuted", "contradiction", "missed_angle"]
RouteName = Literal["auto-execute", "auto-reject", "human-review", "hard-reject"]
AdjudicationAction = Literal["approve", "reject", "reverse", "confirm"]
NoticeKind = Literal["gate1", "depth", "escalation", "phase", "info", "budget", "person"]
ID = r"^[A-Za-z0-9_-]{1,128}$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class _File(_Model):
    schema_version: int = SCHEMA_VERSION
    mac: "str | None" = Field(
        None,
        exclude=True,
        pattern=r"^[0-9a-f]{32}$",
        description=(
            "The seal this user's plugin adds as the last member of every runtime file and line it writes "
            "(state/seal.py): a file without a valid one was not written by this user's plugin and is not "
            "believed. Absent from the shared files (reversals.json, adjudications.jsonl)."
        ),
    )

    @classmethod
    def migrate(cls, data: dict) -> dict:
        """Upgrade an older file. Version 1 is the first: anything else is refused."""
        raise ValueError(f"schema_version {data.get('schema_version')!r} cannot be migrated")


# --------------------------------------------------------------------------------------------
# session


class TriggerResult(_Model):
    """The confidence module's verdict on one user prompt."""

    dimensions: dict[str, float]  # ambiguity, complexity, stakes, context_dependence
    confidence: float
    threshold: float
    triggered: bool
    forced: bool = False
    task_type: str = "default"
    matched: dict[str, list[str]] = Field(default_factory=dict, description="Terms that fired per dimension.")


class Notice(_Model):
    """A message for the main agent that could not be delivered when it arose (background)."""

    deliberation_id: str = Field(description="The deliberation it is about ('' for a session-wide budget notice).")
    # kind "person": a line for the person only (systemMessage), shown when its deliberation's news is said
    kind: NoticeKind
    text: str
    blocking: bool = False
    then_next: bool = Field(False, description="Said with the next accepted step as it stands when delivered.")
    created_at: float
    shown: bool = Field(
        False, description="A budget notice already shown to the user (systemMessage); it stays queued for the main agent."
    )


class SessionState(_File):
    session_id: str = Field(pattern=ID)
    created_at: float = 0.0
    updated_at: float = 0.0
    last_prompt: str = Field("", description="Latest real user prompt (task notifications excluded), truncated.")
    trigger: "TriggerResult | None" = None
    deliberate_forced: bool = False
    active_deliberation: "str | None" = None
    deliberations: list[str] = Field(default_factory=list)
    consecutive_stop_blocks: int = 0
    notices: list[Notice] = Field(default_factory=list)
    open_workflows: list[str] = Field(
        default_factory=list,
        description="Workflow runs (their tool_use_id) not yet seen to finish: their "
        "completion notice and the Stop go to the slow path, which closes them in the lineage.",
    )
    main_idle_since: "float | None" = Field(
        None,
        description="When the main agent's turn last ended (a Stop the plugin let through); None once a "
        "prompt or a task notification gave it a turn again. A quiet wait needs it (core/quiet_wait.py).",
    )
    running_at_stop: "list[str] | None" = Field(
        None, description="The background tasks that Stop listed as running (None: the payload listed none)."
    )


# --------------------------------------------------------------------------------------------
# lineage and spawn budget


class Spawn(_Model):
    tool_use_id: "str | None" = None
    agent_id: "str | None" = None
    parent: str = Field("main", description="'main' or the spawning subagent's agent_id.")
    subagent_type: str
    kind: "AgentKind | None" = None
    deliberation_id: "str | None" = None
    depth: int = 1
    background: bool = True
    status: Literal["requested", "running", "completed", "failed"] = "requested"
    requested_at: float
    started_at: "float | None" = None
    finished_at: "float | None" = None
    channel: Literal["agent", "workflow", "unlinked"] = Field(
        "agent",
        description="How it started: the Agent tool (PreToolUse saw it), an agent() call of a "
        "Workflow script (no PreToolUse), or a start no hook announced.",
    )
    workflow: "str | None" = Field(None, description="The Workflow call (its tool_use_id) that started it.")
    model_requested: "str | None" = Field(
        None, description="The model asked for: the spawn's `model`, else the agent file's `model:` (None = inherit)."
    )
    model: "str | None" = Field(None, description="The model it ran on (the client's resolvedModel, or its transcript).")
    resumes: int = Field(0, description="Times a SendMessage resumed it after it had finished.")
    over_budget: bool = Field(False, description="It started past the spawn budget (a workflow agent no hook could refuse).")
    checkpoint: bool = Field(
        False, description="A checkpoint agent of the plugin's workflow (its report is the plugin's verdict)."
    )


class WorkflowRun(_Model):
    """One call of the client's Workflow tool: a script whose agent() calls start subagents."""

    tool_use_id: "str | None" = None
    task_id: "str | None" = Field(None, description="The client's background task id (its completion notice names it).")
    run_id: "str | None" = Field(None, description="The client's run id (its agents' transcripts live under it).")
    name: str = ""
    parent: str = "main"
    deliberation_id: "str | None" = Field(None, description="The deliberation active when it was launched.")
    bound: "int | None" = Field(None, description="The most agents its script can start (None: no bound from the text).")
    bound_detail: str = Field("", description="How the bound was computed, or why there is none.")
    agent_types: list[str] = Field(default_factory=list, description="agentType values its script names.")
    status: Literal["requested", "running", "completed", "failed", "not_launched"] = "requested"
    requested_at: float
    started_at: "float | None" = None
    finished_at: "float | None" = None
    agents: int = Field(0, description="Its agents seen starting.")
    overrun: int = Field(0, description="Its agents that started past the spawn budget.")
    overrun_told: bool = Field(False, description="The user and the main agent were told of the overrun.")
    plugin: bool = Field(False, description="The plugin's own deliberation workflow (docs/WORKFLOW.md).")
    script_check: Literal["", "shipped", "foreign"] = Field(
        "", description="The resolved script compared with the shipped one at PostToolUse ('' = not checked)."
    )
    transcript_dir: str = Field("", description="The run's folder (its agents' transcripts and journal.jsonl).")
    resumed_from: "str | None" = Field(None, description="The run id a resumeFromRunId call replays.")
    cached: int = Field(0, description="Agent results the client served from the run's cache (they fired no hook).")
    cached_agents: list[str] = Field(default_factory=list, description="Their agent ids, read from the run's journal.")


class Resume(_Model):
    """A SendMessage to a subagent: it resumes a finished agent, or reaches a running one."""

    tool_use_id: "str | None" = None
    agent_id: str
    sender: str = Field("main", description="'main' or the sending subagent's agent_id.")
    deliberation_id: "str | None" = None
    rule: str = Field(description="Why it was allowed: requested, revision, running, not_deliberation, unknown_target.")
    why: str = Field("", description="What the agent's record keeps with a report this resume replaces.")
    status: Literal["requested", "resumed", "started", "delivered", "failed"] = "requested"
    at: float
    message_chars: int = 0
    message_sha256: str = ""


class DeniedSpawn(_Model):
    tool_use_id: "str | None" = None
    parent: str = "main"
    subagent_type: str
    rule: str
    reason: str
    at: float


class Lineage(_File):
    session_id: str = Field(pattern=ID)
    spawns: list[Spawn] = Field(default_factory=list)
    denied: list[DeniedSpawn] = Field(default_factory=list)
    workflows: list[WorkflowRun] = Field(default_factory=list)
    resumes: list[Resume] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------
# deliberation


class PhaseChange(_Model):
    from_phase: Phase
    to_phase: Phase
    at: float
    why: str


class GivenContext(_Model):
    """What an agent was given at spawn (context isolation and depth-axis audit)."""

    prompt_chars: int = 0
    prompt_sha256: str = ""
    hot_spots: list[str] = Field(default_factory=list)
    fork: bool = False
    isolation: str = Field("", description="Result of the isolation check at spawn.")


class TokenUsage(_Model):
    """Every API response of one subagent, summed from its transcript (what it was billed for)."""

    calls: int = Field(0, description="API responses (distinct message ids) in the transcript.")
    input_tokens: int = Field(0, description="Uncached input tokens, all calls.")
    cache_creation_input_tokens: int = Field(0, description="Input tokens written to the prompt cache, all calls.")
    cache_read_input_tokens: int = Field(0, description="Input tokens read from the prompt cache, all calls.")
    output_tokens: int = Field(0, description="Output tokens, all calls.")


class Revision(_Model):
    """An earlier report of an agent that a resumed run of the same agent replaced."""

    status: Literal["reported", "invalid"]
    report: "AgentReport | None" = None
    problem: "str | None" = None
    reported_at: "float | None" = None
    replaced_at: float
    why: str = Field(description="Why the resume was allowed: requested by the plugin, a revision, unannounced.")


class AgentRecord(_Model):
    key: str = Field(description="agent_id once known, else the spawning tool_use_id.")
    agent_id: "str | None" = None
    tool_use_id: "str | None" = None
    persona: str = Field(description="Normalised agent type: the persona or role slug.")
    kind: AgentKind
    stage: Stage
    tier: Literal[1, 2] = 1
    red_team_round: "int | None" = None
    background: bool = True
    status: Literal["spawned", "running", "reported", "invalid", "refused"] = "spawned"
    spawned_at: float
    reported_at: "float | None" = None
    report: "AgentReport | None" = None
    ignored_keys: list[str] = Field(default_factory=list)
    problem: "str | None" = Field(None, description="Why the report is invalid or refused.")
    send_backs: int = 0
    tokens: int = Field(0, description="Tokens counted for the depth budget (see token_usage.py).")
    tokens_source: Literal["", "transcript", "totalTokens", "task-notification"] = Field(
        "", description="Where `tokens` came from; '' = not counted."
    )
    transcript: str = Field("", description="The subagent's transcript path (agent_transcript_path), read for `tokens`.")
    usage: "TokenUsage | None" = Field(
        None,
        description="All of the agent's API calls, read from its transcript when the deliberation "
        "concluded; None when the transcript could not be read (the record then shows `tokens`).",
    )
    given: GivenContext = Field(default_factory=GivenContext)
    superseded: bool = Field(False, description="A later report of the same persona and stage replaced it.")
    notified: bool = Field(False, description="Background agent: its task notification reached the main agent.")
    handed_back: bool = Field(
        False,
        description="Its report comes through the SubagentHandback tool (auto mode): the call carries it, "
        "its SubagentStop has no final message, and the main agent reads it in an agent-message turn.",
    )
    model_requested: "str | None" = Field(
        None, description="The model asked for: the spawn's `model`, else the agent file's `model:` (None = inherit)."
    )
    model: "str | None" = Field(None, description="The model the agent ran on (resolvedModel, or its transcript).")
    resumes: int = Field(0, description="Times a SendMessage resumed this agent after it reported.")
    revisions: list[Revision] = Field(default_factory=list, description="Earlier reports a resumed run replaced, oldest first.")
    channel: Literal["agent", "workflow"] = Field(
        "agent", description="How it was spawned: an Agent call, or a wave of the plugin's workflow."
    )
    label: str = Field("", description="Its label in the plugin's workflow (wave · persona).")
    wave: int = Field(0, description="The plugin workflow's wave it ran in (1-based; 0: not a wave agent).")

    @property
    def filed(self) -> AgentReport:
        """The report of an agent counted in a stage (`phases.current` keeps only those)."""
        if self.report is None:
            raise ValueError(f"agent {self.key} ({self.persona}) has no report")
        return self.report


class ApproachScore(_Model):
    agent: str
    persona: str
    approach: str
    dimensions: dict[str, float]
    weighted: float


class RankingResult(_Model):
    dimensions: dict[str, float] = Field(description="Dimension → weight (normalised to sum 1).")
    approaches: list[str]
    scores: list[ApproachScore]
    means: dict[str, float] = Field(description="Approach → mean weighted score (0-10).")
    leading: "str | None"
    leading_scores: dict[str, float] = Field(description="Agent → weighted score of the leading approach.")
    consensus: float = Field(ge=0, le=1)
    spread: float = Field(description="max - min of the leading approach's weighted scores.")
    stdev: float
    agents: int
    approvals: int
    rejections: int
    abstentions: int


class Check(_Model):
    name: str
    passed: bool
    figure: str = Field(description="The number behind the result, e.g. '0.62 < 0.80'.")
    detail: str = ""
    measured: "float | None" = Field(None, description="What the check measured (the figure's left side), when it is a number.")
    needed: "float | None" = Field(None, description="What passing needs (the figure's right side), when it is a number.")


class GateResult(_Model):
    gate: Literal["consensus", "quality"]
    passed: bool
    checks: list[Check]
    at: float
    next_step: str = ""


class ConformityWarning(_Model):
    detector: Detector
    agents: list[str]
    evidence: str
    recommendation: str = "re-run the affected agents with fresh isolation (new spawns, no shared findings)"


HOT_SPOT_ID = r"H[0-9]{1,3}"  # H1, H2, … — the id a hot spot is cited by


class HotSpot(_Model):
    id: str = Field(pattern=f"^{HOT_SPOT_ID}$")
    kind: HotSpotKind
    statement: str
    material: list[str] = Field(default_factory=list, description="Finding refs, red-team notes behind it.")
    sources: list[str] = Field(default_factory=list, description="Agents whose reports produced it.")


class DepthOverride(_Model):
    hot_spot: str
    target: str
    by_agent: str
    evidence: str
    effect: str


class DepthState(_Model):
    posture: str = ""
    enabled: bool = False
    workers_per_wave: int = 0
    hot_spots: list[HotSpot] = Field(default_factory=list)
    status: Literal["not_needed", "pending", "deepening", "red_team_2", "done", "skipped", "off"] = "not_needed"
    skipped_reason: str = ""
    tier2_by_lens: dict[str, int] = Field(default_factory=dict)
    overrides: list[DepthOverride] = Field(default_factory=list)
    zeroed: list[str] = Field(default_factory=list, description="Tier-2 agents whose result was a paraphrase of tier 1.")
    passes: int = 0
    clamped: str = ""
    basis: str = Field(
        "",
        description="What the depth step was planned on: '' (the first red-team pass) or "
        "'2-agent rule' (the minimum viable deliberation: the AGAINST agent stands "
        "in for the red-team pass).",
    )


class TwoAgentCheck(_Model):
    """The minimum viable deliberation's rule over its two research reports (docs/EVIDENCE.md, E5)."""

    verdict: Literal["proceed", "investigate", "suspect_herding", "no_position"]
    agents: list[str]
    similarity: "float | None" = Field(None, description="Similarity of the two rationales (0-1).")
    detail: str = ""


class RouteRule(_Model):
    rule: Literal["T1", "T2", "D", "PROBE", "COLD_START", "NO_CONSENSUS"]
    detail: str


class ProbeRun(_Model):
    name: str
    passed: bool
    exit_code: "int | None"
    timed_out: bool = False
    duration_s: float = 0.0
    causal_warning: str = ""
    error: str = Field("", description="Why the probe could not run (not found, refused by validation).")


class Route(_Model):
    route: RouteName = Field(
        description="auto-execute: a unanimous pass nothing flagged; auto-reject: a unanimous reject "
        "(nothing is adopted); human-review / hard-reject: escalated."
    )
    decision_class: str
    unanimous: bool
    rules: list[RouteRule] = Field(default_factory=list)
    probes: list[ProbeRun] = Field(default_factory=list)
    policy: str = Field("", description="The rule set that ran (escalation.policy): D+T2+PROBE or T1+D+T2+PROBE.")
    decided_by: str = Field("", description="What set the route: the deciding rule(s), or the unanimous vote.")
    judges_confidence: "float | None" = Field(
        None, description="Mean self-reported confidence of the ranking agents that voted pass (what T2 reads)."
    )
    notes: list[str] = Field(default_factory=list, description="What the policy knowingly left out.")
    review: Literal["not_needed", "pending", "approved", "rejected"] = "not_needed"
    reviewed_by: "str | None" = Field(
        None, description="Who approved or rejected (`deliberation approve|reject --who`, default the user name)."
    )
    reviewed_at: "float | None" = Field(None, description="When they did.")
    review_reason: str = Field("", description="The reason they gave (--reason).")


class WaysForward(_Model):
    """A gate failed on agreement: the two ways forward the main agent was offered
    (core/ways_forward.py) — one revision round, or the decision handed to the user."""

    offered_at: "float | None" = Field(None, description="When the ways forward were first offered.")
    gate: str = Field("", description="The gate that failed on agreement: consensus or quality.")
    failed: list[str] = Field(default_factory=list, description="Its failed checks, with their figures.")
    revision: Literal["available", "revising", "reranking", "used"] = Field(
        "available",
        description="The one revision round: available; revising (its synthesis-lead runs); "
        "reranking (revised approaches, the fresh blind ranking is due); used.",
    )
    reviser: str = Field("", description="Record key of the revision round's synthesis-lead.")
    before: "dict[str, Any] | None" = Field(
        None, description="The vote the revision round answered: leader, consensus, split, contested points."
    )
    handed_over_at: "float | None" = Field(None, description="When the stop handed the decision to the user.")


class AnnouncedRoute(_Model):
    """The route a decision was expected to take when its document was asked for
    (core/announce.py): the vote, the decision class and the reversal registry are known then;
    the probes run when it closes. A route that needs a person is announced in the request, so
    the main agent tells the user in its concluding answer and the Stop need not hold it."""

    route: RouteName
    rules: list[str] = Field(default_factory=list, description="The escalating rules that fired (T1, T2, D).")
    why: str = Field("", description="Why, in one line (the rules' details).")
    probes: list[str] = Field(
        default_factory=list, description="Probes that cover the class: they run at the close and may change the route."
    )


class PrdState(_Model):
    """The PRD_GENERATION phase: the decision document the main agent writes (prd.py)."""

    status: Literal["not_due", "due", "accepted", "missing"] = Field(
        "not_due",
        description="due: the vote passed and the document is awaited; accepted: valid and traced; "
        "missing: absent or invalid after its send-back(s).",
    )
    due_at: "float | None" = Field(None, description="When the vote passed and the document was asked for.")
    closed_at: "float | None" = Field(None, description="When it was accepted or recorded missing.")
    send_backs: int = 0
    problem: "str | None" = Field(None, description="Why the last document read was not accepted.")
    document: "DecisionDocument | None" = None
    ignored_keys: list[str] = Field(default_factory=list)
    via: "Literal['write', 'answer', 'drafter'] | None" = Field(
        None,
        description="How the accepted document arrived: a Write call the plugin read (core/document_call.py), "
        "a fenced block ending the concluding answer, or the drafter agent's report (core/drafting.py).",
    )
    announced: "AnnouncedRoute | None" = Field(
        None,
        description="The route announced with the request (None: not announced; the Stop holds once "
        "when the final route needs a person).",
    )


class Wave(_Model):
    """One wave the plugin's workflow ran: agents started in parallel on the plugin's verdict."""

    name: str
    agents: int = Field(0, description="Agents it started (their records carry its number in `wave`).")
    last: bool = Field(False, description="The run ends after it (no checkpoint follows).")
    launch: str = Field("", description="The Workflow call (tool_use_id) that ran it.")
    issued_at: float
    closed_at: "float | None" = None


class WorkflowDrive(_Model):
    """The plugin's own workflow running this deliberation (docs/WORKFLOW.md)."""

    launches: list[str] = Field(default_factory=list, description="Its Workflow calls (tool_use_ids), oldest first.")
    status: Literal["running", "done", "failed", "foreign", "hooks_off", "stopped"] = "running"
    waves: list[Wave] = Field(default_factory=list)
    checkpoints: int = Field(0, description="Verdicts given to the script.")
    outcome: str = Field("", description="Why the run ended: the last verdict's status, or the failure.")
    context: str = Field("", description="The shared project context every research prompt carried.")
    dropped: list[str] = Field(
        default_factory=list,
        description="Sentences of the context the main agent gave that stated a conclusion, dropped from it "
        "(core/independence.py): the personas get facts about the project, not the main agent's reading.",
    )
    told: bool = Field(False, description="The main agent was told the outcome (the task notification).")
    answered: dict[str, Any] = Field(
        default_factory=dict,
        description="The last checkpoint answered: its agent id and the verdict it was given (a repeated call gets the same).",
    )
    checkpoint_transcripts: list[str] = Field(
        default_factory=list, description="The transcripts of the workflow's own steps: the checkpoints and the drafter."
    )
    checkpoint_usage: "TokenUsage | None" = Field(
        None, description="The API calls of the workflow's own steps (checkpoints, the drafter), summed at the conclusion."
    )


class Deliberation(_File):
    id: str = Field(pattern=ID)
    session_id: str = Field(pattern=ID)
    question: str = ""
    task_type: str = "default"
    task_type_overridden: bool = False
    agent_prefix: str = Field("", description="Namespace of the agent types in use, e.g. 'deliberation:' in the plugin form.")
    threshold: float = 0.70
    phase: Phase = "IDLE"
    phase_history: list[PhaseChange] = Field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    initial_confidence: "float | None" = Field(
        None,
        description="The trigger's confidence for the question (a word-list score of the prompt). "
        "Context only: improvement evidence compares the panel's positions (core/improvement.py).",
    )
    trigger_forced: bool = Field(False, description="The user forced the deliberation (/deliberate).")
    agents: list[AgentRecord] = Field(default_factory=list)
    refused_transitions: list[str] = Field(default_factory=list)
    ranking: "RankingResult | None" = None
    gate1: "GateResult | None" = None
    gate2: "GateResult | None" = None
    conformity: list[ConformityWarning] = Field(default_factory=list)
    depth: DepthState = Field(default_factory=DepthState)
    two_agent: "TwoAgentCheck | None" = Field(
        None, description="The 2-agent rule's outcome when research ended with exactly two personas."
    )
    route: "Route | None" = None
    warnings: list[str] = Field(default_factory=list)
    failure_reasons: list[str] = Field(default_factory=list)
    stop_blocks: int = 0
    last_delivered: str = Field(
        "", description="Digest of the last gate/progress answer given to the main agent since the last spawn."
    )
    decision: "str | None" = Field(None, description="The adopted approach id; None when none was adopted.")
    outcome: "Literal['adopted', 'rejected', 'no-consensus'] | None" = Field(
        None,
        description="Set on conclusion: adopted (the leading approach), rejected (a unanimous "
        "reject: no approach adopted) or no-consensus (the panel did not agree and the "
        "decision was handed to the user: human review settles it).",
    )
    ways: "WaysForward | None" = Field(
        None, description="Set when a gate failed on agreement: the ways forward offered and taken."
    )
    record_path: "str | None" = None
    record: "dict[str, Any] | None" = Field(
        None, description="The structured decision record (decision_record.record_json), kept with the Markdown one."
    )
    tokens_used: int = 0
    prd: PrdState = Field(default_factory=PrdState)
    workflow: "WorkflowDrive | None" = Field(None, description="Set when the plugin's workflow runs it.")
    prompt_at: "float | None" = Field(None, description="When the user's prompt that asked for it was submitted.")
    main_usage: "TokenUsage | None" = Field(
        None,
        description="The main agent's own API calls from that prompt to the conclusion, read from its transcript "
        "when the deliberation concluded (None: not read).",
    )
    main_first_call: "int | None" = Field(
        None,
        description="Tokens of the first of those calls, the one that received the question: what one agent "
        "answering alone would make, the measure of the deliberation's multiple.",
    )


# --------------------------------------------------------------------------------------------
# project-wide files


class OpenEscalation(_Model):
    deliberation_id: str
    session_id: str
    route: Literal["human-review", "hard-reject"]
    reason: str
    opened_at: float


class EscalationIndex(_File):
    open: list[OpenEscalation] = Field(default_factory=list)


class ReversalClass(_Model):
    decision_class: str
    reversals: int = 0
    confirmations: int = 0
    first_reversed_at: "float | None" = None
    last_reversed_at: "float | None" = None
    decisions: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    confirmed: list[str] = Field(default_factory=list, description="Decisions of this class labelled correct.")


class ReversalRegistry(_File):
    classes: dict[str, ReversalClass] = Field(default_factory=dict)


class Adjudication(_File):
    deliberation_id: str
    action: AdjudicationAction
    who: str
    at: float
    reason: str = ""


class EventRecord(_File):
    at: float
    event: str
    eid: "str | None" = Field(
        None,
        description="The hook invocation's id: a hook whose warm worker died after "
        "taking the event looks here to know whether it was committed.",
    )
    handled_by: "Literal['hook', 'worker'] | None" = Field(
        None, description="Which process applied the event: the hook itself or the warm worker."
    )
    payload: dict[str, Any]
    answer: dict[str, Any] = Field(
        default_factory=dict,
        description="The plugin's answer (hookio.Answer.summary): decision, reason, context, system_message, "
        "updated_input, stop_reason as set, and `kinds`, the kinds of the outcomes it says (never shown to the client).",
    )
    notes: list[str] = Field(default_factory=list)
    trigger: "dict[str, Any] | None" = Field(None, description="The confidence module's result for a user prompt.")
    ids_only: bool = Field(
        False,
        description="The payload keeps only its ids, names, flags and numbers: the event "
        "came before the session opened a deliberation (docs/STORAGE.md).",
    )
    truncated: dict[str, int] = Field(
        default_factory=dict, description="Payload strings cut at the field cap: their path → their full length."
    )


class SessionSwitch(_File):
    """The session's off switch: the user typed `/deliberation:off` or `…:on` (or the session
    start found DELIBERATION=off in the client's own environment, hidden by a project's settings)."""

    checks: Literal["off", "on"]
    by: Literal["command", "environment"] = "command"
    at: float


class PendingPrompt(_File):
    """The turn's prompt, kept aside until the turn ends (removed) or a deliberation opens (then
    its record goes first into the session's log)."""

    record: EventRecord


class JournalWrite(_Model):
    path: str = Field(description="Relative to .claude/deliberation/.")
    text: "str | None" = Field(description="The file's new content; null removes the file.")


class JournalAppend(_Model):
    path: str = Field(description="Relative to .claude/deliberation/.")
    lines: str = Field(description="JSON lines to append, each ending in a newline.")


class JournalUpsert(_Model):
    path: str = Field(description="A project-wide index file, relative to .claude/deliberation/.")
    list_field: str
    key_field: str
    key: str
    item: "dict[str, Any] | None" = Field(description="The entry's new value; null removes it.")
    template: dict[str, Any] = Field(description="The file's content when it is missing.")
    drop_empty: bool = Field(False, description="Remove the file when its list becomes empty.")


class CommitJournal(_File):
    """A session transaction's redo journal: present only while it commits, or after a kill."""

    session_id: str
    writes: list[JournalWrite] = Field(default_factory=list)
    appends: list[JournalAppend] = Field(default_factory=list)
    upserts: list[JournalUpsert] = Field(default_factory=list)
