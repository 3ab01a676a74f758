"""A session's off switch on disk: `sessions/<sid>/switch.json` (core/off_switch decides).

Stdlib only: every hook reads it first (one open that fails when the session never switched),
and the prompt hook writes it when the user types the command. The folder's session id is the
client's random one, so no file a project commits can stand for this session's switch; and the
switch only narrows unless the user typed `on`.
"""

from __future__ import annotations

from deliberation.wire import fastjson
import os

from deliberation.state.paths import Layout


def read_switch(layout: Layout, session_id: str) -> "dict | None":
    """{"checks": "off"|"on", "by": ..., "at": ...} or None (never switched, or not readable)."""
    from deliberation.state import safe_read

    try:  # no link followed, a regular file only, never blocking (a FIFO there must not hold every hook)
        data = fastjson.loads(safe_read.read_bytes(layout.switch(session_id), 4096))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("checks") in ("off", "on") else None


def write_switch(layout: Layout, session_id: str, checks: str, by: str, at: float) -> None:
    from deliberation import SCHEMA_VERSION
    from deliberation.state.event_log import in_session_dir
    from deliberation.state import atomic

    path = layout.checked(layout.switch(session_id))
    data = fastjson.dumps({"schema_version": SCHEMA_VERSION, "checks": checks, "by": by, "at": at}).encode()
    in_session_dir(path, lambda: atomic.write(path, data, durable=False, make_parent=None))


def clear_switch(layout: Layout, session_id: str) -> None:
    try:
        os.unlink(layout.checked(layout.switch(session_id)))
    except (OSError, ValueError):
        pass
