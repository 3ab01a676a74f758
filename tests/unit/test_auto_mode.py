"""core/auto_mode: which accepted spawns start without auto mode's check (a read-only agent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deliberation.core import auto_mode as am

REPO = Path(__file__).resolve().parents[2]
READER = "---\nname: security-analyst\ndescription: reads\ntools: Read, Grep, Glob\nmodel: inherit\n---\nBody.\n"


def test_the_plugins_own_persona_files_grant_only_reading():
    """Every persona the plugin ships is read-only, so every deliberation spawn qualifies; the
    checkpoint of the workflow reports only (it is never spawned by the Agent tool)."""
    files = sorted((REPO / "agents").glob("*.md"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert am.defines(text, path.stem), path
        tools = am.tools_of(text)
        if path.stem == "checkpoint":
            assert tools == frozenset({"StructuredOutput"})
        else:
            assert am.read_only([text]), (path, tools)


@pytest.mark.parametrize(
    "definition, expected",
    [
        (READER, True),
        (READER.replace("tools: Read, Grep, Glob", "tools: Read"), True),
        (READER.replace("tools: Read, Grep, Glob", 'tools: ["Read", "Grep"]'), True),
        (READER.replace("tools: Read, Grep, Glob", "tools: Read, Bash"), False),
        (READER.replace("tools: Read, Grep, Glob\n", ""), False),  # no tools line: every tool
        ("No front matter at all.", False),
    ],
)
def test_read_only_judges_what_a_definition_grants(definition, expected):
    assert am.read_only([definition]) is expected


def test_every_definition_must_be_read_only_and_one_must_exist():
    assert not am.read_only([])
    assert not am.read_only([READER, READER.replace("Glob", "Edit")])
    assert am.defines(READER, "security-analyst") and not am.defines(READER, "cost-analyst")


def test_an_ask_rule_for_the_agent_tool_keeps_the_check():
    assert am.asks_for_spawns(["Agent"]) and am.asks_for_spawns(["Agent(security-analyst)"]) and am.asks_for_spawns(["Task"])
    assert not am.asks_for_spawns(["Bash(git push *)", "AgentX", "Read(./.env)"])


@pytest.mark.parametrize(
    "enabled, mode, delib, rules, expected",
    [
        (True, "auto", True, [], True),
        (True, "default", True, [], False),  # outside auto mode the user's settings decide
        (True, None, True, [], False),
        (True, "auto", False, [], False),  # not a deliberation spawn
        (True, "auto", True, ["Agent"], False),  # the user asked to be asked
        (False, "auto", True, [], False),  # switched off
    ],
)
def test_allows_only_an_accepted_read_only_deliberation_spawn_in_auto_mode(enabled, mode, delib, rules, expected):
    assert am.allows(enabled, mode, delib, [READER], rules) is expected
