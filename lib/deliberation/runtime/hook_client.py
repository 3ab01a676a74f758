"""The first thing every hook process runs: hand the event to the warm worker, or run it here.

    hooks/<event>.py  →  main(EVENT)  →  warm worker (one socket round trip)
                                      →  hook_runner.run_here (in this process)

A hook is a fresh interpreter on the user's critical path, and while a deliberation is running
most of a hook's time would be imports. So this module uses builtin modules only (`sys`,
`posix`, `time`) and `_socket`: no `os`, no `json`, no `re` (whose imports alone cost more than
the whole round trip). The hook commands start the interpreter with `-I -S` (no site, no user
environment), which saves the site module too; the in-process path loads site-packages itself
when it needs them (hook_runner).

The exchange with the worker, and what the hook does at each fault:

    connect   the user's private folder checked, the worker's user id checked (worker_socket)
              — anything wrong: no byte is sent, the event is handled here
    request   event, clock, event id, deadline, code stamp, working directory, environment,
              payload
    ← ACK     the worker has the request whole (`S` instead: the worker runs other code —
              handled here, and a new worker is started)
    → GO      the hook commits to waiting; a worker never acts on a request without it, so a
              hook that gave up before the ACK can safely do the work itself
    ← answer  printed. The connection breaks instead (the worker died): the event is handled
              here again under the same event id — a committed event is found in the event log
              and answered as it was, an uncommitted one is applied (`handlers.dispatch`)
    deadline  the worker commits nothing after the event's commit deadline (deadlines.py); the
              hook stops waiting at its answer deadline and says so

The socket is one file per install (lib folder + interpreter) in the user's private folder; the
code stamp (count, sizes and mtimes of lib/deliberation/**/*.py) travels in each request, so a
worker running older code never answers newer hooks.
"""

import posix
import sys
import time

import _socket

from deliberation.wire import deadlines, worker_socket

MAX_PAYLOAD_BYTES = 8 * 1024 * 1024  # a hook's stdin
MAX_ENV_BYTES = 1024 * 1024  # the environment that travels with a request
MAX_REQUEST = MAX_PAYLOAD_BYTES + MAX_ENV_BYTES + 64 * 1024  # payload + environment + the rest
MAX_ANSWER = 16 * 1024 * 1024
CONNECT_TIMEOUT_S = 0.2
ACK_TIMEOUT_S = 1.0  # the worker reads a request as soon as it arrives
PROTOCOL = b"3"
ACK, GO, STALE = b"A", b"G", b"S"


def _normpath(path: str) -> str:
    """posixpath.abspath without importing it: absolute, no '.', '..' or empty parts."""
    if not path.startswith("/"):
        try:
            path = posix.getcwd() + "/" + path
        except OSError:  # the working directory is gone: keep the path as it is
            return path
    parts: "list[str]" = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


_PKG = _normpath(__file__.rpartition("/")[0] or ".").rpartition("/")[0]  # lib/deliberation
LIB = _PKG.rpartition("/")[0] or "/"


def enabled(environ: "dict[bytes, bytes] | None" = None) -> bool:
    value = (environ if environ is not None else posix.environ).get(b"DELIBERATION_WORKER", b"1")
    return value.strip().lower() not in (b"0", b"off", b"false", b"no")


def code_stamp() -> str:
    """Count, total size, and sum and xor of the mtimes of every module of the package: any edit,
    upgrade or added file gives a new stamp, and a worker with another stamp does not answer."""
    count = size = mtime_sum = mtime_xor = 0
    stack = [_PKG]
    while stack:
        folder = stack.pop()
        with posix.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.endswith(".py"):
                    st = entry.stat()
                    count += 1
                    size += st.st_size
                    mtime_sum += st.st_mtime_ns
                    mtime_xor ^= st.st_mtime_ns
                elif name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return f"{count}.{size}.{mtime_sum & 0xFFFFFFFFFFFF:x}.{mtime_xor & 0xFFFFFFFFFFFF:x}"


def socket_path(environ: "dict[bytes, bytes] | None" = None, create: bool = False) -> str:
    """This install's worker socket in the user's private folder (raises worker_socket.Unsafe)."""
    folder = worker_socket.private_dir(environ, create=create)
    return worker_socket.socket_path(folder, LIB, sys.executable)


def new_event_id() -> str:
    """Unique per hook process (pid + clock): the key of an event's idempotent handling."""
    return f"{posix.getpid():x}.{time.time_ns():x}"


# ---------------------------------------------------------------------------------------------
# framing: a 4-byte big-endian length before every message and every field


def frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


def pack_fields(fields: "list[bytes]") -> bytes:
    return b"".join(frame(f) for f in fields)


def unpack_fields(message: bytes) -> "list[bytes]":
    fields, at = [], 0
    while at < len(message):
        size = int.from_bytes(message[at:at + 4], "big")
        if at + 4 + size > len(message):
            raise ValueError("truncated field")
        fields.append(message[at + 4:at + 4 + size])
        at += 4 + size
    return fields


def recv_exact(sock, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed mid-message")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_message(sock, limit: int) -> bytes:
    size = int.from_bytes(recv_exact(sock, 4), "big")
    if size > limit:
        raise ConnectionError(f"message of {size} bytes refused")
    return recv_exact(sock, size)


def env_block(environ: "dict[bytes, bytes]") -> bytes:
    return b"\0".join(k + b"=" + v for k, v in environ.items())


def encode_request(event_name: str, data: bytes, now: float, cwd: bytes, environ: "dict[bytes, bytes]",
                   event_id: str = "", stamp: str = "") -> bytes:
    return pack_fields([PROTOCOL, event_name.encode(), repr(now).encode(), cwd, env_block(environ),
                        event_id.encode(), stamp.encode(), data])


# ---------------------------------------------------------------------------------------------
# the hook's side


class NotDelivered(Exception):
    """The worker did not take the request (or is not ours): the hook does the work itself."""

    def __init__(self, why: str, stale: bool = False) -> None:
        super().__init__(why)
        self.stale = stale  # a worker of other code answered: start one for this code


class AnswerLost(Exception):
    """The worker took the request and then broke the connection: the hook handles the event
    again under the same event id (idempotent)."""


class AnswerLate(Exception):
    """The worker took the request but did not answer by the event's answer deadline."""


def connect(environ: "dict[bytes, bytes] | None" = None):
    """A connection to this install's warm worker, verified as this user's. Raises NotDelivered
    when there is none, or when the folder or the listener cannot be trusted."""
    try:
        path = socket_path(environ)
    except worker_socket.Unsafe as exc:
        raise NotDelivered(str(exc)) from None
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError as exc:
        raise NotDelivered(str(exc)) from None
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        worker_socket.connect(sock, path)
        if not worker_socket.peer_is_me(sock):
            raise NotDelivered("the listener is not this user's")
    except BaseException as exc:
        sock.close()
        if isinstance(exc, NotDelivered):
            raise
        raise NotDelivered(str(exc)) from None
    return sock


def exchange(sock, event_name: str, data: bytes, now: float, event_id: str, stamp: str,
             environ: "dict[bytes, bytes] | None" = None) -> str:
    """Send the event, return the worker's stdout text. Raises NotDelivered (the worker did not
    take it, or runs other code), AnswerLost (taken, then the connection broke) or AnswerLate."""
    environ = posix.environ if environ is None else environ
    try:
        block = env_block(environ)
        if len(block) > MAX_ENV_BYTES:
            raise NotDelivered("environment too large to send")
        try:
            sock.settimeout(ACK_TIMEOUT_S)
            sock.sendall(frame(encode_request(event_name, data, now, posix.getcwdb(), environ,
                                              event_id, stamp)))
            reply = recv_message(sock, 16)
        except (OSError, ConnectionError) as exc:
            raise NotDelivered(str(exc)) from None
        if reply == STALE:
            raise NotDelivered("the worker runs other code", stale=True)
        if reply != ACK:
            raise NotDelivered("unexpected reply")
        try:
            sock.sendall(frame(GO))
        except OSError as exc:  # the worker went away before GO: it never acts without GO
            raise NotDelivered(str(exc)) from None
        wait = deadlines.answer_by(event_name, now) - time.time()
        if wait <= 0:
            raise AnswerLate("no time left to wait for the warm worker")
        sock.settimeout(wait)
        try:
            return recv_message(sock, MAX_ANSWER).decode("utf-8")
        except TimeoutError:
            raise AnswerLate(f"the warm worker did not answer within {deadlines.timeout_s(event_name):g}s") from None
        except (OSError, ConnectionError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise AnswerLost(f"the warm worker broke off ({exc})") from None
    finally:
        sock.close()


def read_stdin(stream, limit: int) -> "tuple[bytes, int]":
    """(at most `limit` + 1 bytes of the payload, its full size): the rest of an oversized payload
    is read and dropped, so memory stays bounded and the client's pipe never stalls."""
    kept = stream.read(limit + 1) or b""
    size = len(kept)
    if size > limit:
        while True:
            chunk = stream.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
    return kept, size


def finish(out: str) -> None:
    """Print the answer and end the process (exit 0, without the interpreter's teardown)."""
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    posix._exit(0)


def main(event_name: str) -> None:
    """Handle one hook event; never raises, always exits 0.

    The connection is made (and its peer verified) before stdin is read: when many hooks start
    at once, the worker meets each one while its payload is still on the way."""
    now = time.time()
    event_id = new_event_id()
    sock = None
    use_worker = enabled()
    if use_worker:
        try:
            sock = connect()
        except NotDelivered:
            pass  # no worker of ours: the work is done here
    try:
        data, size = read_stdin(sys.stdin.buffer, MAX_PAYLOAD_BYTES)
    except (OSError, ValueError):
        data, size = b"", 0
    rerun = False
    if sock is not None:
        if size > MAX_PAYLOAD_BYTES:
            sock.close()  # refused here, in-process, with the usual message
        else:
            try:
                finish(exchange(sock, event_name, data, now, event_id, code_stamp()))
            except NotDelivered:
                pass
            except AnswerLost:
                rerun = True
            except BaseException as exc:  # noqa: BLE001 - AnswerLate: the worker commits nothing after its deadline
                from deliberation.runtime import hook_runner

                finish(hook_runner.failure(event_name, exc, data))
    from deliberation.runtime import hook_runner

    hook_runner.run_here(event_name, data, size, now, start_worker=use_worker, event_id=event_id,
                         rerun=rerun)
