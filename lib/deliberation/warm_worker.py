"""The warm worker: one long-lived process that keeps the slow path's imports loaded.

Every hook is a fresh process, and the slow path (pydantic models, locks, the engine) costs
~140 ms of imports before any work — 15-20× the bare interpreter. So a hook that needs the slow
path first asks the warm worker: it connects to a Unix socket, sends the event, and prints the
worker's answer. The worker runs exactly the code the hook would run in-process (the same
`hook_runner.respond`, the same locks on the same files), so answers and state are identical;
only the imports are already paid.

- No worker yet (or it idled out): the hook starts one, detached, and handles its own event
  in-process — nothing waits for the worker to come up.
- The socket is in the abstract namespace (no file to clean up, no path-length limit) and its
  name is derived from the user id, the plugin folder, the interpreter and a stamp of the code
  (sizes and mtimes of lib/deliberation/**/*.py): after an upgrade or an edit, hooks talk to a
  new worker and the old one idles out. A connection from another user id is refused
  (SO_PEERCRED).
- A request that could not be delivered falls back to in-process; one that was delivered is
  never run twice: if the worker fails to answer in time, the hook fails open with a warning.
- The worker exits after `DELIBERATION_WORKER_IDLE_S` seconds without a request (default 600).
  `DELIBERATION_WORKER=0` turns the worker off (every hook then does its own work).
"""

from __future__ import annotations

import os
import struct
import sys
import time
import zlib

import _socket as socket  # the C module: the hook's side needs no enum/selectors machinery

_LIB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PKG = os.path.join(_LIB, "deliberation")
HEADER = struct.Struct("!I")
CONNECT_TIMEOUT_S = 0.2
ANSWER_TIMEOUT_S = 50.0  # under the client's 60 s hook timeout
MAX_MESSAGE = 64 * 1024 * 1024


def enabled() -> bool:
    return os.environ.get("DELIBERATION_WORKER", "1").lower() not in ("0", "off", "false", "no")


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("DELIBERATION_WORKER_IDLE_S", "600")))
    except ValueError:
        return 600.0


def _digest(text: str) -> str:
    """A stable 64-bit digest (zlib is already loaded; hashlib's OpenSSL import costs ~2 ms)."""
    data = text.encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def code_stamp() -> str:
    """Sizes and mtimes of every module of the package: any edit gives a new worker."""
    parts = []
    stack = [_PKG]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    st = entry.stat()
                    parts.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")
    parts.sort()
    return _digest("\n".join(parts))


def socket_name() -> str:
    key = f"{os.getuid()}|{_LIB}|{sys.executable}|{code_stamp()}"
    return "deliberation-worker-" + _digest(key)


def _address(name: str) -> str:
    """The abstract-namespace address (a leading NUL: no file, no path-length limit)."""
    return "\0" + name


# ---------------------------------------------------------------------------------------------
# framing


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(HEADER.pack(len(payload)) + payload)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed mid-message")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket) -> bytes:
    (size,) = HEADER.unpack(_recv_exact(sock, HEADER.size))
    if size > MAX_MESSAGE:
        raise ConnectionError(f"message of {size} bytes refused")
    return _recv_exact(sock, size)


def _encode(request: dict) -> bytes:
    import json

    return json.dumps(request, ensure_ascii=True, separators=(",", ":")).encode()


# ---------------------------------------------------------------------------------------------
# the hook's side


class NotDelivered(Exception):
    """No worker took the request: the hook must do the work itself."""


def ask(event_name: str, data: bytes, now: float, project: str) -> str:
    """The worker's stdout text for this event. Raises NotDelivered when no worker took it."""
    name = socket_name()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(_address(name))
            request = _encode({"event": event_name, "data": data.decode("latin-1"), "now": now,
                               "project": project, "env": dict(os.environ)})
            _send(sock, request)
        except OSError as exc:
            raise NotDelivered(str(exc)) from None
        sock.settimeout(ANSWER_TIMEOUT_S)
        try:
            return _recv(sock).decode("utf-8")
        except (OSError, ConnectionError, struct.error) as exc:
            raise TimeoutError(f"the warm worker did not answer ({exc})") from None
    finally:
        sock.close()


def start() -> None:
    """Start a detached worker for this code (a racing second one exits at bind)."""
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = _LIB + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        subprocess.Popen([sys.executable, "-m", "deliberation.warm_worker", socket_name()],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd="/", env=env, close_fds=True,
                         start_new_session=True)
    except OSError:
        pass  # no worker: every hook keeps doing its own work


# ---------------------------------------------------------------------------------------------
# the worker's side


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def _serve_one(conn: socket.socket) -> None:
    import json

    from deliberation import hook_runner, paths

    try:
        if _peer_uid(conn) != os.getuid():
            return
        conn.settimeout(30)
        request = json.loads(_recv(conn))
        token = paths.REQUEST_ENV.set(request.get("env") or None)
        try:
            out = hook_runner.respond(request["event"], request["data"].encode("latin-1"),
                                      float(request["now"]), project=request["project"])
        finally:
            paths.REQUEST_ENV.reset(token)
        _send(conn, out.encode("utf-8"))
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
        server.bind(_address(name))
    except OSError:
        return 0  # another worker for this code is already serving
    server.listen(128)
    preload()

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
