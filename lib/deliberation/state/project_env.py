"""Which variables of a hook's environment the project chose, not the user (docs/SECURITY.md says
what the client passes on from a project's settings, as measured on 2.1.328).

`supplied` marks a variable as the project's when `.claude/settings.json` or
`.claude/settings.local.json` names it in `env` with the value the hook sees (the client gives
those files precedence over the user's own, so such a value is the project's whatever else set
it). A settings file that cannot be read safely leaves the question open: `Supplied.unknown` is
set and callers treat every variable they care about as the project's. Standard library only,
importable by an old python3 (plugin_env runs before any environment exists).
"""

from deliberation.wire import fastjson
import os

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

SETTINGS_FILES = (os.path.join(".claude", "settings.json"), os.path.join(".claude", "settings.local.json"))
SETTINGS_LIMIT = 1 << 20


class Supplied(object):
    """The project's variables: `names` (with the value the hook sees), `unknown` (a file could
    not be read, with why), and the files that were read."""

    __slots__ = ("names", "unknown", "files")

    def __init__(self, names: "Iterable[str]" = (), unknown: str = "", files: "Iterable[str]" = ()) -> None:
        self.names = frozenset(names)
        self.unknown = unknown
        self.files = tuple(files)

    def chose(self, name: str) -> bool:
        """True when the project chose `name` (or its settings could not be read)."""
        return bool(self.unknown) or name in self.names

    def own(self, environ: "Mapping[str, str]", name: str) -> "str | None":
        """environ[name] when the user chose it, else None."""
        value = environ.get(name)
        if value is None or self.chose(name):
            return None
        return value


def settings_env(project: str, rel: str) -> "tuple[dict[str, Any] | None, str]":
    """The `env` object of one settings file of the project: (dict or None when absent, problem)."""
    from deliberation.state import safe_read

    path = os.path.join(project, rel)
    try:
        raw = safe_read.read_bytes(path, SETTINGS_LIMIT, root=project)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, "%s could not be read (%s)" % (rel, getattr(exc, "why", None) or exc.strerror or exc)
    try:
        doc = fastjson.loads(raw.decode("utf-8-sig"))
    except ValueError:
        return None, "%s is not valid JSON" % rel
    env = doc.get("env") if isinstance(doc, dict) else None
    return (env if isinstance(env, dict) else {}), ""


def supplied(project: "str | None", environ: "Mapping[str, str]") -> "Supplied":
    """The variables of `environ` that the project's settings files supplied (see the module
    docstring). `project` None: no project, nothing supplied."""
    if not project:
        return Supplied()
    names, problems, files = set(), [], []
    for rel in SETTINGS_FILES:
        env, problem = settings_env(project, rel)
        if problem:
            problems.append(problem)
        if env is None:
            continue
        files.append(rel)
        for key, value in env.items():
            if isinstance(key, str) and environ.get(key) == (value if isinstance(value, str) else str(value)):
                names.add(key)
    return Supplied(names, "; ".join(problems), files)


def note(ignored: "Iterable[str]", supplied_by: "Supplied") -> str:
    """The sentence that says which variables were ignored and why (for a person)."""
    if not ignored:
        return ""
    where = " and ".join(supplied_by.files) or "the project's settings"
    why = " (%s, so it is not known which variables are the project's)" % supplied_by.unknown if supplied_by.unknown else ""
    return (
        "ignored %s from %s's env%s: a repository does not choose the interpreter, the package "
        "index or the data folder of this plugin — set them in your own ~/.claude/settings.json or "
        "your shell instead" % (", ".join(sorted(ignored)), where, why)
    )
