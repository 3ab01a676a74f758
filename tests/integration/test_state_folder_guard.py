"""A deliberation agent's Read/Grep/Glob/Bash on the plugin's state folder, through the REAL
PreToolUse hook: refused with the next step; the main agent's reads answer nothing."""

from __future__ import annotations

from tests.helpers import payloads as P


def test_a_research_agent_cannot_read_an_earlier_deliberation(project, hook):
    s = P.Session(hook)
    s.prompt("What is the weather like?")  # a routine prompt: the session exists, nothing deliberates
    sub = {"agent_id": "a-research-1", "agent_type": "deliberation:security-analyst", "cwd": str(project)}
    record = str(project / ".claude" / "deliberation" / "records" / "d-1.md")
    for tool, args in (
        ("Read", {"file_path": record}),
        ("Grep", {"pattern": "password|revoke"}),
        ("Glob", {"pattern": ".claude/deliberation/**"}),
        ("Bash", {"command": "grep -rn revoke ."}),
    ):
        out = hook("PreToolUse", {**P.pre_tool(s.sid, tool, args, f"toolu-{tool}"), **sub})
        assert out.decision == "deny", (tool, out)
        assert out.reason.startswith("Refused: .claude/deliberation/ holds this plugin's state")
        assert "\nNext: " in out.reason
    fine = hook("PreToolUse", {**P.pre_tool(s.sid, "Grep", {"pattern": "revoke", "path": "src"}, "toolu-g2"), **sub})
    assert fine.decision is None and not fine.context
    main = hook("PreToolUse", {**P.pre_tool(s.sid, "Read", {"file_path": record}, "toolu-r2"), "cwd": str(project)})
    assert main.decision is None and not main.context


def test_a_deliberation_agent_is_told_at_its_start_how_to_search_without_the_state(project, hook):
    """SubagentStart context: the advice comes before the first search, so a search from the
    project root need not be refused once per agent (t14: 3 refusals in 20 agents)."""
    s = P.Session(hook)
    s.prompt("What is the weather like?")
    told = hook("SubagentStart", P.subagent_start(s.sid, "a-research-2", "deliberation:evidence-chase"))
    assert told.context and told.context.startswith("Deliberation plugin: .claude/deliberation/ holds")
    for tool, args in (("Grep", {"pattern": "x", "glob": "!.claude"}), ("Glob", {"pattern": "**/*.py"})):
        sub = {"agent_id": "a-research-2", "agent_type": "deliberation:evidence-chase", "cwd": str(project)}
        assert hook("PreToolUse", {**P.pre_tool(s.sid, tool, args, f"toolu-{tool}"), **sub}).decision is None
    other = hook("SubagentStart", P.subagent_start(s.sid, "a-explore-1", "Explore"))
    assert not other.context
