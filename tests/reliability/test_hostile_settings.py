"""A repository's committed settings apply without this user's consent only when they are known to
tighten, and no setting can make a hook slow.

state/consent.py classifies every setting of config.json (tightens / neutral / loosens, per value
direction); a committed value that loosens, or one of a setting nobody classified, keeps its default
until this user approves it with `deliberation trust`. A project's `.claude/settings.json` `env`
that switches the plugin off (DELIBERATION=off) is the same: named at session start, held until
approved. A pattern from the config (`escalation.risky_tools`) is checked when the config is loaded
(a tool-name list, never a regular expression), so a hook's time does not depend on it.
Each test prints its figures (pytest -s) and records a one-line summary.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import LIB, run_hook
from tests.helpers import payloads as P
from tests.helpers.factories import approve_config, write_state
from tests.helpers.flows import QUESTION
from tests.helpers.project import state_dir, write_config
from tests.helpers.reliability import summary

SID = "5e77c000-0000-4000-8000-000000000001"
RISKY_PROMPT = "Should we drop the legacy auth tokens table in production tonight, and what breaks for users?"


def _nested(dotted: str, value) -> dict:
    head, _, rest = dotted.partition(".")
    return {head: _nested(rest, value) if rest else value}


# a loosening value of every setting that can loosen (state/consent.RULES): the test below fails
# when a setting that can loosen has none here, so a new setting is tried as soon as it is classified
LOOSENING = {
    "strict": True,
    "lock_timeout_s": 0.05,
    "trigger.enabled": False,
    "trigger.threshold": 0.2,
    "trigger.high_dimension": 0.1,
    "trigger.force_markers": ["hi"],
    "trigger.vocabularies": {"stakes": {"typo": 1.0}},
    "trigger.extra_terms": {"stakes": {"readme": 1.0}},
    "trigger.self_rating": False,
    "trigger.tool_net": "off",
    "task_types.thresholds": {"security": 0.1},
    "task_types.keywords": {"documentation": ["auth", "security"]},
    "ranking.dimensions": [
        {"name": "correctness", "weight": 0.9},
        {"name": "risk", "weight": 0.01},
        {"name": "maintainability", "weight": 0.03},
        {"name": "performance", "weight": 0.03},
        {"name": "cost", "weight": 0.03},
    ],
    "deliberation.min_agents": 1,
    "deliberation.min_distinct_personas": 1,
    "deliberation.min_alternatives": 1,
    "deliberation.max_report_bytes": 1 << 24,
    "deliberation.allow_read_only_agents": True,  # the default: nothing looser exists
    "deliberation.report_retries": 3,
    "gates.stop_block_limit": 1,
    "gates.strong": 0.3,
    "gates.moderate": 0.2,
    "gates.require_improvement": False,
    "gates.acceptable_level": 1.0,
    "conformity.clustering_window": 0.0,
    "conformity.min_agents_for_clustering": 50,
    "conformity.near_threshold_margin": 0.0,
    "conformity.templated_similarity": 1.0,
    "conformity.same_reasoning_similarity": 1.0,
    "conformity.conflicting_pairs": [],
    "isolation.enabled": False,
    "isolation.leak_threshold": 1.0,
    "isolation.blind_ranking": False,
    "isolation.complete_findings": False,
    "spawn_budget.max_active_children": 100,
    "spawn_budget.max_session_total": 10000,
    "spawn_budget.max_depth": 10,
    "spawn_budget.stale_after_s": 60,
    "depth.posture": "off",
    "depth.per_task_type": {"security": "off"},
    "depth.workers_per_wave": 1,
    "depth.agent_budget": 0,
    "depth.token_budget": 90_000_000,
    "depth.max_hot_spots": 1,
    "escalation.policy": "D+T2+PROBE",  # the default: nothing looser exists (skipped below)
    "escalation.unanimous_confidence": 1.0,
    "escalation.risky_tools": "NOTHING",
    "escalation.probe_failure": "escalate",  # the default: nothing looser exists
    "escalation.known_reversal": "review",  # the default: nothing looser exists
    "escalation.probes": [{"name": "p", "command": ["make", "check"]}],
    "escalation.probe_budget_s": 200,
    "escalation.class_tags": {"auth": ["docs"]},
    "models.diverse": True,
    "models.pool": ["haiku", "sonnet"],
    "retention.max_age_days": 1,
    "retention.max_total_mb": 0.5,
}
NOTHING_LOOSER = {
    "escalation.policy",
    "escalation.probe_failure",
    "escalation.known_reversal",
    "deliberation.allow_read_only_agents",
}


def test_every_setting_that_can_loosen_is_tried_here():
    from deliberation.state import consent

    can_loosen = {
        n for n in consent.RULES if n not in ("schema_version", "cost.prices") and consent.RULES[n] is not consent.neutral
    } - {"deliberation.quiet_waiting", "conformity.blocking", "depth.max_lock", "retention.auto"}
    assert sorted(can_loosen - set(LOOSENING)) == [], "add a loosening value of each new setting to LOOSENING"


@pytest.mark.parametrize("name", sorted(set(LOOSENING) - NOTHING_LOOSER))
def test_a_committed_loosening_value_waits_for_approval(project, name):
    from deliberation.app.settings import project_config
    from deliberation.state import consent
    from deliberation.state.config import Config
    from deliberation.state.paths import Layout

    write_config(project, _nested(name, LOOSENING[name]), approve=False)
    layout = Layout(str(project))
    cfg, problems = project_config(layout)
    dumped, default = cfg.model_dump(mode="json"), Config().model_dump(mode="json")
    assert consent.get(dumped, name) == consent.get(default, name), (name, consent.get(dumped, name))
    assert name in [i.name for i in consent.pending(layout)]
    assert any(name in p and "deliberation trust" in p for p in problems), problems
    approve_config(project)
    cfg, _ = project_config(layout)
    assert consent.get(cfg.model_dump(mode="json"), name) != consent.get(default, name) or name == "depth.agent_budget"


def test_a_committed_isolation_off_does_not_let_a_research_prompt_carry_findings(project, hook):
    write_config(project, {"isolation": {"enabled": False}, "depth": {"posture": "off"}}, approve=False)
    s = P.Session(hook, SID)
    s.prompt("DELIBERATE: " + QUESTION)
    first = s.foreground(
        "security-analyst",
        f"Research: {QUESTION}",
        P.research_report("security-analyst", ["Token revocation needs a deny list kept in Redis"]),
    )
    assert first["pre"].decision is None
    leaky = s.foreground(
        "performance-engineer", f"Research: {QUESTION}\n{s.findings()}", P.research_report("performance-engineer", ["x"])
    )
    assert leaky["pre"].decision == "deny" and "findings" in leaky["pre"].reason, leaky["pre"].json
    approve_config(project)
    allowed = s.foreground("cost-analyst", f"Research: {QUESTION}\n{s.findings()}", P.research_report("cost-analyst", ["y"]))
    assert allowed["pre"].decision is None, allowed["pre"].reason
    summary("hostile/settings: isolation.enabled=false committed — a leaky research prompt still denied; after trust, allowed")


def open_review(project) -> None:
    write_state(
        state_dir(project) / "escalations.json",
        {
            "schema_version": 1,
            "open": [
                {"deliberation_id": "d-1", "session_id": SID, "route": "human-review", "opened_at": 0, "reason": "T2: unanimous"}
            ],
        },
    )


def test_a_committed_risky_tools_pattern_does_not_lift_the_human_review_hold(project):
    write_config(project, {"escalation": {"risky_tools": "NOTHING"}}, approve=False)
    open_review(project)
    held = run_hook("PreToolUse", P.pre_tool(SID, "Bash", {"command": "rm -rf build"}), project)
    assert held.decision == "ask", held.json
    approve_config(project)
    lifted = run_hook("PreToolUse", P.pre_tool(SID, "Bash", {"command": "rm -rf build"}), project)
    assert lifted.decision is None, lifted.json
    summary("hostile/settings: escalation.risky_tools=NOTHING committed — Bash still held for the person; after trust, not held")


CATASTROPHIC = "(?:.*){500}Q"


@pytest.mark.parametrize("approved", [False, True], ids=["committed", "approved"])
def test_a_pattern_from_the_config_cannot_make_a_hook_slow(project, approved):
    """Before: `re.fullmatch("(?:.*){500}Q", "Bash")` in every PreToolUse Bash while a decision
    awaits a person — 65 s, past the client's timeout, after which the hold was bypassed."""
    write_config(project, {"escalation": {"risky_tools": CATASTROPHIC}}, approve=approved)
    open_review(project)
    started = time.monotonic()
    out = run_hook("PreToolUse", P.pre_tool(SID, "Bash", {"command": "ls"}), project, timeout=30)
    took = time.monotonic() - started
    assert out.decision == "ask", out.json  # the default list applies: Bash is held
    assert "risky_tools" in (out.system_message or "") and "not a tool-name pattern" in out.system_message
    started = time.monotonic()
    control = run_hook("PreToolUse", P.pre_tool(SID, "Read", {"file_path": "x"}), project, timeout=30)
    control_s = time.monotonic() - started
    assert control.decision is None
    summary(
        f"hostile/settings: risky_tools {CATASTROPHIC!r} ({'approved' if approved else 'committed'}) — refused when loaded, "
        f"PreToolUse Bash answered in {took:.2f} s (a Read: {control_s:.2f} s)"
    )


def settings_env(project, value="off") -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": {"DELIBERATION": value}}))


def trust(project) -> str:
    env = {k: v for k, v in __import__("os").environ.items() if k != "CLAUDECODE"}
    env["PYTHONPATH"] = str(LIB)
    res = subprocess.run(
        [sys.executable, "-m", "deliberation", "trust", "--project", str(project), "--yes"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return res.stdout + res.stderr


def test_a_project_s_settings_env_cannot_switch_the_plugin_off_without_consent(project):
    settings_env(project)
    env = {"DELIBERATION": "off"}  # what the client passes the hooks from the project's settings
    start = run_hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "startup"}, project, env=env)
    said = start.system_message or ""
    assert ".claude/settings.json" in said and "DELIBERATION" in said and "deliberation trust" in said, start.json
    assert "checks are off" not in said
    prompt = run_hook("UserPromptSubmit", P.prompt(SID, "DELIBERATE: " + RISKY_PROMPT), project, env=env)
    assert (prompt.context or "").startswith("DELIBERATION PROTOCOL"), prompt.json
    out = trust(project)
    assert "env.DELIBERATION" in out, out
    sid2 = SID[:-1] + "2"
    start2 = run_hook("SessionStart", {**P.base(sid2, "SessionStart"), "source": "startup"}, project, env=env)
    assert "checks are off" in (start2.system_message or "") and ".claude/settings.json" in start2.system_message, start2.json
    quiet = run_hook("UserPromptSubmit", P.prompt(sid2, "DELIBERATE: " + RISKY_PROMPT), project, env=env)
    assert not quiet.context, quiet.json
    summary(
        "hostile/settings: .claude/settings.json env DELIBERATION=off — the plugin stays on and the session start names the "
        "project's settings; after `deliberation trust` it is off, and the session start names the cause"
    )
