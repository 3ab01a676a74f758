"""The session's event log (`sessions/<id>/events.jsonl`): every event that can affect a decision,
with the decision taken. Stdlib only: the fast path writes here.

- One record per line, appended all or nothing under an exclusive flock: a writer killed
  mid-append leaves an unterminated fragment, which the next append drops first.
- Every record carries the event's id (`eid`, unique per hook process): a hook whose warm
  worker died after taking its event finds here whether the event was committed, and with
  which answer (`logged_answer`) — so an event is never applied twice.
- The log is read backwards in blocks: what a hook needs (the latest prompt, an event just
  committed) is at the end, however long the log.
- What a record keeps of its payload (docs/STORAGE.md): in a session that has opened a
  deliberation, the whole payload with every string cut at the field cap (`bounded`: replay
  needs it); in a session without one, only its ids and flags (`ids_only`: no prompt, tool input
  or message text). A turn's prompt waits in `prompt.json` (`keep_pending_prompt`) until the turn
  ends (dropped) or a deliberation opens (logged first in the deliberation's log).
"""

from __future__ import annotations

import errno
from deliberation.wire import fastjson
import os
import stat
import time

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable, Iterator

    from deliberation.state.paths import Layout
    from deliberation.wire import hookio

RERUN_WINDOW_BYTES = 16 << 20  # how far back a re-run looks for its own event
RECORD_CAP_BYTES = 1 << 20  # a record larger than this keeps only its payload's ids (each field is cut already)

# The payload strings an ids-only record keeps: names and ids, never text a person or an agent wrote.
ID_KEYS = frozenset(
    {
        "session_id",
        "hook_event_name",
        "tool_name",
        "tool_use_id",
        "agent_id",
        "agent_type",
        "subagent_type",
        "source",
        "model",
        "status",
        "agentId",
        "agentType",
        "taskId",
        "runId",
        "reason",
        "to",
        "name",
    }
)
ID_CHARS = 200


def bounded(value: object, cap: int, path: str = "") -> "tuple[object, dict[str, int]]":
    """`value` with every string longer than `cap` characters cut to `cap`, and {field path: full
    length} of the cut ones (`tool_input.prompt`, `tool_response.content[0].text`)."""
    cut: "dict[str, int]" = {}

    def walk(v: object, where: str) -> object:
        if isinstance(v, str):
            if len(v) > cap:
                cut[where or "(value)"] = len(v)
                return v[:cap]
            return v
        if isinstance(v, dict):
            return {k: walk(x, f"{where}.{k}" if where else str(k)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]
        return v

    return walk(value, path), cut


def ids_only(value: object) -> object:
    """What a session without a deliberation keeps of a payload: its ids, names, flags and numbers
    (the strings of ID_KEYS, each at most ID_CHARS), nothing anyone wrote."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                inner = ids_only(v)
                if inner:
                    out[k] = inner
            elif isinstance(v, str):
                if k in ID_KEYS:
                    out[k] = v[:ID_CHARS]
            else:
                out[k] = v
        return out
    if isinstance(value, list):
        return [x for x in (ids_only(v) for v in value if isinstance(v, (dict, list))) if x]
    return value


def make_record(
    event: "hookio.Event",
    payload: dict,
    answer: dict,
    notes: "list[str] | None",
    keep: str,
    cap: int,
    at: float,
    handled_by: str,
    extra: "dict | None" = None,
) -> dict:
    """One event-log record. `keep` is "full" (the payload, strings cut at `cap`) or "ids"."""
    from deliberation import SCHEMA_VERSION

    record = {
        "schema_version": SCHEMA_VERSION,
        "at": at,
        "event": event.hook_event_name or type(event).__name__,
        "eid": event.event_id,
        "handled_by": handled_by,
    }
    if keep == "ids":
        record.update(payload=ids_only(payload), ids_only=True)
    else:
        kept, cut = bounded(payload, cap)
        record["payload"] = kept
        if cut:
            record["truncated"] = cut
    record.update(answer=answer, notes=list(notes or []))
    record.update(extra or {})
    if keep != "ids" and len(json_line(record)) > RECORD_CAP_BYTES:
        record.update(payload=ids_only(payload), ids_only=True)
        record["truncated"] = {"(payload)": len(json_line({"payload": payload}))}
    return record


def json_line(record: dict) -> bytes:
    """One JSONL line, valid UTF-8 whatever a payload holds: a lone surrogate becomes '?', and a
    payload nested too deeply to encode is replaced by a note (the event and answer still log)."""
    try:
        text = fastjson.dumps(record, ensure_ascii=False, separators=(",", ":"))
    except (RecursionError, ValueError):
        import json  # the rare case needs json's `default`

        text = json.dumps(
            {**record, "payload": {"unloggable": "payload nested too deeply to log"}},
            ensure_ascii=False,
            separators=(",", ":"),
            default=str,
        )
    return (text + "\n").encode("utf-8", "replace")


def append_line(path: str, line: bytes) -> None:
    """Append newline-terminated records under an exclusive flock, all or nothing.

    A writer killed mid-append (SIGKILL splits a large write) leaves an unterminated fragment,
    which is never a record: the next append drops it first. A failed write (disk full) is
    truncated back, so the file never keeps a partial line of ours."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device a repository planted
            raise OSError(errno.EINVAL, "not a regular file: nothing appended", path)
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = drop_torn_tail(fd)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        except BaseException:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


def drop_torn_tail(fd: int) -> int:
    """Truncate an unterminated last line (a killed writer's fragment); return the file size."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - 65536)
        cut = os.pread(fd, end - start, start).rfind(b"\n")
        if cut >= 0:
            end = start + cut + 1
            break
        end = start
    os.ftruncate(fd, end)
    return end


def lines_backwards(path: str, max_bytes: int, block: int = 1 << 16) -> "Iterator[bytes]":
    """The complete lines of the last `max_bytes` of a file, last line first (opened through
    safe_read: no link followed, a regular file only, never blocking)."""
    from deliberation.state.safe_read import open_file

    try:
        fh, _size = open_file(path)
    except OSError:
        return
    with fh:
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            return
        yield from lines_backwards_of(fh, size, max_bytes, block)


def lines_backwards_of(fh: "BinaryIO", size: int, max_bytes: int, block: int = 1 << 16) -> "Iterator[bytes]":
    """The complete lines of the last `max_bytes` of the open file `fh` of `size` bytes, last
    line first, read in blocks from the end."""
    end, start_limit, carry = size, max(0, size - max_bytes), b""
    while end > start_limit:
        start = max(start_limit, end - block)
        fh.seek(start)
        chunk = fh.read(end - start) + carry
        end = start
        lines = chunk.split(b"\n")
        carry = lines.pop(0) if end > start_limit else b""
        for line in reversed(lines):
            if line.strip():
                yield line


def sealed_lines_backwards(layout: "Layout", path: str, max_bytes: int) -> "Iterator[bytes]":
    """`lines_backwards`, only the lines this user's plugin sealed, each without its seal: a line
    a repository committed (or anyone else wrote) is not this user's event and is skipped."""
    from deliberation.state import seal, user_data

    try:
        opener = seal.line_opener(layout, path)
    except user_data.Unavailable:
        return
    for line in lines_backwards(path, max_bytes):
        body = opener(line)
        if body is not None:
            yield body


def record_time(record: dict) -> "float | None":
    """A record's `at`, when it is a finite number (a bool is not one)."""
    at = record.get("at")
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        return None
    at = float(at)
    return at if at - at == 0.0 else None  # not inf, not nan


def turn_records(layout: "Layout", path: str, since: "float | None", max_bytes: int) -> "Iterator[dict[str, Any]]":
    """The records of this user's event log back to the turn's prompt, last first: each line this
    user's plugin sealed that decodes to an object with a numeric `at`, until the first one older
    than `since` (the turn's pending prompt's time; None: no bound but `max_bytes`).

    The writer (`make_record`) gives every record its time and the event schema requires it, so a
    sealed line that is not an object or has no numeric `at` is malformed: it is skipped, like a
    line that does not decode. It does not end the walk (one bad line would hide the turn's prompt
    and the notes said since) and it is never taken for the prompt (a prompt with no time cannot
    be placed in the turn)."""
    for line in sealed_lines_backwards(layout, path, max_bytes):
        try:
            record = fastjson.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        at = record_time(record)
        if at is None:
            continue
        if since is not None and at < since:
            return  # older than the turn's prompt
        yield record


def has_lines(path: str, lines: bytes, window: int = RERUN_WINDOW_BYTES) -> bool:
    """Whether every line of `lines` is a record of the last `window` bytes of the file (a
    transaction's appends, looked for when its journal is replayed)."""
    wanted = {line for line in lines.split(b"\n") if line.strip()}
    if not wanted:
        return True
    for line in lines_backwards(path, window):
        wanted.discard(line)
        if not wanted:
            return True
    return False


def find_event(
    path: str, event_id: "str | None", window: int = RERUN_WINDOW_BYTES, opener: "Callable[[bytes], bytes | None] | None" = None
) -> "dict | None":
    """The logged record of event `event_id`, searched from the end; with `opener`
    (seal.line_opener), only a line this user's plugin sealed counts."""
    if not event_id:
        return None
    needle = fastjson.dumps(event_id).encode()
    line: "bytes | None"  # a line of the file, then (with `opener`) its body or None
    for line in lines_backwards(path, window):
        if needle not in line:
            continue
        if opener is not None:
            line = opener(line)
            if line is None:
                continue
        try:
            record = fastjson.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("eid") == event_id:
            return record
    return None


def logged_answer(layout: "Layout", session_id: str, event_id: "str | None") -> "hookio.Answer | None":
    """The Answer an already-committed event was given, or None when it was not committed."""
    from deliberation.wire import hookio
    from deliberation.state import seal
    from deliberation.state.ids import InvalidId

    try:
        path = layout.checked(layout.events(session_id))
    except (InvalidId, ValueError):
        return None
    record = find_event(path, event_id, opener=seal.line_opener(layout, path))
    if record is None:
        return None
    logged = record.get("answer")
    logged = logged if isinstance(logged, dict) else {}

    def text(key: str) -> "str | None":
        v = logged.get(key)
        return v if isinstance(v, str) else None

    updated = logged.get("updated_input")  # the plugin workflow's filled-in args: answered again whole
    kinds = logged.get("kinds")
    return hookio.Answer(
        text("decision"),
        text("reason"),
        text("context"),
        text("system_message"),
        updated if isinstance(updated, dict) else None,
        text("stop_reason"),
        tuple(k for k in kinds if isinstance(k, str)) if isinstance(kinds, list) else (),
    )


def log_line(
    layout: "Layout",
    event: "hookio.Event",
    payload: dict,
    answer: dict,
    notes: "list[str] | None" = None,
    trigger: "dict | None" = None,
    keep: str = "full",
) -> None:
    """Append an event-log record without the session lock (fast-path events change no state);
    `keep` as in make_record."""
    from deliberation.state import seal
    from deliberation.state.paths import handled_by
    from deliberation.defaults import LOG_FIELD_CAP_CHARS

    path = layout.checked(layout.events(event.session_id))  # a symlinked events.jsonl must not lead out
    record = make_record(
        event,
        payload,
        answer,
        notes,
        keep,
        LOG_FIELD_CAP_CHARS,
        time.time(),
        handled_by(),
        None if trigger is None else {"trigger": trigger},
    )
    in_session_dir(path, lambda: append_line(path, seal.seal_lines(layout, path, json_line(record))))


def in_session_dir(path: str, write: "Callable[[], object]") -> None:
    """Run `write` with the file's folder in place; once more if the folder vanished meanwhile
    (a prune of a session idle for weeks, racing this session's return)."""
    from deliberation.state.paths import make_dirs

    make_dirs(os.path.dirname(path))
    try:
        write()
    except FileNotFoundError:
        make_dirs(os.path.dirname(path))
        write()


# -- the turn's prompt, kept aside ------------------------------------------------------------


def keep_pending_prompt(layout: "Layout", session_id: str, record: dict) -> None:
    """Keep a prompt's record in `sessions/<sid>/prompt.json` (replacing the last one) instead of
    the log: it goes into the log only when a deliberation opens in this turn (no fsync:
    a prompt lost to a power cut only loses the deliberation its question)."""
    from deliberation.state import atomic

    path = layout.checked(layout.pending_prompt(session_id))
    data = pending_prompt_file(layout, path, record)
    in_session_dir(path, lambda: atomic.write(path, data, durable=False, make_parent=None))


def pending_prompt_file(layout: "Layout", path: str, record: dict) -> bytes:
    """The bytes of prompt.json holding `record`, sealed for this user (a committed prompt.json
    is not this user's prompt: `pending_prompt` ignores it)."""
    from deliberation import SCHEMA_VERSION
    from deliberation.state import seal

    return seal.seal_file(layout, path, json_line({"schema_version": SCHEMA_VERSION, "record": record}))


def pending_prompt(layout: "Layout", session_id: str) -> "dict | None":
    """The record `keep_pending_prompt` kept, when it reads as one (a UserPromptSubmit with a prompt)."""
    from deliberation.state import seal, user_data

    try:  # no link, no FIFO, bounded, and sealed by this user's plugin (seal.Unsealed is a ValueError)
        data = fastjson.loads(
            seal.read_runtime(layout, layout.checked(layout.pending_prompt(session_id)), RECORD_CAP_BYTES + 4096)
        )
    except (OSError, ValueError, user_data.Unavailable):
        return None
    record = data.get("record") if isinstance(data, dict) else None
    if not (
        isinstance(record, dict)
        and record.get("event") == "UserPromptSubmit"
        and isinstance(record.get("payload"), dict)
        and isinstance(record["payload"].get("prompt"), str)
    ):
        return None
    return record


def drop_pending_prompt(layout: "Layout", session_id: str) -> None:
    """The turn ended without a deliberation: forget its prompt, and the session's folder when
    nothing else is in it (a session of plain work leaves nothing behind)."""
    try:
        path = layout.checked(layout.pending_prompt(session_id))
    except ValueError:
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError:
        return
    try:
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass  # not empty: the session has a lineage, a log or a switch
