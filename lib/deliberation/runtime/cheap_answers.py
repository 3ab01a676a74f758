"""Stdlib-only answers for the routine events, so most hooks never import pydantic.

A hook reaches the slow path (handlers/, pydantic models, locks) only when something is going
on: a subagent spawn or report, an active deliberation in the session, an open escalation.
Everything here reads at most a stat and one small JSON file; it never reads the event log.
"""

from __future__ import annotations

import json
import os
import re
import time

from deliberation.state.paths import Layout, plugin_agent_prefix


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


def resolve_config(layout: Layout) -> "tuple[dict, list[str]]":
    """Validate config.json with pydantic and refresh the cache; returns (dict, problems)."""
    from deliberation.state.config import load_config
    from deliberation.state.store import atomic_write_bytes, dumps

    cfg, problems = load_config(layout.config)
    data = cfg.model_dump(mode="json")
    try:
        st = os.stat(layout.config)
        payload = {"key": cache_key(st), "config": data, "problems": problems}
        atomic_write_bytes(layout.checked(layout.config_cache), dumps(payload))
    except OSError:
        pass
    return data, problems


def section(cfg: "dict | None", name: str) -> dict:
    value = (cfg or {}).get(name)
    return value if isinstance(value, dict) else {}


def is_strict(cfg: "dict | None") -> bool:
    return bool((cfg or {}).get("strict"))


def open_escalations(layout: Layout) -> "list[dict]":
    data = read_json(layout.escalations)
    entries = (data or {}).get("open")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _index_readable(path: str) -> bool:
    """No escalations file, or one shaped like an EscalationIndex (the slow path validates fully)."""
    from deliberation import SCHEMA_VERSION

    if not os.path.exists(path):
        return True
    data = read_json(path)
    if data is None or not set(data) <= {"schema_version", "open"}:
        return False
    version = data.get("schema_version")
    return version == SCHEMA_VERSION and not isinstance(version, bool) and isinstance(data.get("open", []), list)


from deliberation.core.human_review import DEFAULT_RISKY, commands_hint  # noqa: E402,F401 (re-exported)


def review_answer(entries: "list[dict]", tool_name: str, risky_tools: str) -> "tuple[str | None, str]":
    """PreToolUse while decisions await a person: human_review.tool_answer (its words)."""
    from deliberation.core.human_review import tool_answer

    return tool_answer(entries, tool_name, risky_tools)


def log_line(layout: Layout, event, payload: dict, answer: dict,
             notes: "list[str] | None" = None, trigger: "dict | None" = None) -> None:
    """Append an event-log record without the session lock (fast-path events change no state)."""
    from deliberation import SCHEMA_VERSION
    from deliberation.state import event_log

    from deliberation.state.paths import handled_by, make_dirs

    path = layout.checked(layout.events(event.session_id))  # a symlinked events.jsonl must not lead out
    make_dirs(os.path.dirname(path))
    record = {"schema_version": SCHEMA_VERSION, "at": time.time(), "event": event.hook_event_name
              or type(event).__name__, "eid": event.event_id, "handled_by": handled_by(), "payload": payload,
              "answer": answer, "notes": notes or []}
    if trigger is not None:
        record["trigger"] = trigger
    event_log.append_line(path, event_log.json_line(record))


def commit_pending(layout: Layout, session_id: str) -> bool:
    """A transaction of the session was killed mid-commit: its journal awaits replay (on the slow
    path, under the session's lock), and until then session.json may be behind."""
    try:
        return os.path.exists(layout.journal(session_id))
    except ValueError:  # an id that is not one: the slow path reports it
        return True


def answer(event, layout: Layout, cfg: dict, now: float):
    """The fast-path Answer, or None when the slow path must decide."""
    from deliberation.wire import hookio

    sid = event.session_id
    if commit_pending(layout, sid):
        return None
    if isinstance(event, hookio.UserPromptSubmit):
        sess = session_state(layout, sid)
        busy = bool(sess and (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")))
        if event.is_task_notification:
            if busy:
                return None
            log_line(layout, event, event.raw, {}, ["task-notification"])
            return hookio.Answer()
        if busy:
            return None
        return trigger_answer(event, layout, cfg)
    if isinstance(event, hookio.PreToolUse):
        if event.is_channel_tool:
            return None
        entries = open_escalations(layout)
        if not entries:
            # an escalations.json that does not read as an index goes to the slow path (quarantine + warning)
            return hookio.Answer() if _index_readable(layout.escalations) else None
        decision, reason = review_answer(entries, event.tool_name,
                                         section(cfg, "escalation").get("risky_tools", DEFAULT_RISKY))
        result = hookio.Answer(decision, reason) if decision else hookio.Answer()
        log_line(layout, event, _light(event.raw), result.summary())
        return result
    if isinstance(event, hookio.PostToolUseFailure) and not event.is_channel_tool:
        return hookio.Answer()
    if isinstance(event, hookio.Stop):
        sess = session_state(layout, sid)
        if not sess or not (sess.get("active_deliberation") or sess.get("notices") or sess.get("open_workflows")):
            log_line(layout, event, event.raw, {})
            return hookio.Answer()
        return None
    if event.hook_event_name in ("SessionStart", "SessionEnd") or type(event) is hookio.SessionEvent:
        sess = session_state(layout, sid)
        if not sess or not sess.get("active_deliberation"):
            return hookio.Answer()
        return None
    return None


def _light(raw: dict) -> dict:
    """A risky tool's payload without bulky content (file bodies) for the event log."""
    tool_input = raw.get("tool_input")
    if not isinstance(tool_input, dict):
        return raw
    slim = {k: (v if not isinstance(v, str) or len(v) <= 512 else v[:512] + "…") for k, v in tool_input.items()}
    return {**raw, "tool_input": slim}


def score_prompt(prompt: str, cfg: "dict | None") -> "tuple[dict, str | None]":
    """The confidence module's result for a real user prompt, and the protocol to inject when
    it triggers (None otherwise). With the trigger disabled, an explicit /deliberate still wins."""
    from deliberation.core import confidence

    result = confidence.evaluate(prompt, cfg or None)
    if not result["triggered"]:
        return result, None
    from deliberation.core.instructions import panel, protocol_text

    models = None
    if section(cfg, "models").get("diverse"):
        from deliberation.core.agent_model import assignment

        pool = section(cfg, "models").get("pool") or ["opus", "sonnet"]
        pairs = section(cfg, "conformity").get("conflicting_pairs") or []
        models = assignment(panel(result["task_type"]), pairs, pool)
    markers = (section(cfg, "trigger").get("force_markers") or None)
    question = confidence.question_of(prompt, markers)
    return result, protocol_text(question, result["task_type"], result["threshold"],
                                 result["confidence"], result["dimensions"],
                                 consensus_threshold=result.get("consensus_threshold"),
                                 prefix=plugin_agent_prefix(), models=models)


def trigger_answer(event, layout: Layout, cfg: dict):
    """Score a real user prompt; below the threshold inject the deliberation protocol."""
    from deliberation.wire import hookio

    result, context = score_prompt(event.prompt, cfg)
    out = hookio.Answer(context=context)
    log_line(layout, event, event.raw, out.summary(), trigger=result)
    return out
