"""The only module that writes state files.

Guarantees:
- atomic writes: a temp file in the same directory, fsync, rename (then fsync of the dir), so a
  reader or a killed writer never leaves a half-written file behind;
- every read-modify-write holds `<file>.lock` (filelock) with a timeout; on timeout a
  `LockTimeout` is raised and the caller fails open — a hook never hangs the session;
- every JSON file carries `schema_version`; an older version is migrated by the model's
  `migrate` classmethod or refused with a clear message; a newer one is refused;
- a file that does not parse or validate is moved aside to `NAME.corrupt-<timestamp>` and
  reported through `Store.warnings` — never silently reset or overwritten;
- files are created owner-only (0600, directories 0700).
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import fcntl
import os
import time
from typing import Any, Callable, Iterator, TypeVar

import orjson

from deliberation import SCHEMA_VERSION
from deliberation.paths import Layout, make_dirs

M = TypeVar("M")
R = TypeVar("R")

FILE_MODE = 0o600
DIR_MODE = 0o700
DEFAULT_LOCK_TIMEOUT_S = 10.0


class StoreError(Exception):
    """A state-file problem worth one clear sentence to the user."""


class LockTimeout(StoreError):
    pass


class CorruptState(StoreError):
    def __init__(self, path: str, moved_to: str, why: str) -> None:
        super().__init__(f"state file {path} was unreadable ({why}); moved aside to {moved_to}")
        self.path = path
        self.moved_to = moved_to


class SchemaVersionError(StoreError):
    pass


def ensure_dir(path: str) -> None:
    make_dirs(path, DIR_MODE)


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` atomically: temp file, fsync, rename, fsync the directory."""
    atomic_write_many([(path, data)])


def atomic_write_many(items: "list[tuple[str, bytes]]") -> None:
    """Write each file atomically (temp file, fsync, rename), then fsync each directory once:
    a transaction that changes three files of two folders pays two directory syncs, not three."""
    folders: dict[str, list[str]] = {}
    for path, data in items:
        _write_and_rename(path, data)
        folders.setdefault(os.path.dirname(path), []).append(os.path.basename(path))
    for folder, names in folders.items():
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        _sweep_temps(folder, names)


def _sweep_temps(folder: str, names: "list[str]") -> None:
    """Remove the temp files of `names` that a writer killed mid-write left behind (its pid is
    gone). Callers hold the files' lock, so no live writer of ours is writing them now; a temp
    file whose pid is alive (the pid reused by another process) is left alone."""
    prefixes = tuple(f"{name}.tmp-" for name in names)
    try:
        entries = [e for e in os.listdir(folder) if e.startswith(prefixes)]
    except OSError:
        return
    for entry in entries:
        pid_text = entry.rpartition(".tmp-")[2].partition("-")[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, entry))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, not ours to signal
    return True


def _write_and_rename(path: str, data: bytes) -> None:
    directory = os.path.dirname(path)
    ensure_dir(directory)
    tmp = f"{path}.tmp-{os.getpid()}-{time.monotonic_ns()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def append_jsonl(path: str, record: Any) -> None:
    """Append one JSON line under an exclusive flock, so concurrent appends never interleave;
    all or nothing (see fastpath.append_line: a killed writer's fragment is dropped)."""
    append_jsonl_many(path, [record])


def append_jsonl_many(path: str, records: "list[Any]") -> None:
    """Append several JSON lines in one locked write (a group commit's event-log lines)."""
    from deliberation.fastpath import append_line

    ensure_dir(os.path.dirname(path))
    lines = []
    for record in records:
        try:
            lines.append(orjson.dumps(record) + b"\n")
        except TypeError:  # lone surrogates, ints beyond 64 bits, nesting deeper than 255: still log it
            from deliberation.fastpath import json_line

            lines.append(json_line(record))
    append_line(path, b"".join(lines))


def quarantine(path: str) -> str:
    """Move a bad file aside to `path.corrupt-<timestamp>` and return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = f"{path}.corrupt-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.corrupt-{stamp}-{n}"
    os.replace(path, target)
    return target


LOCK_POLL_S = (0.001, 0.01)  # first and longest pause between tries while another hook holds a lock
_NO_FLOCK = (errno.ENOSYS, errno.ENOLCK, errno.EOPNOTSUPP)


_THREAD_LOCKS: "dict[str, Any]" = {}
_THREAD_LOCKS_GUARD = _thread.allocate_lock()


def _thread_lock(name: str) -> Any:
    """The in-process lock in front of `name`'s flock (one per lock file, kept for the process)."""
    with _THREAD_LOCKS_GUARD:
        held = _THREAD_LOCKS.get(name)
        if held is None:
            held = _THREAD_LOCKS[name] = _thread.allocate_lock()
        return held


@contextlib.contextmanager
def lock(path: str, timeout: float = DEFAULT_LOCK_TIMEOUT_S,
         blocked_cb: "Callable[[], None] | None" = None) -> Iterator[None]:
    """Hold `<path>.lock`. Calls `blocked_cb` once if it has to wait; raises LockTimeout.

    An exclusive `flock` on a lock file that stays in place (the same lock filelock's
    UnixFileLock takes, so both interoperate), polled every 1–10 ms: a waiting hook takes
    the lock within milliseconds of its release, which keeps a burst of 32 hooks from
    queueing behind back-off sleeps. Importing filelock costs a hook ~10 ms; it is used only
    where flock is not supported (some network filesystems), for its soft-lock fallback.

    Threads of one process (the warm worker answers hooks in threads) first queue on an
    in-process lock for the same file, woken the moment it is released instead of polling
    the flock; only the thread holding it contends for the flock with other processes."""
    name = path + ".lock"
    waited = [False]

    def blocked() -> None:
        if blocked_cb is not None and not waited[0]:
            blocked_cb()
        waited[0] = True

    deadline = time.monotonic() + max(timeout, 0.0)
    in_process = _thread_lock(name)
    if not in_process.acquire(False):
        blocked()
        if not in_process.acquire(True, max(timeout, 0.0)):
            raise LockTimeout(f"another hook held {os.path.basename(name)} for more than {timeout:g}s")
    try:
        with _flock(path, name, max(deadline - time.monotonic(), 0.0), timeout, blocked):
            yield
    finally:
        in_process.release()


@contextlib.contextmanager
def _flock(path: str, name: str, left: float, timeout: float, blocked: "Callable[[], None]") -> Iterator[None]:
    ensure_dir(os.path.dirname(path))
    fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        try:
            acquired = _try_flock(fd)
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                raise
            os.close(fd)
            fd = -1
            with _filelock(path, left, blocked):
                yield
            return
        if not acquired:
            blocked()
            if not _wait_flock(fd, left):
                raise LockTimeout(f"another hook held {os.path.basename(name)} for more than {timeout:g}s")
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        if fd >= 0:
            os.close(fd)


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _wait_flock(fd: int, timeout: float) -> bool:
    deadline = time.monotonic() + max(timeout, 0.0)
    pause, longest = LOCK_POLL_S
    while True:
        if _try_flock(fd):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, longest)


@contextlib.contextmanager
def _filelock(path: str, timeout: float, blocked_cb: "Callable[[], None] | None") -> Iterator[None]:
    """The same lock through filelock, for filesystems without flock (its soft-lock fallback)."""
    import filelock

    flock = filelock.FileLock(path + ".lock", mode=FILE_MODE)
    try:
        flock.acquire(timeout=0)
    except filelock.Timeout:
        if blocked_cb is not None:
            blocked_cb()
        try:
            flock.acquire(timeout=timeout)
        except filelock.Timeout:
            raise LockTimeout(
                f"another hook held {os.path.basename(path)}.lock for more than {timeout:g}s"
            ) from None
    try:
        yield
    finally:
        flock.release()


class Store:
    """Reads and writes the state files of one project, collecting warnings for the user."""

    def __init__(self, layout: Layout, lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S) -> None:
        self.layout = layout
        self.lock_timeout = lock_timeout
        self.warnings: list[str] = []

    # -- reading -----------------------------------------------------------------------------
    def load(self, path: str, model: "type[M]", default: "Callable[[], M] | None" = None) -> "M | None":
        """Load and validate `path` as `model`. Missing → `default()` (or None).

        A file that does not parse or validate is quarantined, a warning is recorded, and
        `default()` is returned so the session goes on.
        """
        return self.load_with_bytes(path, model, default)[0]

    def load_with_bytes(self, path: str, model: "type[M]",
                        default: "Callable[[], M] | None" = None) -> "tuple[M | None, bytes]":
        """`load`, plus the bytes read (b'' when the file was missing or quarantined), so a
        transaction can tell an unchanged model from a changed one without dumping it twice."""
        path = self.layout.checked(path)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            return (default() if default else None), b""
        try:
            data = orjson.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("top level is not a JSON object")
            migrated = self._migrate(path, model, data)
            obj = model.model_validate(migrated)  # type: ignore[attr-defined]
            return obj, (raw if migrated is data else b"")
        except SchemaVersionError:
            raise
        except Exception as exc:  # orjson.JSONDecodeError, pydantic.ValidationError, ValueError
            moved = quarantine(path)
            why = _one_line(exc)
            self.warnings.append(
                f"deliberation: corrupt state file {os.path.relpath(path, self.layout.project)} "
                f"moved aside to {os.path.basename(moved)} ({why}); starting that file afresh"
            )
            return (default() if default else None), b""

    def _migrate(self, path: str, model: Any, data: dict) -> dict:
        version = data.get("schema_version")
        if version == SCHEMA_VERSION and not isinstance(version, bool):  # `true == 1` is not version 1
            return data
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{path} has schema_version {version}, newer than this plugin's {SCHEMA_VERSION}: "
                "upgrade the plugin (install.sh) before using this state"
            )
        migrate = getattr(model, "migrate", None)
        if isinstance(version, int) and not isinstance(version, bool) and migrate is not None:
            return migrate(data)
        raise ValueError(f"schema_version {version!r} is not supported")

    # -- writing -----------------------------------------------------------------------------
    def save(self, path: str, obj: Any) -> None:
        path = self.layout.checked(path)
        atomic_write_bytes(path, dumps(obj.model_dump(mode="json")))

    def update(self, path: str, model: "type[M]", default: "Callable[[], M]",
               fn: "Callable[[M], R]") -> R:
        """Read-modify-write under the file's lock. `fn` mutates the model and returns a result;
        the file is written only if the model changed."""
        path = self.layout.checked(path)
        with lock(path, self.lock_timeout):
            current = self.load(path, model, default)
            before = current.model_dump(mode="json")  # type: ignore[union-attr]
            result = fn(current)  # type: ignore[arg-type]
            after = current.model_dump(mode="json")  # type: ignore[union-attr]
            if after != before or not os.path.exists(path):
                atomic_write_bytes(path, dumps(after))
        return result

    def append(self, path: str, record: Any) -> None:
        append_jsonl(self.layout.checked(path), record)

    def append_many(self, path: str, records: "list[Any]") -> None:
        append_jsonl_many(self.layout.checked(path), records)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first[:200]


def is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


class SessionTx:
    """Everything one hook does to one session's state, under the session's lock.

    The session lock orders all state-changing events of a session, so parallel hooks (15
    spawns in one message, 32 SubagentStops at once) lose no update and cannot race past a
    budget; the event-log line is appended under the same lock, so a replay sees the events
    in the order their decisions were taken. Files are loaded lazily and written (each
    atomically) only if changed.
    """

    def __init__(self, store: Store, session_id: str) -> None:
        from deliberation.ids import check_id

        self.store = store
        self.session_id = check_id("session_id", session_id)
        self._loaded: dict[str, tuple[Any, bytes]] = {}
        self._lock_cm: Any = None
        self._log: list[Any] = []
        layout = store.layout
        self._session_path = layout.session_state(self.session_id)
        self._lineage_path = layout.lineage(self.session_id)

    def __enter__(self) -> "SessionTx":
        layout = self.store.layout
        self._lock_cm = lock(os.path.join(layout.session_dir(self.session_id), "session"),
                             self.store.lock_timeout)
        self._lock_cm.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if exc_type is None:
                self.flush()
                if self._log:
                    self.store.append_many(self.store.layout.events(self.session_id), self._log)
        finally:
            self._lock_cm.__exit__(exc_type, exc, tb)

    def _get(self, path: str, model: Any, default: Callable[[], Any]) -> Any:
        if path not in self._loaded:
            obj, raw = self.store.load_with_bytes(path, model, default)
            self._loaded[path] = (obj, raw)
        return self._loaded[path][0]

    @property
    def session(self) -> Any:
        from deliberation.state import SessionState

        return self._get(self._session_path, SessionState,
                         lambda: SessionState(session_id=self.session_id))

    @property
    def lineage(self) -> Any:
        from deliberation.state import Lineage

        return self._get(self._lineage_path, Lineage,
                         lambda: Lineage(session_id=self.session_id))

    def deliberation(self, deliberation_id: str) -> Any:
        from deliberation.state import Deliberation

        return self._get(self.store.layout.deliberation(deliberation_id), Deliberation, lambda: None)

    def add_deliberation(self, delib: Any) -> None:
        self._loaded[self.store.layout.deliberation(delib.id)] = (delib, b"")

    def loaded_deliberations(self) -> "list[Any]":
        from deliberation.state import Deliberation

        return [obj for obj, _ in self._loaded.values() if isinstance(obj, Deliberation)]

    def flush(self) -> None:
        changed = []
        for path, (obj, before) in self._loaded.items():
            if obj is None:
                continue
            data = dumps(obj.model_dump(mode="json"))
            if data != before:
                changed.append((path, obj, data))
        atomic_write_many([(path, data) for path, _obj, data in changed])
        for path, obj, data in changed:
            self._loaded[path] = (obj, data)

    def log(self, record: Any) -> None:
        """Queue an event-log line; written after the state, still under the lock."""
        self._log.append(record)
