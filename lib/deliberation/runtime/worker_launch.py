"""Starting a warm worker for this install: a detached, isolated interpreter with an empty
environment, which preloads the models and listens on the install's socket (warm_worker.py).

Started by the in-process path when an event needed the models, and by the trigger when it
injects the protocol, so the spawns that follow find the worker warm.
"""

from __future__ import annotations

import os
import subprocess
import sys

from deliberation.wire import worker_protocol, worker_socket

BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from deliberation.runtime.warm_worker import main; sys.exit(main(sys.argv[2:]))"
)


def idle_seconds(value: "str | None") -> float:
    try:
        return max(1.0, float(value if value is not None else "600"))
    except ValueError:
        return 600.0


def start() -> None:
    """Start a detached worker for this install: isolated interpreter, empty environment."""
    try:
        path = worker_protocol.socket_path(create=True)
    except (worker_socket.Unsafe, OSError):
        return  # no private folder we can trust: every hook keeps doing its own work
    idle = str(idle_seconds(os.environ.get("DELIBERATION_WORKER_IDLE_S")))
    try:
        subprocess.Popen(
            [sys.executable, "-I", "-c", BOOT, worker_protocol.LIB, path, worker_protocol.code_stamp(), idle],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env={},
            close_fds=True,
            start_new_session=True,
        )
    except OSError:
        pass  # no worker: every hook keeps doing its own work
