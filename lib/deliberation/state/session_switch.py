"""A session's off switch on disk: `sessions/<sid>/switch.json` (core/off_switch decides).

Stdlib only: every hook reads it first (one open that fails when the session never switched;
this user's key is read only when the file is there), and the prompt hook writes it when the
user types the command. It is sealed like every runtime file (seal.py): a switch.json this user's
plugin did not write — committed, or planted beside a session — is not believed, so it can
neither switch the checks off nor turn them on over DELIBERATION=off.
"""

from __future__ import annotations

from deliberation.wire import fastjson
import os

from deliberation.state.paths import Layout


def read_switch(layout: Layout, session_id: str) -> "dict | None":
    """{"checks": "off"|"on", "by": ..., "at": ...} or None (never switched, or not readable)."""
    from deliberation.state import safe_read

    path = layout.switch(session_id)
    try:  # no link followed, a regular file only, never blocking (a FIFO there must not hold every hook)
        raw = safe_read.read_bytes(path, 4096, root=layout.project)
    except OSError:
        return None
    from deliberation.state import seal, user_data  # only when there is a switch: the key is read then

    try:  # sealed by this user's plugin (seal.Unsealed is a ValueError)
        data = fastjson.loads(seal.unseal_file(layout, path, raw))
    except (ValueError, user_data.Unavailable):
        return None
    return data if isinstance(data, dict) and data.get("checks") in ("off", "on") else None


def write_switch(layout: Layout, session_id: str, checks: str, by: str, at: float) -> None:
    from deliberation import SCHEMA_VERSION
    from deliberation.state.event_log import in_session_dir
    from deliberation.state import atomic

    from deliberation.state import seal

    path = layout.checked(layout.switch(session_id))
    data = seal.seal_file(
        layout, path, fastjson.dumps({"schema_version": SCHEMA_VERSION, "checks": checks, "by": by, "at": at}).encode()
    )
    in_session_dir(path, lambda: atomic.write(path, data, durable=False, make_parent=None))


def clear_switch(layout: Layout, session_id: str) -> None:
    try:
        os.unlink(layout.checked(layout.switch(session_id)))
    except (OSError, ValueError):
        pass
