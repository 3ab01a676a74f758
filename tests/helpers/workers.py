"""Warm-worker test helpers: a private HOME per test (its own socket folder, so tests never meet
each other's or a user's worker), finding the worker's process, and cleaning it up."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT

LIB = str(ROOT / "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

from deliberation.runtime import hook_client, worker_launch  # noqa: E402 - lib/ is put first on sys.path above
from deliberation.wire import worker_protocol  # noqa: E402 - lib/ is put first on sys.path above


def wait_worker_serving(pid: int, path: str, timeout: float = 30.0) -> None:
    """Wait until the worker `pid` listening on `path` has accepted a connection: its accept loop
    runs, so the stamps it retires on are taken."""
    from tests.helpers.children import open_sockets, wait_until

    wait_until(lambda: os.path.exists(path), timeout, "the worker to listen")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        hook_client.worker_socket.connect(probe, path)
        wait_until(lambda: open_sockets(pid) >= 2, timeout, "the worker to accept a connection")
    finally:
        probe.close()


class Workers:
    """The worker side of one test: `env` turns the worker on with this test's HOME."""

    def __init__(self, home: Path, idle: str = "30") -> None:
        self.home = home
        home.mkdir(mode=0o700, exist_ok=True)
        self.env = {"DELIBERATION_WORKER": "1", "DELIBERATION_WORKER_IDLE_S": idle, "HOME": str(home)}
        self.env.pop("XDG_RUNTIME_DIR", None)

    @property
    def hook_env(self) -> dict:
        """For run_hook: the worker on, this HOME, no XDG_RUNTIME_DIR of the machine's."""
        return {**self.env, "XDG_RUNTIME_DIR": ""}

    def socket_path(self) -> str:
        return worker_protocol.socket_path({b"HOME": str(self.home).encode()}, create=True)

    def pids(self) -> "list[int]":
        out = subprocess.run(["pgrep", "-f", f"warm_worker.*{self.socket_path()}"], capture_output=True, text=True).stdout.split()
        return [int(p) for p in out if int(p) != os.getpid()]

    def wait_up(self, timeout: float = 20.0) -> int:
        """The pid of the worker serving this HOME's socket, once it is listening."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pids = self.pids()
            if pids and os.path.exists(self.socket_path()):
                return pids[0]
            time.sleep(0.05)
        raise AssertionError("no warm worker came up")

    def wait_gone(self, pid: int, timeout: float = 10.0) -> float:
        """Seconds until `pid` exited (raises when it did not)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return time.monotonic() - t0
            try:  # reap it if it is our child
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            time.sleep(0.02)
        raise AssertionError(f"worker {pid} still running after {timeout}s")

    def start(self, lib: str = LIB, idle: str = "30") -> subprocess.Popen:
        """Start a worker the way worker_launch.start does (isolated, empty environment), as a child."""

        stamp = subprocess.run(
            [
                sys.executable,
                "-I",
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); "
                "from deliberation.wire import worker_protocol; print(worker_protocol.code_stamp())",
                lib,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        path = hook_client.worker_socket.socket_path(os.path.dirname(self.socket_path()), lib, sys.executable)
        return subprocess.Popen(
            [sys.executable, "-I", "-c", worker_launch.BOOT, lib, path, stamp, idle],
            cwd="/",
            env={},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def wait_serving(self, proc: subprocess.Popen, lib: str = LIB, python: str = sys.executable, timeout: float = 30.0) -> None:
        """Wait until the worker `proc` (of `lib`, under `python`) runs its accept loop: it has taken
        the stamps it retires on (its code, its import path) and accepted a connection of ours."""
        path = hook_client.worker_socket.socket_path(os.path.dirname(self.socket_path()), lib, python)
        wait_worker_serving(proc.pid, path, timeout)

    def kill_all(self) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
