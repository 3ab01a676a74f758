"""group_commit: events of one session that queue together share one transaction, with the
result of applying them one after the other; a failing handler fails alone."""

from __future__ import annotations

import threading

import pytest

from deliberation.state import group_commit
from deliberation.state.store import LockTimeout
from tests.helpers.children import wait_until


class FakeStore:
    def __init__(self) -> None:
        self.warnings: list[str] = []


class Ledger:
    """A stand-in for a session's files: transactions opened, state committed, order applied."""

    def __init__(self) -> None:
        self.committed: list[str] = []
        self.transactions = 0
        self.batch_sizes: list[int] = []

    def open_tx(self):
        ledger = self
        store = FakeStore()

        class Tx:
            def __enter__(self):
                ledger.transactions += 1
                self.pending: list[str] = []
                return self

            def __exit__(self, exc_type, *_):
                if exc_type is None:
                    ledger.committed.extend(self.pending)
                    ledger.batch_sizes.append(len(self.pending))

        return store, Tx()


def apply_named(
    name: str,
    fail: bool = False,
    warn: "str | None" = None,
    hold: "threading.Event | None" = None,
    inside: "threading.Event | None" = None,
):
    """An event's handler; with `hold`, it keeps the session (its turn) until `hold` is set,
    and sets `inside` once it has it."""

    def apply(store, tx):
        if inside is not None:
            inside.set()
        if hold is not None:
            assert hold.wait(10), "never released"
        if fail:
            raise RuntimeError(f"{name} broke")
        if warn:
            store.warnings.append(warn)
        tx.pending.append(name)
        return f"answer {name}", [f"ctx {name}"]

    return apply


def queued(key, n: int) -> None:
    """Wait until `n` events wait in the queue of session `key` (behind its leader)."""

    def count() -> int:
        with group_commit._GUARD:
            session = group_commit._SESSIONS.get(key)
            return len(session.queue) if session is not None else 0

    wait_until(lambda: count() >= n, 10, f"{n} queued events")


def lead(key, ledger, name: str = "e0", **kw):
    """A thread whose event holds the session until the returned `release` is set; returned
    once its handler runs (the session's turn is taken)."""
    release, inside = threading.Event(), threading.Event()
    results: dict = {}

    def run():
        try:
            results[name] = group_commit.run(key, apply_named(name, hold=release, inside=inside, **kw), ledger.open_tx, 5)
        except Exception as exc:  # noqa: BLE001 - kept for the test to look at
            results[name] = exc

    thread = threading.Thread(target=run)
    thread.start()
    assert inside.wait(10)
    return thread, release, results


def test_a_single_event_is_its_own_batch():
    ledger = Ledger()
    answer, warnings = group_commit.run(("/s", "a"), apply_named("e1", warn="quarantined"), ledger.open_tx, 5)
    assert answer == "answer e1" and warnings == ["quarantined", "ctx e1"]
    assert ledger.committed == ["e1"] and ledger.transactions == 1


def test_events_queued_behind_a_leader_share_one_transaction_in_arrival_order():
    ledger = Ledger()
    key = ("/s", "burst")
    # the first event holds the session while the others queue behind it, one after the other
    first, release, results = lead(key, ledger)
    others = []
    for i in range(1, 9):
        t = threading.Thread(
            target=lambda i=i: results.__setitem__(f"e{i}", group_commit.run(key, apply_named(f"e{i}"), ledger.open_tx, 5))
        )
        t.start()
        others.append(t)
        queued(key, i)  # arrival order: e1 is queued before e2 starts
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert ledger.committed == [f"e{i}" for i in range(9)]
    assert ledger.transactions == 2 and ledger.batch_sizes == [1, 8]
    assert all(results[f"e{i}"] == (f"answer e{i}", [f"ctx e{i}"]) for i in range(9))
    assert group_commit._SESSIONS == {}  # nothing left behind


def test_a_failing_handler_fails_alone_and_nobody_is_half_applied():
    ledger = Ledger()
    key = ("/s", "bad")
    results: dict[str, object] = {}

    def call(name, **kw):
        try:
            results[name] = group_commit.run(key, apply_named(name, **kw), ledger.open_tx, 5)
        except RuntimeError as exc:
            results[name] = exc

    first, release, led = lead(key, ledger)
    rest = [threading.Thread(target=call, args=(n,), kwargs={"fail": n == "e2"}) for n in ("e1", "e2", "e3")]
    for i, t in enumerate(rest, 1):
        t.start()
        queued(key, i)
    release.set()
    for t in [first, *rest]:
        t.join(10)
    results.update(led)
    assert isinstance(results["e2"], RuntimeError) and str(results["e2"]) == "e2 broke"
    assert ledger.committed == ["e0", "e1", "e3"]  # the batch was redone one by one, without e2
    assert results["e1"] == ("answer e1", ["ctx e1"]) and results["e3"] == ("answer e3", ["ctx e3"])


def test_a_failure_outside_the_handlers_is_every_event_s():
    key = ("/s", "disk")

    def open_tx():
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        group_commit.run(key, apply_named("e1"), open_tx, 5)
    assert group_commit._SESSIONS == {}


def test_waiting_longer_than_the_lock_timeout_raises_and_leaves_the_queue():
    ledger = Ledger()
    key = ("/s", "slow")
    holder, release, _results = lead(key, ledger, "slow")
    with pytest.raises(LockTimeout):
        group_commit.run(key, apply_named("late"), ledger.open_tx, 0.1)
    release.set()
    holder.join(5)
    assert ledger.committed == ["slow"]  # the event that timed out was never applied
    assert group_commit._SESSIONS == {}


def test_a_leader_waits_for_requests_in_flight_but_not_when_alone(monkeypatch):
    ledger = Ledger()
    waits: list = []
    real_wait_for = group_commit._GUARD.wait_for
    monkeypatch.setattr(
        group_commit._GUARD,
        "wait_for",
        lambda pred, timeout=None: (waits.append((pred(), timeout)), real_wait_for(pred, timeout))[1],
    )
    group_commit.run(("/s", "alone"), apply_named("e"), ledger.open_tx, 5)
    assert waits == []  # its own request has landed: nothing else in flight, no wait
    arrived, release = threading.Event(), threading.Event()

    def other_request():  # accepted by the worker, still being read and parsed
        with group_commit.incoming():
            arrived.set()
            release.wait(5)

    other = threading.Thread(target=other_request)
    other.start()
    arrived.wait(5)
    group_commit.run(("/s", "w"), apply_named("f"), ledger.open_tx, 5)
    release.set()
    other.join(5)
    assert waits == [(False, group_commit.COMMIT_DELAY_S)]  # one bounded wait, on a request in flight
    assert ledger.committed == ["e", "f"] and group_commit._IN_FLIGHT == [0]


def test_each_event_is_applied_in_its_own_context():
    """The leader applies the others' events: each must still see its own hook's environment."""
    import contextvars

    env = contextvars.ContextVar("env", default="none")
    ledger = Ledger()
    key = ("/s", "ctx")
    seen: dict[str, str] = {}

    release, inside = threading.Event(), threading.Event()

    def apply_seeing(name, hold=False):
        def apply(store, tx):
            if hold:
                inside.set()
                assert release.wait(10), "never released"
            seen[name] = env.get()
            tx.pending.append(name)
            return name, []

        return apply

    def call(name, hold=False):
        env.set(f"env of {name}")
        group_commit.run(key, apply_seeing(name, hold), ledger.open_tx, 5)

    first = threading.Thread(target=call, args=("e0", True))
    first.start()
    assert inside.wait(10)
    rest = [threading.Thread(target=call, args=(f"e{i}",)) for i in (1, 2, 3)]
    for t in rest:
        t.start()
    queued(key, 3)
    release.set()
    for t in [first, *rest]:
        t.join(10)
    assert ledger.batch_sizes == [1, 3]  # e1..e3 were applied by one of them, for all three
    assert seen == {f"e{i}": f"env of e{i}" for i in range(4)}
