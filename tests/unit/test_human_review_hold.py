"""The PreToolUse hold while a decision awaits a person: its reason follows the route's rules,
and the plugin's own read-only CLI calls pass it."""

from __future__ import annotations

import os

import pytest

from deliberation.core.human_review import read_only_cli, rules_named, tool_answer
from deliberation.wire.hookio import RISKY_TOOLS


def entry(rules: str, route: str = "human-review", did: str = "d-1", decision: str = "approach B") -> dict:
    return {
        "deliberation_id": did,
        "route": route,
        "reason": f"deliberation {did} [architecture] routed to {route} by policy D+T2+PROBE — {rules} — decision: {decision}",
    }


def test_a_no_consensus_hold_names_the_split_not_unanimity():
    decision, why = tool_answer(
        [entry("NO_CONSENSUS: consensus 0.27 < 0.70 after one revision round")], "Bash", RISKY_TOOLS, "rm -rf build"
    )
    assert decision == "ask"
    assert "no consensus: the choice is the user's" in why
    assert "unanimity" not in why


def test_a_t2_hold_says_unanimity_is_not_confidence():
    _, why = tool_answer([entry("T2: unanimous pass at confidence 0.95")], "Edit", RISKY_TOOLS)
    assert "unanimity on a reversal-prone class is not confidence" in why
    assert "the choice is the user's" not in why


def test_several_rules_are_all_named_once():
    assert rules_named(entry("T2: unanimous pass at 0.95; D: split 2/1")["reason"]) == ["T2", "D"]
    _, why = tool_answer([entry("D: split 2/1"), entry("D: split 3/1", did="d-2")], "Write", RISKY_TOOLS)
    assert why.count("the panel's vote was not unanimous (a voter rejected it or preferred another approach)") == 1


@pytest.mark.parametrize(
    "command",
    [
        "deliberation status",
        "deliberation show d-1",
        "deliberation latest",
        "deliberation report d-1",
        "deliberation lineage d-1",
        "deliberation log",
        "  deliberation status  ",
    ],
)
def test_the_plugins_read_only_cli_passes_the_hold(command):
    assert read_only_cli(command)
    assert tool_answer([entry("NO_CONSENSUS: 0.27")], "Bash", RISKY_TOOLS, command) == (None, "")


@pytest.mark.parametrize(
    "command",
    [
        "deliberation status; rm -rf x",
        "deliberation status && rm -rf x",
        "deliberation status | sh",
        "deliberation status & rm x",
        "deliberation show `rm x`",
        "deliberation show $(rm x)",
        "deliberation status > f",
        "deliberation status < f",
        "deliberation status\nrm -rf x",
        "deliberation approve d-1",
        "deliberation reject d-1",
        "deliberation trust",
        "deliberation config set x 1",
        "deliberation report d-1 -o out.html",
        "deliberation report d-1 --output=out.html",
        "deliberation",
        "deliberationx status",
        "/tmp/deliberation status",
        "rm -rf x",
        "",
        None,
    ],
)
def test_everything_else_stays_held(command):
    assert not read_only_cli(command)
    assert tool_answer([entry("NO_CONSENSUS: 0.27")], "Bash", RISKY_TOOLS, command)[0] == "ask"


def test_a_read_only_command_outside_bash_is_still_held_and_a_hard_reject_denies():
    assert tool_answer([entry("NO_CONSENSUS: 0.27")], "Edit", RISKY_TOOLS, "deliberation status")[0] == "ask"
    assert tool_answer([entry("T2: x", route="hard-reject")], "Bash", RISKY_TOOLS, "rm x")[0] == "deny"


def test_a_reviewer_without_user_is_the_os_account_never_unknown(monkeypatch):
    import pwd

    from deliberation.app.adjudication import who_default

    monkeypatch.delenv("USER", raising=False)
    monkeypatch.delenv("USERNAME", raising=False)
    assert who_default() == pwd.getpwuid(os.getuid()).pw_name != "unknown"
    monkeypatch.setenv("USER", "ana")
    assert who_default() == "ana"
