"""How a hook and its warm worker talk: the limits, the framing, the request, and which worker is
this install's.

Builtin modules only (`sys`, `posix`, `time`): the hook process imports this before it knows
whether it has any work (runtime/hook_client.py has the exchange and what the hook does at each
fault; runtime/warm_worker.py the worker's side).

The socket is one file per install (lib folder + interpreter) in the user's private folder
(worker_socket); the code stamp (count, sizes and mtimes of lib/deliberation/**/*.py) travels in
each request, so a worker running older code never answers newer hooks.
"""

import posix
import sys
import time

from deliberation.wire import worker_socket

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import _socket

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
        size = int.from_bytes(message[at : at + 4], "big")
        if at + 4 + size > len(message):
            raise ValueError("truncated field")
        fields.append(message[at + 4 : at + 4 + size])
        at += 4 + size
    return fields


def recv_exact(sock: "_socket.socket", n: int, deadline: "float | None" = None) -> bytes:
    """`n` bytes; with `deadline` (time.monotonic()), all of them by then — a peer that trickles
    a byte at a time cannot stretch the wait (TimeoutError), whatever each recv's timeout."""
    chunks = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the message did not arrive whole in time")
            sock.settimeout(left)
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed mid-message")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_message(sock: "_socket.socket", limit: int, deadline: "float | None" = None) -> bytes:
    """One framed message, refused above `limit` bytes, whole by `deadline` (see recv_exact)."""
    size = int.from_bytes(recv_exact(sock, 4, deadline), "big")
    if size > limit:
        raise ConnectionError(f"message of {size} bytes refused")
    return recv_exact(sock, size, deadline)


def env_block(environ: "dict[bytes, bytes]") -> bytes:
    return b"\0".join(k + b"=" + v for k, v in environ.items())


def encode_request(
    event_name: str, data: bytes, now: float, cwd: bytes, environ: "dict[bytes, bytes]", event_id: str = "", stamp: str = ""
) -> bytes:
    return pack_fields(
        [PROTOCOL, event_name.encode(), repr(now).encode(), cwd, env_block(environ), event_id.encode(), stamp.encode(), data]
    )
