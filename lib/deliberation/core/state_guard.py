"""Deliberation agents cannot read the plugin's state (`.claude/deliberation/`).

An earlier deliberation's record — its findings, votes and rationale — is no evidence for the
next one: it may enter a deliberation only as shared context the main agent chose to give. So a
Read, Grep, Glob or Bash call of a deliberation subagent (a persona, role or lens) that would
read the state folder is refused, with the next accepted step:

    Read  file_path inside the state folder
    Grep  / Glob   a search root inside it, or one that contains it (the project root: the
                   client's search walks hidden folders) — unless Grep's `glob` already keeps to
                   files the state folder never holds
    Bash  a command naming the state folder, or a recursive search or listing of a folder
          that contains it (grep -r, rg --hidden/-uu, find, tree, ls -R, du) without an
          exclusion of `.claude`

The main agent and other subagents are not refused. `refusal(...)` is pure (no I/O) and stdlib
only: PreToolUse's fast path calls it for every Read, Grep, Glob and Bash call.
"""

from __future__ import annotations

import posixpath

from deliberation.core.personas import is_deliberation_agent

TOOLS = ("Read", "Grep", "Glob", "Bash")
STATE = ".claude/deliberation"
# what the state folder holds; a Grep kept to other files (glob "*.py") cannot read it
STATE_SUFFIXES = (".json", ".jsonl", ".md", ".html", ".lock", ".txt", ".gitignore")
RECURSIVE = ("grep -r", "grep -R", "grep -rn", "grep -Rn", "grep -rl", "grep -ri", "grep -rni", "rg ", "find ",
             "tree", "ls -R", "ls -laR", "ls -lR", "du ", "ag ", "ack ", "git grep")
EXCLUDES = ("--exclude-dir=.claude", "--exclude-dir .claude", "-not -path", "!.claude", "--glob=!.claude",
            "-prune")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _abs(path: str, cwd: str) -> str:
    return posixpath.normpath(posixpath.join(cwd or "/", path or "."))


def refusal(tool_name: str, tool_input: object, agent_type: "str | None", cwd: str,
            project: str) -> "str | None":
    """The refusal text (from text.refusals) when this call would read the state folder; None
    when it may run."""
    if tool_name not in TOOLS or not agent_type or not is_deliberation_agent(agent_type):
        return None
    args = tool_input if isinstance(tool_input, dict) else {}
    state = _abs(STATE, project)
    if tool_name == "Read":
        target = _abs(str(args.get("file_path") or ""), cwd)
        return _words("read", target) if _inside(target, state) else None
    if tool_name in ("Grep", "Glob"):
        root = _abs(str(args.get("path") or "."), cwd)
        if _inside(root, state):
            return _words("search_in", root)
        if not _inside(state, root):
            return None
        if tool_name == "Grep" and args.get("type"):
            return None  # a file type (py, js, …): the state folder holds none
        kept = str(args.get("glob") or "") if tool_name == "Grep" else str(args.get("pattern") or "")
        if kept and not _may_match_state(kept):
            return None
        return _words("search_over", root)
    command = " ".join(str(args.get("command") or "").split())
    if ".claude/deliberation" in command or "claude/deliberation" in command:
        return _words("bash_names", "")
    if any(r in command for r in RECURSIVE) and not any(e in command for e in EXCLUDES):
        if _inside(state, _abs(".", cwd)) and not _names_other_root(command):
            return _words("bash_over", "")
    return None


def _may_match_state(glob: str) -> bool:
    """Whether a glob could match a file of the state folder: it names `.claude`, or is not
    anchored in another folder and ends like a state file (or in a wildcard)."""
    if ".claude" in glob:
        return True
    first = glob.split("/", 1)[0]
    if "/" in glob and not any(c in first for c in "*{["):
        return False  # anchored in another folder: src/**/*.md
    return glob.endswith(STATE_SUFFIXES) or glob.endswith(("*", "}", "]"))


def _names_other_root(command: str) -> bool:
    """A recursive command whose every path argument is a folder other than the project root
    (`grep -rn X src/ tests/`): it cannot reach the state folder."""
    words = command.split()
    paths = [w for w in words[1:] if ("/" in w or w in (".", "./")) and not w.startswith("-")]
    return bool(paths) and all(not (p in (".", "./", "/") or p.startswith(".claude") or p == "~") for p in paths)


def _words(case: str, path: str) -> str:
    from deliberation.text.refusals import state_folder

    return state_folder(case, path)
