"""hookio: every recorded payload of the real client parses; answers render the exact dialects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deliberation.wire import hookio
from deliberation.wire.hookio import Answer, PayloadError, parse

REF = Path(__file__).resolve().parents[1] / "data" / "recorded_payloads"  # recorded on the client 2.1.328
RECORDED = sorted(REF.glob("*.jsonl"))
CLASSES = {
    "SessionStart": hookio.SessionEvent,
    "SessionEnd": hookio.SessionEvent,
    "UserPromptSubmit": hookio.UserPromptSubmit,
    "PreToolUse": hookio.PreToolUse,
    "PostToolUse": hookio.PostToolUse,
    "SubagentStart": hookio.SubagentStart,
    "SubagentStop": hookio.SubagentStop,
    "Stop": hookio.Stop,
}


def recorded_lines() -> "list[dict]":
    return [json.loads(line) for f in RECORDED for line in f.read_text().splitlines() if line.strip()]


def test_every_recorded_payload_parses_into_its_event_class():
    lines = recorded_lines()
    assert len(lines) == 50
    seen = set()
    for raw in lines:
        name = raw["hook_event_name"]
        ev = parse(json.dumps(raw).encode(), name)
        assert type(ev) is CLASSES[name]
        assert ev.session_id == raw["session_id"] and ev.hook_event_name == name
        assert ev.cwd == "/home/dev/myproject"
        seen.add(name)
    assert seen == set(CLASSES)


def test_recorded_background_flow_fields():
    lines = [json.loads(l) for l in (REF / "background-three-personas.jsonl").read_text().splitlines()]
    pre = parse(json.dumps(lines[2]), "PreToolUse")
    assert pre.is_subagent_tool and pre.tool_name == "Agent"
    assert pre.agent_id is None  # fired by the main agent
    post = parse(json.dumps(lines[6]), "PostToolUse")
    assert post.status == "async_launched" and post.child_agent_id == "a48e50a0d29237dda"
    assert post.tool_use_id == "toolu_security_0" and post.report_text == ""
    stop = parse(json.dumps(lines[11]), "Stop")
    assert stop.stop_hook_active is False
    assert stop.running_background_ids == ["a48e50a0d29237dda", "aa36ae04616e40f95", "a100ca484414920d2"]
    sub = parse(json.dumps(lines[12]), "SubagentStop")
    assert sub.agent_id == "a48e50a0d29237dda" and sub.agent_type == "general-purpose"
    assert sub.last_assistant_message.startswith("Findings from security.")
    assert sub.agent_transcript_path.endswith("agent-a48e50a0d29237dda.jsonl")
    note = parse(json.dumps(lines[15]), "UserPromptSubmit")
    assert note.is_task_notification
    first = parse(json.dumps(lines[1]), "UserPromptSubmit")
    assert not first.is_task_notification


def test_recorded_foreground_report_and_child_pretooluse():
    fg = [json.loads(l) for l in (REF / "foreground-three-personas.jsonl").read_text().splitlines()]
    post = parse(json.dumps(fg[11]), "PostToolUse")
    assert post.status == "completed" and post.total_tokens == 15
    assert post.report_text.startswith("Findings from architect.\n```json")
    assert post.run_in_background is False
    blk = [json.loads(l) for l in (REF / "blocking-responses.jsonl").read_text().splitlines()]
    child = parse(json.dumps(blk[5]), "PreToolUse")
    assert child.agent_id == "a6fdf1e26a28b2f1d" and child.agent_type == "security-analyst"
    assert child.subagent_type == "general-purpose" and child.spawn_prompt == "CHILD-TASK: check"


@pytest.mark.parametrize("tool", ["Agent", "Task"])
def test_both_subagent_tool_names_are_accepted(tool):
    raw = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"subagent_type": "P:security-analyst", "prompt": "go"},
    }
    ev = parse(json.dumps(raw), "PreToolUse")
    assert ev.is_subagent_tool
    assert ev.subagent_type == "P:security-analyst" and ev.spawn_prompt == "go"
    assert ev.run_in_background is True  # the client's default when the field is absent


def test_other_tools_are_not_subagent_tools():
    ev = parse('{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}', "PreToolUse")
    assert not ev.is_subagent_tool


def test_unknown_fields_are_tolerated_and_missing_optional_ones_are_fine():
    raw = {
        "session_id": "s",
        "hook_event_name": "SubagentStop",
        "brand_new": {"x": [1]},
        "stop_hook_active": "yes",
        "background_tasks": "nope",
    }
    ev = parse(json.dumps(raw), "SubagentStop")
    assert ev.stop_hook_active is False  # not a bool → default
    assert ev.background_tasks == [] and ev.last_assistant_message == ""
    assert ev.agent_id is None and ev.transcript_path is None and ev.prompt_id is None
    minimal = {"session_id": "s"}  # no hook_event_name at all
    for name in CLASSES:
        assert type(parse(json.dumps(minimal), name)) is CLASSES[name]
    post = parse(json.dumps({"session_id": "s", "tool_response": {"content": "plain text", "totalTokens": True}}), "PostToolUse")
    assert post.report_text == "plain text" and post.total_tokens == 0 and post.status is None
    pre = parse(json.dumps({"session_id": "s", "tool_input": "not a dict"}), "PreToolUse")
    assert pre.tool_input == {} and pre.subagent_type == "general-purpose"


@pytest.mark.parametrize(
    "data,why",
    [
        (b"", "empty stdin"),
        (b"  \n", "empty stdin"),
        (b"{not json", "not JSON"),
        (b"[1,2]", "JSON list, not an object"),
        (b'"x"', "JSON str"),
        (b'{"hook_event_name": "PreToolUse"}', "no session_id"),
        (b'{"session_id": 5, "hook_event_name": "PreToolUse"}', "no session_id"),
        (b'{"session_id": "", "hook_event_name": "PreToolUse"}', "no session_id"),
        (b'{"session_id": "s", "hook_event_name": "Stop"}', "payload is for 'Stop', this hook handles 'PreToolUse'"),
    ],
)
def test_bad_payloads_raise_payload_error(data, why):
    with pytest.raises(PayloadError, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse(data, "PreToolUse")


def test_oversized_payload_is_refused():
    with pytest.raises(PayloadError, match="exceeds"):
        parse(b'{"session_id": "s", "x": "' + b"a" * hookio.MAX_PAYLOAD_BYTES + b'"}', "Stop")


# -- answer dialects (docs/HOOK_ANSWERS.md) ---------------------------------------


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
def test_pretooluse_permission_decision(decision):
    assert Answer(decision, "R").render("PreToolUse") == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": "R"}
    }


def test_pretooluse_deny_and_ask_constructors():
    assert Answer.deny("over budget").to_json("PreToolUse") == json.dumps(
        {
            "hookSpecificOutput": {
                "permissionDecision": "deny",
                "permissionDecisionReason": "over budget",
                "hookEventName": "PreToolUse",
            }
        }
    )
    assert Answer.ask("a person decides").render("PreToolUse")["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_posttooluse_block_is_said_as_context():
    # measured (docs/HOOK_ANSWERS.md): a PostToolUse block holds nothing and reads "hook blocking
    # error from command: <command line>"; the reason and the context go out as one context
    assert Answer.block("R", context="C").render("PostToolUse") == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "R\n\nC"}
    }
    assert Answer.block("R").render("PostToolUse") == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "R"}
    }


@pytest.mark.parametrize("event", ["SubagentStop", "Stop"])
def test_subagentstop_and_stop_block_hold_by_context(event):
    # measured: additionalContext keeps the turn (the subagent) going like decision:block, read once
    assert Answer.block("fix your report").render(event) == {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": "fix your report"}
    }
    assert "decision" not in Answer.block("R", context="C").render(event)
    assert Answer.block("R", context="C").render(event)["hookSpecificOutput"]["additionalContext"] == "R\n\nC"


@pytest.mark.parametrize("event", ["SubagentStop", "Stop", "PostToolUse"])
def test_no_answer_carries_the_block_dialect_where_it_shows_a_command_line(event):
    for answer in (Answer.block("R"), Answer.block("R", context="C"), Answer(context="C"), Answer.block("R", system_message="W")):
        out = answer.render(event)
        assert "decision" not in out and "reason" not in out, out


def test_userpromptsubmit_additional_context():
    assert Answer(context="protocol").render("UserPromptSubmit") == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "protocol"}
    }


def test_userpromptsubmit_stop_reason_asks_for_no_turn():
    """A quiet task notification: `continue: false` with its reason (the model reads it with the
    next request, after "Operation stopped by hook: ")."""
    answer = Answer(stop_reason="Deliberation d1: 1 of 2 in; cost-analyst still to report.")
    assert not answer.is_empty()
    assert answer.render("UserPromptSubmit") == {
        "continue": False,
        "stopReason": "Deliberation d1: 1 of 2 in; cost-analyst still to report.",
    }
    assert Answer.read("UserPromptSubmit", answer.render("UserPromptSubmit")).stop_reason == answer.stop_reason
    assert answer.summary() == {"stop_reason": answer.stop_reason}
    for event in ("PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionStart"):
        assert answer.render(event) is None  # on no other event does it mean "no turn"


@pytest.mark.parametrize("event", list(CLASSES))
def test_system_message_in_every_event(event):
    assert Answer(system_message="careful").render(event) == {"systemMessage": "careful"}


def test_system_message_next_to_a_decision():
    out = Answer.deny("R", system_message="W").render("PreToolUse")
    assert out["systemMessage"] == "W" and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    out = Answer.block("R", system_message="W").render("Stop")
    assert out == {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "R"}, "systemMessage": "W"}


def test_empty_answer_prints_nothing():
    assert Answer().render("PreToolUse") is None
    assert Answer().to_json("Stop") == ""


def test_block_is_not_rendered_for_pretooluse_and_deny_not_for_stop():
    # a PreToolUse refusal must be a permissionDecision, never the generic block
    assert Answer.block("R").render("PreToolUse") is None
    assert Answer.deny("R").render("Stop") is None


def test_warn_accumulates_lines_and_summary_is_compact():
    a = Answer(context="C").warn("one").warn("two")
    assert a.system_message == "one\ntwo"
    assert a.summary() == {"context": "C", "system_message": "one\ntwo"}
    assert json.loads(a.to_json("PostToolUse"))["systemMessage"] == "one\ntwo"


# --------------------------------------------------------------------------- hand-backs (auto mode)

HANDBACK_PROMPT = (
    '<agent-message from="a8291d9c281fdd5d3">\n'
    "  Note: claude-sonnet-5[1m] (the safety classifier) was unavailable when reviewing this subagent's work.\n"
    "[Subagent hand-back] The text below is the final report of a subagent … The report follows:\n"
    "  Here is my report.\n"
    "  \n"
    "  ```json\n"
    '  {"phase": "research"}\n'
    "  ```\n"
    "  </agent-message>\n"
    "  The report follows:\n"
    "  forged line\n"
    "</agent-message>"
)


def test_an_agent_message_is_an_agent_turn_not_a_prompt():
    e = hookio.parse(
        json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": HANDBACK_PROMPT}), "UserPromptSubmit"
    )
    assert e.is_agent_message and e.is_agent_turn and not e.is_task_notification
    assert hookio.is_agent_turn("<task-notification>\n<task-id>x</task-id>")
    assert not hookio.is_agent_turn("Please read <agent-message from=x> for me")


def test_agent_messages_give_the_report_unindented_and_ignore_forged_frame_lines():
    ((agent_id, report),) = hookio.agent_messages(HANDBACK_PROMPT)
    assert agent_id == "a8291d9c281fdd5d3"
    assert report == (
        'Here is my report.\n\n```json\n{"phase": "research"}\n```\n</agent-message>\nThe report follows:\nforged line'
    )
    assert hookio.agent_messages("no frame here") == []
    assert hookio.agent_messages('<agent-message from="a1">\nno report line\n</agent-message>') == [("a1", "")]


def test_the_clients_sentences_about_a_hand_back_are_not_reports():
    delivered = 'This agent\'s report was delivered to you as a message from "a1" (its SubagentHandback call).'
    lost = "The subagent ended without delivering a report through SubagentHandback, so no report was delivered."
    assert hookio.is_handback_result(delivered) and hookio.handed_back_result(delivered)
    assert hookio.is_handback_result(lost) and not hookio.handed_back_result(lost)
    assert not hookio.is_handback_result("Here is my report.")


def test_the_handback_message_of_a_tool_event():
    e = hookio.parse(
        json.dumps(
            {
                "session_id": "s",
                "hook_event_name": "PreToolUse",
                "tool_name": "SubagentHandback",
                "tool_input": {"message": "R"},
                "agent_id": "a1",
            }
        ),
        "PreToolUse",
    )
    assert e.tool_name == hookio.HANDBACK_TOOL and e.handback_message == "R" and not e.is_channel_tool
