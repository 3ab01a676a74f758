"""handlers.common: the question of a new deliberation, from the event log."""

from __future__ import annotations

import json

from deliberation.app.handlers import common
from deliberation.state.paths import Layout


def test_last_user_prompt_skips_task_notifications_and_other_events(tmp_path):
    layout = Layout(str(tmp_path))
    log = tmp_path / ".claude/deliberation/sessions/s1/events.jsonl"
    log.parent.mkdir(parents=True)
    records = [{"event": "UserPromptSubmit", "payload": {"prompt": "first question"}, "trigger": {"confidence": 0.4}},
               {"event": "UserPromptSubmit", "payload": {"prompt": "the real question"}, "trigger": {"confidence": 0.3},
                "at": 1700000000.5},
               *({"event": "PreToolUse", "payload": {"tool_name": "Edit"}} for _ in range(3000)),
               {"event": "UserPromptSubmit", "payload": {"prompt": "<task-notification>done</task-notification>"}}]
    log.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"torn')
    assert common.last_user_prompt(layout, "s1") == ("the real question", {"confidence": 0.3}, 1700000000.5)
    assert common.last_user_prompt(layout, "s1", max_bytes=1000) == ("", None, None)  # beyond the window
