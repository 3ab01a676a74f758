"""The warm worker: one long-lived process per install that keeps the slow path's imports loaded,
and answers a hook's event over a Unix socket by running exactly the code the hook would run
in-process (`hook_runner.respond`), so answers and state are identical (docs/SECURITY.md, "The
warm worker" (§6), states the boundary and its measured faults; docs/PERFORMANCE.md the figures).

Trust: the socket lives in the user's private folder (`worker_socket`); a connection's peer must
be the same user, checked before a byte is read; a request must arrive whole within
READ_TIMEOUT_S and fit the message limit, and only its own environment, folder and deadline are
used (the worker starts isolated: `-I`, an empty environment). Losing nothing: a request is
acknowledged once read and acted on only after the hook's GO; nothing commits after
`deadlines.worker_commit_by`. It retires within CHECK_EVERY_S when its socket is replaced, its
code, lib folder, data folder or import path changes, or after DELIBERATION_WORKER_IDLE_S idle.
"""

from __future__ import annotations

import gc
import importlib
import os
import queue
import socket
import sys
import threading
import time

from deliberation.runtime.worker_launch import idle_seconds
from deliberation.wire import deadlines, worker_protocol, worker_socket
from deliberation.runtime import hook_runner
from deliberation.state import group_commit
from deliberation.state import paths

POOL_SIZE = 32  # threads answering requests; more wait in the queue, beyond that: in-process
QUEUE_LIMIT = 256
READ_TIMEOUT_S = 5.0  # a hook sends its request as soon as it has read its stdin
CHECK_EVERY_S = 1.0
RETIRE_WAIT_S = 300.0  # the longest event (Stop) may still be running when the worker retires
SWITCH_INTERVAL_S = 0.0005


# ---------------------------------------------------------------------------------------------
# the worker's side


class Request:
    """One hook's event as it travelled: what `hook_runner.respond` needs, and the hook's env."""

    __slots__ = ("event", "now", "project", "env", "event_id", "stamp", "data")

    def __init__(self, message: bytes) -> None:
        fields = worker_protocol.unpack_fields(message)
        if len(fields) != 8 or fields[0] != worker_protocol.PROTOCOL:
            raise ValueError("not a request of this protocol")
        _version, event, now, cwd, env_block, event_id, stamp, self.data = fields
        self.event = event.decode()
        self.now = float(now)
        self.event_id = event_id.decode() or None
        self.stamp = stamp.decode()
        self.env = {}
        for item in env_block.split(b"\0") if env_block else ():
            key, _, value = item.partition(b"=")
            self.env[os.fsdecode(key)] = os.fsdecode(value)
        # a relative CLAUDE_PROJECT_DIR is the hook's, relative to the hook's working directory
        self.project = os.path.abspath(os.path.join(os.fsdecode(cwd), self.env.get("CLAUDE_PROJECT_DIR") or ""))


def import_path_stamp() -> "tuple":
    """The folders this process imports from (site-packages, lib) and their mtimes: installing,
    upgrading or removing a package changes its site-packages folder."""
    out = []
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        try:
            st = os.stat(entry)
        except OSError:
            continue
        if os.path.isdir(entry):
            out.append((entry, st.st_mtime_ns, st.st_ino))
    return tuple(out)


class Worker:
    """The accept loop, the pool and the retirement checks of one worker process."""

    def __init__(self, path: str, stamp: str, idle: float) -> None:
        self.path = path
        self.stamp = stamp
        self.idle = idle
        self.queue: queue.Queue = queue.Queue(QUEUE_LIMIT)
        self.lock = threading.Lock()
        self.busy = 0
        self.retiring = ""
        self.inode = 0
        self.server: "socket.socket | None" = None
        self.imports = ()
        self.plugin_data: "str | None" = None  # CLAUDE_PLUGIN_DATA of the first request that had one

    # -- binding -----------------------------------------------------------------------------
    def bind(self) -> bool:
        """Listen on the install's socket: bind a private name, then rename it into place."""
        tmp = f"{self.path}.{os.getpid()}"
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            worker_socket.bind(server, tmp)
            os.chmod(tmp, 0o600)
            server.listen(128)
            os.rename(tmp, self.path)
            self.inode = os.stat(self.path).st_ino
        except OSError:
            server.close()
            return False
        self.server = server
        return True

    def still_mine(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    # -- serving -----------------------------------------------------------------------------
    def serve(self) -> int:
        server = self.server
        if server is None:
            raise RuntimeError("serve() before bind()")
        for _ in range(POOL_SIZE):
            threading.Thread(target=self._pool_thread, daemon=True).start()
        self.imports = import_path_stamp()
        server.settimeout(CHECK_EVERY_S)
        last_request = last_check = time.monotonic()
        while not self.retiring:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                conn = None
            except OSError:
                self.retiring = "the socket failed"
                break
            now = time.monotonic()
            if conn is not None:
                last_request = now
                self._take(conn)
            if now - last_check >= CHECK_EVERY_S:
                last_check = now
                self.retiring = self.retiring or self._why_retire(now - last_request)
        self._retire()
        return 0

    def _take(self, conn: socket.socket) -> None:
        """Hand a connection to the pool — only when its peer is this user."""
        if not worker_socket.peer_is_me(conn):
            conn.close()
            return
        conn.settimeout(READ_TIMEOUT_S)
        try:
            with self.lock:
                self.busy += 1
            self.queue.put_nowait(conn)
        except queue.Full:  # the hook sees no ACK and does its own work
            with self.lock:
                self.busy -= 1
            conn.close()

    def _pool_thread(self) -> None:
        while True:
            conn = self.queue.get()
            try:
                self._answer(conn)
            finally:
                with self.lock:
                    self.busy -= 1

    def _answer(self, conn: socket.socket) -> None:
        try:
            with group_commit.incoming():
                request = Request(
                    worker_protocol.recv_message(conn, worker_protocol.MAX_REQUEST, time.monotonic() + READ_TIMEOUT_S)
                )
                if request.stamp != self.stamp:
                    conn.sendall(worker_protocol.frame(worker_protocol.STALE))
                    self.retiring = self.retiring or "a hook with other code reached it"
                    return
                conn.sendall(worker_protocol.frame(worker_protocol.ACK))
                if worker_protocol.recv_message(conn, 16, time.monotonic() + worker_protocol.ACK_TIMEOUT_S) != worker_protocol.GO:
                    return  # the hook gave up before our ACK reached it: it does the work itself
            data = request.env.get("CLAUDE_PLUGIN_DATA")
            if data and os.path.isabs(data) and self.plugin_data is None:
                self.plugin_data = data  # the plugin form: its data folder goes at an uninstall
            token = paths.REQUEST_ENV.set(request.env)
            try:
                out = hook_runner.respond(
                    request.event,
                    request.data,
                    request.now,
                    project=request.project,
                    event_id=request.event_id,
                    started=request.now,
                    commit_by=deadlines.worker_commit_by(request.event, request.now),
                )
            finally:
                paths.REQUEST_ENV.reset(token)
            conn.sendall(worker_protocol.frame(out.encode("utf-8")))
        except Exception:  # noqa: BLE001 - the hook handles what it did not get an answer to
            pass
        finally:
            conn.close()

    # -- retiring ----------------------------------------------------------------------------
    def _why_retire(self, idle_for: float) -> str:
        if not self.still_mine():
            return "its socket was replaced or removed"
        if not os.path.isdir(os.path.join(worker_protocol.LIB, "deliberation")):
            return "its lib folder is gone"
        data = self.plugin_data
        if data and not os.path.isdir(data):
            return "its plugin's data folder is gone (uninstalled)"
        if worker_protocol.code_stamp() != self.stamp:
            return "its code changed"
        if import_path_stamp() != self.imports:
            return "its import path changed"
        with self.lock:
            busy = self.busy
        if not busy and idle_for > self.idle:
            return "idle"
        return ""

    def _retire(self) -> None:
        """Stop accepting, let what was taken finish, exit."""
        if self.server is not None:
            if self.still_mine():
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
            self.server.close()
            try:  # the per-user folder goes with the last worker (a hook makes it again when needed)
                os.rmdir(os.path.dirname(self.path))
            except OSError:
                pass
        deadline = time.monotonic() + RETIRE_WAIT_S
        while time.monotonic() < deadline:
            with self.lock:
                if not self.busy:
                    return
            time.sleep(0.05)


PRELOAD = (
    "app.handlers",
    "app.handlers.on_prompt",
    "app.handlers.on_pre_tool",
    "app.handlers.on_post_tool",
    "app.handlers.on_post_tool_failure",
    "app.handlers.on_subagent_start",
    "app.handlers.on_subagent_stop",
    "app.handlers.on_stop",
    "app.handlers.on_session",
    "core.engine",
    "core.capture",
    "core.conformity",
    "core.isolation",
    "core.depth.axis",
    "core.depth.hot_spots",
    "core.depth.paraphrase",
    "app.adjudication",
    "report.decision_record",
    "core.confidence",
    "core.acts",
    "core.lexicon",
    "core.instructions",
    "core.tool_net",
    "text.self_rating",
    "text.net",
)


def preload() -> None:
    """Pay the slow path's imports before the first request arrives."""
    hook_runner._load_site_packages()
    for name in PRELOAD:
        importlib.import_module(f"deliberation.{name}")


def main(argv: "list[str]") -> int:
    """`python -I -c BOOT LIB SOCKET_PATH CODE_STAMP IDLE_S`: bind, serve, retire."""
    os.environ["DELIBERATION_WORKER"] = "0"  # the worker itself never asks a worker
    path, stamp, idle = argv[0], argv[1], idle_seconds(argv[2] if len(argv) > 2 else None)
    if worker_protocol.code_stamp() != stamp:
        return 0  # the code changed between the hook that started us and now
    preload()  # before binding: no hook waits for a worker still importing
    gc.freeze()  # the preloaded modules and models are permanent: collections skip them
    # A thread that gives up the GIL for a syscall (a batch leader's fsync) waits for the
    # running thread's switch interval to get it back: 5 ms by default, several times over in
    # one batch while the other requests of a burst are being parsed.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    worker = Worker(path, stamp, idle)
    if not worker.bind():
        return 0
    return worker.serve()
