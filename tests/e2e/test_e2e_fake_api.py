"""The scripted Messages API on its own (no client needed): wire format, routing, logging, and
the request helpers scenarios rely on."""

from __future__ import annotations

import http.client
import json

import pytest

from fake_api import ApiRequest, FakeApi, Reply, agent_call, text, tool_use
from scenarios import PersonaPanel, agent_outcomes, persona_of, report, report_message


def post(api: FakeApi, path: str, body) -> "tuple[int, str, str]":
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    return resp.status, resp.getheader("Content-Type"), data


def parse_sse(raw: str) -> "list[tuple[str, dict]]":
    events = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def reassemble(events: "list[tuple[str, dict]]") -> "tuple[list, str]":
    """Rebuild the content blocks as a client would, from the deltas."""
    blocks: list = []
    stop_reason = ""
    for name, data in events:
        if name == "content_block_start":
            blocks.append(dict(data["content_block"], _json=""))
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            else:
                blocks[data["index"]]["_json"] += delta["partial_json"]
        elif name == "message_delta":
            stop_reason = data["delta"]["stop_reason"]
    for block in blocks:
        partial = block.pop("_json")
        if block["type"] == "tool_use":
            block["input"] = json.loads(partial)
    return blocks, stop_reason


MAIN_BODY = {
    "model": "claude-test",
    "stream": True,
    "system": [{"type": "text", "text": "main agent"}],
    "tools": [{"name": "Agent"}, {"name": "Read"}],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>\nignore me\n</system-reminder>\n"},
                {"type": "text", "text": "Decide X"},
            ],
        }
    ],
}


def test_stream_is_the_messages_api_event_sequence():
    call = agent_call("PERSONA: red-team\ngo", "red-team", id="toolu_fixed")
    with FakeApi(lambda req: [text("spawning"), call]) as api:
        status, ctype, raw = post(api, "/v1/messages?beta=true", MAIN_BODY)
    assert status == 200 and ctype == "text/event-stream"
    events = parse_sse(raw)
    assert [name for name, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0][1]["message"]["model"] == "claude-test"
    blocks, stop_reason = reassemble(events)
    assert stop_reason == "tool_use"
    assert blocks == [
        {"type": "text", "text": "spawning"},
        {
            "type": "tool_use",
            "id": "toolu_fixed",
            "name": "Agent",
            "input": {"description": "red-team task", "prompt": "PERSONA: red-team\ngo", "subagent_type": "red-team"},
        },
    ]


def test_non_streaming_request_gets_one_json_message():
    with FakeApi(lambda req: "plain answer") as api:
        status, ctype, raw = post(api, "/v1/messages", dict(MAIN_BODY, stream=False))
    message = json.loads(raw)
    assert status == 200 and ctype == "application/json"
    assert message["content"] == [{"type": "text", "text": "plain answer"}]
    assert message["stop_reason"] == "end_turn" and message["role"] == "assistant"


def test_count_tokens_unknown_paths_and_scenario_errors_are_logged():
    def broken(req):
        raise RuntimeError("scenario bug")

    with FakeApi(broken) as api:
        tokens = post(api, "/v1/messages/count_tokens?beta=true", {"messages": [{"role": "user", "content": "abcd" * 10}]})
        unknown = post(api, "/v1/other", {"x": 1})
        failed = post(api, "/v1/messages", MAIN_BODY)
        log = api.snapshot()
    assert tokens[0] == 200 and json.loads(tokens[2])["input_tokens"] > 0
    assert unknown[0] == 404 and json.loads(unknown[2])["type"] == "error"
    assert failed[0] == 500
    assert [e.status for e in log.entries] == [200, 404, 500]
    assert len(log.errors) == 1 and "scenario bug" in log.errors[0].error
    assert len(log.other_calls) == 2


def test_request_helpers_tell_main_subagent_and_side_apart():
    main = ApiRequest(MAIN_BODY)
    sub = ApiRequest(
        {
            "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_is_subagent=true;"}],
            "tools": [{"name": "Agent"}, {"name": "Read"}],
            "messages": [{"role": "user", "content": "PERSONA: security-analyst\nResearch."}],
        }
    )
    side = ApiRequest({"system": "Generate a title", "messages": [{"role": "user", "content": "hi"}]})
    assert (main.is_main_agent, main.is_subagent, main.is_side_request) == (True, False, False)
    assert (sub.is_main_agent, sub.is_subagent, sub.is_side_request) == (False, True, False)
    assert (side.is_main_agent, side.is_subagent, side.is_side_request) == (False, False, True)
    assert main.first_user_text == "Decide X"
    assert persona_of(sub) == "security-analyst"


def test_agent_outcomes_follow_results_and_notifications():
    messages = [
        {"role": "user", "content": "Decide"},
        {
            "role": "assistant",
            "content": [
                tool_use("Agent", {"prompt": "a"}, id="t1"),
                tool_use("Agent", {"prompt": "b"}, id="t2"),
                tool_use("Agent", {"prompt": "c"}, id="t3"),
                tool_use("Agent", {"prompt": "d"}, id="t4"),
                tool_use("Agent", {"prompt": "e"}, id="t5"),
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "REPORT A"}]},
                {"type": "tool_result", "tool_use_id": "t2", "is_error": True, "content": "PreToolUse:Agent hook error: budget"},
                {
                    "type": "tool_result",
                    "tool_use_id": "t3",
                    "content": [{"type": "text", "text": "Async agent launched successfully. agentId: a1"}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t4",
                    "content": [{"type": "text", "text": "Async agent launched successfully. agentId: a2"}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t5",
                    "content": [{"type": "text", "text": "Async agent launched successfully. agentId: a3"}],
                },
            ],
        },
        # a completion that arrives mid-turn comes as a system message
        {
            "role": "system",
            "content": "[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n"
            "<task-id>a3</task-id>\n<tool-use-id>t5</tool-use-id>\n"
            "<result>REPORT E</result>\n</task-notification>",
        },
        {"role": "assistant", "content": [{"type": "text", "text": "waiting"}]},
        {
            "role": "user",
            "content": "<system-reminder><task-notification>\n<task-id>a1</task-id>\n"
            "<tool-use-id>t3</tool-use-id>\n<result>REPORT C</result>\n"
            "</task-notification></system-reminder>",
        },
    ]
    req = ApiRequest({"system": "main", "tools": [{"name": "Agent"}], "messages": messages})
    assert agent_outcomes(req) == {"t1": "done", "t2": "error", "t3": "done", "t4": "background", "t5": "done"}
    assert req.new_text.count("REPORT C") == 1 and "REPORT A" not in req.new_text
    assert req.saw("hook error: budget")


def test_persona_panel_script():
    panel = PersonaPanel(
        {"security-analyst": report(), "red-team": "no report"},
        agent_types={"red-team": "deliberation:red-team"},
        background=False,
    )
    first = panel(ApiRequest(MAIN_BODY))
    calls = [b for b in first if b.get("type") == "tool_use"]
    assert [c["input"]["subagent_type"] for c in calls] == ["security-analyst", "deliberation:red-team"]
    assert all(c["input"]["run_in_background"] is False for c in calls)
    sub = ApiRequest(
        {
            "system": "cc_is_subagent=true",
            "tools": [{"name": "Read"}],
            "messages": [{"role": "user", "content": calls[1]["input"]["prompt"]}],
        }
    )
    assert panel(sub) == "no report"


def test_report_message_is_a_valid_agent_report():
    pytest.importorskip("pydantic")
    from deliberation.state.agent_report import extract_report

    parsed, ignored = extract_report(report_message(report(phase="ranking", verdict="reject")), 64_000)
    assert (parsed.phase, parsed.verdict, ignored) == ("ranking", "reject", [])


def test_reply_stop_reason():
    assert Reply([text("x")]).effective_stop_reason == "end_turn"
    assert Reply([tool_use("Read", {"file_path": "/x"})]).effective_stop_reason == "tool_use"
