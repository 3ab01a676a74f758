"""One error handler for hooks and the CLI (after pre-commit's error_handler).

A known failure becomes one clear line; an unexpected one becomes one line plus "details in
PATH", with the full traceback written to the state dir's `errors.log`. Hooks fail open: the
answer is a visible `systemMessage` and nothing is blocked — unless the user configured
`strict`, in which case the hook blocks (or denies) with the same sentence.
"""

from __future__ import annotations

import os
import time
import traceback


def log_error(errors_log: "str | None", where: str, exc: BaseException) -> "str | None":
    """Append the traceback to errors.log; return its path, or None if it could not be written."""
    if not errors_log:
        return None
    try:
        from deliberation.state.paths import make_dirs

        make_dirs(os.path.dirname(errors_log))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        # O_NONBLOCK: a FIFO a repository planted as errors.log fails here instead of holding the hook
        fd = os.open(errors_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        try:
            import stat

            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            os.write(fd, f"--- {stamp} pid={os.getpid()} {where}\n{text}".encode("utf-8", "replace"))
        finally:
            os.close(fd)
        return errors_log
    except OSError:
        return None


def describe(exc: BaseException) -> str:
    """One line for a person, nothing in it that acts (a path of the project is names.inert)."""
    from deliberation.names import inert, quoted

    text = str(exc).strip().splitlines()
    msg = text[0] if text else ""
    if isinstance(exc, OSError) and exc.strerror:
        msg = f"{exc.strerror}" + (f": {quoted(exc.filename)}" if exc.filename else "")
    name = type(exc).__name__
    return inert(f"{name}: {msg}", 300) if msg else name


def known(exc: BaseException) -> bool:
    """Failures we expect and explain without a traceback pointer."""
    from deliberation.wire.hookio import PayloadError
    from deliberation.state.ids import InvalidId
    from deliberation.state.paths import UnsafePath
    from deliberation.state.user_data import Unavailable

    if isinstance(exc, (PayloadError, InvalidId, UnsafePath, Unavailable)):
        return True
    try:
        from deliberation.state.store import StoreError
    except Exception:  # noqa: BLE001 - a missing dependency is not a store error  # pragma: no cover
        return False
    return isinstance(exc, StoreError)
