"""Group commit: events of one session that arrive together share one transaction (docs/PERFORMANCE.md,
"Group commit").

`run` makes the thread that gets the session's turn the leader: it applies every event queued for
that session by then, in arrival order, each with its own handler call, context and answer, then
writes the changed files once and appends the event-log lines in that order — the state, answers
and log of the same events applied one by one under the session lock. A handler that raises makes
each event of the batch run again alone; each event's warnings go to the event whose load met
them. In a hook process without a warm worker a batch is that one event.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Callable

COMMIT_DELAY_S = 0.003

# apply(store, tx) -> (answer, warnings of this event)
Apply = Callable[[Any, Any], "tuple[Any, list[str]]"]


class _Job:
    __slots__ = ("apply", "context", "result", "error", "done")

    def __init__(self, apply: Apply) -> None:
        self.apply = apply
        self.context = contextvars.copy_context()  # the hook's own (its env travels in one)
        self.result: Any = None
        self.error: "BaseException | None" = None
        self.done = False


class _Session:
    """The queue of one session's waiting events, and whose turn it is."""

    __slots__ = ("queue", "turn", "users")

    def __init__(self) -> None:
        self.queue: list[_Job] = []
        self.turn = threading.Lock()
        self.users = 0


_SESSIONS: "dict[tuple[str, str], _Session]" = {}
_GUARD = threading.Condition()  # guards the tables below; notified when a request lands
_IN_FLIGHT = [0]  # requests accepted by this process that have not yet queued or finished
_LOCAL = threading.local()


class incoming:
    """Context manager around one request the warm worker accepted: while it is on its way
    (reading, parsing, the fast path), leaders of batches wait for it (up to COMMIT_DELAY_S)."""

    def __enter__(self) -> "incoming":
        with _GUARD:
            _IN_FLIGHT[0] += 1
        _LOCAL.in_flight = True
        return self

    def __exit__(self, *exc: Any) -> None:
        _landed()


def _landed() -> None:
    if getattr(_LOCAL, "in_flight", False):
        _LOCAL.in_flight = False
        with _GUARD:
            _IN_FLIGHT[0] -= 1
            _GUARD.notify_all()


def _wait_for_arrivals() -> None:
    """Wait (at most COMMIT_DELAY_S) until no accepted request is still on its way."""
    with _GUARD:
        if _IN_FLIGHT[0] > 0:
            _GUARD.wait_for(lambda: _IN_FLIGHT[0] <= 0, timeout=COMMIT_DELAY_S)


class HandlerFailed(Exception):
    """A handler raised inside a batch (carries the original)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def run(key: "tuple[str, str]", apply: Apply, open_tx: Callable[[], Any], timeout: float) -> "tuple[Any, list[str]]":
    """Apply one event to its session (`key`: state root, session id); its (answer, warnings).

    `open_tx()` returns (store, a SessionTx context manager) for a new transaction."""
    job = _Job(apply)
    with _GUARD:
        session = _SESSIONS.get(key)
        if session is None:
            session = _SESSIONS[key] = _Session()
        session.users += 1
        session.queue.append(job)
    _landed()
    try:
        if not session.turn.acquire(True, max(timeout, 0.0)):
            with _GUARD:
                waiting = job in session.queue
                if waiting:
                    session.queue.remove(job)
            if waiting:
                from deliberation.state.store import LockTimeout

                raise LockTimeout(f"another hook held this session for more than {timeout:g}s")
            session.turn.acquire()  # a leader took this event into its batch: it ends soon
        try:
            if not job.done:  # nobody applied it yet: lead a batch of all that is queued
                _wait_for_arrivals()
                with _GUARD:
                    batch, session.queue[:] = list(session.queue), []
                _commit(batch, open_tx)
        finally:
            session.turn.release()
    finally:
        with _GUARD:
            session.users -= 1
            if not session.users:
                _SESSIONS.pop(key, None)
    if job.error is not None:
        raise job.error
    return job.result


def _commit(batch: "list[_Job]", open_tx: Callable[[], Any]) -> None:
    """Apply `batch` in one transaction; on a handler's failure, each job in one of its own."""
    try:
        _apply_all(batch, open_tx)
    except HandlerFailed as failed:
        if len(batch) == 1:
            _finish(batch, error=failed.original)
            return
        for job in batch:
            try:
                _apply_all([job], open_tx)
            except HandlerFailed as alone:
                _finish([job], error=alone.original)
            except BaseException as exc:  # noqa: BLE001 - this job's own failure
                _finish([job], error=exc)
    except BaseException as exc:  # noqa: BLE001 - the lock, the disk: every job's failure
        _finish(batch, error=exc)


def _apply_all(batch: "list[_Job]", open_tx: Callable[[], Any]) -> None:
    store, tx_cm = open_tx()
    results = []
    with tx_cm as tx:
        for job in batch:
            before = len(store.warnings)
            try:
                answer, warnings = job.context.run(job.apply, store, tx)
            except BaseException as exc:  # abort the whole transaction
                raise HandlerFailed(exc) from exc
            results.append((answer, store.warnings[before:] + warnings))
        applied = len(store.warnings)
    committing = store.warnings[applied:]  # the commit's own (the disk filled after the journal): every event's
    for job, (answer, warnings) in zip(batch, results):
        job.result = (answer, warnings + committing)
        job.done = True


def _finish(batch: "list[_Job]", error: BaseException) -> None:
    for job in batch:
        job.error = error
        job.done = True
