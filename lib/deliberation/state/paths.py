"""Where state lives: the project root and the layout of `.claude/deliberation/`.

State is anchored at CLAUDE_PROJECT_DIR (set by Claude Code for every hook), never at the
payload's `cwd`, which follows the agent's `cd`. Every path that contains an id is built here,
after `ids.check_id`, and checked to stay inside the state directory.
"""

import contextvars
from deliberation.wire import fastjson
import os
import stat

from deliberation.state.atomic import make_dirs as make_dirs  # the one folder maker: every level 0700
from deliberation.state import gitignore
from deliberation.state.ids import check_id

STATE_DIRNAME = gitignore.FOLDER
GITIGNORE = gitignore.TEXT  # the state folder's .gitignore (state/gitignore.py)


class UnsafePath(ValueError):
    """A state path that would resolve outside the state directory. `link`: the entry of the
    project that leads out (a link a repository may commit: what the user is told to remove)."""

    def __init__(self, message: str, link: "str | None" = None) -> None:
        super().__init__(message)
        self.link = link


def ensure_gitignore(layout: "Layout") -> bool:
    """At a session start: the state folder exists (a clone brought config.json) but has no
    .gitignore → write it. One lstat when all is in place."""
    try:
        os.lstat(layout.gitignore)
        return False
    except FileNotFoundError:
        pass
    except OSError:
        return False
    try:
        layout.check_root()  # `.claude` linked into another project: nothing is written there
    except UnsafePath:
        return False
    if not os.path.isdir(layout.root):
        return False
    return gitignore.write(layout.root)


# The environment of the hook being answered: the process's own, or — in the warm worker —
# the one that travelled with the request.
REQUEST_ENV: "contextvars.ContextVar[dict | None]" = contextvars.ContextVar("REQUEST_ENV", default=None)
# When the event being handled must have committed (time.time(); see deadlines.py); None = never.
REQUEST_DEADLINE: "contextvars.ContextVar[float | None]" = contextvars.ContextVar("REQUEST_DEADLINE", default=None)


def handled_by() -> str:
    """'worker' inside the warm worker (a request's environment is set), else 'hook'."""
    return "hook" if REQUEST_ENV.get() is None else "worker"


def hook_env() -> "dict[str, str]":
    """The hook's own environment — in the worker, only the request's (even when empty)."""
    env = REQUEST_ENV.get()
    return dict(os.environ) if env is None else env


def plugin_agent_prefix() -> str:
    """'deliberation:' when the hooks run from the plugin form (`claude --plugin-dir`), where
    the client namespaces the plugin's agent types; '' for agents installed into .claude/agents."""
    root = hook_env().get("CLAUDE_PLUGIN_ROOT")
    if not root:
        return ""
    from deliberation.state import safe_read

    try:
        name = fastjson.loads(safe_read.read_bytes(os.path.join(root, ".claude-plugin", "plugin.json"), 1 << 20)).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return f"{name}:" if isinstance(name, str) and name else "deliberation:"


def project_root(explicit: "str | None" = None) -> str:
    """The project directory: explicit > CLAUDE_PROJECT_DIR > current directory."""
    root = explicit or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return os.path.abspath(root)


def find_project(start: str, home: "str | None" = None) -> str:
    """The project a folder belongs to, found upward as git finds its repository: the nearest
    folder from `start` up that holds `.claude/deliberation/` or `.git` — whichever comes first,
    so another user's `.claude/deliberation` in a shared folder further up never wins over the
    repository `start` is in — else `start`. The home folder never counts for its `.claude/`
    (that is the client's own configuration) unless `start` is the home folder itself."""
    start = os.path.abspath(start)
    home = os.path.abspath(home if home is not None else os.path.expanduser("~"))
    here = start
    while True:
        if (here != home or here == start) and os.path.isdir(os.path.join(here, STATE_DIRNAME)):
            return here
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return start
        here = parent


class Layout:
    """Paths of every state file of one project."""

    __slots__ = ("project", "root")

    def __init__(self, project: "str | None" = None) -> None:
        self.project = project_root(project)
        self.root = os.path.join(self.project, STATE_DIRNAME)

    # project-wide files
    @property
    def config(self) -> str:
        return os.path.join(self.root, "config.json")

    @property
    def config_cache(self) -> str:
        return os.path.join(self.root, "cache", "config.resolved.json")

    @property
    def reversals(self) -> str:
        return os.path.join(self.root, "reversals.json")

    @property
    def adjudications(self) -> str:
        return os.path.join(self.root, "adjudications.jsonl")

    @property
    def escalations(self) -> str:
        return os.path.join(self.root, "escalations.json")

    @property
    def errors_log(self) -> str:
        return os.path.join(self.root, "errors.log")

    @property
    def retention_stamp(self) -> str:
        """When the state folder was last pruned, and what that did."""
        return os.path.join(self.root, "cache", "retention.json")

    @property
    def gitignore(self) -> str:
        return os.path.join(self.root, ".gitignore")

    @property
    def sessions_dir(self) -> str:
        return os.path.join(self.root, "sessions")

    @property
    def deliberations_dir(self) -> str:
        return os.path.join(self.root, "deliberations")

    @property
    def records_dir(self) -> str:
        return os.path.join(self.root, "records")

    # per-id files
    def session_dir(self, session_id: str) -> str:
        return self._inside(os.path.join(self.sessions_dir, check_id("session_id", session_id)))

    def session_state(self, session_id: str) -> str:
        return os.path.join(self.session_dir(session_id), "session.json")

    def lineage(self, session_id: str) -> str:
        return os.path.join(self.session_dir(session_id), "lineage.json")

    def events(self, session_id: str) -> str:
        return os.path.join(self.session_dir(session_id), "events.jsonl")

    def pending_prompt(self, session_id: str) -> str:
        """The turn's prompt, kept only until the turn ends or a deliberation opens (STORAGE.md)."""
        return os.path.join(self.session_dir(session_id), "prompt.json")

    def switch(self, session_id: str) -> str:
        """The session's off switch (`/deliberation:off`, `/deliberation:on`)."""
        return os.path.join(self.session_dir(session_id), "switch.json")

    def journal(self, session_id: str) -> str:
        """A session transaction's redo journal, present only while (or if killed while) it commits."""
        return os.path.join(self.session_dir(session_id), "commit.journal")

    def deliberation(self, deliberation_id: str) -> str:
        name = check_id("deliberation_id", deliberation_id) + ".json"
        return self._inside(os.path.join(self.deliberations_dir, name))

    def record(self, deliberation_id: str, ext: str = "md") -> str:
        name = check_id("deliberation_id", deliberation_id) + "." + ext
        return self._inside(os.path.join(self.records_dir, name))

    def _inside(self, path: str) -> str:
        """Refuse a path that escapes the state dir, also through a symlinked dir or file."""
        if self._no_links(path):
            return path  # every step from the project down is a real directory or file (or absent)
        expected_root = os.path.join(os.path.realpath(self.project), STATE_DIRNAME)
        root = os.path.realpath(self.root)
        if root != expected_root:
            raise UnsafePath(f"refusing state dir {self.root}: it is a link to {root}", self.link_on_the_way(self.root))
        real = os.path.realpath(path)
        if not real.startswith(root + os.sep):
            raise UnsafePath(f"refusing state path outside {self.root}: {path} resolves to {real}", self.link_on_the_way(path))
        return path

    def link_on_the_way(self, path: str) -> "str | None":
        """The first entry from the project down to `path` that is a symbolic link (None: none)."""
        if not path.startswith(self.project + os.sep):
            return None
        here = self.project
        for part in path[len(self.project) + 1 :].split(os.sep):
            here = os.path.join(here, part)
            try:
                if stat.S_ISLNK(os.lstat(here).st_mode):
                    return here
            except OSError:
                return None
        return None

    def check_root(self, entries: bool = False) -> None:
        """Raise UnsafePath when `.claude` or the state folder is a link (or not a folder): a
        repository can commit `.claude -> ../other/.claude` or `.claude/deliberation -> /elsewhere`,
        and nothing is read or written through it — not even a session start's .gitignore. Two
        lstat calls when all is in place. With `entries` (a session start), also when a file of
        the state folder or its cache/ is a link (`escalations.json -> /dev/null`)."""
        self._check_folders()
        if not entries:
            return
        for folder in (self.root, os.path.join(self.root, "cache")):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in sorted(names)[:500]:
                path = os.path.join(folder, name)
                try:
                    if stat.S_ISLNK(os.lstat(path).st_mode):
                        raise UnsafePath(f"refusing state file {path}: a link to {os.path.realpath(path)}", path)
                except OSError:
                    continue

    def _check_folders(self) -> None:
        for path in (os.path.dirname(self.root), self.root):
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                return
            except OSError as exc:
                raise UnsafePath(f"refusing state dir {self.root}: {path} cannot be examined ({exc.strerror})", path) from None
            if stat.S_ISLNK(mode):
                raise UnsafePath(f"refusing state dir {self.root}: {path} is a link to {os.path.realpath(path)}", path)
            if not stat.S_ISDIR(mode):
                raise UnsafePath(f"refusing state dir {self.root}: {path} is not a folder", path)

    def _no_links(self, path: str) -> bool:
        """True when `path` lies under the state dir and no step below the project — `.claude`,
        the state dir, each folder and the file — is a symlink: then it cannot resolve elsewhere.
        A few lstat calls instead of three realpath walks (a hook checks a dozen paths); any
        link sends the caller to the full check."""
        root = self.root + os.sep
        if not path.startswith(root):
            return False
        steps = [os.path.dirname(self.root), self.root]
        here = self.root
        for part in path[len(root) :].split(os.sep):
            if part in ("", ".", ".."):
                return False
            here = here + os.sep + part
            steps.append(here)
        for step in steps:
            try:
                mode = os.lstat(step).st_mode
            except FileNotFoundError:
                return True  # nothing below a missing step exists, so nothing below is a link
            except OSError:
                return False
            if stat.S_ISLNK(mode):
                return False
        return True

    def checked(self, path: str) -> str:
        """`path` (any file under the state dir) after the same containment check."""
        return self._inside(path)

    def checked_parent(self, path: str) -> str:
        """`path` after the containment check of the folder it is in. The file itself may be a
        link, a FIFO or a device a repository planted: nobody follows it — readers open it through
        safe_read (refused, then moved aside) and every write renames a new file over it."""
        folder = os.path.dirname(path)
        if folder != self.root:
            self._inside(folder)
        elif not self._no_links(folder):
            expected = os.path.join(os.path.realpath(self.project), STATE_DIRNAME)
            if os.path.realpath(self.root) != expected:
                raise UnsafePath(f"refusing state dir {self.root}: it is a link to {os.path.realpath(self.root)}")
        return path
