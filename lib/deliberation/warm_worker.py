"""The warm worker: one long-lived process that keeps the slow path's imports loaded.

Every hook is a fresh process, and the slow path (pydantic models, locks, the engine) costs
~140 ms of imports before any work — 15-20× the bare interpreter. So while a worker is up, a
hook (`hook_client`) only sends it the event over a Unix socket and prints the answer. The
worker runs exactly the code the hook would run in-process (the same `hook_runner.respond`,
fast path and slow path, the same locks on the same files), so answers and state are identical;
only the imports are already paid.

- No worker yet (or it idled out): the first hook that needs the slow path starts one,
  detached, and handles its own event in-process — nothing waits for the worker to come up.
- Requests are answered in threads; the session lock orders what they do to a session.
- The worker exits after `DELIBERATION_WORKER_IDLE_S` seconds without a request (default 600).
  `DELIBERATION_WORKER=0` turns the worker off (every hook then does its own work).

The socket's name and the wire format are `hook_client`'s (the hook's side).
"""

from __future__ import annotations

import os
import struct
import sys
import time

from deliberation import hook_client

_LIB = hook_client.LIB
SWITCH_INTERVAL_S = 0.0005


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("DELIBERATION_WORKER_IDLE_S", "600")))
    except ValueError:
        return 600.0


def start() -> None:
    """Start a detached worker for this code (a racing second one exits at bind)."""
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = _LIB + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        subprocess.Popen([sys.executable, "-m", "deliberation.warm_worker", hook_client.socket_name()],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd="/", env=env, close_fds=True,
                         start_new_session=True)
    except OSError:
        pass  # no worker: every hook keeps doing its own work


# ---------------------------------------------------------------------------------------------
# the worker's side


def _peer_uid(conn) -> int:
    import socket

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


class Request:
    """One hook's event as it travelled: what `hook_runner.respond` needs, and the hook's env."""

    __slots__ = ("event", "now", "project", "env", "data")

    def __init__(self, message: bytes) -> None:
        fields = hook_client.unpack_fields(message)
        if len(fields) != 6 or fields[0] != hook_client.PROTOCOL:
            raise ValueError("not a request of this protocol")
        _version, event, now, cwd, env_block, self.data = fields
        self.event = event.decode()
        self.now = float(now)
        self.env = {}
        for item in env_block.split(b"\0") if env_block else ():
            key, _, value = item.partition(b"=")
            self.env[os.fsdecode(key)] = os.fsdecode(value)
        self.project = os.path.abspath(self.env.get("CLAUDE_PROJECT_DIR") or os.fsdecode(cwd))


def _serve_one(conn) -> None:
    from deliberation import group_commit

    with group_commit.incoming():
        _answer(conn)


def _answer(conn) -> None:
    from deliberation import hook_runner, paths

    try:
        if _peer_uid(conn) != os.getuid():
            return
        conn.settimeout(30)
        request = Request(hook_client.recv_message(conn, hook_client.MAX_MESSAGE))
        token = paths.REQUEST_ENV.set(request.env)
        try:
            out = hook_runner.respond(request.event, request.data, request.now, project=request.project)
        finally:
            paths.REQUEST_ENV.reset(token)
        conn.sendall(hook_client.frame(out.encode("utf-8")))
    except Exception:  # noqa: BLE001 - the hook fails open on a missing answer
        pass
    finally:
        conn.close()


PRELOAD = ("handlers", "handlers.on_prompt", "handlers.on_pre_tool", "handlers.on_post_tool",
           "handlers.on_post_tool_failure",
           "handlers.on_subagent_start", "handlers.on_subagent_stop", "handlers.on_stop",
           "handlers.on_session", "engine", "capture", "conformity", "isolation", "depth_axis",
           "hot_spots", "paraphrase", "adjudication", "decision_record", "confidence", "protocol")


def preload() -> None:
    """Pay the slow path's imports before the first request arrives."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(f"deliberation.{name}")


def serve(name: str) -> int:
    """Bind `name`, answer requests in threads, exit after the idle timeout."""
    import socket as stdsocket  # the worker accepts connections: the full module
    import threading

    server = stdsocket.socket(stdsocket.AF_UNIX, stdsocket.SOCK_STREAM)
    try:
        server.bind("\0" + name)
    except OSError:
        return 0  # another worker for this code is already serving
    server.listen(128)
    preload()
    import gc

    gc.freeze()  # the preloaded modules and models are permanent: collections skip them
    # A thread that gives up the GIL for a syscall (a batch leader's fsync) waits for the
    # running thread's switch interval to get it back: 5 ms by default, several times over in
    # one batch while the other requests of a burst are being parsed.
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    idle = idle_seconds()
    server.settimeout(1.0)
    last = time.monotonic()
    busy = [0]
    lock = threading.Lock()

    def work(conn: stdsocket.socket) -> None:
        try:
            _serve_one(conn)
        finally:
            with lock:
                busy[0] -= 1

    while True:
        try:
            conn, _ = server.accept()
        except stdsocket.timeout:
            with lock:
                active = busy[0]
            if not active and time.monotonic() - last > idle:
                break
            continue
        last = time.monotonic()
        with lock:
            busy[0] += 1
        threading.Thread(target=work, args=(conn,), daemon=True).start()
    server.close()
    return 0


if __name__ == "__main__":
    os.environ["DELIBERATION_WORKER"] = "0"  # the worker itself never asks a worker
    raise SystemExit(serve(sys.argv[1]))
