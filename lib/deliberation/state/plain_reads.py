"""Reading state files as plain JSON, with the standard library only: what a routine event
needs to know (is a deliberation active in this session, is a decision awaiting review, what
does the config say) without loading the models. The config comes from a cache the slow path
writes after validating config.json with pydantic (`config.resolve_config`), keyed by the file's size
and mtime and this code's version; a missing or stale cache sends the event to the slow path.
"""

from __future__ import annotations

import json
import os

from deliberation.state.paths import Layout


def read_json(path: str) -> "dict | None":
    """A small state file, or None when missing/unreadable (the slow path will report it)."""
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def session_state(layout: Layout, session_id: str) -> "dict | None":
    return read_json(layout.session_state(session_id))


def cache_key(st: os.stat_result) -> list:
    """What the config cache is valid for: this config.json (size, mtime) and this code's
    models — a cache written by another plugin version is resolved again."""
    from deliberation import SCHEMA_VERSION, __version__

    return [st.st_size, st.st_mtime_ns, f"{__version__}/{SCHEMA_VERSION}"]


def config_dict(layout: Layout) -> "dict | None":
    """The validated config as a plain dict, from the cache; None = 'validate on the slow path'.

    Missing config.json → {} (all defaults)."""
    try:
        st = os.stat(layout.config)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    cached = _read_cache(layout.config_cache)
    if cached and cached.get("key") == cache_key(st):
        value = cached.get("config")
        return value if isinstance(value, dict) else None
    return None


_CACHE_MEMO: "dict[str, tuple[tuple[int, int, int], dict | None]]" = {}


def _read_cache(path: str) -> "dict | None":
    """`read_json(path)`, remembered while the file stays the same (inode, size, mtime): the
    warm worker answers many hooks and the config cache changes rarely. Callers never mutate
    the dict. A file replaced between the stat and the read is read again next time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _CACHE_MEMO.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    data = read_json(path)
    _CACHE_MEMO[path] = (key, data)
    return data


def section(cfg: "dict | None", name: str) -> dict:
    value = (cfg or {}).get(name)
    return value if isinstance(value, dict) else {}


def is_strict(cfg: "dict | None") -> bool:
    return bool((cfg or {}).get("strict"))


def open_escalations(layout: Layout) -> "list[dict]":
    data = read_json(layout.escalations)
    entries = (data or {}).get("open")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def escalations_readable(path: str) -> bool:
    """No escalations file, or one shaped like an EscalationIndex (the slow path validates fully)."""
    from deliberation import SCHEMA_VERSION

    if not os.path.exists(path):
        return True
    data = read_json(path)
    if data is None or not set(data) <= {"schema_version", "open"}:
        return False
    version = data.get("schema_version")
    return version == SCHEMA_VERSION and not isinstance(version, bool) and isinstance(data.get("open", []), list)


def commit_pending(layout: Layout, session_id: str) -> bool:
    """A transaction of the session was killed mid-commit: its journal awaits replay (on the slow
    path, under the session's lock), and until then session.json may be behind."""
    try:
        return os.path.exists(layout.journal(session_id))
    except ValueError:  # an id that is not one: the slow path reports it
        return True


class SinceLastPrompt:
    """What is on record since the session's latest real user prompt (or since the deliberate
    command was called through the Skill tool): that record's time and trigger result, and the
    notes of the events logged after it."""

    __slots__ = ("at", "trigger", "notes")

    def __init__(self, at: float, trigger: "dict | None", notes: "list[str]") -> None:
        self.at = at
        self.trigger = trigger
        self.notes = notes


def _at(rec: dict) -> float:
    at = rec.get("at")
    return float(at) if isinstance(at, (int, float)) else 0.0


def _trigger(rec: dict) -> "dict | None":
    trig = rec.get("trigger")
    return trig if isinstance(trig, dict) else None


def since_last_prompt(layout: Layout, session_id: str, max_bytes: int = 1 << 20) -> "SinceLastPrompt | None":
    """The turn's prompt — kept aside in prompt.json while the session has no deliberation, else
    in the event log — and the notes logged since, the log read backwards (None: no prompt
    found). Read only when a tool call already looks risky."""
    from deliberation.state.event_log import lines_backwards, pending_prompt

    pending = pending_prompt(layout, session_id)
    since = _at(pending) if pending is not None else None
    notes: "list[str]" = []
    try:
        path = layout.checked(layout.events(session_id))
    except ValueError:
        return None
    for line in lines_backwards(path, max_bytes):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if since is not None and _at(rec) < since:
            break  # older than the turn's prompt
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            payload = {}
        prompt = payload.get("prompt")
        real_prompt = rec.get("event") == "UserPromptSubmit" and isinstance(prompt, str) \
            and not prompt.lstrip().startswith("<task-notification>")
        skill = rec.get("event") == "PreToolUse" and _trigger(rec) is not None
        if real_prompt or skill:
            return SinceLastPrompt(_at(rec), _trigger(rec), notes)
        notes.extend(n for n in rec.get("notes") or () if isinstance(n, str))
    if pending is not None:
        return SinceLastPrompt(_at(pending), _trigger(pending), notes)
    return None


def deliberation_since(layout: Layout, sess: "dict | None", at: float) -> bool:
    """A deliberation is on record for what the session is doing now: one is active, or the
    latest one was opened at or after `at` (the latest prompt's time)."""
    if not sess:
        return False
    if sess.get("active_deliberation"):
        return True
    ids = sess.get("deliberations")
    if not isinstance(ids, list) or not ids or not isinstance(ids[-1], str):
        return False
    try:
        delib = read_json(layout.checked(layout.deliberation(ids[-1])))
    except ValueError:
        return False
    created = (delib or {}).get("created_at")
    return isinstance(created, (int, float)) and created >= at
