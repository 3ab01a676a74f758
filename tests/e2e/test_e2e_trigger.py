"""The trigger's three paths through the real client, both install forms: the self-rating
instruction every session starts with, a risky step met mid-task (the mid-task net holds a
force-push before it runs; headless, the client refuses it and the model reads why), and the agent starting the deliberation itself through the plugin's command
(the Skill tool), answered with the protocol.

The scripted main agent does exactly what the texts tell an obedient model: it reads the
self-rating at session start, runs the risky command, reads the held call's reason (nobody
decided the force-push: the reason names the deliberate command), and calls the Skill tool it
names with the decision as its args.
"""

from __future__ import annotations

import json

import pytest

from fake_api import ApiRequest, text, tool_use
from harness import assert_clean
from scenarios import Scenario

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROMPT = "tidy up the release branch for me"  # routine: the decision comes up mid-task
# never runs a push (`false &&`): the hook sees the command as the model wrote it
RISKY_COMMAND = "false && git push --force origin main"
DECISION = "Should we force-push main to drop the bad merge, or revert it?"
SELF_RATING = "SessionStart hook additional context: Deliberation plugin: when you meet a decision"
# `claude -p` sets CLAUDE_CODE_ENTRYPOINT=sdk-cli in the hooks' environment: the headless wording
HELD = "Deliberation plugin: this call force-pushes a shared branch"
HEADLESS = "it was held, and nobody can confirm it in this run"


def skill_named(req: ApiRequest) -> "str | None":
    """The skill the latest note or held call's reason names (Skill tool with skill "…")."""
    for line in reversed(req.all_text.splitlines()):
        if 'Skill tool with skill "' in line:
            return line.split('Skill tool with skill "', 1)[1].split('"', 1)[0]
    return None


class MidTaskDecision(Scenario):
    def main(self, req: ApiRequest):
        used = [u["name"] for u in req.tool_uses]
        if not used:
            return [text("Checking the branch."), tool_use("Bash", {"command": RISKY_COMMAND, "description": "push"})]
        if used == ["Bash"]:
            skill = skill_named(req)
            if skill is None:
                return "NO NOTE"
            return [text("That needs a deliberation."), tool_use("Skill", {"skill": skill, "args": DECISION})]
        return "MAIN DONE"

    def subagent(self, req: ApiRequest):
        return "CHILD"


def main_texts(run) -> "list[str]":
    return [json.dumps(r.body) for r in run.log.main_requests]


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_self_rating_note_and_the_command_mid_task(mode, run_claude, e2e_project):
    run = run_claude(e2e_project, PROMPT, MidTaskDecision(), mode=mode, allowed_tools="Agent Read Bash Skill")
    assert_clean(run)
    info = run.describe()
    bodies = main_texts(run)
    assert bodies and all(SELF_RATING in b for b in bodies), info  # in every request of the session
    skill = "deliberation:deliberate" if mode == "plugin" else "deliberate"
    assert f'skill \\"{skill}\\"' in bodies[0], info
    assert run.text == "MAIN DONE", info
    after_bash, after_skill = bodies[1], bodies[2]
    assert HELD in after_bash and HEADLESS in after_bash and "git push --force origin main" in after_bash, info
    assert "It would lose the commits" in after_bash, info
    assert "PreToolUse:Skill hook additional context: DELIBERATION PROTOCOL" in after_skill, info
    assert f"Question: {DECISION}" in after_skill, info
    events = run.events()
    assert [e["notes"] for e in events if e.get("event") == "PreToolUse"] == [
        ["tool-net:force-push"],
        ["deliberate command via Skill"],
    ], info


class Decided(Scenario):
    def main(self, req: ApiRequest):
        return "MAIN DONE"

    def subagent(self, req: ApiRequest):
        return "CHILD"


def test_a_decided_irreversible_request_reaches_the_model_with_its_hold(run_claude, e2e_project):
    """The prompt hook's hold (core/acts.py) reaches the main agent beside the user's prompt."""
    prompt = "open up the assets bucket to public read"
    run = run_claude(e2e_project, prompt, Decided(), mode="install", allowed_tools="Read")
    assert_clean(run)
    info = run.describe()
    first = main_texts(run)[0]
    assert "Deliberation plugin: this request asks for opening access to data or a system" in first, info
    assert "explicit yes" in first and "DELIBERATION PROTOCOL" not in first, info
