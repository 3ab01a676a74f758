"""Every default setting of the plugin, in the shape of `.claude/deliberation/config.json`.

The one place a default is written. `state.config.Config` (pydantic: validation, the published
schema, the descriptions) takes each field's default from here, and the fast path — which scores
prompts and classifies task types without loading pydantic — reads the same values;
tests/unit/test_config.py checks that `Config()` dumps to exactly `CONFIG`.

Imports only `deliberation.catalogue` (which imports nothing): every tier may import it, the
hook process's own included. The catalogues' defaults (dimensions, task types' bars, conflicting
personas) are derived from there. The values are never mutated in place; `section()` and `copy()`
hand out copies.
"""

from deliberation import catalogue

# Tools that need a person's yes while a decision awaits review (a Claude Code tool-name pattern;
# install.sh also writes it as the PreToolUse matcher of the review hook).
RISKY_TOOLS = "Edit|Write|MultiEdit|Bash|NotebookEdit"

TASK_TYPES = tuple(t.name for t in catalogue.TASK_TYPES)
DEPTH_HARD_CEILING = 3  # tier-2 workers per hot-spot wave, whatever the config says

CONFIG: dict = {  # dict: any value type, as in the JSON file
    "strict": False,
    "lock_timeout_s": 10.0,
    "trigger": {
        "enabled": True,
        "threshold": 0.70,
        "high_dimension": 0.6,
        "force_markers": ["/deliberate", "DELIBERATE"],
        "vocabularies": None,
        "extra_terms": {},
        "self_rating": True,  # the once-per-session self-rating instruction at SessionStart
        "tool_net": "hold",  # a risky tool call with no deliberation on record: hold | note | ask | off
    },
    "task_types": {
        # the consensus a decision of each type needs (Gate 1); the strictest type wins
        "thresholds": {t.name: t.threshold for t in catalogue.TASK_TYPES},
        "keywords": None,
    },
    "ranking": {
        "dimensions": [{"name": d.name, "weight": d.weight, "description": d.description} for d in catalogue.DIMENSIONS],
    },
    "deliberation": {
        "min_agents": 2,
        "min_distinct_personas": 2,
        "min_alternatives": 2,
        "max_report_bytes": 64 * 1024,
        "report_retries": 1,
        # a background agent's notification that changes nothing asks for no turn (core/quiet_wait.py)
        "quiet_waiting": True,
        # in auto mode a deliberation agent that can only read starts without a check (core/auto_mode.py)
        "allow_read_only_agents": True,
    },
    "gates": {
        "stop_block_limit": 3,
        # the consensus bands of Gate 2 and the record: strong > 0.85, moderate 0.70–0.85, else weak
        "strong": 0.85,
        "moderate": 0.70,
        "require_improvement": True,
        # the leader's mean weighted score below which it is the best of weak options
        "acceptable_level": 6.0,
    },
    "conformity": {
        "clustering_window": 0.3,
        "min_agents_for_clustering": 3,
        "near_threshold_margin": 0.5,
        "templated_similarity": 0.6,
        "same_reasoning_similarity": 0.6,
        "conflicting_pairs": catalogue.conflicting_pairs(),
        "blocking": False,
    },
    "isolation": {
        "enabled": True,
        "leak_threshold": 0.5,
        "blind_ranking": True,
        "complete_findings": True,
    },
    "spawn_budget": {
        "max_active_children": 12,
        "max_session_total": 60,
        "max_depth": 3,
        "stale_after_s": 1800,
    },
    "depth": {
        "posture": "ceiling",
        "per_task_type": {t.name: t.depth for t in catalogue.TASK_TYPES if t.depth},
        "max_lock": False,
        "workers_per_wave": 3,
        "agent_budget": 6,
        "token_budget": 400_000,
        "max_hot_spots": 6,  # hot spots one depth wave deepens, highest priority first
    },
    "escalation": {
        "policy": "D+T2+PROBE",
        "unanimous_confidence": 0.9,
        "risky_tools": RISKY_TOOLS,
        "probe_failure": "escalate",
        "known_reversal": "review",
        "probes": [],
        "probe_budget_s": 45,
        "class_tags": None,
    },
    "cost": {
        "prices": None,
    },
    "models": {
        "diverse": False,
        "pool": ["opus", "sonnet"],
    },
    "retention": {
        # session folders (event log, lineage, state) untouched this long are removed at a session
        # start; beyond this total of session folders and logs, the oldest go first (docs/STORAGE.md)
        "auto": True,
        "max_age_days": 30,
        "max_total_mb": 100,
    },
}

# What the plugin keeps, how big and for how long, beyond config.json's settings (docs/STORAGE.md).
# A string in a logged hook payload (a prompt, a tool input, an agent's final message) is kept up
# to this many characters; the record names each cut field and its full length. It is at least
# the report limit (`deliberation.max_report_bytes`), so every report a deliberation accepts stays
# whole in its log and replays exactly.
LOG_FIELD_CAP_CHARS = 64 * 1024
# A session start looks for what to prune at most this often (one stat of the last run's stamp
# otherwise): a scan of every session folder is not paid on every session start.
RETENTION_CHECK_EVERY_S = 3600
# A session start spends at most this long removing (folder removal costs 0.2-3 ms each,
# depending on the filesystem); what is left goes at the next session start, which is then due
# at once. `deliberation gc` has no budget.
PRUNE_BUDGET_S = 0.1
# errors.log beyond this size keeps the newest half of it, whatever its size (only that tail is read).
ERRORS_LOG_MAX_BYTES = 1 << 20


def copy(value: "object" = CONFIG) -> "object":
    """A deep copy of `value` (default: the whole CONFIG) made of new dicts and lists."""
    if isinstance(value, dict):
        return {k: copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy(v) for v in value]
    return value


def section(name: str) -> dict:
    """A copy of one section of CONFIG (`section("gates")["strong"]`)."""
    out = copy(CONFIG[name])
    assert isinstance(out, dict)
    return out
