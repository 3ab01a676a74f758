"""event_log: all-or-nothing appends, reading backwards, and finding an event already committed."""

from __future__ import annotations

import json
import os
import random

from tests.helpers.factories import write_state
from deliberation.state import event_log
from deliberation.state.paths import Layout


def test_lines_backwards_matches_the_file_read_whole(tmp_path):
    rng = random.Random(7)
    path = tmp_path / "events.jsonl"
    lines = [("x" * rng.randint(0, 300)).encode() for _ in range(400)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    data = path.read_bytes()
    for block in (1, 7, 64, 1 << 16):
        for max_bytes in (len(data), 5000, 301):
            tail = data[-max_bytes:]
            expected = [ln for ln in reversed(tail.split(b"\n")) if ln.strip()]
            got = list(event_log.lines_backwards(str(path), max_bytes, block))
            assert got == expected, (block, max_bytes)
    assert list(event_log.lines_backwards(str(tmp_path / "missing"), 100)) == []


def test_an_append_drops_a_killed_writer_s_fragment_first(tmp_path):
    path = str(tmp_path / "events.jsonl")
    event_log.append_line(path, b'{"a":1}\n')
    with open(path, "ab") as fh:
        fh.write(b'{"torn": tr')  # a writer killed mid-append
    event_log.append_line(path, b'{"b":2}\n{"c":3}\n')
    assert open(path, "rb").read() == b'{"a":1}\n{"b":2}\n{"c":3}\n'
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_has_lines_tells_which_appends_a_journal_replay_still_owes(tmp_path):
    path = str(tmp_path / "events.jsonl")
    event_log.append_line(path, b'{"a":1}\n{"b":2}\n')
    assert event_log.has_lines(path, b'{"b":2}\n')
    assert event_log.has_lines(path, b'{"a":1}\n{"b":2}\n')
    assert not event_log.has_lines(path, b'{"b":2}\n{"c":3}\n')  # half of it is missing
    assert not event_log.has_lines(str(tmp_path / "missing"), b'{"a":1}\n')
    assert event_log.has_lines(path, b"")


def test_logged_answer_finds_the_event_by_its_id(tmp_path):
    layout = Layout(str(tmp_path))
    path = layout.events("s1")
    os.makedirs(os.path.dirname(path))
    records = [
        {"eid": "e1", "answer": {"decision": "deny", "reason": "budget", "kinds": ["tier2_denied", 3]}},
        {"eid": "e2", "answer": {}},
        {"eid": "e10", "answer": {"context": "ten", "system_message": "note", "junk": 1}},
        {"eid": "e4", "answer": {"stop_reason": "quiet: 1 of 2 in"}},
    ]
    write_state(path, "".join(json.dumps(r) + "\n" for r in records))  # as the plugin writes them: sealed
    first = event_log.logged_answer(layout, "s1", "e1")
    assert (first.decision, first.reason, first.kinds) == ("deny", "budget", ("tier2_denied",))
    assert event_log.logged_answer(layout, "s1", "e2").is_empty()
    tenth = event_log.logged_answer(layout, "s1", "e10")  # not confused with e1
    assert (tenth.context, tenth.system_message, tenth.decision, tenth.kinds) == ("ten", "note", None, ())
    assert event_log.logged_answer(layout, "s1", "e3") is None
    # a quiet task notification is answered again as quiet (no turn), not as an empty answer
    assert event_log.logged_answer(layout, "s1", "e4").stop_reason == "quiet: 1 of 2 in"
    assert event_log.logged_answer(layout, "s1", None) is None
    assert event_log.logged_answer(layout, "../x", "e1") is None  # never a path out


class _Event:
    hook_event_name = "UserPromptSubmit"
    event_id = "e1"
    session_id = "s1"


def test_bounded_cuts_long_strings_and_names_each_with_its_length():
    payload = {"prompt": "p" * 100, "tool_response": {"content": [{"text": "t" * 11}, {"text": "short"}]}, "n": 5}
    kept, cut = event_log.bounded(payload, 10)
    assert kept == {"prompt": "p" * 10, "tool_response": {"content": [{"text": "t" * 10}, {"text": "short"}]}, "n": 5}
    assert cut == {"prompt": 100, "tool_response.content[0].text": 11}
    assert event_log.bounded({"a": "x"}, 10) == ({"a": "x"}, {})


def test_ids_only_keeps_ids_flags_and_numbers_never_text():
    payload = {
        "session_id": "s1",
        "prompt": "my secret plan",
        "tool_name": "Agent",
        "tool_use_id": "toolu_1",
        "tool_input": {
            "subagent_type": "Explore",
            "prompt": "look for passwords",
            "description": "find",
            "run_in_background": True,
        },
        "tool_response": {"status": "completed", "content": [{"type": "text", "text": "found: hunter2"}], "totalTokens": 12},
        "last_assistant_message": "done",
        "transcript_path": "/home/me/.claude/x.jsonl",
        "cwd": "/home/me",
    }
    slim = event_log.ids_only(payload)
    assert slim == {
        "session_id": "s1",
        "tool_name": "Agent",
        "tool_use_id": "toolu_1",
        "tool_input": {"subagent_type": "Explore", "run_in_background": True},
        "tool_response": {"status": "completed", "totalTokens": 12},
    }
    assert event_log.ids_only({"agent_id": "a" * 500})["agent_id"] == "a" * event_log.ID_CHARS


def test_a_record_keeps_the_payload_bounded_or_its_ids_only():
    payload = {"session_id": "s1", "prompt": "x" * 8_000_000}
    whole = event_log.make_record(_Event(), payload, {}, None, "full", 65536, 1.0, "hook")
    assert len(whole["payload"]["prompt"]) == 65536 and whole["truncated"] == {"prompt": 8_000_000}
    assert len(event_log.json_line(whole)) < 70_000
    slim = event_log.make_record(_Event(), payload, {}, None, "ids", 65536, 1.0, "hook")
    assert slim["payload"] == {"session_id": "s1"} and slim["ids_only"] is True
    many = {"session_id": "s1", "items": ["y" * 60000] * 40}  # every field under the cap, the record over its own
    capped = event_log.make_record(_Event(), many, {}, None, "full", 65536, 1.0, "hook")
    assert capped["ids_only"] is True and len(event_log.json_line(capped)) < 1000


def test_a_pending_prompt_is_kept_read_back_and_dropped_with_its_empty_folder(tmp_path):
    layout = Layout(str(tmp_path))
    record = event_log.make_record(_Event(), {"session_id": "s1", "prompt": "hi"}, {}, None, "full", 100, 1.0, "hook")
    event_log.keep_pending_prompt(layout, "s1", record)
    path = layout.pending_prompt("s1")
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert event_log.pending_prompt(layout, "s1") == record
    assert sorted(os.listdir(os.path.dirname(path))) == ["prompt.json"]  # no temp file left
    event_log.drop_pending_prompt(layout, "s1")
    assert not os.path.exists(layout.session_dir("s1"))
    event_log.keep_pending_prompt(layout, "s1", record)
    with open(layout.lineage("s1"), "w") as fh:
        fh.write("{}")
    event_log.drop_pending_prompt(layout, "s1")
    assert os.listdir(layout.session_dir("s1")) == ["lineage.json"]  # the folder stays for what it holds


def test_a_pending_prompt_that_is_not_one_is_not_believed(tmp_path):
    layout = Layout(str(tmp_path))
    os.makedirs(layout.session_dir("s1"))
    for text in (
        "not json",
        '{"record": {"event": "Stop", "payload": {}}}',
        '{"record": {"event": "UserPromptSubmit", "payload": {"prompt": 5}}}',
        "[]",
    ):
        with open(layout.pending_prompt("s1"), "w") as fh:
            fh.write(text)
        assert event_log.pending_prompt(layout, "s1") is None


def test_the_turn_s_records_skip_a_sealed_line_without_a_time_and_stop_at_an_older_one(tmp_path):
    """One reader serves the question a deliberation opens with and the mid-task net: the writer
    gives every record a numeric `at` (the schema requires it), so a sealed record without one —
    no `at`, a bool, a string, inf — is malformed and skipped: it neither ends the walk nor counts. A record older than the turn's prompt ends it."""
    layout = Layout(str(tmp_path))
    log = layout.events("s1")
    lines = [
        {"event": "UserPromptSubmit", "at": 10.0, "n": "before the turn"},
        {"event": "UserPromptSubmit", "at": 20.0, "n": "the prompt"},
        {"event": "PreToolUse", "n": "no at"},
        {"event": "PreToolUse", "at": True, "n": "bool"},
        {"event": "PreToolUse", "at": "30", "n": "string"},
        {"event": "PreToolUse", "at": 25, "n": "int"},
    ]
    body = "".join(json.dumps(r) + "\n" for r in lines) + '{"event": "PreToolUse", "at": Infinity, "n": "inf"}\n'
    write_state(log, body)
    assert [r["n"] for r in event_log.turn_records(layout, log, None, 1 << 20)] == ["int", "the prompt", "before the turn"]
    assert [r["n"] for r in event_log.turn_records(layout, log, 20.0, 1 << 20)] == ["int", "the prompt"]
    assert [r["n"] for r in event_log.turn_records(layout, log, 26.0, 1 << 20)] == []
    assert (event_log.record_time({"at": 3}), event_log.record_time({"at": float("nan")}), event_log.record_time({})) == (
        3.0,
        None,
        None,
    )


def test_both_readers_of_the_turn_agree_on_a_record_without_a_time(tmp_path):
    """The net's view of the turn (plain_reads.since_last_prompt) and the question a deliberation
    opens with (handlers.common.last_user_prompt) read the same records: a sealed record with no
    `at` after the turn's prompt is skipped by both; it does not hide what was said since."""
    from deliberation.app.handlers import common
    from deliberation.state import plain_reads

    layout = Layout(str(tmp_path))
    records = [
        {"event": "PreToolUse", "at": 6.0, "payload": {}, "notes": ["tool-net:push"]},
        {"event": "PreToolUse", "payload": {}, "notes": ["from a record with no time"]},
    ]
    write_state(layout.events("s1"), "".join(json.dumps(r) + "\n" for r in records))
    pending = event_log.make_record(_Event(), {"session_id": "s1", "prompt": "the question"}, {}, None, "full", 100, 5.0, "hook")
    event_log.keep_pending_prompt(layout, "s1", pending)  # the turn's prompt, kept aside
    tail = plain_reads.since_last_prompt(layout, "s1")
    assert tail is not None and (tail.at, tail.notes) == (5.0, ["tool-net:push"])
    assert common.last_user_prompt(layout, "s1", pending) == ("the question", None, 5.0)
    event_log.drop_pending_prompt(layout, "s1")
    prompt = {
        "event": "UserPromptSubmit",
        "at": 5.0,
        "payload": {"prompt": "the question"},
        "trigger": {"triggered": True},
        "notes": [],
    }
    write_state(layout.events("s1"), "".join(json.dumps(r) + "\n" for r in [prompt, *records]))
    tail = plain_reads.since_last_prompt(layout, "s1")
    assert tail is not None and (tail.at, tail.trigger, tail.notes) == (5.0, {"triggered": True}, ["tool-net:push"])
    assert common.last_user_prompt(layout, "s1") == ("the question", {"triggered": True}, 5.0)
