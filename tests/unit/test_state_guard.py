"""state_guard: a deliberation agent's Read/Grep/Glob/Bash on the plugin's state is refused."""

from __future__ import annotations

import pytest

from deliberation.core.state_guard import refusal

P = "/home/u/proj"
AGENT = "deliberation:security-analyst"


def ask(tool, args, agent=AGENT, cwd=P):
    return refusal(tool, args, agent, cwd, P)


@pytest.mark.parametrize("tool, args", [
    ("Read", {"file_path": f"{P}/.claude/deliberation/records/d-1.md"}),
    ("Read", {"file_path": ".claude/deliberation/sessions/s.json"}),
    ("Grep", {"pattern": "password|revoke"}),                        # root: the trial's leak
    ("Grep", {"pattern": "x", "path": f"{P}/.claude/deliberation"}),
    ("Grep", {"pattern": "x", "glob": "*.md"}),
    ("Glob", {"pattern": "**/*"}),
    ("Glob", {"pattern": "**/*.json"}),
    ("Glob", {"pattern": ".claude/**"}),
    ("Bash", {"command": "cat .claude/deliberation/records/d-1.md"}),
    ("Bash", {"command": "grep -rn password ."}),
    ("Bash", {"command": "find . -name '*.json'"}),
])
def test_a_deliberation_agent_is_refused_with_the_next_step(tool, args):
    why = ask(tool, args)
    assert why is not None and why.startswith("Refused: .claude/deliberation/ holds this plugin's state")
    assert "\nNext: " in why


@pytest.mark.parametrize("tool, args", [
    ("Read", {"file_path": f"{P}/src/auth.py"}),
    ("Grep", {"pattern": "x", "path": "src"}),
    ("Grep", {"pattern": "x", "type": "py"}),
    ("Grep", {"pattern": "x", "glob": "*.py"}),
    ("Grep", {"pattern": "x", "glob": "docs/**/*.md"}),
    ("Glob", {"pattern": "**/*.py"}),
    ("Glob", {"pattern": "src/**/*"}),
    ("Bash", {"command": "grep -rn password src/ tests/"}),
    ("Bash", {"command": "grep -rn password . --exclude-dir=.claude"}),
    ("Bash", {"command": "git log --oneline -5"}),
])
def test_what_cannot_reach_the_state_folder_runs(tool, args):
    assert ask(tool, args) is None


def test_the_main_agent_and_other_subagents_are_not_refused():
    args = {"file_path": f"{P}/.claude/deliberation/records/d-1.md"}
    assert ask("Read", args, agent="") is None
    assert ask("Read", args, agent="Explore") is None
    assert ask("Read", args, agent="evidence-chase") is not None
    assert ask("Edit", args) is None
