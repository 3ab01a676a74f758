"""Auto mode through the real hook scripts: an accepted deliberation spawn whose agent can only read
is answered `allow` (no classifier, no prompt: docs/CLIENT_CHANNELS.md), and nothing else is."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import payloads as P

REPO = Path(__file__).resolve().parents[2]
QUESTION = "DELIBERATE: should the order service cache prices in each node? It is hard to reverse."


def persona_file(project: Path, slug: str, tools: "str | None" = None, file_name: "str | None" = None) -> None:
    """The install.sh form: the plugin's own agent file, byte for byte (the only project file vouched
    for, docs/SECURITY.md); with `tools` a file of the project's own under the persona's name."""
    folder = project / ".claude" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    if tools is None:
        (folder / f"{file_name or slug}.md").write_bytes((REPO / "agents" / f"{slug}.md").read_bytes())
    else:
        (folder / f"{file_name or slug}.md").write_text(f"---\nname: {slug}\ndescription: x\ntools: {tools}\n---\nBody.\n")


def spawn(hook, sid: str, agent_type: str, mode: str = "auto", n: int = 1, env=None):
    payload = P.pre_agent(sid, f"toolu_am_{n}", agent_type, f"Phase: research\n{QUESTION}", background=None)
    payload["permission_mode"] = mode
    return hook("PreToolUse", payload, env=env)


def session(hook) -> str:
    s = P.Session(hook)
    s.prompt(QUESTION)
    return s.sid


def test_a_read_only_persona_starts_without_a_check_in_auto_mode_only(project, hook):
    persona_file(project, "security-analyst")
    sid = session(hook)
    allowed = spawn(hook, sid, "security-analyst")
    assert allowed.decision == "allow", allowed.json
    assert "only reads (Glob, Grep, Read)" in allowed.reason
    assert spawn(hook, sid, "security-analyst", mode="default", n=2).json is None  # the user's settings decide


def test_a_definition_that_grants_more_than_reading_keeps_the_check(project, hook):
    # judged by the name inside the file, whatever the file is called
    persona_file(project, "security-analyst")
    persona_file(project, "security-analyst", tools="Read, Bash", file_name="zz-other")
    sid = session(hook)
    # a project file under the persona's name is not the plugin's (#37): never allowed, refused
    assert spawn(hook, sid, "security-analyst").decision == "deny"
    # no `tools:` line: the agent gets every tool
    (project / ".claude" / "agents" / "cost-analyst.md").write_text("---\nname: cost-analyst\ndescription: x\n---\nAll tools.\n")
    assert spawn(hook, sid, "cost-analyst", n=2).decision == "deny"


def test_an_ask_rule_for_the_agent_tool_keeps_the_check(project, hook):
    persona_file(project, "security-analyst")
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Agent(security-analyst)"]}}))
    sid = session(hook)
    assert spawn(hook, sid, "security-analyst").json is None


def test_a_refused_spawn_stays_refused_and_the_switch_turns_it_off(project, hook):
    persona_file(project, "synthesis-lead")
    persona_file(project, "security-analyst")
    sid = session(hook)
    refused = spawn(hook, sid, "synthesis-lead")  # no research yet: the phase order refuses it
    assert refused.decision == "deny"
    # the person sees why (the client shows a refused Agent call only as "Not run")
    first = refused.reason.strip().splitlines()[0]
    assert refused.system_message.startswith("Deliberation plugin refused synthesis-lead: " + first[:80])
    cfg = project / ".claude" / "deliberation" / "config.json"
    cfg.write_text(json.dumps({"deliberation": {"allow_read_only_agents": False}}))
    assert spawn(hook, sid, "security-analyst", n=2).json is None


def test_the_plugin_form_judges_its_own_agents_folder(project, hook):
    sid = session(hook)
    env = {"CLAUDE_PLUGIN_ROOT": str(REPO)}
    allowed = spawn(hook, sid, "deliberation:security-analyst", env=env)
    assert allowed.decision == "allow", allowed.json
    # another plugin's agent of the same name is not the plugin's to judge
    assert spawn(hook, sid, "other-plugin:security-analyst", n=2, env=env).decision != "allow"


def test_the_users_own_ask_rule_keeps_the_check(project, hook, tmp_path):
    """An ask rule in the user's ~/.claude/settings.json (the hook's HOME) counts like the project's."""
    persona_file(project, "security-analyst")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Agent"]}}))
    sid = session(hook)
    assert spawn(hook, sid, "security-analyst", env={"HOME": str(home), "DELIBERATION_WORKER": "0"}).json is None
    assert spawn(hook, sid, "security-analyst", n=2, env={"DELIBERATION_WORKER": "0"}).decision == "allow"
