"""config: documented defaults for every threshold; an invalid key is reported by name and its
default used; the validated copy is cached keyed by config.json's size and mtime."""

from __future__ import annotations

import json
import os

from deliberation.state import plain_reads
from deliberation.state import consent
from deliberation.state.config import DEPTH_HARD_CEILING, Config, read_config_file, validate_config
from deliberation.state.config import project_config
from deliberation.state.paths import Layout


def test_config_defaults_are_the_defaults_module():
    """One home for every default: the pydantic Config takes each one from deliberation.defaults,
    and the fast path (no pydantic) reads the same values."""
    from deliberation import defaults
    from deliberation.core import confidence, task_type
    from deliberation.report import decision_record
    from deliberation.wire import hookio

    dumped = Config().model_dump(mode="json")
    assert dumped.pop("schema_version") == 1
    assert dumped == defaults.CONFIG
    assert task_type.DEFAULT_THRESHOLDS is defaults.CONFIG["task_types"]["thresholds"]
    assert (confidence.DEFAULT_THRESHOLD, confidence.DEFAULT_HIGH, list(confidence.DEFAULT_FORCE_MARKERS)) == (
        dumped["trigger"]["threshold"],
        dumped["trigger"]["high_dimension"],
        dumped["trigger"]["force_markers"],
    )
    assert (decision_record.STRONG, decision_record.MODERATE) == (dumped["gates"]["strong"], dumped["gates"]["moderate"])
    assert hookio.RISKY_TOOLS == dumped["escalation"]["risky_tools"]
    # a Config's lists and dicts are its own: changing one leaves the defaults as they were
    c = Config()
    c.task_types.thresholds["security"] = 0.1
    c.models.pool.append("haiku")
    assert defaults.CONFIG["task_types"]["thresholds"]["security"] == 0.85
    assert defaults.CONFIG["models"]["pool"] == ["opus", "sonnet"]


def test_the_documented_defaults():
    c = Config()
    assert c.task_types.thresholds == {
        "security": 0.85,
        "architecture": 0.80,
        "default": 0.70,
        "refactoring": 0.65,
        "documentation": 0.50,
    }
    assert c.trigger.threshold == 0.70
    assert c.spawn_budget.max_active_children == 12 and c.spawn_budget.max_depth == 3
    assert c.deliberation.min_agents == 2 and c.deliberation.min_alternatives == 2
    assert (c.gates.strong, c.gates.moderate, c.gates.stop_block_limit) == (0.85, 0.70, 3)
    assert c.conformity.clustering_window == 0.3
    assert ["security-analyst", "performance-engineer"] in c.conformity.conflicting_pairs
    assert c.strict is False and c.depth.posture == "ceiling"


def test_every_setting_is_documented():
    def walk(model, prefix=""):
        for name, field in type(model).model_fields.items():
            value = getattr(model, name)
            if hasattr(type(value), "model_fields") and name not in ("schema_version",):
                yield from walk(value, f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}", field

    # every setting is documented; a new undocumented one fails here
    known = ("schema_version",)
    undocumented = [n for n, f in walk(Config()) if not f.description and n not in known]
    assert undocumented == []


def test_threshold_for_falls_back_to_default():
    c = Config()
    assert c.threshold_for("security") == 0.85 and c.threshold_for("unheard-of") == 0.70


def test_partial_thresholds_keep_the_other_defaults():
    c, problems = validate_config({"task_types": {"thresholds": {"security": 0.9}}})
    assert problems == []
    assert c.task_types.thresholds["security"] == 0.9 and c.task_types.thresholds["refactoring"] == 0.65


def test_invalid_values_are_reported_by_name_and_defaults_used():
    c, problems = validate_config(
        {"spawn_budget": {"max_active_children": 0, "max_depth": 5}, "gates": {"strong": "high"}, "strict": True}
    )
    assert c.spawn_budget.max_active_children == 12  # default
    assert c.spawn_budget.max_depth == 5 and c.strict is True  # valid neighbours are kept
    assert c.gates.strong == 0.85
    assert len(problems) == 2
    assert any(
        p.startswith("config key 'spawn_budget.max_active_children': Input should be greater than or equal to 1")
        and p.endswith("— using the default")
        for p in problems
    )
    assert any(p.startswith("config key 'gates.strong': ") for p in problems)


def test_unknown_keys_are_reported_by_name():
    c, problems = validate_config({"spawn_budget": {"max_children": 3}, "colour": "blue"})
    assert c == Config()
    assert sorted(problems) == sorted(
        [
            "config key 'spawn_budget.max_children': Extra inputs are not permitted — using the default",
            "config key 'colour': Extra inputs are not permitted — using the default",
        ]
    )


def test_unknown_task_type_threshold_is_reported():
    c, problems = validate_config({"task_types": {"thresholds": {"frontend": 0.6}}})
    assert c.task_types.thresholds["default"] == 0.70
    assert len(problems) == 1 and "unknown task type 'frontend'" in problems[0]


def test_a_non_object_config_uses_all_defaults():
    c, problems = validate_config([1, 2])
    assert c == Config() and problems == ["config is a JSON list, not an object: using defaults"]


def test_load_config_missing_and_broken_files(tmp_path):
    assert read_config_file(str(tmp_path / "nope.json")) == (Config(), [])
    bad = tmp_path / "config.json"
    bad.write_text("{nope")
    c, problems = read_config_file(str(bad))
    assert c == Config() and len(problems) == 1 and "is not valid JSON" in problems[0]


def test_depth_workers_are_clamped_to_the_hard_ceiling():
    c, _ = validate_config({"depth": {"workers_per_wave": 9}})
    assert c.depth.workers_per_wave == 9 and c.depth_workers == DEPTH_HARD_CEILING == 3


def test_strict_and_the_config_cache(project):
    lay = Layout()
    assert plain_reads.config_dict(lay) == {}  # no config.json: all defaults, nothing to validate
    os.makedirs(lay.root)
    with open(lay.config, "w") as fh:
        json.dump({"strict": True, "spawn_budget": {"max_active_children": "x"}}, fh)
    consent.approve(lay)  # a committed `strict` waits for this user's approval (test_hostile_project)
    assert plain_reads.config_dict(lay) is None  # not cached yet → slow path validates
    cfg, problems = project_config(lay)
    assert cfg.strict is True and cfg.spawn_budget.max_active_children == 12
    assert problems == [
        "deliberation config: config key 'spawn_budget.max_active_children': Input "
        "should be a valid integer, unable to parse string as an integer — using the default"
    ]
    cached = plain_reads.config_dict(lay)
    assert cached["strict"] is True and cached["spawn_budget"]["max_active_children"] == 12
    assert plain_reads.is_strict(cached)
    # the cache is used (no problems re-reported) until config.json changes
    assert project_config(lay)[1] == []
    with open(lay.config, "w") as fh:
        json.dump({"strict": False, "spawn_budget": {"max_active_children": 40}}, fh)
    assert plain_reads.config_dict(lay) is None
    consent.approve(lay)  # more than 12 children waits for approval too
    cfg, problems = project_config(lay)
    assert cfg.spawn_budget.max_active_children == 40 and not cfg.strict and problems == []


def test_lock_and_probe_limits_fit_the_hooks_deadlines(tmp_path):
    """A lock wait or a probe budget a hook could not wait for is refused by name (the hook would
    give up on work that then completes unseen)."""
    from deliberation.wire import deadlines
    from deliberation.state.config import LOCK_TIMEOUT_MAX_S, PROBE_BUDGET_MAX_S

    shortest = min(deadlines.budget_s(e) for e in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStop"))
    assert LOCK_TIMEOUT_MAX_S <= shortest
    assert LOCK_TIMEOUT_MAX_S + PROBE_BUDGET_MAX_S <= deadlines.budget_s("Stop")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"lock_timeout_s": 55, "escalation": {"probe_budget_s": 3600}}))
    cfg, problems = read_config_file(str(path))
    assert cfg.lock_timeout_s == 10.0 and cfg.escalation.probe_budget_s == 45
    assert any("lock_timeout_s" in p for p in problems) and any("probe_budget_s" in p for p in problems)
    path.write_text(json.dumps({"lock_timeout_s": LOCK_TIMEOUT_MAX_S, "escalation": {"probe_budget_s": PROBE_BUDGET_MAX_S}}))
    assert read_config_file(str(path))[1] == []
