"""Configuration: `.claude/deliberation/config.json`.

`Config` (pydantic) validates every threshold and limit and documents it; its defaults are
`deliberation.defaults.CONFIG`; `state_schema/config.schema.json` is generated from it. An invalid key or value is
reported by name and its default is used (`read_config_file`). What a hook uses is
`project_config`: the validated config from the cache the fast path reads, else config.json.

Hooks on the fast path must not import pydantic, so `resolved_config` keeps a validated copy in
`cache/config.resolved.json`, keyed by config.json's size and mtime; only when that key changes
does a hook pay for validation.

config.json is the team's shared file, written by whoever wrote the repository: it is read
through `safe_read` (no link, a regular file, at most 1 MiB), and the settings that run a
command or widen what runs keep their defaults until this user approves them (consent.py) — the
cache holds the effective config, sealed like every runtime file (seal.py).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from deliberation import SCHEMA_VERSION, defaults
from deliberation import catalogue
from deliberation.defaults import DEPTH_HARD_CEILING, TASK_TYPES
from deliberation.state import plain_reads
from deliberation.state.paths import Layout
from deliberation.wire import deadlines, hookio
from deliberation.state import consent, safe_read
from deliberation.state.store import atomic_write_bytes, dumps, sealed

__all__ = ["DEPTH_HARD_CEILING", "TASK_TYPES"]  # re-exported: the config's names for them
D = defaults.CONFIG
# One deadline per event (deadlines.py): the longest lock wait fits every event's time, and the
# Stop hook's probes fit what is left of its own.
LOCK_TIMEOUT_MAX_S = deadlines.budget_s("PreToolUse")
PROBE_BUDGET_MAX_S = deadlines.budget_s("Stop") - LOCK_TIMEOUT_MAX_S


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


def _default(section: str, key: str) -> Any:
    """`Field(default_factory=...)` of a list or dict default: a fresh copy for every Config."""
    return lambda: defaults.copy(D[section][key])


T = D["trigger"]


class TriggerConfig(_Section):
    enabled: bool = Field(T["enabled"], description="Score every user prompt and inject the protocol below the threshold.")
    threshold: float = Field(T["threshold"], ge=0, le=1, description="Deliberation is recommended when confidence is below this.")
    high_dimension: float = Field(T["high_dimension"], ge=0, le=1, description="A dimension at or above this counts as high.")
    force_markers: list[str] = Field(
        default_factory=_default("trigger", "force_markers"), description="A prompt starting with one of these always triggers."
    )
    vocabularies: "dict[str, dict[str, float]] | None" = Field(
        T["vocabularies"], description="Replace the built-in vocabulary of a dimension: {dimension: {term: weight}}."
    )
    extra_terms: dict[str, dict[str, float]] = Field(
        default_factory=_default("trigger", "extra_terms"),
        description="Add terms to the built-in vocabularies: {dimension: {term: weight}}.",
    )
    self_rating: bool = Field(
        T["self_rating"],
        description="At session start, tell the agent how to rate a decision it meets (four "
        "dimensions, the task type's bar) and to start the deliberation itself below "
        "it (about 160 tokens).",
    )
    tool_net: Literal["hold", "note", "ask", "off"] = Field(
        T["tool_net"],
        description="A risky tool call with no deliberation on record (force-push to a shared branch, "
        "history rewritten, data or infrastructure destroyed in production, a production migration, "
        "an auth/payment/migration edit after a risky prompt): hold = an irreversible step waits for "
        "the user's yes, an edit runs and the model is told to deliberate before going on; note = every "
        "call runs and the model is told; ask = every such call waits for the user's yes; off.",
    )


class TaskTypeConfig(_Section):
    thresholds: dict[str, float] = Field(
        default_factory=_default("task_types", "thresholds"), description="Consensus threshold per task type."
    )
    keywords: "dict[str, list[str]] | None" = Field(
        D["task_types"]["keywords"], description="Replace the built-in classification keywords: {task_type: [words]}."
    )

    @field_validator("thresholds")
    @classmethod
    def _known_types(cls, v: dict[str, float]) -> dict[str, float]:
        for k, x in v.items():
            if k not in TASK_TYPES:
                raise ValueError(f"unknown task type {k!r} (known: {', '.join(TASK_TYPES)})")
            if not 0 <= x <= 1:
                raise ValueError(f"threshold for {k} must be in [0, 1], got {x}")
        return {**D["task_types"]["thresholds"], **v}


class Dimension(_Section):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    weight: float = Field(gt=0)
    description: str = ""


DEFAULT_DIMENSIONS = D["ranking"]["dimensions"]


class RankingConfig(_Section):
    dimensions: list[Dimension] = Field(
        default_factory=lambda: [Dimension.model_validate(d) for d in DEFAULT_DIMENSIONS],
        min_length=len(catalogue.DIMENSIONS),
        max_length=len(catalogue.DIMENSIONS),
        description="The weighted ranking dimensions (scores 0-10), as many as the built-in ones (docs/CATALOGUES.md).",
    )


_DL, _G, _C, _I, _SB, _DP, _E, _M = (
    D[k] for k in ("deliberation", "gates", "conformity", "isolation", "spawn_budget", "depth", "escalation", "models")
)


class DeliberationConfig(_Section):
    min_agents: int = Field(_DL["min_agents"], ge=1, description="Completed agents needed per phase (research, ranking).")
    min_distinct_personas: int = Field(
        _DL["min_distinct_personas"], ge=1, description="Gate 2 method diversity: distinct personas."
    )
    min_alternatives: int = Field(_DL["min_alternatives"], ge=1, description="Gate 2 complexity handling: approaches generated.")
    max_report_bytes: int = Field(_DL["max_report_bytes"], ge=1024, description="A report larger than this is refused.")
    report_retries: int = Field(
        _DL["report_retries"],
        ge=0,
        le=3,
        description="Send-backs of an invalid report: SubagentStop's, or refusals of the SubagentHandback call.",
    )
    quiet_waiting: bool = Field(
        _DL["quiet_waiting"],
        description="A background deliberation agent's task notification that "
        "changes nothing (its report accepted, agents of its wave still running, no news) asks the "
        "client for no model turn; it reaches the main agent with the next notification "
        "(docs/HOOK_ANSWERS.md). Off: every notification is a turn.",
    )
    allow_read_only_agents: bool = Field(
        _DL["allow_read_only_agents"],
        description="In auto mode, a deliberation spawn the rules accepted whose agent can only read "
        "(its definition's tools within Read, Grep, Glob) is answered `allow`: it waits for neither the "
        "auto-mode classifier nor a person (docs/CLIENT_CHANNELS.md). Off: every spawn takes the session's "
        "usual check.",
    )


class GatesConfig(_Section):
    stop_block_limit: int = Field(
        _G["stop_block_limit"],
        ge=1,
        le=7,
        description="Consecutive Stop blocks before the stop goes through and the deliberation is marked FAILED (the client itself ends a turn after 8).",
    )
    strong: float = Field(_G["strong"], ge=0, le=1, description="Consensus above this is strong.")
    moderate: float = Field(
        _G["moderate"], ge=0, le=1, description="Consensus from this up to strong is moderate; below it weak."
    )
    require_improvement: bool = Field(
        _G["require_improvement"],
        description="Gate 2: the share of the panel whose position is the decision must rise from research to the blind ranking, unless it was unanimous throughout (docs/CONSENSUS.md).",
    )
    acceptable_level: float = Field(
        _G["acceptable_level"],
        ge=0,
        le=10,
        description="The leading approach's mean weighted score (0-10) below which it is the best of weak options: a warning, and for security and architecture decisions a reason for human review (docs/CONSENSUS.md).",
    )


class ConformityConfig(_Section):
    clustering_window: float = Field(
        _C["clustering_window"], ge=0, le=10, description="Score clustering: every agent within this many points (0-10 scale)."
    )
    min_agents_for_clustering: int = Field(
        _C["min_agents_for_clustering"],
        ge=2,
        description="Score clustering (total, per dimension, near the threshold) needs at least this many ranking agents.",
    )
    near_threshold_margin: float = Field(
        _C["near_threshold_margin"],
        ge=0,
        le=10,
        description="Near threshold: every agent's weighted score for the leading approach within this many points of threshold × 10.",
    )
    templated_similarity: float = Field(
        _C["templated_similarity"], ge=0, le=1, description="Concerns this similar across agents are templated."
    )
    same_reasoning_similarity: float = Field(
        _C["same_reasoning_similarity"], ge=0, le=1, description="Agreeing rationales this similar are the same reasoning."
    )
    conflicting_pairs: list[list[str]] = Field(
        default_factory=_default("conformity", "conflicting_pairs"),
        description="Persona pairs whose priorities conflict; unanimous approval from both is suspicious.",
    )
    blocking: bool = Field(_C["blocking"], description="Make conformity warnings block Gate 2.")


class IsolationConfig(_Section):
    enabled: bool = Field(_I["enabled"], description="Deny research spawns whose prompt carries another agent's findings.")
    leak_threshold: float = Field(
        _I["leak_threshold"],
        ge=0,
        le=1,
        description="Share of a finding's shingles found in a research prompt that counts as a leak.",
    )
    blind_ranking: bool = Field(
        _I["blind_ranking"],
        description="Deny ranking spawns whose prompt carries the vote: a leader, scores, other agents' verdicts or rationale, or the approaches out of the neutral order.",
    )
    complete_findings: bool = Field(
        _I["complete_findings"],
        description="Deny synthesis-lead / debate-moderator spawns whose prompt lacks a finding of a research agent that reported (measured like a leak: leak_threshold), naming the missing findings.",
    )


class SpawnBudgetConfig(_Section):
    max_active_children: int = Field(_SB["max_active_children"], ge=1, le=100, description="Active children per parent.")
    max_session_total: int = Field(
        _SB["max_session_total"],
        ge=1,
        le=10000,
        description="Subagents one session may start in all (Agent spawns and Workflow "
        "agents; a SendMessage resume is not a new agent). 60 fits the largest deliberation the protocol "
        "asks for (10 personas, full depth, one re-rank: 39) with room for other work (docs/CONFIGURATION.md).",
    )
    max_depth: int = Field(_SB["max_depth"], ge=1, le=10, description="Nesting limit for non-deliberation agents.")
    stale_after_s: int = Field(_SB["stale_after_s"], ge=60, description="A spawn never seen to start stops counting after this.")


class DepthConfig(_Section):
    posture: Literal["ceiling", "opt-in", "off"] = Field(
        _DP["posture"],
        description="ceiling = deepen whenever hot spots exist; opt-in = only for task types listed in per_task_type as 'on'; off = breadth only.",
    )
    per_task_type: dict[str, Literal["on", "off"]] = Field(
        default_factory=_default("depth", "per_task_type"), description="Dial-down (or opt-in) per task type."
    )
    max_lock: bool = Field(_DP["max_lock"], description="MAX: lock the ceiling whatever per_task_type says.")
    workers_per_wave: int = Field(
        _DP["workers_per_wave"], ge=1, description=f"Tier-2 workers per hot-spot wave, clamped to {DEPTH_HARD_CEILING}."
    )
    agent_budget: int = Field(
        _DP["agent_budget"], ge=0, description="Tier-2 agents allowed per deliberation (deepen + red team 2)."
    )
    token_budget: int = Field(_DP["token_budget"], ge=0, description="Subagent tokens per deliberation before depth is skipped.")
    max_hot_spots: int = Field(
        _DP["max_hot_spots"],
        ge=1,
        le=999,
        description="Hot spots a depth wave deepens, highest priority first (each worker gets at most 3 it can work on); the rest are recorded, not deepened.",
    )


# -- probes: what a probe command may not carry -------------------------------------------------

_PLACEHOLDER = re.compile(r"(?<!\$)\{\{?\s*[A-Za-z_][A-Za-z0-9_.\-]*\s*\}?\}")
_ENV_REF = re.compile(r"\$\{?\s*DELIBERATION_|%DELIBERATION_", re.I)
STATE_DIR_PATTERN = re.compile(r"(^|[\\/])\.claude[\\/]+deliberation([\\/]|$)")
_LLM_CLIS = frozenset({"claude", "claude-code"})


def command_problems(argv: "list[str]") -> "list[str]":
    """Why a probe's argv would carry deliberation content or not be an independent check (the
    config refuses such a probe; app/probes.py checks again before every run)."""
    problems: list[str] = []
    for i, arg in enumerate(argv):
        m = _PLACEHOLDER.search(arg)
        if m:
            problems.append(
                f"command[{i}] contains the placeholder {m.group(0)!r}: probes take no deliberation "
                "content (no templating of question, reports or claims), their pass/fail must be "
                "computed without the claim's reasoning"
            )
        if _ENV_REF.search(arg):
            problems.append(
                f"command[{i}] references a DELIBERATION_* variable: probes receive no deliberation "
                "content through their environment"
            )
        if STATE_DIR_PATTERN.search(arg):
            problems.append(
                f"command[{i}] reads the plugin's state (.claude/deliberation), which holds the "
                "agents' reports: the probe would not be independent of the claim"
            )
    if argv and os.path.basename(argv[0]).lower() in _LLM_CLIS:
        problems.append(
            f"{argv[0]!r} is an LLM prompt, not an independent check (checksum test: the verdict "
            "must not come from another judge)"
        )
    return problems


class ProbeConfig(_Section):
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    command: list[str] = Field(min_length=1, description="argv, run in the project directory, no shell.")
    classes: list[str] = Field(default_factory=lambda: ["*"], description="Decision-class globs this probe covers.")
    inputs: list[str] = Field(default_factory=list, description="Paths the probe reads (for the causal test).")
    timeout_s: float = Field(
        60, gt=0, le=PROBE_BUDGET_MAX_S, description="This probe's own limit; the shared probe_budget_s bounds all of them."
    )

    @field_validator("command")
    @classmethod
    def _no_deliberation_content(cls, v: list[str]) -> list[str]:
        """A probe that would receive deliberation text is refused here."""
        problems = command_problems(v)
        if problems:
            raise ValueError("; ".join(problems))
        return v


class ModelsConfig(_Section):
    diverse: bool = Field(
        _M["diverse"],
        description="Ask (and enforce) that personas whose priorities conflict (conformity.conflicting_pairs) "
        "run on different models from `pool`. Off by default: it costs no extra agent or token, but the "
        "personas moved to another model are billed at its price and answer with its ability (docs/CONFIGURATION.md).",
    )
    pool: list[str] = Field(
        default_factory=_default("models", "pool"),
        min_length=2,
        description="Model aliases of the Agent tool's `model` to spread conflicting personas over, in order.",
    )

    @field_validator("pool")
    @classmethod
    def _aliases(cls, v: list[str]) -> list[str]:
        bad = [m for m in v if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:\[\]-]{0,63}", m)]
        if bad:
            raise ValueError(f"not a model alias: {', '.join(map(repr, bad))}")
        if len(set(v)) < 2:
            raise ValueError("needs at least two different models")
        return v


class EscalationConfig(_Section):
    policy: Literal["D+T2+PROBE", "T1+D+T2+PROBE"] = Field(
        _E["policy"],
        description="The routing rule set: the deployable D+T2 with probes (docs/EVIDENCE.md, E8), or the stricter "
        "set that also runs T1 (every accepted decision of a reversed class goes to a person).",
    )
    unanimous_confidence: float = Field(
        _E["unanimous_confidence"],
        ge=0,
        le=1,
        description="T2 fires on a unanimous pass whose judges' confidence (mean self-reported confidence of the approving ranking agents) is at or above this.",
    )
    risky_tools: str = Field(
        _E["risky_tools"],
        max_length=2000,
        description="Tools that need a person's yes while a decision awaits review: names joined by `|`, each "
        "of letters, digits, `_`, `-`, `:`, optionally ending in `.*` (any tool whose name starts so). Not a "
        "regular expression: matching it stays a few string comparisons.",
    )
    probe_failure: Literal["escalate", "reject"] = Field(
        _E["probe_failure"],
        description="A failing or timed-out probe sends the decision to human review (escalate) or hard-rejects it.",
    )
    known_reversal: Literal["review", "reject"] = Field(
        _E["known_reversal"],
        description="T1 (accepted decision in a class reversed before; policy T1+D+T2+PROBE only): human review, or the hard-reject path.",
    )
    probes: list[ProbeConfig] = Field(
        default_factory=_default("escalation", "probes"),
        description="Novelty-arm probes: commands that recheck a decision class from source data, never given deliberation text.",
    )
    probe_budget_s: float = Field(
        _E["probe_budget_s"],
        gt=0,
        le=PROBE_BUDGET_MAX_S,
        description="All probes of one route together, run by the Stop hook. At most its timeout (300 s) less the margins and the longest lock wait, so the hook never gives up on a route that then completes unseen. A probe left without time fails.",
    )
    class_tags: "dict[str, list[str]] | None" = Field(
        _E["class_tags"], description="Replace the built-in tag keywords: {tag: [words]}."
    )

    @field_validator("risky_tools")
    @classmethod
    def _tool_names(cls, v: str) -> str:
        """Bounded syntax, checked when the config is loaded: a hook never runs a pattern from config.json."""
        if hookio.tool_names(v) is None:
            raise ValueError(
                "not a tool-name pattern: names of letters, digits, _, - or : joined by |, each optionally "
                "ending in .* (e.g. Edit|Write|mcp__github__.*)"
            )
        return v


class ModelPrices(_Section):
    input_per_mtok: float = Field(ge=0, description="Per million uncached input tokens.")
    output_per_mtok: float = Field(ge=0, description="Per million output tokens.")
    cache_write_per_mtok: float = Field(ge=0, description="Per million input tokens written to the prompt cache.")
    cache_read_per_mtok: float = Field(ge=0, description="Per million input tokens read from the prompt cache.")


class PriceTable(_Section):
    """Token prices the user vouches for: the decision record shows money only with these."""

    as_of: str = Field(
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        description="The date these prices were read (YYYY-MM-DD); shown with every amount.",
    )
    source: str = Field(
        min_length=1,
        max_length=200,
        description="Where the prices come from (a price page, a contract); shown with every amount.",
    )
    currency: str = Field("USD", pattern=r"^[A-Z]{3}$")
    models: dict[str, ModelPrices] = Field(
        min_length=1,
        description='Model name or glob → its prices, e.g. {"claude-sonnet-*": {...}, "*": {...}}: an '
        "agent is priced by the first key matching the model it ran on (else the one asked "
        "for); an agent no key matches is not priced, and the record says how many.",
    )


class CostConfig(_Section):
    prices: "PriceTable | None" = Field(
        D["cost"]["prices"],
        description="Token prices for the decision record's cost section. Unset (the default): tokens only, "
        "no amounts — the plugin ships no prices of its own.",
    )


class RetentionConfig(_Section):
    """How long session folders and logs stay (docs/STORAGE.md); deliberations and their records
    stay until the user removes them."""

    auto: bool = Field(
        D["retention"]["auto"],
        description="Prune at a session start (at most once an hour): session folders and logs "
        "past max_age_days or beyond max_total_mb.",
    )
    max_age_days: float = Field(
        D["retention"]["max_age_days"],
        ge=1,
        le=3650,
        description="A session folder untouched this long is removed (never one whose deliberation is open or awaits review).",
    )
    max_total_mb: float = Field(
        D["retention"]["max_total_mb"],
        gt=0,
        le=1_000_000,
        description="Beyond this total of session folders and logs, the oldest go first (never one used in the last day).",
    )


class Config(_Section):
    schema_version: int = SCHEMA_VERSION
    strict: bool = Field(D["strict"], description="Fail closed: internal errors block instead of warning.")
    lock_timeout_s: float = Field(
        D["lock_timeout_s"],
        gt=0,
        le=LOCK_TIMEOUT_MAX_S,
        description="How long a hook waits for a state lock. At most a hook's timeout (60 s) less the margins, so a hook never gives up on work that then completes unseen.",
    )
    trigger: TriggerConfig = Field(default_factory=TriggerConfig)
    task_types: TaskTypeConfig = Field(default_factory=TaskTypeConfig)
    ranking: RankingConfig = Field(default_factory=RankingConfig)
    deliberation: DeliberationConfig = Field(default_factory=DeliberationConfig)
    gates: GatesConfig = Field(default_factory=GatesConfig)
    conformity: ConformityConfig = Field(default_factory=ConformityConfig)
    isolation: IsolationConfig = Field(default_factory=IsolationConfig)
    spawn_budget: SpawnBudgetConfig = Field(default_factory=SpawnBudgetConfig)
    depth: DepthConfig = Field(default_factory=DepthConfig)
    escalation: EscalationConfig = Field(default_factory=EscalationConfig)
    cost: CostConfig = Field(default_factory=CostConfig)
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    retention: RetentionConfig = Field(default_factory=RetentionConfig)

    def threshold_for(self, task_type: str) -> float:
        return self.task_types.thresholds.get(task_type, self.task_types.thresholds["default"])

    @property
    def depth_workers(self) -> int:
        return min(self.depth.workers_per_wave, DEPTH_HARD_CEILING)


def _drop(raw: Any, loc: tuple) -> bool:
    """Remove the key at `loc` (a pydantic error location) from `raw`; True if removed."""
    node = raw
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, dict) and part in node:
            if last:
                del node[part]
                return True
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            if last:
                del node[part]
                return True
            node = node[part]
        else:
            # the error is about a missing/invalid container: drop the deepest existing parent
            return False
    return False


def validate_config(raw: Any) -> "tuple[Config, list[str]]":
    """Validate a raw config; return the config (defaults where invalid) and the problems."""
    problems: list[str] = []
    if not isinstance(raw, dict):
        return Config(), [f"config is a JSON {type(raw).__name__}, not an object: using defaults"]
    raw = json.loads(json.dumps(raw))  # private copy we may prune
    for _ in range(50):
        try:
            return Config.model_validate(raw), problems
        except ValidationError as exc:
            progressed = False
            for err in exc.errors():
                loc = tuple(err["loc"])
                name = ".".join(str(p) for p in loc) or "(root)"
                problems.append(f"config key '{name}': {err['msg']} — using the default")
                # drop the leaf, or its parent section entry when the leaf cannot be found
                for cut in range(len(loc), 0, -1):
                    if _drop(raw, loc[:cut]):
                        progressed = True
                        break
            if not progressed:
                break
    problems.append("config could not be repaired: using all defaults")
    return Config(), problems


def read_config_file(path: str, root: "str | None" = None) -> "tuple[Config, list[str]]":
    """Read and validate config.json (with `root`: no link below it is followed); missing →
    defaults, no problems; a link, a FIFO, a device or a file over 1 MiB → defaults, and the
    problem says so."""
    try:
        data = safe_read.read_bytes(path, consent.CONFIG_LIMIT, root=root)
    except FileNotFoundError:
        return Config(), []
    except safe_read.Refused as exc:
        return Config(), [f"config {path} not read: {exc.why}; using defaults"]
    except OSError as exc:
        return Config(), [f"config {path} unreadable ({exc.strerror}): using defaults"]
    try:
        raw = json.loads(data)
    except ValueError as exc:
        return Config(), [f"config {path} is not valid JSON ({exc}): using defaults"]
    return validate_config(raw)


# -- the project's config, as the hooks and the CLI use it ---------------------------------------


def resolve_config(layout: Layout) -> "tuple[dict, list[str], list[consent.Item]]":
    """Validate config.json with pydantic, hold back the settings that wait for this user's
    approval, and refresh the cache; returns (effective dict, problems, the settings held back)."""
    cfg, problems = read_config_file(layout.config, layout.project)
    data = cfg.model_dump(mode="json")
    _approved, waiting = consent.split(consent.read_raw(layout), layout)
    if waiting:
        data = consent.effective(data, Config().model_dump(mode="json"), waiting)
    try:
        st = os.lstat(layout.config)
        payload = {
            "key": plain_reads.cache_key(st, consent.stamp(layout)),
            "config": data,
            "problems": problems,
            "awaiting": [list(i.pair()) for i in waiting],
        }
        path = layout.checked_parent(layout.config_cache)  # a planted link or FIFO there is renamed over
        atomic_write_bytes(path, sealed(layout, path, dumps(payload)))
    except OSError:
        pass
    return data, problems, waiting


_VALIDATED: "tuple[Any, Any]" = (None, None)  # the last (config dict, Config) validated here


def project_config(layout: Layout) -> "tuple[Config, list[str]]":
    """The validated Config (from the cache the fast path reads, else config.json) and the
    problems to show (app/settings.py adds the settings that wait, in the text layer's words)."""
    cfg, problems, _waiting = project_config_and_waiting(layout)
    return cfg, problems


def project_config_and_waiting(layout: Layout) -> "tuple[Config, list[str], list[consent.Item]]":
    """`project_config`, and the settings held back for this user's approval when config.json
    was resolved just now ([] when the cache was used: they were said when it was written, and
    every session start says them again). A cache that no longer validates (edited by hand, or
    left by a plugin version with the same version string) is resolved again and rewritten."""
    data = plain_reads.config_dict(layout)
    problems: list[str] = []
    if data is not None:
        try:
            return _validated(data), problems, []
        except ValidationError as exc:
            problems.append(
                "deliberation config: the cached config did not validate "
                f"({exc.error_count()} error(s)); rebuilt from config.json"
            )
    data, found, waiting = resolve_config(layout)
    problems += [f"deliberation config: {p}" for p in found]
    return _validated(data or {}), problems, waiting


def _validated(data: dict) -> Config:
    """`Config` of `data`. The warm worker gets the same cached dict object again and again
    (plain_reads keeps it while the cache file is unchanged), so the last one validated is kept;
    Config objects are never mutated."""
    global _VALIDATED
    held_data, held_cfg = _VALIDATED
    if held_cfg is not None and (held_data is data or (not data and not held_data)):
        return held_cfg
    cfg = Config.model_validate(data) if data else Config()
    _VALIDATED = (data, cfg)
    return cfg
