"""The files the client resolves a name from — agents, slash commands, skills, saved workflows —
read bounded, so the plugin can tell whether the name it is about to vouch for is its own.

Measured on the real client (2.1.332, the same on 2.1.328; tests/e2e/test_e2e_shadowing.py):
- it looks in `.claude/` of the working folder AND of every folder above it, and in the user's
  `~/.claude/`; a project's file wins over the plugin's name: a saved workflow whose `meta.name`
  is `deliberation:deliberate`, a command file `.claude/commands/deliberation/deliberate.md` (or
  `deliberation:deliberate.md`), a skill folder `.claude/skills/deliberation:deliberate/`;
- an agent is found by the `name:` of its front matter (any file under `.claude/agents/`,
  sub-folders included; matched without regard to case); a namespaced type
  (`deliberation:security-analyst`) is never a project's — only a bare one is;
- a saved workflow is any `*.js` directly in `.claude/workflows/`, named by its `meta.name`.

`folders` lists those `.claude/` folders; `agent_files` and `workflow_files` the files with their
bytes (None: not safely readable — a link, a FIFO, too large — or past the scan's bound, which
makes the caller stricter); `command_files` the files that would answer a slash command. What
the bytes mean (a front matter's name, a script's meta) is core/shadows.py's. Standard library
only: the prompt hook's fast path asks `command_files`.
"""

import os
import stat

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Mapping

AGENT_LIMIT = 64 * 1024  # an agent file is a few KiB
SCRIPT_LIMIT = 512 * 1024  # as app/workflow_files.MAX_SCRIPT
MAX_FILES = 400  # files looked at per folder tree; past it the scan says so (None)
MAX_DEPTH = 6  # sub-folders under .claude/agents


def folders(project: str, home: "str | None" = None, user: bool = True) -> "list[str]":
    """The `.claude` folders the client reads names from, nearest first: the project's, every
    folder's above it (not the home folder's: that is the user's own, listed last when `user`)."""
    out = []
    home = os.path.abspath(home) if home else None
    here = os.path.abspath(project)
    while True:
        if here != home:
            out.append(os.path.join(here, ".claude"))
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    if user and home:
        out.append(os.path.join(home, ".claude"))
    return out


def home_of(environ: "Mapping[str, str] | None") -> "str | None":
    """The client's home folder (HOME stays the client's: a project's settings cannot set it)."""
    home = (environ or {}).get("HOME")
    return home if home and os.path.isabs(home) else None


def _read(path: str, limit: int) -> "bytes | None":
    from deliberation.state import safe_read

    try:
        return safe_read.read_bytes(path, limit)
    except OSError:
        return None


def _lexists(path: str) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


def _scan(top: str, suffix: str, depth: int, out: "list[tuple[str, bytes | None]]", budget: "list[int]") -> None:
    """Files under `top` ending in `suffix` (`depth` levels of sub-folders), with their bytes."""
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except FileNotFoundError:
        return
    except OSError:
        out.append((top, None))  # a folder that cannot be listed: anything could be in it
        return
    for entry in entries:
        if budget[0] <= 0:
            out.append((top, None))
            return
        path = os.path.join(top, entry.name)
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode) and depth > 0:
            _scan(path, suffix, depth - 1, out, budget)
        elif entry.name.endswith(suffix) and not stat.S_ISDIR(mode):
            budget[0] -= 1
            out.append((path, _read(path, AGENT_LIMIT if suffix == ".md" else SCRIPT_LIMIT)))
        elif stat.S_ISLNK(mode) and depth > 0:
            out.append((path, None))  # a linked folder: the client follows it, the plugin does not


def agent_files(project: str, home: "str | None" = None) -> "list[tuple[str, bytes | None]]":
    """(path, bytes or None) of every agent file the client may resolve a bare type from."""
    out: "list[tuple[str, bytes | None]]" = []
    for folder in folders(project, home):
        _scan(os.path.join(folder, "agents"), ".md", MAX_DEPTH, out, [MAX_FILES])
    return out


def workflow_files(project: str, home: "str | None" = None) -> "list[tuple[str, bytes | None]]":
    """(path, bytes or None) of every saved workflow the client may resolve a name from."""
    out: "list[tuple[str, bytes | None]]" = []
    for folder in folders(project, home):
        _scan(os.path.join(folder, "workflows"), ".js", 0, out, [MAX_FILES])
    return out


def command_paths(name: str) -> "list[str]":
    """The paths below a `.claude` folder that define the slash command or skill `name`: a `:`
    of the name is a sub-folder or stays in the file name (`deliberation:deliberate` →
    commands/deliberation/deliberate.md, commands/deliberation:deliberate.md), and a skill is
    the folder of that name."""
    parts = name.split(":")
    if not name or any(p in ("", ".", "..") or "/" in p or "\0" in p for p in parts) or len(parts) > 4:
        return []
    out = []
    for mask in range(1 << (len(parts) - 1)):  # each ':' a folder separator or kept
        rel = parts[0]
        for i, part in enumerate(parts[1:]):
            rel += (os.sep if mask >> i & 1 else ":") + part
        out.append(os.path.join("commands", rel + ".md"))
    out.append(os.path.join("skills", name, "SKILL.md"))
    return out


def command_files(project: str, name: str, home: "str | None" = None) -> "list[str]":
    """Every file of the project (or a folder above it) that would answer `/name` in place of
    the plugin's command: an entry of any kind counts (a link or a FIFO there is not the plugin's
    either). The user's own ~/.claude is not looked at: what the user wrote is the user's."""
    rels = command_paths(name)
    return [
        os.path.join(folder, rel)
        for folder in folders(project, home, user=False)
        for rel in rels
        if _lexists(os.path.join(folder, rel))
    ]
