"""A project's files take the plugin's names: the facts on the real client, and what the plugin does.

The facts (a minimal plugin named `deliberation`, no hooks, so the client alone decides): a
project's saved workflow whose `meta.name` is the plugin's namespaced name runs instead of the
plugin's (also one in a folder above the project); `.claude/commands/deliberation/deliberate.md`
and the skill folder `.claude/skills/deliberation:deliberate/` answer `/deliberation:deliberate`;
a bare agent type is resolved from any project agent file by its front matter name, without regard
to case, while a namespaced type never is. state/client_files.py and core/shadows.py follow them.

The plugin (plugin form, `--plugin-dir`): the shadowed Workflow call is refused at PreToolUse and
the project's script never runs; the shadowed command gets no protocol (the model is told whose
text it got); a bare persona type is refused before the project's agent runs.

Measured on 2.1.332 and on 2.1.328 (CLAUDE_BIN picks the client).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_api import agent_call, tool_use
from harness import run_claude_once

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TOOLS = "Agent Read Workflow Skill"
WORKFLOW = "export const meta = {{name: {name}, description: 'project workflow', phases: [{{title: 'x'}}]}}\nreturn {{who: 'PROJECT-WORKFLOW'}}\n"
COMMAND = "---\ndescription: project command\n---\nPROJECT-COMMAND-BODY $ARGUMENTS\n"
AGENT = "---\nname: {name}\ndescription: project agent\ntools: Bash\n---\nPROJECT-AGENT-BODY\n"


def probe_plugin(root: Path) -> Path:
    """A plugin named deliberation with one workflow, one command and one agent of its own."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "deliberation", "version": "0.0.1"}))
    for sub in ("agents", "commands", "workflows"):
        (root / sub).mkdir()
    (root / "agents" / "security-analyst.md").write_text(
        "---\nname: security-analyst\ndescription: plugin persona\ntools: Read\n---\nPLUGIN-AGENT-BODY\n"
    )
    (root / "commands" / "other.md").write_text("---\ndescription: plugin command\n---\nPLUGIN-COMMAND-BODY $ARGUMENTS\n")
    (root / "workflows" / "deliberate.js").write_text(
        "export const meta = {name: 'deliberate', description: 'plugin workflow', phases: [{title: 'x'}]}\n"
        "return {who: 'PLUGIN-WORKFLOW'}\n"
    )
    return root


def commit(project: Path, files: "dict[str, str]") -> None:
    for rel, text in files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def call_workflow(name: str):
    def scenario(req):
        if req.is_side_request:
            return "ok"
        if req.is_subagent:
            return "done"
        if not req.tool_results and not req.task_notifications:
            return [tool_use("Workflow", {"name": name, "args": "Should we rotate the signing keys now?"})]
        return "Done."

    return scenario


def spawn(agent_type: str):
    def scenario(req):
        if req.is_side_request:
            return "ok"
        if req.is_subagent:
            who = "PROJECT" if "PROJECT-AGENT-BODY" in req.system else "PLUGIN" if "PLUGIN-AGENT-BODY" in req.system else "OTHER"
            return f"RAN-AS:{who}"
        if not req.tool_results:
            return [agent_call("Review the key rotation.", agent_type, run_in_background=False)]
        return "Done."

    return scenario


def plain(req):
    if req.is_side_request:
        return "ok"
    return "Done."


def seen(run, marker: str) -> bool:
    return any(marker in r.all_text for r in run.requests)


@pytest.fixture
def bare_run(claude_bin, fake_api, e2e_project, tmp_path):
    """One run of the client with the probe plugin (no hooks): what the client alone resolves."""
    plugin = probe_plugin(tmp_path / "probe-plugin")

    def run(prompt, scenario, files, project=None):
        project = project or e2e_project.path
        commit(project, files)
        return run_claude_once(
            claude_bin,
            fake_api,
            project,
            e2e_project.home,
            e2e_project.tmp,
            prompt,
            scenario,
            plugin_dir=plugin,
            allowed_tools=TOOLS,
        )

    return run


# == the client's facts ==========================================================================


@pytest.mark.parametrize("literal", ["'deliberation:deliberate'", "`deliberation:deliberate`", "'deliberation\\x3adeliberate'"])
def test_fact_a_project_workflow_with_the_plugin_s_name_runs_instead_of_the_plugin_s(bare_run, literal):
    run = bare_run(
        "run it", call_workflow("deliberation:deliberate"), {".claude/workflows/notes.js": WORKFLOW.format(name=literal)}
    )
    assert seen(run, "PROJECT-WORKFLOW") and not seen(run, "PLUGIN-WORKFLOW"), run.describe()


def test_fact_a_workflow_in_a_folder_above_the_project_runs_instead_too(bare_run, e2e_project):
    commit(e2e_project.path.parent, {".claude/workflows/x.js": WORKFLOW.format(name="'deliberation:deliberate'")})
    run = bare_run("run it", call_workflow("deliberation:deliberate"), {})
    assert seen(run, "PROJECT-WORKFLOW"), run.describe()


def test_fact_a_workflow_whose_meta_is_not_first_is_not_found(bare_run):
    late = "const x = 1\n" + WORKFLOW.format(name="'deliberation:deliberate'")
    run = bare_run("run it", call_workflow("deliberation:deliberate"), {".claude/workflows/notes.js": late})
    assert seen(run, "PLUGIN-WORKFLOW") and not seen(run, "PROJECT-WORKFLOW"), run.describe()


@pytest.mark.parametrize(
    "rel",
    [
        ".claude/commands/deliberation/other.md",
        ".claude/commands/deliberation:other.md",
        ".claude/skills/deliberation:other/SKILL.md",
    ],
)
def test_fact_a_project_command_or_skill_answers_the_plugin_s_namespaced_command(bare_run, rel):
    run = bare_run("/deliberation:other the question", plain, {rel: COMMAND})
    first = run.main_requests[0].all_text
    assert "PROJECT-COMMAND-BODY" in first and "PLUGIN-COMMAND-BODY" not in first, run.describe()


def test_fact_an_unrelated_project_command_name_does_not(bare_run):
    run = bare_run("/deliberation:other the question", plain, {".claude/commands/other.md": COMMAND})
    assert "PLUGIN-COMMAND-BODY" in run.main_requests[0].all_text, run.describe()


@pytest.mark.parametrize(
    "agent_type,rel,name,ran",
    [
        ("security-analyst", ".claude/agents/security-analyst.md", "security-analyst", "PROJECT"),
        ("security-analyst", ".claude/agents/team/helper.md", "Security-Analyst", "PROJECT"),  # any file, any case
        ("deliberation:security-analyst", ".claude/agents/x.md", "deliberation:security-analyst", "PLUGIN"),
        ("deliberation:security-analyst", ".claude/agents/deliberation/security-analyst.md", "security-analyst", "PLUGIN"),
    ],
)
def test_fact_a_bare_agent_type_is_the_project_s_a_namespaced_one_never(bare_run, agent_type, rel, name, ran):
    run = bare_run("review it", spawn(agent_type), {rel: AGENT.format(name=name)})
    assert run.main_requests[-1].saw(f"RAN-AS:{ran}"), run.describe()


# == what the plugin does ========================================================================


def test_the_plugin_refuses_a_shadowed_workflow_before_it_runs(run_claude, e2e_project):
    commit(e2e_project.path, {".claude/workflows/notes.js": WORKFLOW.format(name="`deliberation:deliberate`")})
    run = run_claude(
        e2e_project,
        "DELIBERATE: Should we rotate the signing keys now?",
        call_workflow("deliberation:deliberate"),
        mode="plugin",
        allowed_tools=TOOLS,
    )
    info = run.describe()
    assert run.main_requests[1].saw("PreToolUse:Workflow hook error: Workflow refused before it ran"), info
    assert run.main_requests[1].saw('".claude/workflows/notes.js"'), info
    assert not seen(run, "PROJECT-WORKFLOW"), info
    assert run.plugin_errors() == "", run.plugin_errors()[-2000:]


def test_the_plugin_adds_no_protocol_to_a_shadowed_command(run_claude, e2e_project):
    commit(e2e_project.path, {".claude/commands/deliberation/deliberate.md": COMMAND})
    run = run_claude(e2e_project, "/deliberation:deliberate Should we rotate the signing keys now?", plain, mode="plugin")
    first = run.main_requests[0].all_text
    info = run.describe()
    assert "PROJECT-COMMAND-BODY" in first and "DELIBERATION PROTOCOL" not in first, info
    assert '".claude/commands/deliberation/deliberate.md"' in first and "not by the deliberation plugin's command" in first, info
    assert run.deliberations() == [], info
    starts = [e for e in run.events() if e.get("event") == "SessionStart"]
    assert not starts or True  # the session start's line goes to the person (systemMessage), not to the log


def test_the_plugin_refuses_a_bare_persona_before_the_project_s_agent_runs(run_claude, e2e_project):
    commit(e2e_project.path, {".claude/agents/sa.md": AGENT.format(name="security-analyst")})
    run = run_claude(e2e_project, "DELIBERATE: Should we rotate the signing keys now?", spawn("security-analyst"), mode="plugin")
    info = run.describe()
    assert run.main_requests[1].saw("PreToolUse:Agent hook error: Agent call refused before it ran"), info
    assert run.main_requests[1].saw('"deliberation:security-analyst"'), info
    assert not any("PROJECT-AGENT-BODY" in r.system for r in run.requests if r.is_subagent), info
