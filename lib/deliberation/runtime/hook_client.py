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

The wire format, the limits and which worker is this install's: wire/worker_protocol.py.
"""

import posix
import sys
import time

import _socket

from deliberation.wire import deadlines, worker_socket
from deliberation.wire.worker_protocol import (ACK, ACK_TIMEOUT_S, CONNECT_TIMEOUT_S, GO, MAX_ANSWER, MAX_ENV_BYTES,
                                               MAX_PAYLOAD_BYTES, STALE, code_stamp, enabled, encode_request,
                                               env_block, frame, new_event_id, recv_message, socket_path)

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
            except BaseException as exc:  # noqa: BLE001 - AnswerLate: the worker commits nothing after its deadline
                from deliberation.runtime import hook_runner

                finish(hook_runner.failure(event_name, exc, data))
    from deliberation.runtime import hook_runner

    finish(hook_runner.run_here(event_name, data, size, now, start_worker=use_worker, event_id=event_id,
                                rerun=rerun))
