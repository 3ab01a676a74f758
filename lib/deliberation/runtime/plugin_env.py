"""The plugin form's own Python environment, kept in `${CLAUDE_PLUGIN_DATA}` (docs/ARCHITECTURE.md,
"The plugin's data folder", lists its files; docs/INSTALL.md what the user sees).

`session_start` compares this version's dependency key with the environment in `current` and,
when there is none or it differs, starts `build` detached and answers at once: the session is
never held up, the hooks use the previous environment (or python3 from PATH) until `current`
switches, and `later_notice` tells the session once how the set-up went. A failed set-up is
reported at every session start and retried after RETRY_AFTER_S. Only the user's own choices
build it (`own_environment`): every variable the project's settings supplied is left out, an
interpreter is never a relative path nor a file inside the project. Stdlib only, importable by
an old python3: it runs before any environment exists and must say when Python is too old.
"""

import os
import sys
import time

# json, re, subprocess and the rest are imported where they are used: a session start that
# finds its environment ready (nearly every one) reads two small files and stats a few more,
# and the imports would cost it more than all of that.

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable, Iterable, TextIO

    from deliberation.state.project_env import Supplied

FORMAT = 1  # bump when the layout of an environment changes: every install builds a new one
MIN_PYTHON = (3, 10)
PYTHON_CANDIDATES = ("python3", "python3.14", "python3.13", "python3.12", "python3.11", "python3.10")
RETRY_AFTER_S = 600  # a failed pip install is tried again at a session start after this
VENV_TIMEOUT_S = 300
PIP_TIMEOUT_S = 900
PROBE_TIMEOUT_S = 5
OFF_VALUES = ("0", "off", "false", "no")
# what the verification imports with the plugin's lib/ on the path: the hooks' slow path
VERIFY_MODULES = ("deliberation.app.handlers",)

CURRENT = "current"
ENVS = "envs"
MARKER = "env.json"
BROKEN = "broken"
ANNOUNCED = "announced"
LOCK = "setup.lock"
STATUS = "setup.json"
LOG = "setup.log"
PIP_CACHE = "pip-cache"
ROOT = "root"
TOLD = "told"  # hook_runner.setup_notice checks told/<session id> with one stat
PAYLOAD_LIMIT = 1 << 20  # a SessionStart payload is a few hundred bytes
TOLD_KEEP_S = 6 * 3600  # a told/ entry this old is of a session that ended without hearing it
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

# the steps `session_start` can take
READY, ANNOUNCE, RUNNING, FAILED, BUILD = "ready", "announce", "running", "failed", "build"

_HEX = frozenset("0123456789abcdef")
_DIGITS = frozenset("0123456789")


# ---------------------------------------------------------------------------------------------
# the dependency list and its key


def read_dependencies(pyproject_text: str) -> "list[str]":
    """The `dependencies` array of pyproject.toml's [project] table, as written.

    A small reader rather than tomllib (3.11+): the key must come out the same whatever
    interpreter computes it, and this runs before any environment exists. It reads the one
    shape the array has — quoted strings, commas, comments, spread over lines."""
    table = None
    collecting = False
    items = []
    for raw in pyproject_text.splitlines():
        strings, rest = _split_strings(raw)
        if collecting:
            items.extend(strings)
            if "]" in rest:
                return items
            continue
        bare = rest.strip()
        if bare.startswith("["):
            table = bare.strip("[] ")
            continue
        if table == "project" and bare.startswith("dependencies"):
            after = bare[len("dependencies") :].lstrip()
            if after.startswith("=") and after[1:].lstrip().startswith("["):
                items.extend(strings)
                if "]" in after[1:].lstrip()[1:]:
                    return items
                collecting = True
    if collecting:
        raise ValueError("pyproject.toml: the dependencies array is not closed")
    return []


def _split_strings(line: str) -> "tuple[list[str], str]":
    """(the quoted strings of a TOML line, the line without them and without its comment)."""
    strings, rest, i = [], [], 0
    while i < len(line):
        ch = line[i]
        if ch == "#":
            break
        if ch in "\"'":
            j, buf = i + 1, []
            while j < len(line) and line[j] != ch:
                if ch == '"' and line[j] == "\\" and j + 1 < len(line):
                    j += 1
                buf.append(line[j])
                j += 1
            strings.append("".join(buf))
            i = j + 1
            continue
        rest.append(ch)
        i += 1
    return strings, "".join(rest)


def normalized(deps: "Iterable[str]") -> "list[str]":
    """Each requirement without spaces, lower-case, sorted: the same list however it is written."""
    return sorted("".join(d.split()).lower() for d in deps if d.strip())


def dependency_key(deps: "Iterable[str]") -> str:
    """16 hex digits naming one dependency list (and this module's FORMAT): FNV-1a, 64 bits —
    a name, not a defence (hashlib's import alone would cost a session start more than all the
    rest)."""
    text = "deliberation-plugin-env/%d\n%s" % (FORMAT, "\n".join(normalized(deps)))
    h = 0xCBF29CE484222325
    for byte in bytearray(text.encode("utf-8")):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def distribution_name(requirement: str) -> str:
    import re

    m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return m.group(1) if m else requirement.strip()


def plugin_dependencies(plugin_root: str) -> "list[str]":
    with open(os.path.join(plugin_root, "pyproject.toml"), encoding="utf-8") as fh:
        return read_dependencies(fh.read())


# ---------------------------------------------------------------------------------------------
# what is there (reads only)


class Status(object):
    """What a session start sees: the key wanted, the environment in `current`, whether it was
    announced, a running set-up, and the last set-up's record (the last two read only when
    asked for: a ready environment needs neither)."""

    __slots__ = ("key", "current", "current_key", "current_ready", "announced", "_running", "_last", "_data_dir")

    def __init__(
        self,
        key: "str | None",
        current: "str | None" = None,
        current_key: "str | None" = None,
        current_ready: bool = False,
        announced: bool = False,
        running: "bool | None" = None,
        last: "dict[str, Any] | None" = None,
        data_dir: "str | None" = None,
    ) -> None:
        self.key = key
        self.current = current  # "envs/<name>" or None
        self.current_key = current_key  # the key that environment was built for (its name says)
        self.current_ready = current_ready  # finished, its python runs, not marked broken
        self.announced = announced  # "ready" was said once
        self._running = running
        self._last = last
        self._data_dir = data_dir

    @property
    def running(self) -> bool:
        if self._running is None:
            self._running = bool(self._data_dir) and set_up_running(self._data_dir)  # type: ignore[arg-type]  # bool() saw it set
        return self._running

    @property
    def last(self) -> "dict[str, Any]":
        if self._last is None:
            self._last = (read_json(os.path.join(self._data_dir, STATUS)) if self._data_dir else None) or {}
        return self._last


def read_current(data_dir: str) -> "str | None":
    """'envs/<name>' from `current`, or None when there is none (or it is not one of ours)."""
    try:
        with open(os.path.join(data_dir, CURRENT), encoding="utf-8") as fh:
            value = fh.readline().strip()
    except (OSError, ValueError):
        return None
    head, _, name = value.partition("/")
    key, dash, n = name.partition("-")
    ok = head == ENVS and len(key) == 16 and set(key) <= _HEX and dash and n != "" and set(n) <= _DIGITS
    return value if ok else None


def read_json(path: str) -> "dict[str, Any] | None":
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def env_python(data_dir: str, current: str) -> str:
    return os.path.join(data_dir, current, "bin", "python")


def set_up_running(data_dir: str) -> bool:
    """True while a set-up process holds the lock (a killed one holds nothing)."""
    import fcntl

    try:
        fd = os.open(os.path.join(data_dir, LOCK), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases a shared lock taken here
    return False


def observe(plugin_root: str, data_dir: str) -> "Status":
    key = dependency_key(plugin_dependencies(plugin_root))
    current = read_current(data_dir)
    current_key, ready, announced = None, False, False
    if current is not None:
        folder = os.path.join(data_dir, current)
        current_key = current.partition("/")[2].partition("-")[0]
        ready = (
            os.path.exists(os.path.join(folder, MARKER))
            and os.path.exists(env_python(data_dir, current))  # a removed base python leaves a dangling link
            and not os.path.exists(os.path.join(folder, BROKEN))
        )
        announced = os.path.exists(os.path.join(folder, ANNOUNCED))
    return Status(key, current, current_key, ready, announced, data_dir=data_dir)


# ---------------------------------------------------------------------------------------------
# the decision (pure)


def next_step(status: "Status", now: float, retry_after_s: float = RETRY_AFTER_S) -> str:
    """What a session start does, from what it sees."""
    if status.current_ready and status.current_key == status.key:
        if not status.announced and status.last.get("state") == "ready" and status.last.get("key") == status.key:
            return ANNOUNCE
        return READY
    last = status.last
    if status.running:
        return RUNNING
    if (
        last.get("state") == "failed"
        and last.get("key") == status.key
        and last.get("retry")
        and now < _number(last.get("finished")) + retry_after_s
    ):
        return FAILED
    return BUILD


def _number(value: object) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 90:
        return "%d s" % seconds
    return "%d min" % round(seconds / 60.0)


def _clock(ts: float) -> str:
    return time.strftime("%H:%M", time.localtime(ts))


# A first set-up downloads and installs pydantic (with pydantic-core), orjson and jsonschema
# (with its four dependencies) into a new venv: 13-25 s measured in real first sessions on an idle
# machine with an empty pip cache; 107 s on a 2-CPU machine at load average 10.
FIRST_SETUP_S = (13, 25)


def estimate(last: "dict[str, Any]") -> str:
    """How long the set-up about to start will take: the last one's time when there was one,
    else the measured range of a first set-up."""
    took = _number(last.get("finished")) - _number(last.get("started"))
    if last.get("state") == "ready" and took > 0:
        return "the last set-up took %s" % _ago(took)
    return "usually %d-%d s, longer on a slow network or a busy machine" % FIRST_SETUP_S


def meanwhile(status: "Status", deps_here: "bool | None") -> str:
    """What serves while a set-up runs, as a sentence: the previous environment (an update), the
    interpreter this hook runs in when it already has the dependencies (a clone's own .venv, a
    python3 that has them), else nothing — the checks wait."""
    if status.current_ready:
        return "The previous environment serves until then"
    if deps_here:
        return "Meanwhile the deliberation checks run with %s, which has the dependencies" % sys.executable
    return "The deliberation checks run as soon as it is ready"


def message(
    step: str,
    status: "Status",
    now: float,
    data_dir: str,
    retry_after_s: float = RETRY_AFTER_S,
    deps_here: bool = False,
    environ: "dict[str, str] | None" = None,
) -> "str | None":
    """The line the person sees at session start (a systemMessage: never read by the model)."""
    log = os.path.join(data_dir, LOG)
    last = status.last
    if step == ANNOUNCE:
        took = _number(last.get("finished")) - _number(last.get("started"))
        return "deliberation: the plugin's Python environment is ready (set up in %s); the deliberation checks run.%s" % (
            _ago(took),
            command_hint(environ),
        )
    if step == RUNNING:
        return (
            "deliberation: still setting up the plugin's Python environment (started %s ago). "
            "%s (a later message in this session says when it is ready). Progress: %s"
            % (_ago(now - _number(last.get("started")) if last.get("started") else 0), meanwhile(status, deps_here), log)
        )
    if step == FAILED:
        serves = (
            "the previous environment serves until then"
            if status.current_ready
            else "the deliberation checks are off until it is set up"
        )
        return (
            "deliberation: could not set up the plugin's Python environment: %s. %s%s; it is "
            "tried again at a session start after %s, or now with `! deliberation setup --retry`. "
            "Details: %s"
            % (
                last.get("reason") or "unknown error",
                serves[0].upper(),
                serves[1:],
                _clock(_number(last.get("finished")) + retry_after_s),
                log,
            )
        )
    if step == BUILD:
        if status.current_ready:
            return (
                "deliberation: updating the plugin's Python environment in the background "
                "(its dependencies changed); the current one serves until the new one is "
                "ready. Progress: %s" % log
            )
        return (
            "deliberation: setting up the plugin's Python environment in the background "
            "(first session after an install, or the environment was missing or broken; %s). "
            "%s (a later message in this session says when it is ready; "
            "`! deliberation setup` waits for it here). Progress: %s" % (estimate(last), meanwhile(status, deps_here), log)
        )
    return None


def finished_message(last: "dict[str, Any]", environ: "dict[str, str] | None" = None) -> str:
    """The line of `later_notice` when the set-up of this session's start has finished."""
    took = _number(last.get("finished")) - _number(last.get("started"))
    return "deliberation: set-up finished in %s; the deliberation checks are on (the plugin's Python environment is ready).%s" % (
        _ago(took),
        command_hint(environ),
    )


def command_hint(environ: "dict[str, str] | None") -> str:
    """' <the step that puts `deliberation` on a terminal's PATH>' when a terminal has none, else ''."""
    if environ is None:
        return ""
    try:
        from deliberation.runtime import command_path

        if command_path.on_path(environ):
            return ""
    except Exception:  # noqa: BLE001 - a hint is never worth an error
        return ""
    return " For a terminal: `! deliberation setup --command` puts the `deliberation` command (status, doctor) on your PATH."


def no_python_message(found: "list[str]") -> str:
    seen = ", ".join(found) if found else "no python3 on PATH"
    return (
        "deliberation: cannot set up the plugin's Python environment: it needs Python %d.%d "
        "or newer (found: %s). Install one as python3 on PATH, or point DELIBERATION_PYTHON "
        "at one; the deliberation checks are off until then." % (MIN_PYTHON + (seen,))
    )


_NETWORK_SIGNS = (
    "Temporary failure in name resolution",
    "Name or service not known",
    "NewConnectionError",
    "Network is unreachable",
    "Connection refused",
    "ConnectTimeout",
    "Read timed out",
    "Max retries exceeded",
    "Could not fetch URL",
    "No matching distribution found",
    "Could not find a version that satisfies",
)


def failure_reason(step: str, returncode: "int | None", output: "str | None") -> str:
    """A short reason for a failed step, from the tool's exit code and output."""
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    last = next((line for line in reversed(lines) if line.startswith("ERROR")), lines[-1] if lines else "")
    if step == "venv":
        if "ensurepip" in (output or "") or "No module named venv" in (output or ""):
            return "Python's venv module cannot create environments here (on Debian/Ubuntu: install the python3-venv package)"
        return "creating the virtual environment failed (exit %s): %s" % (returncode, last[:300])
    if "No space left on device" in (output or ""):
        return "the disk is full"
    if step == "pip":
        if any(sign in (output or "") for sign in _NETWORK_SIGNS):
            return "pip could not download the dependencies — offline, or the package index is unreachable (%s)" % last[:300]
        return "pip install failed (exit %s): %s" % (returncode, last[:300])
    return "%s failed (exit %s): %s" % (step, returncode, last[:300])


# ---------------------------------------------------------------------------------------------
# the session-start step (hooks/session_start_env.py)


def enabled(environ: "dict[str, str]") -> bool:
    return environ.get("DELIBERATION_SELF_SETUP", "1").strip().lower() not in OFF_VALUES


def session_start(
    plugin_root: str,
    data_dir: str,
    environ: "dict[str, str]",
    now: float,
    session_id: "str | Callable[[], str | None] | None" = None,
    deps_here: "bool | None" = None,
) -> "str | None":
    """Check the environment, start a set-up when one is needed; the message to show, or None.
    A session told that a set-up runs is noted in told/ (`later_notice` tells it the end).
    `deps_here`: whether this interpreter (the one hooks/run.sh picks for every hook) already
    has the dependencies; None = look (only when a set-up is said to be running).
    `session_id` may be a function that returns it (called only when a step needs it)."""
    if callable(session_id):
        session_id = _Lazy(session_id)
    status = observe(plugin_root, data_dir)
    retire_previous_version(plugin_root, data_dir, status, environ)
    step = next_step(status, now)
    if step in (READY, ANNOUNCE):
        _forget_told(data_dir, now)
    if step == READY:
        return None
    if step == ANNOUNCE:
        try:
            _write_private(os.path.join(data_dir, status.current, ANNOUNCED), "%d\n" % now)  # type: ignore[arg-type]  # ready: set
        except OSError:
            pass
        _untell(data_dir, session_id)  # a resumed session hears it here, not once more later
        return message(step, status, now, data_dir, environ=environ)
    if deps_here is None and step in (RUNNING, BUILD) and not status.current_ready:
        deps_here = has_dependencies(plugin_root)
    if step != BUILD:
        if step == RUNNING:
            _tell(data_dir, session_id)
        return message(step, status, now, data_dir, deps_here=bool(deps_here))
    notes: "list[str]" = []
    python, found = find_python(environ, notes=notes)
    private_folder(data_dir)
    if python is None:
        _write_status(
            data_dir,
            {
                "state": "failed",
                "key": status.key,
                "started": now,
                "finished": now,
                "reason": "no Python >= %d.%d" % MIN_PYTHON,
                "retry": False,
            },
        )
        return _with_notes(no_python_message(found), notes)
    start_build(python, plugin_root, data_dir, environ)
    _tell(data_dir, session_id)
    return _with_notes(message(step, status, now, data_dir, deps_here=bool(deps_here)), notes)


def has_dependencies(plugin_root: str) -> bool:
    """Whether this interpreter finds the dependencies where hook_runner's slow path looks for
    them (its site-packages, then <plugin>/.venv's): then the checks already run."""
    import importlib.util

    try:
        if sys.flags.no_site and "site" not in sys.modules:
            import site

            site.main()
        packages = os.path.join(plugin_root, ".venv", "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        if packages not in sys.path and os.path.isdir(packages):
            sys.path.append(packages)
        return all(importlib.util.find_spec(name) is not None for name in ("pydantic", "orjson", "jsonschema"))
    except Exception:  # noqa: BLE001 - a message's wording: not worth failing over
        return False


class _Lazy(object):
    """A session id computed the first time it is asked for."""

    __slots__ = ("_get", "_value", "_done")
    _value: "str | None"

    def __init__(self, get: "Callable[[], str | None]") -> None:
        self._get, self._value, self._done = get, None, False

    def __call__(self) -> "str | None":
        if not self._done:
            self._value, self._done = self._get(), True
        return self._value


def safe_session_id(session_id: object) -> "str | None":
    """The session id when it can name a file (the client's are UUIDs), else None."""
    if isinstance(session_id, _Lazy):
        session_id = session_id()
    if not isinstance(session_id, str) or not 0 < len(session_id) <= 128 or session_id.startswith("."):
        return None
    return session_id if set(session_id) <= _ID_CHARS else None


def _tell(data_dir: str, session_id: object) -> None:
    sid = safe_session_id(session_id)
    if sid is None:
        return
    try:
        private_folder(os.path.join(data_dir, TOLD))
        _write_private(os.path.join(data_dir, TOLD, sid), "")
    except OSError:
        pass  # the end is said at the next session start instead


def _untell(data_dir: str, session_id: object) -> None:
    sid = safe_session_id(session_id)
    if sid is not None:
        try:
            os.unlink(os.path.join(data_dir, TOLD, sid))
        except OSError:
            pass


def _forget_told(data_dir: str, now: float, keep_s: float = TOLD_KEEP_S) -> None:
    """Remove the told/ entries of sessions that never asked again (they ended): older than
    `keep_s`; the folder goes when it is empty. Nearly every session start finds no folder."""
    folder = os.path.join(data_dir, TOLD)
    if not os.path.isdir(folder):
        return
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > keep_s:
                os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass  # not empty: a running session has still to hear it


def later_notice(data_dir: str, session_id: object, now: float, environ: "dict[str, str] | None" = None) -> "str | None":
    """The line that tells a session whose start said "setting up" how the set-up ended — once,
    from the first hook that asks after it ended (hook_runner.setup_notice: UserPromptSubmit,
    PostToolUse and Stop, whose systemMessage reaches the user); None while it runs, or when this
    session was not told or was told already. The told/ file is the claim: the one hook that
    removes it says it."""
    sid = safe_session_id(session_id)
    if sid is None:
        return None
    told = os.path.join(data_dir, TOLD, sid)
    if not os.path.exists(told):
        return None
    last = read_json(os.path.join(data_dir, STATUS)) or {}
    state = last.get("state")
    if state not in ("ready", "failed") or set_up_running(data_dir):
        return None  # still running (a killed one: the next session start sees to it)
    current = read_current(data_dir)
    if state == "ready" and current != last.get("env"):
        return None  # `current` switches just before the record says ready
    try:
        os.unlink(told)
    except OSError:
        return None  # another hook of this session said it
    if state == "ready":
        try:
            _write_private(
                os.path.join(data_dir, current, ANNOUNCED),  # type: ignore[arg-type]  # ready: `env` named it
                "%d\n" % now,
            )  # the next session start says nothing more of it
        except OSError:
            pass
        return finished_message(last, environ)
    ready = current is not None and os.path.exists(os.path.join(data_dir, current, MARKER))
    return message(FAILED, Status(last.get("key"), current, current_ready=ready, last=last, data_dir=data_dir), now, data_dir)


def _with_notes(text: "str | None", notes: "list[str]") -> "str | None":
    notes = [n for n in dict.fromkeys(notes) if n]
    if not notes:
        return text
    return "%s (%s)" % (text, "; ".join(notes))


# what the set-up must not take from a project whose settings could not be read (project_env)
SENSITIVE_PREFIXES = ("PIP_", "DELIBERATION_", "PYTHON", "UV_", "CONDA", "VIRTUAL_ENV")
SENSITIVE_NAMES = (
    "PATH",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "http_proxy",
    "https_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
)
SYSTEM_PATH = ("/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin")


def _project_of(environ: "dict[str, str]") -> "str | None":
    return environ.get("CLAUDE_PROJECT_DIR") or None


def own_environment(environ: "dict[str, str]", project: "str | None" = None) -> "tuple[dict[str, str], list[str], Supplied]":
    """(the environment of the user's own choices, the names left out, what the project supplied):
    `environ` without every variable the project's settings supplied (all of SENSITIVE_* when
    they could not be read), PATH without relative entries or entries inside the project (the
    system's PATH when the project chose it), HOME the user's own when the project chose it."""
    from deliberation.state import project_env

    project = project or _project_of(environ)
    by = project_env.supplied(project, environ)
    out, ignored = {}, []
    for name, value in environ.items():
        chose = name in by.names or (by.unknown and (name in SENSITIVE_NAMES or name.startswith(SENSITIVE_PREFIXES)))
        if chose and not name.startswith("CLAUDE_"):
            ignored.append(name)
        else:
            out[name] = value
    out["PATH"] = safe_path(out.get("PATH"), project)
    if "HOME" not in out:
        from deliberation.state.user_data import home

        out["HOME"] = home()
    return out, sorted(ignored), by


def safe_path(path: "str | None", project: "str | None") -> str:
    """PATH's absolute entries outside the project (the system's when none is left)."""
    root = os.path.realpath(project) + os.sep if project else None
    keep = []
    for entry in (path or "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        if root and (os.path.realpath(entry) + os.sep).startswith(root):
            continue
        keep.append(entry)
    return os.pathsep.join(keep or SYSTEM_PATH)


def retire_previous_version(plugin_root: str, data_dir: str, status: "Status", environ: "dict[str, str]") -> None:
    """After an update that moved the plugin to a new folder (a marketplace installs each
    version in its own), retire the warm worker of the previous folder: remove its socket,
    and it exits within a second. Its folder stays (the client keeps old versions), so nothing
    else would tell it before it idles out. Best effort; the socket's place is worker_socket's."""
    lib = os.path.normpath(os.path.join(os.path.abspath(plugin_root), "lib"))
    path = os.path.join(data_dir, ROOT)
    try:
        with open(path, encoding="utf-8") as fh:
            previous = fh.readline().strip()
    except (OSError, ValueError):
        previous = ""
    if previous == lib:
        return
    if previous and status.current is not None:
        try:
            from deliberation.wire import worker_socket

            python = os.path.normpath(os.path.abspath(env_python(data_dir, status.current)))
            folder = worker_socket.private_dir({os.fsencode(k): os.fsencode(v) for k, v in environ.items()}, create=False)
            os.unlink(worker_socket.socket_path(folder, previous, python))
        except Exception:  # noqa: BLE001 - no folder, no socket, another platform: nothing to retire
            pass
    try:
        _write_text(path, lib + "\n", durable=False)
    except OSError:
        pass


def find_python(environ: "dict[str, str]", notes: "list[str] | None" = None) -> "tuple[str | None, list[str]]":
    """(the first interpreter >= 3.10 among the candidates, what was found) — the base
    interpreter of a venv, so the plugin's environment does not hang on another venv. Only the
    user's own choices count (own_environment): DELIBERATION_PYTHON from the project's settings
    is ignored, a relative one is never used, nothing inside the project is run; why goes to
    `notes`."""
    import subprocess

    notes = [] if notes is None else notes
    project = _project_of(environ)
    env, ignored, by = own_environment(environ, project)
    probe = (
        "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(getattr(sys, '_base_executable', None) or sys.executable)"
    )
    names = []
    chosen = environ.get("DELIBERATION_PYTHON")
    if chosen and "DELIBERATION_PYTHON" in ignored:
        from deliberation.state import project_env

        notes.append(project_env.note(["DELIBERATION_PYTHON"] + (["PATH"] if "PATH" in ignored else []), by))
    elif chosen and "/" in chosen and not os.path.isabs(chosen):
        notes.append(
            "ignored DELIBERATION_PYTHON=%s: a relative path would resolve inside the project; give an absolute path" % chosen
        )
    elif chosen and _inside(chosen, project):
        notes.append("ignored DELIBERATION_PYTHON=%s: it lies inside the project" % chosen)
    elif chosen:
        names.append(chosen)
    elif "PATH" in ignored:
        from deliberation.state import project_env

        notes.append(project_env.note(["PATH"], by))
    names.extend(PYTHON_CANDIDATES)
    found, seen = [], set()
    for name in names:
        exe = _which(name, env["PATH"])
        if exe is not None and _inside(exe, project):
            continue
        if exe is None or exe in seen:
            continue
        seen.add(exe)
        try:
            out = subprocess.run(
                [exe, "-I", "-c", probe],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                timeout=PROBE_TIMEOUT_S,
            ).stdout.decode()
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            continue
        lines = out.split()
        if len(lines) != 2:
            continue
        version, base = lines
        found.append("%s %s" % (name, version))
        try:
            ok = tuple(int(p) for p in version.split(".")[:2]) >= MIN_PYTHON
        except ValueError:
            ok = False
        if ok:
            return (base if os.path.isabs(base) and os.access(base, os.X_OK) else exe), found
    return None, found


def _inside(path: str, project: "str | None") -> bool:
    if not project:
        return False
    return (os.path.realpath(path) + os.sep).startswith(os.path.realpath(project) + os.sep)


def _which(name: str, path: str) -> "str | None":
    if "/" in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def start_build(python: str, plugin_root: str, data_dir: str, environ: "dict[str, str]") -> None:
    """Start `build` detached (its own session: it outlives the hook and the client's session)."""
    import subprocess

    private_folder(data_dir)
    env, ignored, _by = own_environment(environ)
    env["DELIBERATION_SETUP_IGNORED"] = ",".join(ignored)  # for the set-up's log (its env no longer has them)
    log = os.fdopen(_open_private(os.path.join(data_dir, LOG), os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")
    try:
        subprocess.Popen(
            [python, "-I", "-S", os.path.abspath(__file__), "build", plugin_root, data_dir],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=data_dir,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
    finally:
        log.close()


def hook_main() -> None:
    """The SessionStart hook: never blocks, never fails the session; one systemMessage or none."""
    try:  # only the session id is needed: read bounded, the rest drained (the client's pipe never stalls)
        payload = sys.stdin.buffer.read(PAYLOAD_LIMIT + 1)
        while payload and len(payload) > PAYLOAD_LIMIT and sys.stdin.buffer.read(1 << 20):
            pass
        payload = payload[: PAYLOAD_LIMIT + 1]
    except (OSError, ValueError):
        payload = b""
    environ = dict(os.environ)
    data_dir = environ.get("CLAUDE_PLUGIN_DATA")
    from deliberation import plugin_root

    root = environ.get("CLAUDE_PLUGIN_ROOT") or plugin_root()
    text = None
    if data_dir and enabled(environ):
        try:
            # the id is parsed only when a step needs it: nearly every start needs no json
            text = session_start(root, data_dir, environ, time.time(), session_id=lambda: _session_id(payload))
        except Exception as exc:  # noqa: BLE001 - the session goes on
            text = "deliberation: checking the plugin's Python environment failed (%s: %s); the session goes on" % (
                type(exc).__name__,
                exc,
            )
    if text:
        import json

        sys.stdout.write(json.dumps({"systemMessage": text}) + "\n")
    sys.stdout.flush()


def _session_id(payload: bytes) -> "str | None":
    if b'"session_id"' not in payload:
        return None
    import json

    try:
        value = json.loads(payload).get("session_id")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


# ---------------------------------------------------------------------------------------------
# the set-up itself (a detached process)


def build(
    plugin_root: str,
    data_dir: str,
    environ: "dict[str, str] | None" = None,
    now: "Callable[[], float]" = time.time,
    verify_modules: "Iterable[str]" = VERIFY_MODULES,
) -> int:
    """Build the environment for this plugin version's dependencies, then switch `current` to
    it and remove the others. One at a time (the lock); a failure leaves `current` as it was.
    Returns 0 when the environment is ready (or another set-up is building), 1 on failure."""
    import fcntl
    import shutil

    environ, ignored, _by = own_environment(dict(os.environ if environ is None else environ))
    ignored = sorted(set(ignored) | set(filter(None, environ.pop("DELIBERATION_SETUP_IGNORED", "").split(","))))
    private_folder(data_dir)
    os.makedirs(os.path.join(data_dir, ENVS), exist_ok=True)
    lock_fd = _open_private(os.path.join(data_dir, LOCK), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock_fd)
        return 0  # another set-up is building
    try:
        deps = plugin_dependencies(plugin_root)
        key = dependency_key(deps)
        status = observe(plugin_root, data_dir)
        if status.current_ready and status.current_key == key:
            return 0
        started = now()
        _write_status(data_dir, {"state": "running", "key": key, "started": started, "pid": os.getpid()})
        with os.fdopen(
            _open_private(os.path.join(data_dir, LOG), os.O_WRONLY | os.O_TRUNC | os.O_CREAT), "w", encoding="utf-8"
        ) as log:
            if ignored:
                log.write("ignored (set by the project's settings, not by you): %s\n" % ", ".join(ignored))
            _remove_stale(data_dir, keep=status.current, shutil=shutil)
            name = "%s-%d" % (key, int(started * 1000))
            target = os.path.join(data_dir, ENVS, name)
            python = sys.executable
            failure = _make_env(python, target, deps, plugin_root, data_dir, environ, verify_modules, log)
            if failure is not None:
                shutil.rmtree(target, ignore_errors=True)
                _write_status(
                    data_dir,
                    {"state": "failed", "key": key, "started": started, "finished": now(), "reason": failure, "retry": True},
                )
                log.write("\nset-up failed: %s\n" % failure)
                return 1
            _write_marker(target, key, deps, python, started)
            _switch(data_dir, "%s/%s" % (ENVS, name))
            _remove_stale(data_dir, keep="%s/%s" % (ENVS, name), shutil=shutil)
            finished = now()
            _write_status(
                data_dir, {"state": "ready", "key": key, "started": started, "finished": finished, "env": "%s/%s" % (ENVS, name)}
            )
            log.write("\nset-up done in %.1f s: %s\n" % (finished - started, target))
            return 0
    except BaseException as exc:  # the record must say what happened
        try:
            _write_status(
                data_dir,
                {
                    "state": "failed",
                    "key": None,
                    "finished": now(),
                    "retry": True,
                    "reason": "the set-up stopped: %s: %s" % (type(exc).__name__, exc),
                },
            )
        except OSError:
            pass  # the data folder is gone (an uninstall while building)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return 1
    finally:
        os.close(lock_fd)


def _make_env(
    python: str,
    target: str,
    deps: "list[str]",
    plugin_root: str,
    data_dir: str,
    environ: "dict[str, str]",
    verify_modules: "Iterable[str]",
    log: "TextIO",
) -> "str | None":
    """Create the venv, install the dependencies, verify; None, or the reason it failed."""
    import errno
    import subprocess

    steps = [("venv", [python, "-I", "-m", "venv", target] + ([] if deps else ["--without-pip"]), VENV_TIMEOUT_S)]
    env_py = os.path.join(target, "bin", "python")
    if deps:
        pip = [env_py, "-I", "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off"]
        if not environ.get("PIP_CACHE_DIR"):
            pip += ["--cache-dir", os.path.join(data_dir, PIP_CACHE)]
        steps.append(("pip", pip + list(deps), PIP_TIMEOUT_S))
    verify = (
        "import importlib, importlib.metadata as md, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "for name in sys.argv[2].split():\n    md.distribution(name)\n"
        "for name in sys.argv[3].split():\n    importlib.import_module(name)\n"
    )
    steps.append(
        (
            "verify",
            [
                env_py,
                "-I",
                "-B",
                "-c",
                verify,
                os.path.join(plugin_root, "lib"),
                " ".join(distribution_name(d) for d in deps),
                " ".join(verify_modules),
            ],
            120,
        )
    )
    env = {k: v for k, v in environ.items() if not k.startswith("PYTHON")}
    for step, argv, timeout in steps:
        log.write("$ %s\n" % " ".join(argv if step != "verify" else argv[:4] + ["<verify>"]))
        log.flush()
        try:
            proc = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=data_dir,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "%s did not finish within %d s" % (step, timeout)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                return "the disk is full"
            return "%s could not run: %s" % (step, exc)
        output = proc.stdout.decode("utf-8", "replace")
        log.write(output)
        log.flush()
        if proc.returncode != 0:
            if step == "verify":
                lines = [line for line in output.splitlines() if line.strip()]
                return "the new environment does not import the plugin: %s" % (lines[-1] if lines else proc.returncode)
            return failure_reason(step, proc.returncode, output)
    return None


def _write_marker(target: str, key: str, deps: "list[str]", python: str, started: float) -> None:
    _write_json(
        os.path.join(target, MARKER),
        {
            "schema_version": 1,
            "key": key,
            "dependencies": list(deps),
            "base_python": python,
            "python_version": "%d.%d.%d" % sys.version_info[:3],
            "created": started,
        },
    )


def _switch(data_dir: str, relative: str) -> None:
    _write_text(os.path.join(data_dir, CURRENT), relative + "\n")


def _remove_stale(data_dir: str, keep: "str | None", shutil: "ModuleType") -> None:
    """Every environment but `keep` ('envs/<name>'), and temp files a killed set-up left. The
    removal also retires the warm worker that ran in an old environment (it watches its own)."""
    folder = os.path.join(data_dir, ENVS)
    keep_name = keep.partition("/")[2] if keep else None
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        if name != keep_name:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    for name in os.listdir(data_dir):
        if name.startswith((CURRENT + ".tmp-", STATUS + ".tmp-", ROOT + ".tmp-")):
            try:
                os.unlink(os.path.join(data_dir, name))
            except OSError:
                pass


def _write_json(path: str, data: object) -> None:
    import json

    _write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def private_folder(path: str) -> None:
    """A folder of the data folder (or the data folder itself), this user's alone: made 0700, and
    tightened to 0700 when an earlier version left it readable by others (setup.json and
    setup.log say what the set-up ran, with paths and the pip index; told/ names sessions)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    try:
        st = os.stat(path)
        if st.st_uid == os.getuid() and st.st_mode & 0o077:
            os.chmod(path, st.st_mode & 0o700)
    except OSError:
        pass


def _open_private(path: str, flags: int) -> int:
    """os.open of a data-folder file, 0600 however it was made before."""
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        pass
    return fd


def _write_private(path: str, text: str) -> None:
    fd = _open_private(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def _write_text(path: str, text: str, durable: bool = True) -> None:
    """The plugin data folder's files, written whole (state/atomic.py), this user's alone (0600 in
    a 0700 folder)."""
    from deliberation.state import atomic

    folder = os.path.dirname(path)
    if folder:
        private_folder(folder)
    atomic.write(path, text.encode("utf-8"), mode=0o600, durable=durable, make_parent=None)


def _write_status(data_dir: str, record: "dict[str, Any]") -> None:
    record = dict(record)
    record["schema_version"] = 1
    _write_json(os.path.join(data_dir, STATUS), record)


# ---------------------------------------------------------------------------------------------
# a hook that lacks a dependency (hook_runner's error handler)


def dependency_message(exc: BaseException, environ: "dict[str, str]", now: float, prefix: "str | None" = None) -> "str | None":
    """The warning of a hook whose interpreter lacks a dependency, in the plugin form (None
    outside it: then install.sh is the way). When the hook ran in the plugin's own environment,
    that environment is marked broken, so the next session start builds a new one."""
    data_dir = environ.get("CLAUDE_PLUGIN_DATA")
    if not data_dir:
        return None
    head = "deliberation plugin: dependency missing (%s)" % exc
    current = read_current(data_dir)
    if prefix is None:  # the environment this interpreter was started from (sys.prefix needs `site`)
        prefix = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    prefix = os.path.realpath(prefix)
    if current is not None and prefix == os.path.realpath(os.path.join(data_dir, current)):
        try:
            _write_private(os.path.join(data_dir, current, BROKEN), "%s\n" % exc)
        except OSError:
            pass
        return (
            "%s in the plugin's Python environment; it is set up again at the next session "
            "start — deliberation checks are off until then" % head
        )
    if not enabled(environ):
        return (
            "%s; the plugin's own set-up is off (DELIBERATION_SELF_SETUP) — give python3 the "
            "dependencies, or turn the set-up on; deliberation checks are off until then" % head
        )
    last = read_json(os.path.join(data_dir, STATUS)) or {}
    if set_up_running(data_dir):
        return (
            "%s: the plugin's Python environment is still being set up (started %s ago) — "
            "deliberation checks are off until it is ready" % (head, _ago(now - _number(last.get("started"))))
        )
    if last.get("state") == "failed":
        return (
            "%s: the plugin's Python environment could not be set up (%s; details in %s) — "
            "deliberation checks are off; it is tried again at a session start"
            % (head, last.get("reason") or "unknown error", os.path.join(data_dir, LOG))
        )
    return (
        "%s: the plugin's Python environment is not set up yet; it is set up at the next "
        "session start — deliberation checks are off until then" % head
    )


def main(argv: "list[str]") -> int:
    lib = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if lib not in sys.path:  # run as a script with -I: the package is not on the path yet
        sys.path.insert(0, lib)
    if len(argv) == 3 and argv[0] == "build":
        return build(argv[1], argv[2])
    sys.stderr.write("usage: plugin_env.py build PLUGIN_ROOT DATA_DIR\n")
    return 2


if __name__ == "__main__":
    # run as a script (start_build): the package this file belongs to must be importable too
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main(sys.argv[1:]))
