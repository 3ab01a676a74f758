"""The one entry point of every hook process: stdin → answer on stdout, exit 0.

    hooks/<event>.py  →  run(EVENT)  →  fast path (stdlib)  |  handlers.dispatch (slow path)

One error handler wraps everything: an empty or invalid payload, a missing dependency, a lock
timeout, a full disk or a bug becomes a one-line `systemMessage` and the session goes on
(fail-open); the traceback goes to `.claude/deliberation/errors.log`. With `"strict": true` in
the config, internal errors block (Stop only once in a row, so the block loop stays bounded).
Imports here are stdlib-only; heavy modules load only on the slow path.
"""

from __future__ import annotations

import gc
import os
import sys
import time

_PLUGIN_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _use_plugin_venv() -> None:
    """In plugin mode the hooks may run under a bare python3: borrow the plugin venv's packages."""
    site = os.path.join(_PLUGIN_ROOT, ".venv", "lib",
                        f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")
    if site not in sys.path and os.path.isdir(site):
        sys.path.append(site)


def run(event_name: str) -> None:
    """Handle one hook event; never raises, always exits 0.

    The cyclic garbage collector is off for the process: a hook lives a fraction of a second
    and exits, and the collections triggered while pydantic builds the models cost a slow-path
    hook ~10% of its time (bench/README.md). Memory stays far below the 60 MiB bound."""
    gc.disable()
    from deliberation.hookio import MAX_PAYLOAD_BYTES, PayloadError

    try:
        data, size = read_stdin(sys.stdin.buffer, MAX_PAYLOAD_BYTES)
    except (OSError, ValueError):
        data, size = b"", 0
    if size > MAX_PAYLOAD_BYTES:
        out = _fail(event_name, PayloadError(f"payload of {size} bytes exceeds {MAX_PAYLOAD_BYTES}"), b"")
    else:
        out = respond(event_name, data, time.time(), worker=True)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    sys.exit(0)


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


def respond(event_name: str, data: bytes, now: float, project: "str | None" = None,
            worker: bool = False) -> str:
    """`handle` inside the one error handler: the hook's stdout text; never raises.

    This is the whole fail-open layer of `run` (tests call it in-process; the warm worker calls
    it with the hook's project). With `worker`, the slow path is asked of the warm worker."""
    try:
        return handle(event_name, data, now, project, worker)
    except BaseException as exc:  # noqa: BLE001 - the one handler
        if isinstance(exc, (SystemExit, KeyboardInterrupt)):
            return ""
        return _fail(event_name, exc, data, project)


def handle(event_name: str, data: bytes, now: float, project: "str | None" = None,
           worker: bool = False) -> str:
    """Parse, answer on the fast path if possible, else the slow path (through the warm worker
    when `worker`, in-process otherwise). Returns stdout text."""
    event, layout, answer = _fast(event_name, data, now, project)
    if answer is not None:
        return answer.to_json(event_name)
    if worker:
        from deliberation import warm_worker

        if warm_worker.enabled():
            try:
                return warm_worker.ask(event_name, data, now, layout.project)
            except warm_worker.NotDelivered:
                warm_worker.start()
    return slow_answer(event, layout, now).to_json(event_name)


def answer_for(event_name: str, data: bytes, now: float, project: "str | None" = None):
    """The Answer to one event, in-process (used by `deliberation replay`)."""
    event, layout, answer = _fast(event_name, data, now, project)
    return answer if answer is not None else slow_answer(event, layout, now)


def _fast(event_name: str, data: bytes, now: float, project: "str | None"):
    """(event, layout, the fast path's Answer or None when the slow path must decide)."""
    from deliberation import fastpath, hookio
    from deliberation.paths import Layout

    event = hookio.parse(data, event_name)
    layout = Layout(project)
    cfg = fastpath.config_dict(layout)
    return event, layout, (fastpath.answer(event, layout, cfg, now) if cfg is not None else None)


def slow_answer(event, layout, now: float):
    _use_plugin_venv()
    from deliberation.handlers import dispatch

    return dispatch(event, layout, now)


def _fail(event_name: str, exc: BaseException, data: bytes, project: "str | None" = None) -> str:
    """Turn any failure into a visible warning (or, in strict mode, a bounded block)."""
    from deliberation import hookio
    from deliberation.error_handler import describe, known, log_error

    try:
        from deliberation.paths import Layout

        layout = Layout(project)
    except Exception:  # noqa: BLE001
        layout = None
    try:
        errors_log = layout.checked(layout.errors_log) if layout is not None else None
    except Exception:  # noqa: BLE001 - a state dir linked elsewhere gets no log written through it
        errors_log = None
    missing_dep = isinstance(exc, ImportError) and getattr(exc, "name", "") in (
        "pydantic", "filelock", "orjson", "jsonschema", "pydantic_core")
    if missing_dep:
        message = (f"deliberation plugin: dependency missing ({exc}); run {_PLUGIN_ROOT}/install.sh "
                   "to set up its environment — deliberation checks are off until then")
    else:
        path = None if known(exc) else log_error(errors_log, f"hook {event_name}", exc)
        where = f" (details in {path})" if path else ""
        message = f"deliberation plugin: {describe(exc)}{where} — continuing without deliberation checks"
    strict = False
    if layout is not None and not isinstance(exc, hookio.PayloadError):
        from deliberation import fastpath

        strict = fastpath.is_strict(fastpath.read_json(layout.config))
    answer = hookio.Answer(system_message=message)
    if strict:
        answer = _strict_block(event_name, message, data)
    return answer.to_json(event_name)


def _strict_block(event_name: str, message: str, data: bytes) -> "object":
    from deliberation import hookio

    reason = message.replace("continuing without deliberation checks", "strict mode blocks until this is fixed")
    if event_name == "PreToolUse":
        return hookio.Answer.deny(reason, system_message=reason)
    if event_name in ("Stop", "SubagentStop"):
        try:
            import json

            if json.loads(data).get("stop_hook_active"):
                return hookio.Answer(system_message=message)
        except Exception:  # noqa: BLE001
            pass
        return hookio.Answer.block(reason, system_message=reason)
    if event_name == "PostToolUse":
        return hookio.Answer.block(reason, system_message=reason)
    return hookio.Answer(system_message=reason)
