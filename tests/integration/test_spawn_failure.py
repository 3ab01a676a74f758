"""PostToolUseFailure: a spawn the client refused after PreToolUse allowed it stops counting."""

from __future__ import annotations

import json

from tests.helpers import payloads as P
from tests.helpers.project import load_delib, write_config


def test_a_failed_spawn_frees_the_budget_and_is_not_awaited(project, hook):
    write_config(project, {"depth": {"posture": "off"}, "spawn_budget": {"max_active_children": 2}})
    sid = "f0f0f0f0-0000-4000-8000-000000000001"
    hook("UserPromptSubmit", P.prompt(sid, "Should we shard the orders table?"))
    ok = [
        hook("PreToolUse", P.pre_agent(sid, f"toolu_{i}", t, "Research: shard?"))
        for i, t in enumerate(("security-analyst", "no-such-agent"))
    ]
    assert [r.decision for r in ok] == [None, None]
    full = hook("PreToolUse", P.pre_agent(sid, "toolu_9", "cost-analyst", "Research: shard?"))
    assert full.decision == "deny" and "2 of 2 active" in full.reason
    # the client refuses both after our hook allowed them
    for i, t in enumerate(("security-analyst", "no-such-agent")):
        res = hook(
            "PostToolUseFailure", P.post_agent_failure(sid, f"toolu_{i}", t, "Research: shard?", f"Agent type '{t}' not found.")
        )
        assert res.returncode == 0 and res.decision is None
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert [s["status"] for s in lineage["spawns"]] == ["failed", "failed"]
    d = load_delib(project)
    assert [(a["persona"], a["status"]) for a in d["agents"]] == [("security-analyst", "refused")]
    assert "Agent type 'security-analyst' not found" in d["agents"][0]["problem"]
    # the budget is free again, and Stop does not wait for an agent that will never report
    again = hook("PreToolUse", P.pre_agent(sid, "toolu_10", "cost-analyst", "Research: shard?"))
    assert again.decision is None
    hook("PostToolUseFailure", P.post_agent_failure(sid, "toolu_10", "cost-analyst", "Research: shard?"))
    stop = hook("Stop", P.stop(sid))
    assert stop.decision == "block" and "is not finished (phase RESEARCH)" in stop.reason
    assert "Next: 0 valid research report(s) recorded, at least 2 needed. Spawn 2 more" in stop.reason


def test_other_tools_failing_are_ignored_on_the_fast_path(project, hook):
    sid = "f0f0f0f0-0000-4000-8000-000000000002"
    payload = P.base(
        sid, "PostToolUseFailure", tool_name="Bash", tool_input={"command": "false"}, tool_use_id="toolu_b", error="exit 1"
    )
    res = hook("PostToolUseFailure", payload)
    assert res.returncode == 0 and res.stdout == ""
    assert not (project / ".claude" / "deliberation" / "sessions").exists()
