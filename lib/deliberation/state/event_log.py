"""The session's event log (`sessions/<id>/events.jsonl`): every event that can affect a decision,
with the decision taken. Stdlib only: the fast path writes here.

- One record per line, appended all or nothing under an exclusive flock: a writer killed
  mid-append leaves an unterminated fragment, which the next append drops first.
- Every record carries the event's id (`eid`, unique per hook process): a hook whose warm
  worker died after taking its event finds here whether the event was committed, and with
  which answer (`logged_answer`) — so an event is never applied twice.
- The log is read backwards in blocks: what a hook needs (the latest prompt, an event just
  committed) is at the end, however long the log.
"""

from __future__ import annotations

import json
import os
import time

RERUN_WINDOW_BYTES = 16 << 20  # how far back a re-run looks for its own event


def json_line(record: dict) -> bytes:
    """One JSONL line, valid UTF-8 whatever a payload holds: a lone surrogate becomes '?', and a
    payload nested too deeply to encode is replaced by a note (the event and answer still log)."""
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    except (RecursionError, ValueError):
        text = json.dumps({**record, "payload": {"unloggable": "payload nested too deeply to log"}},
                          ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8", "replace")


def append_line(path: str, line: bytes) -> None:
    """Append newline-terminated records under an exclusive flock, all or nothing.

    A writer killed mid-append (SIGKILL splits a large write) leaves an unterminated fragment,
    which is never a record: the next append drops it first. A failed write (disk full) is
    truncated back, so the file never keeps a partial line of ours."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = drop_torn_tail(fd)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
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


def lines_backwards(path: str, max_bytes: int, block: int = 1 << 16):
    """The complete lines of the last `max_bytes` of a file, last line first."""
    try:
        fh = open(path, "rb")
    except OSError:
        return
    with fh:
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            return
        yield from lines_backwards_of(fh, size, max_bytes, block)


def lines_backwards_of(fh, size: int, max_bytes: int, block: int = 1 << 16):
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


def find_event(path: str, event_id: "str | None", window: int = RERUN_WINDOW_BYTES) -> "dict | None":
    """The logged record of event `event_id`, searched from the end."""
    if not event_id:
        return None
    needle = json.dumps(event_id).encode()
    for line in lines_backwards(path, window):
        if needle not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("eid") == event_id:
            return record
    return None


def logged_answer(layout, session_id: str, event_id: "str | None"):
    """The Answer an already-committed event was given, or None when it was not committed."""
    from deliberation.wire import hookio
    from deliberation.state.ids import InvalidId

    try:
        path = layout.checked(layout.events(session_id))
    except (InvalidId, ValueError):
        return None
    record = find_event(path, event_id)
    if record is None:
        return None
    logged = record.get("answer")
    logged = logged if isinstance(logged, dict) else {}
    def text(key: str) -> "str | None":
        v = logged.get(key)
        return v if isinstance(v, str) else None

    updated = logged.get("updated_input")  # the plugin workflow's filled-in args: answered again whole
    return hookio.Answer(text("decision"), text("reason"), text("context"), text("system_message"),
                         updated if isinstance(updated, dict) else None)


def log_line(layout, event, payload: dict, answer: dict,
             notes: "list[str] | None" = None, trigger: "dict | None" = None) -> None:
    """Append an event-log record without the session lock (fast-path events change no state)."""
    from deliberation import SCHEMA_VERSION
    from deliberation.state.paths import handled_by, make_dirs

    path = layout.checked(layout.events(event.session_id))  # a symlinked events.jsonl must not lead out
    make_dirs(os.path.dirname(path))
    record = {"schema_version": SCHEMA_VERSION, "at": time.time(), "event": event.hook_event_name
              or type(event).__name__, "eid": event.event_id, "handled_by": handled_by(), "payload": payload,
              "answer": answer, "notes": notes or []}
    if trigger is not None:
        record["trigger"] = trigger
    append_line(path, json_line(record))
