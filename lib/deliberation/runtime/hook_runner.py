"""A hook event handled in this process: stdin → answer on stdout, exit 0.

    hooks/<event>.py  →  hook_client.main(EVENT)  →  warm worker: respond(...) there
                                                   →  run_here: respond(...) here
    respond  →  the session's off switch (cheap_answers.switch_answer: off = answered here)
             →  a session start's upkeep (.gitignore, the hourly prune: app/retention)
             →  fast path (stdlib)  |  handlers.dispatch (slow path)

A state folder the plugin cannot use — `.claude` or `.claude/deliberation` linked elsewhere, a
state file linked out of it (a repository may commit either) — makes it stricter, not blind: the
event is answered from itself alone (cheap_answers.stateless_answer: the trigger, the mid-task
net, the state guard) and the person is told what to remove.
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
from deliberation import plugin_root

TYPE_CHECKING = False  # mypy reads the block below; the hook process does not load `typing`
if TYPE_CHECKING:
    from deliberation.state.paths import Layout
    from deliberation.wire import hookio


def _load_site_packages() -> None:
    """Make the slow path's dependencies importable.

    The hook commands run the interpreter with `-S` (no site module: the warm-worker round trip
    and the fast path need none of it), so the first slow path here loads site-packages the way
    the interpreter would have. In plugin mode the hooks may also run under a bare python3:
    then the plugin venv's packages are borrowed."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()
    packages = os.path.join(plugin_root(), ".venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")
    if packages not in sys.path and os.path.isdir(packages):
        sys.path.append(packages)


def run_here(
    event_name: str,
    data: bytes,
    size: int,
    now: float,
    start_worker: bool = False,
    event_id: "str | None" = None,
    rerun: bool = False,
) -> str:
    """Handle one hook event in this process (no warm worker took it): its stdout text.

    The cyclic garbage collector is off for the process: a hook lives a fraction of a second
    and exits, and the collections triggered while pydantic builds the models are pure cost
    (bench/README.md measures them). Memory stays far below the 60 MiB bound.
    With `start_worker`, a slow-path event also starts the warm worker for the hooks after it.
    With `rerun`, a worker took this event and died: it is answered from the event log if it
    was committed, else applied (hook_client explains the exchange)."""
    gc.disable()
    from deliberation.wire.hookio import PayloadError, check_size

    try:
        check_size(size)  # the payload was read up to the limit; its full size decides
    except PayloadError as exc:
        return _fail(event_name, exc, b"")
    return respond(event_name, data, now, start_worker=start_worker, event_id=event_id, rerun=rerun, started=now)


def failure(event_name: str, exc: BaseException, data: bytes) -> str:
    """The stdout text of a hook whose event was lost on the way (fail-open, or strict block)."""
    try:
        return _fail(event_name, exc, data)
    except BaseException:  # noqa: BLE001 - the last resort
        return '{"systemMessage": "deliberation plugin: internal error; continuing without deliberation checks"}'


def respond(
    event_name: str,
    data: bytes,
    now: float,
    project: "str | None" = None,
    start_worker: bool = False,
    event_id: "str | None" = None,
    rerun: bool = False,
    started: "float | None" = None,
    commit_by: "float | None" = None,
) -> str:
    """`handle` inside the one error handler: the hook's stdout text; never raises.

    This is the whole fail-open layer of a hook (tests call it in-process; the warm worker calls
    it with the hook's project). `now` is the event's clock (what state records); `started` is
    when the hook process started (default: now), from which the event's commit deadline
    (deadlines.py) holds for everything it does. With `start_worker`, a slow-path event starts
    the warm worker. `commit_by` overrides the commit deadline (the warm worker's is earlier)."""
    import time

    from deliberation.wire import deadlines
    from deliberation.state import paths

    if commit_by is None:
        commit_by = deadlines.commit_by(event_name, time.time() if started is None else started)
    token = paths.REQUEST_DEADLINE.set(commit_by)
    try:
        return handle(event_name, data, now, project, start_worker, event_id, rerun)
    except BaseException as exc:  # noqa: BLE001 - the one handler
        if isinstance(exc, (SystemExit, KeyboardInterrupt)):
            return ""
        return _fail(event_name, exc, data, project)
    finally:
        paths.REQUEST_DEADLINE.reset(token)


def handle(
    event_name: str,
    data: bytes,
    now: float,
    project: "str | None" = None,
    start_worker: bool = False,
    event_id: "str | None" = None,
    rerun: bool = False,
) -> str:
    """Parse, answer on the fast path if possible, else on the slow path. Returns stdout text.

    With `start_worker` (no warm worker took this event), the worker is started when the slow
    path is needed, and already when the trigger injects the protocol: the spawns that follow
    then find it warm. A `rerun` already in the event log is answered as it was logged."""
    event, layout = _parse(event_name, data, project, event_id, rerun)
    from deliberation.state.paths import UnsafePath

    try:
        # `.claude` or the state folder linked elsewhere (at a session start: or a file of it): nothing
        # read or written through it
        layout.check_root(entries=event_name == "SessionStart")
        return _handle(event, layout, now, event_name, start_worker, rerun)
    except UnsafePath as exc:  # a file the plugin cannot trust makes it stricter, not blind
        from deliberation.runtime.cheap_answers import stateless_answer

        return stateless_answer(event, layout, exc).to_json(event_name)


def _handle(event: "hookio.Event", layout: "Layout", now: float, event_name: str, start_worker: bool, rerun: bool) -> str:
    switched = _switch(event, layout, now)  # the session's off switch, before everything else
    if switched is not None and switched[1]:
        return switched[0].to_json(event_name)
    upkeep = _upkeep(event, layout, now) if event_name == "SessionStart" else None
    answer = _answer(event, layout, now, event_name, start_worker, rerun)
    told = setup_notice(event.session_id, now) if event_name in NOTICE_EVENTS else None
    for note in (switched[0].system_message if switched is not None else None, upkeep, told):
        if note:
            answer.warn(note)
    return answer.to_json(event_name)


# the events whose systemMessage reaches the user (docs/HOOK_ANSWERS.md)
NOTICE_EVENTS = frozenset(("UserPromptSubmit", "PostToolUse", "Stop"))


def setup_notice(session_id: str, now: float) -> "str | None":
    """Plugin form: the end of the set-up this session's start announced, said once
    (plugin_env.later_notice). One stat when there is nothing to say: plugin_env (not on the
    fast path otherwise) is imported only when this session was told a set-up runs."""
    from deliberation.state.paths import hook_env

    environ = hook_env()
    data = environ.get("CLAUDE_PLUGIN_DATA")
    if not data or not session_id or "/" in session_id or session_id.startswith("."):
        return None
    if not os.path.exists(os.path.join(data, "told", session_id)):  # plugin_env.TOLD
        return None
    from deliberation.runtime import plugin_env

    try:
        return plugin_env.later_notice(data, session_id, now, environ)
    except Exception:  # noqa: BLE001 - a notice is never worth an error
        return None


def _upkeep(event: "hookio.Event", layout: "Layout", now: float) -> "str | None":
    """A session start's housekeeping (docs/STORAGE.md): the state folder's .gitignore when a
    clone brought the folder without one, and the hourly prune. A failure is said, never fatal."""
    try:
        from deliberation.app import retention
        from deliberation.state.paths import ensure_gitignore
        from deliberation.state.plain_reads import config_dict

        ensure_gitignore(layout)
        cfg = config_dict(layout)
        if cfg is not None:  # a config being changed is validated on the slow path first
            retention.at_session_start(layout, cfg, event.session_id, now)
    except Exception as exc:  # noqa: BLE001 - pruning is upkeep: the session goes on
        from deliberation.runtime.error_handler import describe
        from deliberation.text.switch import prune_failed

        return prune_failed(describe(exc))
    return None


def _switch(event: "hookio.Event", layout: "Layout", now: float) -> "tuple[hookio.Answer, bool] | None":
    from deliberation.runtime.cheap_answers import switch_answer

    return switch_answer(event, layout, now)


def _answer(
    event: "hookio.Event", layout: "Layout", now: float, event_name: str, start_worker: bool, rerun: bool
) -> "hookio.Answer":
    """The Answer of an event whose checks apply: the logged one of a re-run, the fast path's,
    else the slow path's."""
    if rerun and not _commit_pending(layout, event.session_id):
        from deliberation.state import event_log  # (a pending commit is finished on the slow path first)

        logged = event_log.logged_answer(layout, event.session_id, event.event_id)
        if logged is not None:
            return logged
    answer = _fast(event, layout)
    if answer is not None:
        if start_worker and event_name == "UserPromptSubmit" and answer.context:
            from deliberation.runtime import worker_launch

            worker_launch.start()  # the protocol was injected: spawns follow, let them find it warm
        return answer
    if start_worker:
        from deliberation.runtime import worker_launch

        worker_launch.start()  # for the hooks after this one; this one does its own work
    return slow_answer(event, layout, now)


def answer_for(event_name: str, data: bytes, now: float, project: "str | None" = None) -> "hookio.Answer":
    """The Answer to one event, in-process (used by `deliberation replay`)."""
    event, layout = _parse(event_name, data, project, None, False)
    switched = _switch(event, layout, now)
    if switched is not None and switched[1]:
        return switched[0]
    answer = _fast(event, layout)
    return answer if answer is not None else slow_answer(event, layout, now)


def _parse(
    event_name: str, data: bytes, project: "str | None", event_id: "str | None", rerun: bool
) -> "tuple[hookio.Event, Layout]":
    from deliberation.wire import hookio
    from deliberation.state.paths import Layout

    event = hookio.parse(data, event_name)
    event.event_id = event_id or _new_event_id()
    event.rerun = rerun
    return event, Layout(project)


def _commit_pending(layout: "Layout", session_id: str) -> bool:
    from deliberation.state.plain_reads import commit_pending

    return commit_pending(layout, session_id)


def _new_event_id() -> str:
    from deliberation.wire.worker_protocol import new_event_id

    return new_event_id()


def _fast(event: "hookio.Event", layout: "Layout") -> "hookio.Answer | None":
    """The fast path's Answer, or None when the slow path must decide."""
    from deliberation.runtime import cheap_answers
    from deliberation.state.plain_reads import config_dict

    cfg = config_dict(layout)
    return cheap_answers.answer(event, layout, cfg) if cfg is not None else None


def slow_answer(event: "hookio.Event", layout: "Layout", now: float) -> "hookio.Answer":
    _load_site_packages()
    from deliberation.app.handlers import dispatch

    return dispatch(event, layout, now)


def _fail(event_name: str, exc: BaseException, data: bytes, project: "str | None" = None) -> str:
    """Turn any failure into a visible warning (or, in strict mode, a bounded block)."""
    from deliberation.wire import hookio
    from deliberation.runtime.error_handler import describe, known, log_error

    try:
        from deliberation.state.paths import Layout

        layout = Layout(project)
    except Exception:  # noqa: BLE001 - a log that cannot be written loses the traceback, not the answer
        layout = None
    try:
        errors_log = layout.checked(layout.errors_log) if layout is not None else None
    except Exception:  # noqa: BLE001 - a state dir linked elsewhere gets no log written through it
        errors_log = None
    missing_dep = isinstance(exc, ImportError) and getattr(exc, "name", "") in (
        "pydantic",
        "orjson",
        "jsonschema",
        "pydantic_core",
    )
    if missing_dep:
        import time

        from deliberation.runtime import plugin_env  # plugin form: the state of its own set-up
        from deliberation.state.paths import hook_env

        message = plugin_env.dependency_message(exc, hook_env(), time.time()) or (
            f"deliberation plugin: dependency missing ({exc}); run {plugin_root()}/install.sh "
            "to set up its environment — deliberation checks are off until then"
        )
    else:
        path = None if known(exc) else log_error(errors_log, f"hook {event_name}", exc)
        where = f" (details in {path})" if path else ""
        message = f"deliberation plugin: {describe(exc)}{where} — continuing without deliberation checks"
    strict = False
    if layout is not None and not isinstance(exc, hookio.PayloadError):
        from deliberation.state import consent

        try:  # config.json's `strict`, once this user approved it (consent.py): a repository cannot block
            strict = consent.is_strict(layout)
        except Exception:  # noqa: BLE001 - no config to be read: fail open
            strict = False
    answer = hookio.Answer(system_message=message)
    if strict:
        answer = _strict_block(event_name, message, data)
    return answer.to_json(event_name)


def _strict_block(event_name: str, message: str, data: bytes) -> "hookio.Answer":
    import re

    from deliberation.wire import hookio

    reason = message.replace("continuing without deliberation checks", "strict mode blocks until this is fixed")
    # the model reads no path of the plugin (docs/HOOK_ANSWERS.md); the user's line keeps them
    told = (
        re.sub(r" \(details in [^)]*\)", "", reason).replace(f"{plugin_root()}/install.sh", "the plugin's install.sh")
        + ". Next: tell the user; `deliberation doctor` shows what is wrong."
    )
    if event_name == "PreToolUse":
        return hookio.Answer.deny(told, system_message=reason)
    if event_name in ("Stop", "SubagentStop"):
        try:
            import json

            if json.loads(data).get("stop_hook_active"):
                return hookio.Answer(system_message=message)
        except Exception:  # noqa: BLE001 - an unreadable payload: the strict block stands
            pass
        return hookio.Answer.block(told, system_message=reason)
    if event_name == "PostToolUse":
        return hookio.Answer.block(told, system_message=reason)
    return hookio.Answer(system_message=reason)
