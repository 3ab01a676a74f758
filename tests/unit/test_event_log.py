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
    records = [{"eid": "e1", "answer": {"decision": "deny", "reason": "budget"}},
               {"eid": "e2", "answer": {}},
               {"eid": "e10", "answer": {"context": "ten", "system_message": "note", "junk": 1}}]
    write_state(path, "".join(json.dumps(r) + "\n" for r in records))  # as the plugin writes them: sealed
    first = event_log.logged_answer(layout, "s1", "e1")
    assert (first.decision, first.reason) == ("deny", "budget")
    assert event_log.logged_answer(layout, "s1", "e2").is_empty()
    tenth = event_log.logged_answer(layout, "s1", "e10")  # not confused with e1
    assert (tenth.context, tenth.system_message, tenth.decision) == ("ten", "note", None)
    assert event_log.logged_answer(layout, "s1", "e3") is None
    assert event_log.logged_answer(layout, "s1", None) is None
    assert event_log.logged_answer(layout, "../x", "e1") is None  # never a path out
