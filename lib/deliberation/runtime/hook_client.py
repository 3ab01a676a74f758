"""The first thing every hook process runs: hand the event to the warm worker (one socket round
trip), or run it here (`hook_runner.run_here`).

Builtin modules and `_socket` only (no `os`, `json` or `re`, whose imports alone cost more than
the round trip); the hook commands start the interpreter with `-I -S`. The exchange: connect
(the private folder and the worker's user id checked, else nothing is sent), request, ← ACK
(the request is whole; `S`: the worker runs other code — handled here and a new worker started),
→ GO (the hook commits to waiting; a worker never acts without it), ← answer. A broken
connection or a worker that holds the event past `deadlines.worker_commit_by` means the event is
handled here under the same event id (idempotent: `handlers.dispatch`), and a worker that held it
loses its socket. Wire format and limits: wire/worker_protocol.py; the boundary: docs/SECURITY.md §6.
"""

import posix
import sys
import time

import _socket

from deliberation.wire import deadlines, worker_socket
from deliberation.wire.worker_protocol import (
    ACK,
    ACK_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    GO,
    MAX_ANSWER,
    MAX_ENV_BYTES,
    MAX_PAYLOAD_BYTES,
    STALE,
    code_stamp,
    enabled,
    encode_request,
    env_block,
    frame,
    new_event_id,
    recv_message,
    socket_path,
)

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import BinaryIO

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


class WorkerHeld(Exception):
    """The worker took the request (GO sent) but did not answer by its deadline: the hook
    removes its socket and handles the event again here under the same event id."""


_CONNECTED: "list" = []  # (path, inode, peer pid) of the socket of the last connection made here


def connect(environ: "dict[bytes, bytes] | None" = None) -> "_socket.socket":
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
        try:
            _CONNECTED[:] = [path, posix.stat(path).st_ino, worker_socket.peer_pid(sock)]
        except OSError:
            _CONNECTED[:] = []
    except BaseException as exc:
        sock.close()
        if isinstance(exc, NotDelivered):
            raise
        raise NotDelivered(str(exc)) from None
    return sock


def exchange(
    sock: "_socket.socket",
    event_name: str,
    data: bytes,
    now: float,
    event_id: str,
    stamp: str,
    environ: "dict[bytes, bytes] | None" = None,
) -> str:
    """Send the event, return the worker's stdout text. Raises NotDelivered (the worker did not
    take it, or runs other code, or too little time is left to give it), AnswerLost (taken, then
    the connection broke) or WorkerHeld (taken, not answered by its deadline)."""
    environ = posix.environ if environ is None else environ
    try:
        block = env_block(environ)
        if len(block) > MAX_ENV_BYTES:
            raise NotDelivered("environment too large to send")
        try:
            sock.settimeout(ACK_TIMEOUT_S)
            sock.sendall(frame(encode_request(event_name, data, now, posix.getcwdb(), environ, event_id, stamp)))
            reply = recv_message(sock, 16, time.monotonic() + ACK_TIMEOUT_S)
        except (OSError, ConnectionError) as exc:
            raise NotDelivered(str(exc)) from None
        if reply == STALE:
            raise NotDelivered("the worker runs other code", stale=True)
        if reply != ACK:
            raise NotDelivered("unexpected reply")
        wait = deadlines.worker_answer_by(event_name, now) - time.time()
        if wait <= 0:  # no GO: the worker never acts on it, the hook does the work itself
            raise NotDelivered("too little time left to hand the event to the warm worker")
        try:
            sock.sendall(frame(GO))
        except OSError as exc:  # the worker went away before GO: it never acts without GO
            raise NotDelivered(str(exc)) from None
        try:
            return recv_message(sock, MAX_ANSWER, time.monotonic() + wait).decode("utf-8")
        except TimeoutError:
            raise WorkerHeld("the warm worker held the event past its deadline") from None
        except (OSError, ConnectionError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise AnswerLost(f"the warm worker broke off ({exc})") from None
    finally:
        sock.close()


SIGKILL = 9


def retire_held_worker() -> None:
    """The worker held an event past its deadline: remove its socket (if it is still that
    worker's), so no further hook hands it an event, and end it. Whatever held it — a thread in a
    loop that keeps the interpreter's lock, so the worker could not even retire by itself — no
    thread of it stays busy after this hook answers. Safe by construction: every event a worker
    holds is re-run under its own id by the hook that sent it (AnswerLost), and a transaction it
    was committing is finished from its redo journal (docs/SECURITY.md §6)."""
    if len(_CONNECTED) != 3:
        return
    path, inode, pid = _CONNECTED
    try:
        if posix.stat(path).st_ino != inode:
            return  # another worker took the path over: this one retires by itself
        posix.unlink(path)
    except OSError:
        return
    if pid and pid != posix.getpid():
        try:
            posix.kill(pid, SIGKILL)
        except OSError:
            pass


def read_stdin(stream: "BinaryIO", limit: int) -> "tuple[bytes, int]":
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
    if event_name == "SessionStart":  # the user's own DELIBERATION, which a project's settings may hide
        from deliberation.runtime import client_env

        client_env.mark(posix.environ)
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
            except WorkerHeld:  # it commits nothing more of this event; not trusted with the next
                retire_held_worker()
                rerun = True
            except BaseException as exc:  # noqa: BLE001 - the last resort
                from deliberation.runtime import hook_runner

                finish(hook_runner.failure(event_name, exc, data))
    from deliberation.runtime import hook_runner

    finish(hook_runner.run_here(event_name, data, size, now, start_worker=use_worker, event_id=event_id, rerun=rerun))
