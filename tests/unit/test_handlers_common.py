"""handlers.common: the event log read backwards (the question of a new deliberation)."""

from __future__ import annotations

import json
import random

from deliberation.handlers import common
from deliberation.paths import Layout


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
            got = list(common._lines_backwards(str(path), max_bytes, block))
            assert got == expected, (block, max_bytes)
    assert list(common._lines_backwards(str(tmp_path / "missing"), 100)) == []


def test_last_user_prompt_skips_task_notifications_and_other_events(tmp_path):
    layout = Layout(str(tmp_path))
    log = tmp_path / ".claude/deliberation/sessions/s1/events.jsonl"
    log.parent.mkdir(parents=True)
    records = [{"event": "UserPromptSubmit", "payload": {"prompt": "first question"}, "trigger": {"confidence": 0.4}},
               {"event": "UserPromptSubmit", "payload": {"prompt": "the real question"}, "trigger": {"confidence": 0.3}},
               *({"event": "PreToolUse", "payload": {"tool_name": "Edit"}} for _ in range(3000)),
               {"event": "UserPromptSubmit", "payload": {"prompt": "<task-notification>done</task-notification>"}}]
    log.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"torn')
    assert common.last_user_prompt(layout, "s1") == ("the real question", {"confidence": 0.3})
    assert common.last_user_prompt(layout, "s1", max_bytes=1000) == ("", None)  # beyond the window
