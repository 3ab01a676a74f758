"""The first thing every hook process runs: hand the event to the warm worker, or run it here.

    hooks/<event>.py  →  main(EVENT)  →  warm worker (one socket round trip)
                                      →  hook_runner.run_here (in this process)

A hook is a fresh interpreter on the user's critical path, and while a deliberation is running
most of a hook's time would be imports. So this module uses builtin modules only (`sys`,
`posix`, `time`) and `_socket`: no `os`, no `json`, no `re` (whose imports alone cost more than
the whole round trip). The hook commands start the interpreter with `-I -S` (no site, no user
environment), which saves the site module too; the in-process path loads site-packages itself
when it needs them (hook_runner).

- A warm worker for this code is listening: the raw payload, the clock, the working directory
  and the environment go to it, its answer is printed, done. The worker runs exactly
  `hook_runner.respond` — fast path and slow path, same code, same locks, same files.
- None is (or the worker is off: `DELIBERATION_WORKER=0`), or the payload is oversized: the
  event is handled in this process (`hook_runner.run_here`), which starts a worker when the
  slow path is needed.
- The worker took the request but gave no answer in time: the hook fails open with a warning
  (never runs a delivered request twice).

The socket lives in the abstract namespace (no file to clean up); its name is derived from the
user id, the plugin's lib folder, the interpreter and a stamp of the code (count, sizes and
mtimes of lib/deliberation/**/*.py): after an upgrade or an edit, hooks talk to a new worker
and the old one idles out. The worker refuses connections from other user ids (SO_PEERCRED).
"""

import posix
import sys
import time

import _socket

MAX_PAYLOAD_BYTES = 8 * 1024 * 1024  # a hook's stdin
MAX_MESSAGE = 64 * 1024 * 1024  # one message between a hook and the warm worker
CONNECT_TIMEOUT_S = 0.2
ANSWER_TIMEOUT_S = 50.0  # under the client's 60 s hook timeout
PROTOCOL = b"2"


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


_PKG = _normpath(__file__.rpartition("/")[0] or ".")
LIB = _PKG.rpartition("/")[0] or "/"


def enabled(environ: "dict[bytes, bytes] | None" = None) -> bool:
    value = (environ if environ is not None else posix.environ).get(b"DELIBERATION_WORKER", b"1")
    return value.strip().lower() not in (b"0", b"off", b"false", b"no")


def _fnv64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def code_stamp() -> str:
    """Count, total size, and sum and xor of the mtimes of every module of the package: any edit,
    upgrade or added file gives a new stamp, hence a new worker."""
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


def socket_name() -> str:
    place = _fnv64(f"{LIB}|{sys.executable}".encode("utf-8", "surrogateescape"))
    return f"deliberation-worker-{posix.getuid()}-{place:016x}-{code_stamp()}"


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


def encode_request(event_name: str, data: bytes, now: float, cwd: bytes,
                   environ: "dict[bytes, bytes]") -> bytes:
    env_block = b"\0".join(k + b"=" + v for k, v in environ.items())
    return pack_fields([PROTOCOL, event_name.encode(), repr(now).encode(), cwd, env_block, data])


# ---------------------------------------------------------------------------------------------
# the hook's side


class NotDelivered(Exception):
    """No worker took the request: the hook must do the work itself."""


class AnswerLost(Exception):
    """The worker took the request but gave no answer: the hook fails open."""


def connect():
    """A connection to this code's warm worker. Raises NotDelivered when none is listening."""
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError as exc:
        raise NotDelivered(str(exc)) from None
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect("\0" + socket_name())
    except OSError as exc:
        sock.close()
        raise NotDelivered(str(exc)) from None
    return sock


def exchange(sock, event_name: str, data: bytes, now: float) -> str:
    """Send the event, return the worker's stdout text. Raises NotDelivered (the request did
    not get through whole: the worker cannot have acted on it) or AnswerLost."""
    try:
        try:
            sock.sendall(frame(encode_request(event_name, data, now, posix.getcwdb(), posix.environ)))
        except OSError as exc:
            raise NotDelivered(str(exc)) from None
        sock.settimeout(ANSWER_TIMEOUT_S)
        try:
            return recv_message(sock, MAX_MESSAGE).decode("utf-8")
        except (OSError, ConnectionError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise AnswerLost(f"the warm worker did not answer ({exc})") from None
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

    The connection is made before stdin is read: when many hooks start at once, the worker
    meets each one while its payload is still on the way."""
    now = time.time()
    sock = None
    if enabled():
        try:
            sock = connect()
        except NotDelivered:
            pass  # no worker for this code: the work is done here
    try:
        data, size = read_stdin(sys.stdin.buffer, MAX_PAYLOAD_BYTES)
    except (OSError, ValueError):
        data, size = b"", 0
    if sock is not None:
        if size > MAX_PAYLOAD_BYTES:
            sock.close()  # refused here, in-process, with the usual message
        else:
            try:
                finish(exchange(sock, event_name, data, now))
            except NotDelivered:
                pass
            except BaseException as exc:  # noqa: BLE001 - delivered (or unknown): never run it twice
                from deliberation import hook_runner

                finish(hook_runner.failure(event_name, exc, data))
    from deliberation import hook_runner

    hook_runner.run_here(event_name, data, size, now, start_worker=enabled())
