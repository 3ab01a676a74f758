"""Child processes the tests start, and waiting on what they do — never on a clock.

A child says when it has reached the state a test needs (it prints a line after taking a lock,
after binding a socket); a test that must see an effect from outside waits for that effect
with a deadline (`wait_until`), so a loaded machine makes a test slower, never wrong.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.conftest import LIB


def wait_until(condition, timeout: float = 30.0, what: str = "the condition", interval: float = 0.005):
    """The first truthy value of `condition()` within `timeout` seconds; AssertionError after."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


def python_child(
    code: str, *args: str, ready: "str | None" = None, env: "dict | None" = None, timeout: float = 60.0, **popen
) -> subprocess.Popen:
    """`python -c code args` with lib/ importable; with `ready`, returned once it printed that line."""
    full = {**os.environ, "PYTHONPATH": str(LIB), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=full,
        stdout=subprocess.PIPE if ready is not None else popen.pop("stdout", None),
        text=True,
        **popen,
    )
    if ready is not None:
        line = _readline(proc, timeout)
        if line.strip() != ready:
            proc.kill()
            raise AssertionError(f"the child printed {line!r}, not {ready!r}")
    return proc


def _readline(proc: subprocess.Popen, timeout: float) -> str:
    import selectors

    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            proc.kill()
            raise AssertionError(f"the child said nothing within {timeout:g}s")
    return proc.stdout.readline()


LOCK_HOLDER = """
import sys, time
from deliberation.state.store import lock
with lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""

TX_HOLDER = """
import sys, time
from deliberation.state.paths import Layout
from deliberation.state.store import SessionTx, Store
with SessionTx(Store(Layout()), sys.argv[1]) as tx:
    tx.session.last_prompt = "half-done transaction"
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def lock_holder(path: str, hold_s: float = 60.0, env: "dict | None" = None) -> subprocess.Popen:
    """A process holding the store's lock of `path` (`<path>.lock`) for `hold_s` seconds (or
    until killed); returned once it holds it."""
    return python_child(LOCK_HOLDER, str(path), str(hold_s), ready="held", env=env)


def transaction_holder(session_id: str, project, hold_s: float = 60.0) -> subprocess.Popen:
    """A process inside a session transaction of `project` that has changed the session and
    not saved it (it waits to be killed, or commits after `hold_s`); returned once inside."""
    return python_child(TX_HOLDER, session_id, str(hold_s), ready="held", env={"CLAUDE_PROJECT_DIR": str(project)})


def stop(proc: subprocess.Popen) -> None:
    """Kill `proc` (if it still runs) and reap it."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def has_open(pid: int, path: str) -> bool:
    """`pid` has `path` open (Linux: /proc/<pid>/fd)."""
    folder = f"/proc/{pid}/fd"
    real = os.path.realpath(path)
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(os.path.join(folder, name)) == real:
                return True
        except OSError:
            continue
    return False


def open_sockets(pid: int) -> int:
    """How many sockets `pid` has open (Linux: /proc/<pid>/fd)."""
    folder = f"/proc/{pid}/fd"
    n = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        try:
            n += os.readlink(os.path.join(folder, name)).startswith("socket:")
        except OSError:
            continue
    return n
