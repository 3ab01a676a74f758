"""The self-rating instruction, the deliberate command through the Skill tool and the mid-task net,
through the real hook scripts."""

from __future__ import annotations

import json

from deliberation.text import self_rating
from tests.helpers import payloads as P
from tests.helpers.factories import approve_config
from tests.helpers.project import write_config

SID = "f0f0f0f0-0000-4000-8000-000000000027"
RISKY = "Should we force-push the release branch to remove the leaked credentials commit, or rotate and leave history?"
ROUTINE = "rename the helper in utils.py"
FORCE_PUSH = {"command": "git push --force origin main", "description": "push"}


def edit(path: str) -> dict:
    return {"file_path": f"/home/dev/myproject/{path}", "old_string": "a", "new_string": "b"}


def events(project) -> "list[dict]":
    path = project / ".claude" / "deliberation" / "sessions" / SID / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_session_start_tells_the_agent_how_to_rate_a_decision(project, hook):
    out = hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "startup"})
    assert out.context == self_rating.text()
    assert 'skill "deliberate"' in out.context and "security 0.85" in out.context
    assert len(out.context.encode()) <= self_rating.MAX_BYTES


def test_session_start_follows_the_configured_bars_and_switches(project, hook):
    write_config(project, {"task_types": {"thresholds": {"security": 0.9}}})
    assert "security 0.90" in hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "startup"}).context
    write_config(project, {"trigger": {"self_rating": False}})
    approve_config(project)  # switching a catch off waits for this user's approval (test_committed_settings)
    assert hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "startup"}).json is None
    write_config(project, {"trigger": {"enabled": False}})
    approve_config(project)
    assert hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "compact"}).json is None


def test_the_deliberate_command_through_the_skill_tool_gives_the_protocol(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    question = "Should the export keep customers' phone numbers?"
    out = hook("PreToolUse", P.pre_tool(SID, "Skill", {"skill": "deliberate", "args": question}, "toolu_s1"))
    assert out.decision is None and out.context.startswith("DELIBERATION PROTOCOL")
    assert f"Question: {question}" in out.context
    logged = events(project)[-1]
    assert logged["trigger"]["forced"] and logged["trigger"]["triggered"]
    # the plugin form's namespaced name too; any other skill is left alone
    assert hook("PreToolUse", P.pre_tool(SID, "Skill", {"skill": "deliberation:deliberate", "args": question})).context
    assert hook("PreToolUse", P.pre_tool(SID, "Skill", {"skill": "pdf", "args": "x"})).json is None


def test_the_first_persona_after_the_skill_call_deliberates_on_its_question(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    question = "Should the export keep customers' phone numbers?"
    hook("PreToolUse", P.pre_tool(SID, "Skill", {"skill": "deliberate", "args": question}, "toolu_s1"))
    assert hook("PreToolUse", P.pre_agent(SID, "toolu_a1", "security-analyst", "Phase: research. " + question)).decision is None
    delib = json.loads(next((project / ".claude" / "deliberation" / "deliberations").glob("*.json")).read_text())
    assert delib["question"] == question and delib["trigger_forced"] is True


INTERACTIVE = {"CLAUDE_CODE_ENTRYPOINT": "cli"}
HEADLESS = {"CLAUDE_CODE_ENTRYPOINT": "sdk-cli"}  # what `claude -p` sets in its hooks' environment


def test_by_default_an_irreversible_step_waits_for_the_user_before_it_runs(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    for n in (1, 2):  # held each time: a note after it could not undo it
        out = hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, f"toolu_b{n}"), env=INTERACTIVE)
        assert out.decision == "ask" and "git push --force origin main" in out.reason
        assert "It would lose the commits on the remote branch" in out.reason and "Say yes only if you decided" in out.reason
        assert "ask the user to confirm" in out.reason and 'skill "deliberate"' in out.reason
        assert len(out.reason.encode()) < 2048
    for command in (
        "rm -rf /srv/uploads",
        "psql $PROD_DATABASE_URL -c 'DROP TABLE orders'",
        "git filter-repo --path .env --invert-paths",
    ):
        out = hook("PreToolUse", P.pre_tool(SID, "Bash", {"command": command}), env=INTERACTIVE)
        assert out.decision == "ask" and "It would lose" in out.reason, command


def test_a_headless_run_is_told_to_stop_and_ask_the_user(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    out = hook("PreToolUse", P.pre_tool(SID, "Bash", {"command": "terraform destroy -auto-approve"}), env=HEADLESS)
    assert out.decision == "ask"  # the client refuses it there and the model reads the reason
    assert "nobody can confirm it in this run" in out.reason and "stop and ask the user" in out.reason
    assert "Do not retry it" in out.reason and "It would lose the resources it destroys" in out.reason


def test_a_sensitive_edit_still_runs_with_the_note_after_it(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, RISKY))
    out = hook("PreToolUse", P.pre_tool(SID, "Edit", edit("src/payments/refund.py")), env=INTERACTIVE)
    assert out.decision is None and "rated a risky decision" in out.context


def test_a_force_push_after_a_routine_prompt_gets_one_note_in_note_mode(project, hook):
    write_config(project, {"trigger": {"tool_net": "note"}})
    approve_config(project)  # a committed `note` loosens the default hold: it waits for this user's approval
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    out = hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, "toolu_b1"))
    assert out.decision is None  # the call runs
    assert out.context.startswith("Deliberation plugin: this call ran;") and "git push --force origin main" in out.context
    assert 'skill "deliberate"' in out.context and len(out.context.encode()) < 2048
    assert events(project)[-1]["notes"] == ["tool-net:force-push"]
    assert hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, "toolu_b2")).json is None  # said once per prompt
    hook("UserPromptSubmit", P.prompt(SID, "now push the hotfix too"))
    assert hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, "toolu_b3")).context  # a new prompt, said again


def test_before_a_deliberation_the_note_is_logged_with_the_calls_ids_only(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, "toolu_b1"))
    logged = events(project)
    assert [r["event"] for r in logged] == ["PreToolUse"]  # the prompt waits in prompt.json
    assert logged[0]["ids_only"] is True and "tool_input" not in logged[0]["payload"]
    assert logged[0]["payload"]["tool_name"] == "Bash" and logged[0]["notes"] == ["tool-net:force-push"]


def test_ask_mode_holds_every_risky_call_for_the_user(project, hook):
    write_config(project, {"trigger": {"tool_net": "ask"}})
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    for n in (1, 2):
        out = hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH, f"toolu_b{n}"))
        assert out.decision == "ask" and "Say yes only if you decided this step" in out.reason
        assert len(out.reason.encode()) < 2048


def test_off_and_a_disabled_trigger_leave_risky_calls_alone(project, hook):
    for cfg in ({"trigger": {"tool_net": "off"}}, {"trigger": {"enabled": False}}):
        write_config(project, cfg)
        approve_config(project)  # this user's own choice: a committed one waits (test_committed_settings)
        hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
        assert hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH)).json is None


def test_routine_calls_get_nothing(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, RISKY))
    for tool, tool_input in (
        ("Bash", {"command": "python -m pytest -q"}),
        ("Bash", {"command": "git push -f origin feature/x"}),
        ("Edit", edit("README.md")),
        ("Edit", edit("tests/test_auth.py")),
    ):
        assert hook("PreToolUse", P.pre_tool(SID, tool, tool_input)).json is None, tool_input


def test_an_auth_edit_gets_a_note_only_after_a_risky_prompt(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    assert hook("PreToolUse", P.pre_tool(SID, "Edit", edit("src/auth/login.py"))).json is None
    hook("UserPromptSubmit", P.prompt(SID, RISKY))
    out = hook("PreToolUse", P.pre_tool(SID, "Edit", edit("src/auth/login.py")))
    assert out.decision is None and "src/auth/login.py" in out.context and "rated a risky decision" in out.context


def test_a_deliberation_on_record_silences_the_net(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, RISKY))
    assert hook("PreToolUse", P.pre_agent(SID, "toolu_a1", "security-analyst", "Phase: research. " + RISKY)).decision is None
    assert hook("PreToolUse", P.pre_tool(SID, "Bash", FORCE_PUSH)).json is None
    assert hook("PreToolUse", P.pre_tool(SID, "Edit", edit("src/auth/login.py"))).json is None


def test_a_subagent_is_told_to_report_back_not_to_deliberate(project, hook):
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE))
    payload = {**P.pre_tool(SID, "Bash", FORCE_PUSH), "agent_id": "a1234", "agent_type": "general-purpose"}
    out = hook("PreToolUse", payload)
    assert out.decision is None and "report" in out.context and "Skill" not in out.context


def test_the_skill_call_on_the_slow_path_gives_the_protocol_too(project, hook):
    write_config(project, {"strict": False})  # a config not yet validated: the slow path answers
    out = hook("PreToolUse", P.pre_tool(SID, "Skill", {"skill": "deliberate", "args": "Should we?"}, "toolu_s9"))
    assert out.context.startswith("DELIBERATION PROTOCOL") and "Question: Should we?" in out.context
    logged = events(project)[-1]
    assert logged["notes"] == ["deliberate command via Skill"] and logged["trigger"]["forced"]


def test_a_plain_instruction_to_do_something_irreversible_gets_a_hold_at_the_prompt(project, hook):
    out = hook("UserPromptSubmit", P.prompt(SID, "turn off MFA for the admin accounts so the contractors can log in"))
    assert out.context.startswith("Deliberation plugin: this request asks for switching off an access control")
    assert "DELIBERATION PROTOCOL" not in out.context and "explicit yes" in out.context
    # the turn counts as risky for the net: an auth edit after it gets the note
    after = hook("PreToolUse", P.pre_tool(SID, "Edit", edit("src/auth/mfa.py")))
    assert after.decision is None and "rated a risky decision" in after.context


def test_a_question_about_an_irreversible_act_starts_a_deliberation(project, hook):
    out = hook("UserPromptSubmit", P.prompt(SID, "Sollen wir die v1-API jetzt abschalten oder noch ein Quartal warten?"))
    assert out.context.startswith("DELIBERATION PROTOCOL")


def test_a_hard_negative_prompt_gets_nothing(project, hook):
    for prompt in ("delete the unused import", "remove dead code", "drop the debug print"):
        assert hook("UserPromptSubmit", P.prompt(SID, prompt)).json is None, prompt
