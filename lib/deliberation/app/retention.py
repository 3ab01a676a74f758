"""Pruning the state folder: list what is there, let core/retention plan, remove (stdlib only).

    at_session_start  a session start's check: one stat of cache/retention.json, and at most once
                      an hour (RETENTION_CHECK_EVERY_S) a scan, the plan and the removals — at most
                      PRUNE_BUDGET_S of removing; what is left goes at the next session start
    scan / apply      what `deliberation gc` runs (and shows with --dry-run)
    storage           what is kept and its size, for `deliberation status`

Never while a deliberation uses a session: a session folder goes only with its session lock
taken without waiting (a hook that holds it is using the session), after its state is read again
under that lock; it is renamed aside first and removed after the lock is let go, and a hook that
was waiting for that lock finds the lock file gone and takes the new one (store.lock). The
fast-path writers recreate a folder that vanished under them (event_log.in_session_dir).
"""

from __future__ import annotations

from deliberation.wire import fastjson
import os
import stat
import time

from deliberation.state.ids import InvalidId, check_id
from deliberation.state import atomic, safe_read
from deliberation.state.paths import Layout, make_dirs
from deliberation.state.plain_reads import believed_json, section
from deliberation.defaults import CONFIG, ERRORS_LOG_MAX_BYTES, PRUNE_BUDGET_S, RETENTION_CHECK_EVERY_S

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.core.retention import Step

TRASH = ".trash-"


def limits(cfg: "dict | None") -> "tuple[bool, float, float]":
    """(auto, max_age_days, max_total_mb) from a validated config dict (its defaults otherwise)."""
    r, d = section(cfg, "retention"), CONFIG["retention"]
    return (
        bool(r.get("auto", d["auto"])),
        float(r.get("max_age_days", d["max_age_days"])),
        float(r.get("max_total_mb", d["max_total_mb"])),
    )


def _walk(path: str) -> "tuple[int, float]":
    """(bytes, when last used) of a folder: its files' sizes, the newest mtime of a file that is
    not a lock file (taking a lock creates one; the folder's own mtime counts only when it holds
    nothing else). Links are not followed."""
    size, newest = 0, 0.0
    try:
        own = os.lstat(path).st_mtime
    except OSError:
        return 0, 0.0
    for folder, _dirs, files in os.walk(path, followlinks=False):
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                size += st.st_size
                if not name.endswith(".lock"):
                    newest = max(newest, st.st_mtime)
    return size, newest or own


def _open_reviews(layout: Layout) -> "set[str]":
    data = believed_json(layout, layout.escalations) or {}  # a committed one holds no session back
    entries = data.get("open")
    if not isinstance(entries, list):
        return set()
    return {e["session_id"] for e in entries if isinstance(e, dict) and isinstance(e.get("session_id"), str)}


def session_busy(layout: Layout, sid: str, current: "str | None", reviews: "set[str]") -> "str | None":
    """Why a session's folder must stay, or None."""
    if sid == current:
        return "the session that is starting"
    if os.path.exists(layout.journal(sid)):
        return "a commit awaits replay"
    if sid in reviews:
        return "its decision awaits a person's review"
    path = layout.session_state(sid)
    if os.path.exists(path):
        data = believed_json(layout, path)
        if data is None:
            return "its session.json does not read (see `deliberation doctor`)"
        if data.get("active_deliberation"):
            return f"deliberation {str(data['active_deliberation'])[:80]} is open"
    return None


def scan(layout: Layout, current: "str | None" = None) -> "list":
    """Everything pruning may touch (core.retention.Item). A missing or unreadable folder lists nothing."""
    from deliberation.core.retention import Item

    items: list = []
    reviews = _open_reviews(layout)
    try:
        names = sorted(os.listdir(layout.sessions_dir))
    except OSError:
        names = []
    for name in names:
        path = os.path.join(layout.sessions_dir, name)
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        rel = os.path.join("sessions", name)
        size, mtime = _walk(path)
        if name.startswith(TRASH):
            items.append(Item("leftover", rel, size, mtime))
            continue
        try:
            sid = check_id("session_id", name)
        except InvalidId:
            continue  # not one of ours: left alone
        items.append(Item("session", rel, size, mtime, session_busy(layout, sid, current, reviews)))
    for folder in ("", "deliberations", "cache"):
        try:
            entries = os.listdir(os.path.join(layout.root, folder))
        except OSError:
            continue
        for name in entries:
            rel = os.path.join(folder, name) if folder else name
            try:
                st = os.lstat(os.path.join(layout.root, rel))
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if ".corrupt-" in name:
                items.append(Item("quarantined", rel, st.st_size, st.st_mtime))
            elif rel == "errors.log":
                items.append(Item("errors_log", rel, st.st_size, st.st_mtime))
    return items


def _try_lock(path: str) -> "int | None":
    """An fd holding `path`'s flock, taken without waiting; None when someone holds it."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _rmtree(path: str) -> None:
    import shutil  # (only when something goes: shutil's imports cost a session start 7 ms)

    shutil.rmtree(path, ignore_errors=True)


def _remove_session(layout: Layout, step: "Step", current: "str | None", now: float, max_age_days: float) -> bool:
    """Remove one session folder under its lock; False when it turned out to be in use."""
    sid = os.path.basename(step.item.name)
    folder = layout.session_dir(sid)
    fd = _try_lock(os.path.join(folder, "session.lock"))
    if fd is None:
        step.action, step.reason = "keep", "a hook holds its lock"
        return False
    try:
        busy = session_busy(layout, sid, current, _open_reviews(layout))
        size, mtime = _walk(folder)
        if busy or mtime > step.item.mtime + 1:  # used since the scan
            step.action, step.reason = "keep", busy or "used since the scan"
            return False
        trash = os.path.join(layout.sessions_dir, f"{TRASH}{sid}-{os.getpid()}-{time.monotonic_ns()}")
        os.rename(folder, trash)
    finally:
        os.close(fd)  # a hook waiting for the lock now finds it moved and takes a new one
    _rmtree(trash)
    return True


def _trim(path: str, keep_bytes: int) -> None:
    """Keep the newest `keep_bytes` of errors.log, from the start of an entry: only that tail is
    read (a 2 GiB errors.log, committed or grown, costs its newest half-megabyte, never its size)."""
    keep_bytes = min(keep_bytes, ERRORS_LOG_MAX_BYTES)
    fh, size = safe_read.open_file(path)  # no link followed, a regular file only, never blocking
    with fh:
        fh.seek(max(0, size - keep_bytes))
        tail = fh.read(keep_bytes)
    cut = tail.find(b"\n--- ")
    atomic.write(path, tail[cut + 1 :] if cut >= 0 else tail, durable=False, make_parent=None)


def apply(
    layout: Layout,
    steps: list,
    current: "str | None" = None,
    now: "float | None" = None,
    max_age_days: float = CONFIG["retention"]["max_age_days"],
    budget_s: "float | None" = None,
) -> list:
    """Carry out the plan's removals, within `budget_s` seconds if given; a step found in use, or
    left over when the budget is spent, is turned into a keep. Returns `steps`."""
    now = time.time() if now is None else now
    stop_at = None if budget_s is None else time.monotonic() + budget_s
    for step in steps:
        if stop_at is not None and step.action in ("remove", "trim") and time.monotonic() > stop_at:
            step.action, step.reason = "keep", "left for the next session start (its time budget was spent)"
            continue
        path = layout.checked(os.path.join(layout.root, step.item.name))
        try:
            if step.action == "remove" and step.item.kind == "session":
                _remove_session(layout, step, current, now, max_age_days)
            elif step.action == "remove" and step.item.kind == "leftover":
                _rmtree(path)
            elif step.action == "remove":
                os.unlink(path)
            elif step.action == "trim":
                _trim(path, step.keep)
        except FileNotFoundError:
            pass  # gone already
        except OSError as exc:
            step.action, step.reason = "keep", f"could not be removed ({exc.strerror or exc})"
    return steps


def plan(layout: Layout, cfg: "dict | None", now: float, current: "str | None" = None) -> list:
    from deliberation.core import retention as plan_rules

    _auto, age, total = limits(cfg)
    return plan_rules.plan(scan(layout, current), now, age, total, ERRORS_LOG_MAX_BYTES)


def last_run(layout: Layout) -> "dict | None":
    """The last prune's summary, when this user's plugin wrote it (sealed)."""
    return believed_json(layout, layout.retention_stamp)


def at_session_start(layout: Layout, cfg: "dict | None", session_id: str, now: float) -> "dict | None":
    """The session start's prune: nothing (one stat) unless an hour passed since the last one;
    then, under a lock no other session start waits for, scan, plan, remove and stamp. Returns the
    run's summary, or None when it did not run."""
    auto, age, _total = limits(cfg)
    if not auto:
        return None
    try:
        if now - os.stat(layout.retention_stamp).st_mtime < RETENTION_CHECK_EVERY_S:
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if not os.path.isdir(layout.sessions_dir) and not os.path.exists(layout.errors_log):
        return None  # nothing a prune could touch: no stamp written either
    stamp = layout.checked(layout.retention_stamp)
    make_dirs(os.path.dirname(stamp))
    fd = _try_lock(stamp + ".lock")
    if fd is None:
        return None  # another session start is pruning
    try:
        started = time.perf_counter()
        from deliberation.core.retention import summary

        steps = apply(layout, plan(layout, cfg, now, session_id), session_id, now, age, PRUNE_BUDGET_S)
        left = sum(1 for s in steps if s.reason.startswith("left for the next session start"))
        result = {
            "schema_version": 1,
            "at": now,
            **summary(steps),
            "left": left,
            "seconds": round(time.perf_counter() - started, 6),
        }
        atomic.write(stamp, _sealed_stamp(layout, stamp, fastjson.dumps(result).encode()), durable=False, make_parent=None)
        if left:  # more to do: the next session start is due at once
            os.utime(stamp, (now - RETENTION_CHECK_EVERY_S, now - RETENTION_CHECK_EVERY_S))
        return result
    finally:
        os.close(fd)


def _sealed_stamp(layout: Layout, path: str, data: bytes) -> bytes:
    """The stamp sealed for this user. Without this user's folder (user_data.Unavailable, said by
    every other hook) it stays unsealed: its age still spaces the prunes an hour apart, and its
    summary is not believed (`last_run`)."""
    from deliberation.state import seal, user_data

    try:
        return seal.seal_file(layout, path, data)
    except user_data.Unavailable:
        return data


def storage(layout: Layout) -> "dict[str, dict[str, int]]":
    """What is kept, by kind: {kind: {"files": n, "bytes": b}} (sessions counts folders)."""
    out: dict[str, dict[str, int]] = {}

    def add(kind: str, files: int, size: int) -> None:
        entry = out.setdefault(kind, {"files": 0, "bytes": 0})
        entry["files"] += files
        entry["bytes"] += size

    for it in scan(layout):
        add(
            {"session": "sessions", "errors_log": "errors.log", "quarantined": "quarantined", "leftover": "sessions"}[it.kind],
            1,
            it.size,
        )
    for folder, kind in (("deliberations", "deliberations"), ("records", "records")):
        try:
            entries = os.listdir(os.path.join(layout.root, folder))
        except OSError:
            continue
        for name in entries:
            if ".corrupt-" in name:
                continue
            try:
                st = os.lstat(os.path.join(layout.root, folder, name))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and not name.endswith(".lock"):
                add(kind, 1, st.st_size)
    for rel in (
        "config.json",
        "reversals.json",
        "adjudications.jsonl",
        "escalations.json",
        ".gitignore",
        "install-manifest.json",
        os.path.join("cache", "config.resolved.json"),
        os.path.join("cache", "retention.json"),
    ):
        try:
            add("project files", 1, os.lstat(os.path.join(layout.root, rel)).st_size)
        except OSError:
            pass
    return out
