"""token_usage: the depth budget's token figure, from a subagent's transcript."""

from __future__ import annotations

import json
import os

from deliberation.app import transcripts as R
from deliberation.core import token_usage as T
from deliberation.text import tokens as tokens_text
from tests.helpers import payloads as P


def entry(msg_id, inp, out, cache_read=0, cache_create=0, kind="assistant"):
    return json.dumps(
        {
            "type": kind,
            "isSidechain": True,
            "message": {
                "id": msg_id,
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}],
                "usage": {
                    "input_tokens": inp,
                    "cache_creation_input_tokens": cache_create,
                    "cache_read_input_tokens": cache_read,
                    "output_tokens": out,
                    "output_tokens_details": {"thinking_tokens": 0},
                    "service_tier": "standard",
                },
            },
        }
    )


def transcript(tmp_path, lines, name="agent-a1.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_last_api_response_counts_as_the_client_counts_totalTokens(tmp_path):
    """The shape the client 2.1.328 writes: a user entry, attachments, then one assistant entry
    per content block (the same usage repeated) for each API call. A foreground agent of these
    three calls reported totalTokens 10363 = 10106 + 257."""
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "prompt"}}),
        json.dumps({"type": "attachment"}),
        entry("msg_2", 8486, 35),
        entry("msg_2", 8486, 35),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result"}]}}),
        entry("msg_3", 10026, 36),
        entry("msg_3", 10026, 36),
        entry("msg_4", 10106, 257),
        json.dumps({"type": "attachment"}),
    ]
    assert R.read_transcript(transcript(tmp_path, lines)) == 10363


def test_cache_tokens_are_input_tokens_too(tmp_path):
    assert R.read_transcript(transcript(tmp_path, [entry("m", 12, 300, cache_read=9000, cache_create=700)])) == 10012


def test_unreadable_transcripts_count_nothing(tmp_path):
    assert R.read_transcript(None) is None
    assert R.read_transcript(str(tmp_path / "missing.jsonl")) is None
    assert R.read_transcript(transcript(tmp_path, [json.dumps({"type": "user"})])) is None
    assert R.read_transcript(transcript(tmp_path, ["{broken", entry("m", 5, 5, kind="user")], "b.jsonl")) is None
    assert R.read_transcript(transcript(tmp_path, [entry("m", 5, 5)], "not-a-transcript.txt")) is None
    target = transcript(tmp_path, [entry("m", 5, 5)], "real.jsonl")
    os.symlink(target, tmp_path / "link.jsonl")
    assert R.read_transcript(str(tmp_path / "link.jsonl")) is None  # never follows a link
    os.mkfifo(tmp_path / "fifo.jsonl")
    assert R.read_transcript(str(tmp_path / "fifo.jsonl")) is None  # never blocks on a pipe


def test_a_long_transcript_is_read_from_its_end(tmp_path):
    filler = [entry(f"m{i}", 100 + i, 1) for i in range(3000)]
    assert R.read_transcript(transcript(tmp_path, filler + [entry("last", 50_000, 900)])) == 50_900


def test_notified_tokens():
    note = P.task_notification("s", "a1", "t1", "report")["prompt"]
    assert T.notified_tokens(note) == 15 and T.notified_tokens("no usage") is None


def test_count_keeps_the_largest_reading_and_the_total_in_step():
    """Measured on 2.1.328: at SubagentStop the transcript may still lack the agent's last
    response (3861 read, 4454 final); totalTokens or the task notification then carry the final
    figure. Every reading measures the same growing quantity: the largest wins."""
    rec = P.agent_record("security-analyst", "research", {"findings": [{"id": "F1", "claim": "c"}]})
    d = P.make_deliberation([rec])
    assert T.count(d, rec, 3861, "transcript") and (rec.tokens, rec.tokens_source, d.tokens_used) == (3861, "transcript", 3861)
    assert T.count(d, rec, 4454, "totalTokens") and (rec.tokens, rec.tokens_source, d.tokens_used) == (4454, "totalTokens", 4454)
    assert not T.count(d, rec, 4454, "transcript") and not T.count(d, rec, 100, "task-notification")
    assert not T.count(d, rec, None, "transcript") and rec.tokens_source == "totalTokens"
    other = P.agent_record("cost-analyst", "research", {"findings": [{"id": "F1", "claim": "c"}]}, key="k2")
    d.agents.append(other)
    assert T.count(d, other, 4205, "task-notification") and d.tokens_used == 8659
    d.agents.append(P.agent_record("ux-advocate", "research", None, key="k3"))  # still running: no reading
    assert T.summary(d) == {
        "used": 8659,
        "counted": tokens_text.COUNTED,
        "agents_not_counted": 1,
        "agents_by_source": {"transcript": 0, "totalTokens": 1, "task-notification": 1},
    }


# --------------------------------------------------------------------------- the record's cost: every call


def test_every_api_call_is_summed_once_per_message_id(tmp_path):
    """The same transcript as above: three calls, each content block repeating its usage. The
    record's cost sums the three (the depth budget counts only the last: 10363)."""
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "prompt"}}),
        entry("msg_2", 8486, 35, cache_read=100),
        entry("msg_2", 8486, 35, cache_read=100),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result"}]}}),
        entry("msg_3", 10026, 36, cache_create=50),
        entry("msg_3", 10026, 36, cache_create=50),
        entry("msg_4", 10106, 257),
    ]
    u = R.read_usage(transcript(tmp_path, lines))
    assert (u.calls, u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens, u.output_tokens) == (
        3,
        8486 + 10026 + 10106,
        50,
        100,
        35 + 36 + 257,
    )
    assert R.read_transcript(transcript(tmp_path, lines, "b.jsonl")) == 10363


def test_responses_without_an_id_each_count(tmp_path):
    anon = json.dumps({"type": "assistant", "message": {"usage": {"input_tokens": 7, "output_tokens": 3}}})
    u = R.read_usage(transcript(tmp_path, [anon, anon, entry("m", 1, 1)]))
    assert (u.calls, u.input_tokens, u.output_tokens) == (3, 15, 7)


def test_an_unreadable_or_oversized_transcript_is_not_summed(tmp_path, monkeypatch):
    assert R.read_usage(None) is None
    assert R.read_usage(str(tmp_path / "missing.jsonl")) is None
    assert R.read_usage(transcript(tmp_path, [json.dumps({"type": "user"})])) is None
    assert R.read_usage(transcript(tmp_path, [entry("m", 5, 5)], "x.txt")) is None
    target = transcript(tmp_path, [entry("m", 5, 5)], "real.jsonl")
    os.symlink(target, tmp_path / "link.jsonl")
    assert R.read_usage(str(tmp_path / "link.jsonl")) is None
    monkeypatch.setattr(R, "MAX_USAGE_FILE", 10)
    assert R.read_usage(target) is None  # partly read would understate: not summed at all
