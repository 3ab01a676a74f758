"""The only module that writes state files (docs/STORAGE.md and docs/SECURITY.md state the
guarantees; docs/STATE_FILES.md the files).

`Store` reads and writes each file under its own `<file>.lock` (flock with a timeout: a
`LockTimeout` makes the caller fail open) through state/atomic.py; `SessionTx` commits a
session's files and event-log lines together through a redo journal the next transaction
replays after a kill. Every JSON file carries `schema_version` (an older one migrated by its
model, a newer one refused); a file that does not parse or validate, or lacks a valid seal, or is
a link, FIFO, device or too large, is moved aside to `NAME.corrupt-<timestamp>` and reported in
`Store.warnings`, never reset silently. Files are created 0600, folders 0700.
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import fcntl
import os
import stat
import time
from typing import Any, Callable, Iterator, TypeVar, overload

import orjson
from pydantic import BaseModel

from deliberation import SCHEMA_VERSION
from deliberation.state import safe_read, seal
from deliberation.state import atomic
from deliberation.state.ids import check_id
from deliberation.state.models import CommitJournal, Deliberation, Lineage, ReversalRegistry, SessionState
from deliberation.state.paths import Layout, make_dirs
from deliberation.state.event_log import json_line
from deliberation.state.event_log import append_line
from deliberation.wire import deadlines
from deliberation.state import event_log

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")

FILE_MODE = atomic.FILE_MODE
DIR_MODE = atomic.DIR_MODE
DEFAULT_LOCK_TIMEOUT_S = 10.0
STATE_LIMIT = 64 * safe_read.MIB  # a state file larger than this is not read (a deliberation of 40 agents: ~3 MB)


class StoreError(Exception):
    """A state-file problem worth one clear sentence to the user."""


class LockTimeout(StoreError):
    pass


class SchemaVersionError(StoreError):
    pass


def ensure_dir(path: str) -> None:
    make_dirs(path, DIR_MODE)


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` atomically: temp file, fsync, rename, fsync the directory."""
    atomic_write_many([(path, data)])


def atomic_write_many(items: "list[tuple[str, bytes]]") -> None:
    """Write each file atomically, each folder fsync'd once (state/atomic.py), then remove what a
    killed writer of the same files left."""
    for folder, names in atomic.write_many(items, FILE_MODE).items():
        atomic.sweep_temps(folder, names)


def write_journal(path: str, data: bytes) -> None:
    """Write a transaction's redo journal atomically (temp file, rename) but without fsync: it
    guards against a killed process, whose writes the kernel keeps, and lives a few
    milliseconds. After a power loss each state file is still its old or its new version, every
    one of them being fsync'd before its rename."""
    atomic.write(path, data, FILE_MODE, durable=False)
    atomic.sweep_temps(os.path.dirname(path), [os.path.basename(path)])


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def append_jsonl(path: str, record: Any) -> None:
    """Append one JSON line under an exclusive flock, so concurrent appends never interleave;
    all or nothing (see event_log.append_line: a killed writer's fragment is dropped)."""
    _append_lines(path, _jsonl(record))


def quarantine(path: str, kind: str = "corrupt") -> str:
    """Move a bad file aside to `path.<kind>-<timestamp>` and return the new path: a file that
    did not parse or validate, had no valid seal, or was not a regular file."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = f"{path}.{kind}-{stamp}"
    n = 1
    while os.path.lexists(target):
        n += 1
        target = f"{path}.{kind}-{stamp}-{n}"
    os.replace(path, target)
    return target


def read_runtime(layout: Layout, path: str, limit: int = STATE_LIMIT) -> bytes:
    """seal.read_runtime with the store's size limit."""
    return seal.read_runtime(layout, path, limit)


def sealed(layout: Layout, path: str, data: bytes) -> bytes:
    """`data` as written to `path`: sealed, unless it is one of the team's shared files."""
    return data if seal.rel_of(layout, path) in seal.SHARED else seal.seal_file(layout, path, data)


def sealed_lines(layout: Layout, path: str, lines: bytes) -> bytes:
    """JSON lines as appended to `path`: each sealed, unless it is one of the team's shared files."""
    return lines if seal.rel_of(layout, path) in seal.SHARED else seal.seal_lines(layout, path, lines)


def distrust(layout: Layout, path: str, exc: BaseException, warnings: "list[str]") -> None:
    """Move aside a state file that is not believed (see read_runtime) and say why."""
    moved = quarantine(path)
    rel = os.path.relpath(path, layout.project)
    if isinstance(exc, seal.Unsealed):
        why = (
            "not written by this user's plugin: no valid seal — committed to the repository, copied from "
            "elsewhere, or damaged; ignored"
        )
    else:
        why = f"{getattr(exc, 'why', None) or exc}; ignored"
    warnings.append(
        f"deliberation: corrupt state file {rel} moved aside to {os.path.basename(moved)} ({why}); starting that file afresh"
    )


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
def lock(path: str, timeout: float = DEFAULT_LOCK_TIMEOUT_S, blocked_cb: "Callable[[], None] | None" = None) -> Iterator[None]:
    """Hold `<path>.lock`. Calls `blocked_cb` once if it has to wait; raises LockTimeout.

    An exclusive `flock` on a lock file that stays in place, polled every 1–10 ms (flock has
    no timeout of its own): a waiting hook takes the lock within milliseconds of its release,
    which keeps a burst of 32 hooks from queueing behind back-off sleeps. Where flock is not
    supported (some network filesystems) the same file takes a POSIX record lock (`lockf`)
    instead; record locks belong to the process, which is safe because threads queue on the
    in-process lock first.

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
    """The flock of the lock file `name`. A lock taken on a file that is no longer at `name` (a
    prune moved the session's folder aside while this hook waited, app/retention.py) is let go
    and taken again on the file now there."""
    deadline = time.monotonic() + left
    while True:
        fd = _lock_fd(path, name, max(deadline - time.monotonic(), 0.0), timeout, blocked)
        try:
            here = os.stat(name)
            held = os.fstat(fd)
            current = (here.st_ino, here.st_dev) == (held.st_ino, held.st_dev)
        except FileNotFoundError:
            current = False
        if current:
            break
        os.close(fd)  # closing lets the lock go
    try:
        yield
    finally:
        os.close(fd)


def _lock_fd(path: str, name: str, left: float, timeout: float, blocked: "Callable[[], None]") -> int:
    """An fd of the lock file `name` holding its lock (flock, or lockf where flock is missing)."""
    ensure_dir(os.path.dirname(path))
    fd = _open_lock_file(name)
    try:
        use = fcntl.flock
        try:
            acquired = _try_lock(fd, use)
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                raise
            use = fcntl.lockf  # no flock here (some network filesystems): POSIX record locks
            acquired = _try_lock(fd, use)
        if not acquired:
            blocked()
            if not _wait_lock(fd, use, left):
                raise LockTimeout(f"another hook held {os.path.basename(name)} for more than {timeout:g}s")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_lock_file(name: str) -> int:
    """The lock file, opened without following a link and without blocking; a link, a FIFO or
    a device in its place (a repository can commit one) is moved aside and a regular file made."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
    for attempt in (0, 1):
        try:
            fd = os.open(name, flags, FILE_MODE)
        except OSError as exc:
            if attempt or exc.errno not in (errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP), errno.ENXIO):
                raise
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
            if attempt:
                break
        with contextlib.suppress(FileNotFoundError):
            quarantine(name)
    raise OSError(errno.EINVAL, "a lock file that is not a regular file keeps coming back", name)


def _try_lock(fd: int, use: "Callable[[int, int], Any]") -> bool:
    try:
        use(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):  # lockf says EACCES where flock says EWOULDBLOCK
        return False
    return True


def _wait_lock(fd: int, use: "Callable[[int, int], Any]", timeout: float) -> bool:
    deadline = time.monotonic() + max(timeout, 0.0)
    pause, longest = LOCK_POLL_S
    while True:
        if _try_lock(fd, use):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, longest)


class Store:
    """Reads and writes the state files of one project, collecting warnings for the user."""

    def __init__(self, layout: Layout, lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S) -> None:
        self.layout = layout
        self.lock_timeout = lock_timeout
        self.warnings: list[str] = []

    # -- reading -----------------------------------------------------------------------------
    @overload
    def load(self, path: str, model: "type[M]", default: "Callable[[], M]") -> M: ...

    @overload
    def load(self, path: str, model: "type[M]", default: None = None) -> "M | None": ...

    def load(self, path: str, model: "type[M]", default: "Callable[[], M] | None" = None) -> "M | None":
        """Load and validate `path` as `model`. Missing → `default()` (or None).

        A file that does not parse or validate is quarantined, a warning is recorded, and
        `default()` is returned so the session goes on.
        """
        return self.load_with_bytes(path, model, default)[0]

    def load_with_bytes(self, path: str, model: "type[M]", default: "Callable[[], M] | None" = None) -> "tuple[M | None, bytes]":
        """`load`, plus the bytes read (b'' when the file was missing or quarantined), so a
        transaction can tell an unchanged model from a changed one without dumping it twice."""
        path = self.layout.checked(path)
        try:
            raw = read_runtime(self.layout, path)
        except FileNotFoundError:
            return (default() if default else None), b""
        except (safe_read.Refused, seal.Unsealed) as exc:
            distrust(self.layout, path, exc, self.warnings)
            return (default() if default else None), b""
        try:
            data = orjson.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("top level is not a JSON object")
            migrated = self._migrate(path, model, data)
            obj = model.model_validate(migrated)
            return obj, (raw if migrated is data else b"")
        except SchemaVersionError:
            raise
        except Exception as exc:  # noqa: BLE001 - orjson.JSONDecodeError, pydantic.ValidationError, ValueError: quarantined
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
        atomic_write_bytes(path, sealed(self.layout, path, dumps(obj.model_dump(mode="json"))))

    def reversals(self) -> ReversalRegistry:
        """The project's reversal registry, `reversals.json` (empty when it does not exist)."""
        return self.load(self.layout.reversals, ReversalRegistry, ReversalRegistry)

    def update_reversals(self, fn: "Callable[[ReversalRegistry], R]") -> R:
        """Read-modify-write `reversals.json` under its lock; returns fn's result."""
        return self.update(self.layout.reversals, ReversalRegistry, ReversalRegistry, fn)

    def update(self, path: str, model: "type[M]", default: "Callable[[], M]", fn: "Callable[[M], R]") -> R:
        """Read-modify-write under the file's lock. `fn` mutates the model and returns a result;
        the file is written only if the model changed."""
        path = self.layout.checked(path)
        with lock(path, self.lock_timeout):
            current = self.load(path, model, default)
            before = current.model_dump(mode="json")
            result = fn(current)
            after = current.model_dump(mode="json")
            if after != before or not os.path.exists(path):
                atomic_write_bytes(path, sealed(self.layout, path, dumps(after)))
        return result

    def append(self, path: str, record: Any) -> None:
        path = self.layout.checked(path)
        _append_lines(path, sealed_lines(self.layout, path, _jsonl(record)))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first[:200]


class SessionTx:
    """Everything one hook does to one session's state, under the session's lock, committed all
    or nothing.

    The session lock orders all state-changing events of a session, so parallel hooks (15
    spawns in one message, 32 SubagentStops at once) lose no update and cannot race past a
    budget. Every writer of a session's files — its session.json, lineage.json and its
    deliberations' files, the hooks and `deliberation approve|reject` alike — takes this lock.

    Files are loaded lazily. At the end, what changed is committed through a redo journal:

        1. the journal (every file's new bytes, the log lines, the index edits) is written and
           renamed into place — the commit point; nothing is committed after the event's
           deadline (`deadlines.py`), so a hook never gives up on work that then completes
        2. the event-log lines (and other appends) are appended
        3. shared index edits are applied, each under its file's lock (held since the edit)
        4. each state file is renamed into place
        5. the journal is removed

    A process killed anywhere in 2-5 leaves the journal; the next transaction of the session
    replays it (appends only what is missing, the rest is idempotent) before anything else.
    Killed before 1, nothing of the transaction exists. So files never disagree, and an event
    is in the event log exactly when its changes are in the state.
    """

    def __init__(self, store: Store, session_id: str) -> None:
        self.store = store
        self.session_id = check_id("session_id", session_id)
        self._loaded: dict[str, tuple[Any, bytes]] = {}
        self._bodies: dict[str, bytes] = {}  # a changed file's new bytes before its seal
        self._blank: dict[str, bytes] = {}  # a missing file's default, which is not written (nothing to keep)
        self._writes: dict[str, "bytes | None"] = {}  # raw files (a decision record); None removes one
        self._upserts: list[dict] = []
        self._appends: dict[str, list[bytes]] = {}
        self._log: list[Any] = []
        self._stack: "contextlib.ExitStack | None" = None
        self._held: set[str] = set()
        self.commit_by: "float | None" = None
        self.recovered = False
        layout = store.layout
        self._session_path = layout.session_state(self.session_id)
        self._lineage_path = layout.lineage(self.session_id)
        self._journal_path = layout.journal(self.session_id)

    # -- the transaction ---------------------------------------------------------------------
    def __enter__(self) -> "SessionTx":
        with contextlib.ExitStack() as stack:
            stack.enter_context(self._lock(os.path.join(self.store.layout.session_dir(self.session_id), "session")))
            self._stack = stack
            self._recover()
            self._stack = stack.pop_all()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        assert self._stack is not None
        with self._stack:  # the shared files' locks, then the session's, released in any case
            if exc_type is None:
                self._commit()

    def limit_commit(self, deadline: "float | None") -> None:
        """No commit after `deadline` (the earliest of the events applied in this transaction)."""
        if deadline is not None and (self.commit_by is None or deadline < self.commit_by):
            self.commit_by = deadline

    def _lock(self, path: str) -> Any:
        """The lock of `path`, waited for no longer than the lock timeout or the deadline."""
        timeout = self.store.lock_timeout
        if self.commit_by is not None:
            timeout = max(0.0, min(timeout, self.commit_by - time.time()))
        return lock(path, timeout)

    # -- state files -------------------------------------------------------------------------
    def _get(self, path: str, model: Any, default: Callable[[], Any]) -> Any:
        if path not in self._loaded:
            obj, raw = self.store.load_with_bytes(path, model, default)
            self._loaded[path] = (obj, raw)
            if not raw and obj is not None:
                self._blank[path] = dumps(obj.model_dump(mode="json"))
        return self._loaded[path][0]

    @property
    def session(self) -> SessionState:
        return self._get(self._session_path, SessionState, lambda: SessionState(session_id=self.session_id))

    @property
    def lineage(self) -> Lineage:
        return self._get(self._lineage_path, Lineage, lambda: Lineage(session_id=self.session_id))

    def deliberation(self, deliberation_id: str) -> "Deliberation | None":
        return self._get(self.store.layout.deliberation(deliberation_id), Deliberation, lambda: None)

    def add_deliberation(self, delib: Deliberation) -> None:
        self._loaded[self.store.layout.deliberation(delib.id)] = (delib, b"")

    def write_file(self, path: str, data: bytes) -> None:
        """Write a file of the state dir (a decision record) as part of this transaction."""
        self._writes[self.store.layout.checked(path)] = data

    def remove_file(self, path: str) -> None:
        """Remove a file of the state dir as part of this transaction."""
        self._writes[self.store.layout.checked(path)] = None

    def upsert(
        self, path: str, list_field: str, key_field: str, key: str, item: "dict | None", template: dict, drop_empty: bool = False
    ) -> None:
        """Set (or, with `item` None, remove) the entry `key` of a project-wide index file's list,
        as part of this transaction. The file's lock is held from now to the end; the edit is
        applied at commit (and replayed from the journal, so it survives a kill)."""
        path = self.store.layout.checked(path)
        if path not in self._held:
            assert self._stack is not None
            self._stack.enter_context(self._lock(path))
            self._held.add(path)
        self._upserts.append(
            {
                "path": self._rel(path),
                "list_field": list_field,
                "key_field": key_field,
                "key": key,
                "item": item,
                "template": template,
                "drop_empty": drop_empty,
            }
        )

    def append(self, path: str, record: Any) -> None:
        """Append a JSON line to a log of the state dir as part of this transaction."""
        path = self.store.layout.checked(path)
        self._appends.setdefault(path, []).append(sealed_lines(self.store.layout, path, _jsonl(record)))

    def log(self, record: Any) -> None:
        """Queue an event-log line, committed with the state."""
        self._log.append(record)

    # -- commit and replay -------------------------------------------------------------------
    def _rel(self, path: str) -> str:
        return os.path.relpath(path, self.store.layout.root)

    def _abs(self, rel: str) -> str:
        if os.path.isabs(rel) or rel.split(os.sep)[0] == "..":
            raise ValueError(f"journal path {rel!r} is not inside the state dir")
        return self.store.layout.checked(os.path.join(self.store.layout.root, rel))

    def _changes(self) -> dict:
        writes: "list[tuple[str, bytes | None]]" = []
        layout = self.store.layout
        for path, (obj, before) in self._loaded.items():
            if obj is None:
                continue
            data = dumps(obj.model_dump(mode="json"))
            if data != before and not (not before and data == self._blank.get(path)):
                self._bodies[path] = data
                writes.append((path, sealed(layout, path, data)))
        writes += list(self._writes.items())  # None: the file is removed
        appends = dict(self._appends)
        if self._log:
            events = layout.checked(layout.events(self.session_id))
            appends[events] = appends.get(events, []) + [seal.seal_lines(layout, events, _jsonl(r)) for r in self._log]
        return {"writes": writes, "appends": [(p, b"".join(lines)) for p, lines in appends.items()], "upserts": self._upserts}

    def _commit(self) -> None:
        change = self._changes()
        if not (change["writes"] or change["appends"] or change["upserts"]):
            return
        deadlines.check(self.commit_by)
        if not change["writes"] and not change["upserts"] and len(change["appends"]) == 1:
            path, lines = change["appends"][0]  # one append is all or nothing on its own
            _append_lines(path, lines)
            return
        journal = {
            "schema_version": SCHEMA_VERSION,
            "session_id": self.session_id,
            "writes": [
                {"path": self._rel(p), "text": None if d is None else d.decode("utf-8", "surrogateescape")}
                for p, d in change["writes"]
            ],
            "appends": [
                {"path": self._rel(p), "lines": lines.decode("utf-8", "surrogateescape")} for p, lines in change["appends"]
            ],
            "upserts": change["upserts"],
        }
        write_journal(
            self._journal_path, sealed(self.store.layout, self._journal_path, orjson.dumps(journal))
        )  # the commit point
        try:
            self._apply(change["writes"], change["appends"], change["upserts"], replay=False)
        except OSError as exc:  # committed all the same: the next transaction finishes it
            self.store.warnings.append(
                f"deliberation: {_one_line(exc)} while saving; this event is kept in the session's commit "
                "journal and its files are completed by the session's next hook"
            )
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._journal_path)
        for path, _data in change["writes"]:
            if path in self._loaded and path in self._bodies:
                self._loaded[path] = (self._loaded[path][0], self._bodies.pop(path))

    def _apply(self, writes: list, appends: list, upserts: list, replay: bool) -> None:
        for path, lines in appends:
            if not (replay and event_log.has_lines(path, lines)):
                _append_lines(path, lines)
        for spec in upserts:
            self._apply_upsert(spec)
        atomic_write_many([(p, d) for p, d in writes if d is not None])
        for path, data in writes:
            if data is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)

    def _apply_upsert(self, spec: dict) -> None:
        path = self._abs(spec["path"])
        layout = self.store.layout
        data: Any = None
        try:
            data = orjson.loads(read_runtime(layout, path))
        except FileNotFoundError:
            pass
        except (safe_read.Refused, seal.Unsealed) as exc:
            distrust(layout, path, exc, self.store.warnings)
        except (OSError, ValueError) as exc:
            moved = quarantine(path)
            self.store.warnings.append(
                f"deliberation: corrupt state file {os.path.relpath(path, layout.project)} "
                f"moved aside to {os.path.basename(moved)} ({_one_line(exc)}); starting that file afresh"
            )
        field = spec["list_field"]
        if not isinstance(data, dict) or not isinstance(data.get(field), list):
            data = dict(spec["template"])
        key_field, key = spec["key_field"], spec["key"]
        items = [x for x in data[field] if not (isinstance(x, dict) and x.get(key_field) == key)]
        if spec["item"] is not None:
            items.append(spec["item"])
        data[field] = items
        if not items and spec["drop_empty"]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        else:
            atomic_write_bytes(path, sealed(layout, path, dumps(data)))

    def _recover(self) -> None:
        """Replay the journal a killed transaction of this session left, if any."""
        try:
            raw = safe_read.read_bytes(self._journal_path, STATE_LIMIT, root=self.store.layout.project)
        except FileNotFoundError:
            return
        except safe_read.Refused as exc:
            distrust(self.store.layout, self._journal_path, exc, self.store.warnings)
            return
        try:
            raw = seal.unseal_file(self.store.layout, self._journal_path, raw)
            journal = CommitJournal.model_validate_json(raw)
            if journal.schema_version != SCHEMA_VERSION or journal.session_id != self.session_id:
                raise ValueError("not a journal of this session and version")
            writes = [
                (self._abs(w.path), None if w.text is None else w.text.encode("utf-8", "surrogateescape")) for w in journal.writes
            ]
            appends = [(self._abs(a.path), a.lines.encode("utf-8", "surrogateescape")) for a in journal.appends]
            upserts = [u.model_dump() for u in journal.upserts]
        except Exception as exc:  # noqa: BLE001 - a journal is whole or absent; report anything else
            moved = quarantine(self._journal_path)
            self.store.warnings.append(
                f"deliberation: an unreadable commit journal was moved aside to {os.path.basename(moved)} "
                f"({_one_line(exc)}); the session's files are as the last whole commit left them"
            )
            return
        with contextlib.ExitStack() as locks:
            for path in sorted({self._abs(spec["path"]) for spec in upserts}):
                locks.enter_context(self._lock(path))
            self._apply(writes, appends, upserts, replay=True)
        os.unlink(self._journal_path)
        self.recovered = True


def _jsonl(record: Any) -> bytes:
    try:
        return orjson.dumps(record) + b"\n"
    except TypeError:  # lone surrogates, ints beyond 64 bits, nesting deeper than 255: still log it
        return json_line(record)


def _append_lines(path: str, lines: bytes) -> None:
    ensure_dir(os.path.dirname(path))
    append_line(path, lines)
