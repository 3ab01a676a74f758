"""Reading state files as plain JSON, with the standard library only: what a routine event
needs to know (is a deliberation active in this session, is a decision awaiting review, what
does the config say) without loading the models. The config comes from a cache the slow path
writes after validating config.json with pydantic and holding back the settings that wait for
this user's approval (`config.resolve_config`, consent.py), keyed by the file's size and mtime,
the approvals file and this code's version; a missing or stale cache sends the event to the
slow path.

Every read goes through `seal.read_runtime` (no link followed, a regular file only, at most
FAST_LIMIT bytes, this user's seal checked): a file that is missing reads as None; one that is
not believed raises `Distrusted`, and the caller sends the event to the slow path, which moves
the file aside and says why (store.Store).
"""

from __future__ import annotations

from deliberation.wire import fastjson
import os

from deliberation.state.paths import Layout

FAST_LIMIT = 4 << 20  # larger state files are the slow path's (which has its own limit)


class Distrusted(Exception):
    """A state file the fast path does not believe (not sealed by this user's plugin, a link, a
    FIFO, too large, not a JSON object): the slow path handles it."""


def state_json(layout: Layout, path: str) -> "dict | None":
    """A runtime state file as a dict; None when it does not exist; raises Distrusted."""
    from deliberation.state import seal

    try:
        raw = seal.read_runtime(layout, path, FAST_LIMIT)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - Refused, Unsealed, Unavailable, an I/O error: not believed here
        raise Distrusted(str(exc)) from None
    try:
        data = fastjson.loads(raw)
    except ValueError:
        raise Distrusted(f"{path} is not valid JSON") from None
    if not isinstance(data, dict):
        raise Distrusted(f"{path} is not a JSON object")
    return data


def believed_json(layout: Layout, path: str) -> "dict | None":
    """`state_json`, with a file it does not believe read as absent (the session start's prune:
    a committed escalations.json or session.json keeps nothing and removes nothing)."""
    try:
        return state_json(layout, path)
    except Distrusted:
        return None


def session_state(layout: Layout, session_id: str) -> "dict | None":
    return state_json(layout, layout.session_state(session_id))


def cache_key(st: os.stat_result, approvals: "int | list[int]" = 0) -> list:
    """What the config cache is valid for: this config.json (size, mtime), this user's
    approvals file (consent.stamp) and this code's models — a cache written by another plugin
    version is resolved again."""
    from deliberation import SCHEMA_VERSION, __version__

    return [st.st_size, st.st_mtime_ns, f"{__version__}/{SCHEMA_VERSION}", approvals]


def _cached(layout: Layout) -> "dict | None":
    """The config cache when it is valid for config.json as it is now, else None."""
    from deliberation.state import consent

    try:
        st = os.lstat(layout.config)
    except OSError:
        return None
    try:
        cached = _read_cache(layout)
    except Distrusted:
        return None
    if cached and cached.get("key") == cache_key(st, consent.stamp(layout)):
        return cached
    return None


def config_dict(layout: Layout) -> "dict | None":
    """The effective config as a plain dict, from the cache; None = 'validate on the slow path'.

    Missing config.json → {} (all defaults)."""
    try:
        os.lstat(layout.config)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    cached = _cached(layout)
    value = cached.get("config") if cached else None
    return value if isinstance(value, dict) else None


def awaiting_approval(layout: Layout) -> "list | None":
    """The settings (consent.Item) that wait for this user's approval, from a valid cache ([] =
    none wait; None = unknown, ask the slow path). Without a config.json nothing is imported."""
    try:
        os.lstat(layout.config)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    cached = _cached(layout)
    if cached is None:
        return None
    from deliberation.state import consent

    return consent.items_of(cached.get("awaiting"))


_CACHE_MEMO: "dict[str, tuple[tuple[int, int, int], dict | None]]" = {}


def _read_cache(layout: Layout) -> "dict | None":
    """`state_json` of the config cache, remembered while the file stays the same (inode, size,
    mtime): the warm worker answers many hooks and the config cache changes rarely. Callers
    never mutate the dict. A file replaced between the stat and the read is read again next time."""
    path = layout.config_cache
    try:
        st = os.lstat(path)
    except OSError:
        return None
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _CACHE_MEMO.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    data = state_json(layout, path)
    _CACHE_MEMO[path] = (key, data)
    return data


def section(cfg: "dict | None", name: str) -> dict:
    value = (cfg or {}).get(name)
    return value if isinstance(value, dict) else {}


def is_strict(cfg: "dict | None") -> bool:
    return bool((cfg or {}).get("strict"))


def open_escalations(layout: Layout) -> "list[dict]":
    """The open escalations of escalations.json ([] when there is none); raises Distrusted when
    the file is not one this user's plugin wrote, or not shaped like an EscalationIndex (the
    slow path validates fully, moves it aside and says why)."""
    from deliberation import SCHEMA_VERSION

    data = state_json(layout, layout.escalations)
    if data is None:
        return []
    version = data.get("schema_version")
    entries = data.get("open", [])
    if (
        not set(data) <= {"schema_version", "open"}
        or version != SCHEMA_VERSION
        or isinstance(version, bool)
        or not isinstance(entries, list)
    ):
        raise Distrusted("escalations.json is not shaped like an escalation index")
    return [e for e in entries if isinstance(e, dict)]


def commit_pending(layout: Layout, session_id: str) -> bool:
    """A transaction of the session was killed mid-commit: its journal awaits replay (on the slow
    path, under the session's lock), and until then session.json may be behind."""
    try:
        return os.path.lexists(layout.journal(session_id))
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
    from deliberation.state.event_log import pending_prompt, record_time, turn_records

    pending = pending_prompt(layout, session_id)
    since = record_time(pending) if pending is not None else None
    notes: "list[str]" = []
    try:
        path = layout.checked(layout.events(session_id))
    except ValueError:
        return None
    for rec in turn_records(layout, path, since, max_bytes):  # only this user's events, back to the prompt
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            payload = {}
        prompt = payload.get("prompt")
        real_prompt = (
            rec.get("event") == "UserPromptSubmit"
            and isinstance(prompt, str)
            and not prompt.lstrip().startswith(("<task-notification>", "<agent-message from="))
        )
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
        delib = state_json(layout, layout.checked(layout.deliberation(ids[-1])))  # raises Distrusted
    except ValueError:
        return False
    created = (delib or {}).get("created_at")
    return isinstance(created, (int, float)) and created >= at
