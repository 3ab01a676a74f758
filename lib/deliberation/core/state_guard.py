"""Deliberation agents cannot read the plugin's state (`.claude/deliberation/`): an earlier
deliberation's findings and votes are no evidence for the next one, except as context the main
agent chose to give (docs/HOOK_ANSWERS.md lists the answer).

`refusal(...)` refuses a deliberation subagent's Read inside the state folder, a Grep whose search
reaches it (judged with ripgrep's own glob rules: the client runs it with --hidden), a Glob rooted
in it or whose pattern names it (a Glob lists file names, never their contents, so a listing from
the project root runs), and a Bash command naming it or walking a folder that holds it without
leaving it out (per program: grep -r, rg/ag, find, tree, ls -R, du, git grep); each refusal names
a next step this guard lets through. Which globs cannot reach the folder follows from what it
holds: names ending in STATE_ENDINGS or in digits (temp and quarantined files). The main agent
and other subagents are never refused. Pure and stdlib only: PreToolUse's fast path calls it for
every Read, Grep, Glob and Bash call.
"""

from __future__ import annotations

import posixpath

from deliberation.core.personas import is_deliberation_agent

TYPE_CHECKING = False  # mypy reads the block below; the fast path does not load `typing`
if TYPE_CHECKING:
    from typing import Callable

TOOLS = ("Read", "Grep", "Glob", "Bash")
STATE = ".claude/deliberation"
# how every file name in the state folder ends (state/paths.py, the store's locks, the journal)
STATE_ENDINGS = (".json", ".jsonl", ".md", ".html", ".log", ".journal", ".lock", ".gitignore")
# ripgrep 14.1.1 file types (the client's own rg) with a glob that could match a state file name
STATE_TYPES = frozenset(("html", "json", "jsonl", "lock", "log", "markdown", "md", "docker", "license", "readme"))
WILD = "*?[{\\"
# a command that mentions none of these walks no folder (the common case: tests, builds, git status)
_WALKERS = ("grep", "rg", "find", "tree", "ls", "du", "ag", "ack", "fd", "claude")
_COMPILED: dict = {}


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _abs(path: str, cwd: str) -> str:
    return posixpath.normpath(posixpath.join(cwd or "/", path or "."))


def refusal(
    tool_name: str,
    tool_input: object,
    agent_type: "str | None",
    cwd: str,
    project: str,
    resolve: "Callable[[str], str] | None" = None,
) -> "str | None":
    """The refusal text (from text.refusals) when this call would read the state folder; None
    when it may run. `resolve` (the shell's realpath) judges a path by what it resolves to, not by
    its spelling: a committed `notes -> .claude/deliberation` leads into the state folder too."""
    if tool_name not in TOOLS or not agent_type or not is_deliberation_agent(agent_type):
        return None
    args = tool_input if isinstance(tool_input, dict) else {}
    state = _abs(STATE, project)
    into = _leads_into(state, resolve)
    if tool_name == "Read":
        target = _abs(str(args.get("file_path") or ""), cwd)
        return _words("read", target) if into(target) else None
    if tool_name in ("Grep", "Glob"):
        path, kept = str(args.get("path") or "."), str(args.get("glob" if tool_name == "Grep" else "pattern") or "")
        if tool_name == "Glob" and kept.startswith("/"):
            path, kept = _split_absolute(kept)
        root = _abs(path, cwd)
        if into(root):
            return _words("search_in", root)
        if tool_name == "Glob" and resolve is not None:
            lead = _literal_folder(kept)
            if lead and into(_abs(lead, root)):
                return _words("glob_names", kept)
        if not _inside(state, root):
            return None
        if tool_name == "Glob":
            named = _glob_names(kept, posixpath.relpath(state, root))
            return _words("glob_names", named) if named else None
        rel = posixpath.relpath(state, root)
        if globs_keep_out(client_globs(kept), str(args.get("type") or ""), rel):
            return None
        return _words("grep_over", root)
    command = " ".join(str(args.get("command") or "").split())
    return _bash(command, _abs(".", cwd), state) or (_bash_resolved(command, _abs(".", cwd), into) if resolve else None)


def _leads_into(state: str, resolve: "Callable[[str], str] | None") -> "Callable[[str], bool]":
    """Whether a path is in the state folder by its spelling, or by what it resolves to."""
    if resolve is None:
        return lambda path: _inside(path, state)
    real_state = resolve(state)
    return lambda path: _inside(path, state) or _inside(resolve(path), real_state)


def _literal_folder(pattern: str) -> str:
    """The folders a glob pattern names before its first wildcard (`notes/**/*.json` → notes)."""
    cut = min((pattern.index(c) for c in WILD if c in pattern), default=len(pattern))
    return pattern[: pattern.rfind("/", 0, cut) + 1].rstrip("/") if "/" in pattern[:cut] else ""


MAX_RESOLVED_WORDS = 64
# the options that make a walk follow links: what a link under its root leads to is walked too
_FOLLOWS = {
    "grep": ("-R", "--dereference-recursive"),
    "rg": ("-L", "--follow"),
    "find": ("-L", "-follow"),
    "ls": ("-L",),
    "tree": ("-l",),
}


def _bash_resolved(command: str, cwd: str, into: "Callable[[str], bool]") -> "str | None":
    """A command any of whose words leads into the state folder once links are resolved (`cat
    notes/escalations.json` with `notes -> .claude/deliberation`), or that walks the project
    following links (which may lead there): refused."""
    import re

    seen = 0
    for segment in re.split(r"&&|\|\||[;|&\n()`]|\$\(", command):
        words = _program(segment)
        if not words:
            continue
        prog = posixpath.basename(words[0])
        follows = _FOLLOWS.get("grep" if prog in ("egrep", "fgrep") else prog, ())
        if follows and any(
            w in follows or (w.startswith("-") and not w.startswith("--") and follows[0][1:] in w[1:]) for w in words[1:]
        ):
            return _words("bash_over", "follow")
        for word in words[1:] if words[0] not in ("cd", "pushd") else words[1:2]:
            if word.startswith("-") or "\0" in word:
                continue
            seen += 1
            if seen > MAX_RESOLVED_WORDS:
                return None
            if into(_abs(word, cwd)):
                return _words("bash_names", "")
    return None


def _split_absolute(pattern: str) -> "tuple[str, str]":
    """The client's Glob splits an absolute pattern into the folder before its first wildcard
    (the search root) and the rest (the pattern)."""
    cut = min((pattern.index(c) for c in "*?[{" if c in pattern), default=len(pattern))
    slash = pattern.rfind("/", 0, cut)
    return (pattern[:slash] or "/"), pattern[slash + 1 :]


def _glob_names(pattern: str, rel: str) -> str:
    """The pattern's alternative whose literal folders lead into the state folder (`rel` from the
    root: .claude/deliberation/**, **/.claude/deliberation/*.json), or ''. One that only could
    match a state file (**/*, *.json) names no folder: it lists names, and Read refuses the rest."""
    parts = rel.lower().split("/")
    for alt in _expand(pattern) if pattern else []:
        text, anywhere = (alt if alt is not None else pattern).lower(), False
        while text.startswith(("**/", "./", "/")):
            anywhere = anywhere or text.startswith("**/")
            text = text[3:] if text.startswith("**/") else text[text.index("/") + 1 :]
        cut = min((text.index(c) for c in WILD if c in text), default=-1)
        folder = posixpath.normpath(text if cut < 0 else text[: text.rfind("/", 0, cut) + 1] or ".")
        if any(_inside(folder, "/".join(parts[i:])) for i in (range(len(parts)) if anywhere else (0,))):
            return alt if alt is not None else pattern
    return ""


def client_globs(glob: str) -> "list[str]":
    """The --glob flags the client's Grep makes of `glob`: split at whitespace, then at commas
    unless the part has braces."""
    out: "list[str]" = []
    for part in glob.split():
        out.extend([part] if "{" in part and "}" in part else [p for p in part.split(",") if p])
    return out


def globs_keep_out(globs: "list[str]", kind: str, rel: str) -> bool:
    """Whether ripgrep with these --glob flags (in order) and --type `kind`, searching a root
    from which the state folder is `rel`, reads no state file."""
    dirs = _ancestors(rel)
    for i, glob in enumerate(globs):  # an exclusion of the folder (or one above it) that no later glob re-admits
        if glob.startswith("!") and any(_matches(glob[1:], d) for d in dirs):
            if not any(not g.startswith("!") and any(_matches(g, d) for d in dirs) for g in globs[i + 1 :]):
                return True
    positive = [g for g in globs if not g.startswith("!")]
    if positive:
        return not any(_may_reach(g, rel) for g in positive)
    return bool(kind) and kind not in STATE_TYPES


def _ancestors(rel: str) -> "list[str]":
    """The folders from the search root down to the state folder: .claude, .claude/deliberation."""
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _may_reach(glob: str, rel: str) -> bool:
    """Whether a positive glob could match a file of the state folder (`rel` from the root).
    Conservative: an answer of False is certain."""
    for alt in _expand(glob):
        if alt is None:
            return True
        body = alt.rstrip("/")
        if alt.endswith("/") or not body:
            continue  # a folder-only glob admits no file
        anchored = "/" in body
        if anchored and not body.startswith("**"):
            first, top = body.lstrip("/").split("/", 1)[0], rel.split("/", 1)[0]
            if not any(c in first for c in WILD) and first != top:
                continue  # kept to another folder: src/**/*.md
        name = body.rsplit("/", 1)[-1]
        if _name_may_match(name):
            return True
    return False


def _name_may_match(name: str) -> bool:
    """Whether a file-name glob could match a state file name: the literal text it must end with
    either ends like a state file or could (a wildcard, a digit)."""
    tail = name
    for i in range(len(name) - 1, -1, -1):
        if name[i] in WILD or name[i] == "]":
            tail = name[i + 1 :]
            break
    if not tail or tail[-1].isdigit():
        return True
    low = tail.lower()
    return any(e.endswith(low) or low.endswith(e) for e in STATE_ENDINGS)


def _expand(glob: str) -> "list[str | None]":
    """A glob's brace alternatives (`*.{py,md}` → *.py, *.md); [None] when too many to tell."""
    out: "list[str | None]" = []
    todo = [glob]
    while todo:
        g = todo.pop()
        start = g.find("{")
        if start < 0:
            out.append(g)
        else:
            end, depth = start, 0
            for end in range(start, len(g)):
                depth += {"{": 1, "}": -1}.get(g[end], 0)
                if depth == 0:
                    break
            if depth:
                return [None]
            inner = g[start + 1 : end]
            if "{" in inner:
                return [None]
            todo.extend(g[:start] + alt + g[end + 1 :] for alt in inner.split(","))
        if len(out) + len(todo) > 64:
            return [None]
    return out


def _matches(glob: str, path: str) -> bool:
    """ripgrep's .gitignore-style match of `glob` against a folder `path` relative to the root:
    a glob without a `/` matches the folder's name, one with a `/` the whole path."""
    import re

    body = glob[:-1] if glob.endswith("/") else glob
    if body.endswith("/**"):
        body = body[:-3]  # everything below a folder: the folder is left out
    if not body:
        return False
    key = body
    compiled = _COMPILED.get(key)
    if compiled is None:
        anchored = "/" in body
        text = body.lstrip("/") if anchored else body
        out, i = [], 0
        while i < len(text):
            c = text[i]
            if text.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if text.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            if c == "*":
                out.append("[^/]*")
            elif c == "?":
                out.append("[^/]")
            elif c == "[":
                close = text.find("]", i + 2)
                if close < 0:
                    out.append(re.escape(c))
                else:
                    inner = text[i + 1 : close]
                    out.append("[" + ("^" + inner[1:] if inner[:1] in "!^" and inner else inner) + "]")
                    i = close
            elif c == "{":
                close = text.find("}", i)
                if close < 0:
                    out.append(re.escape(c))
                else:
                    out.append("(?:" + "|".join(re.escape(a) for a in text[i + 1 : close].split(",")) + ")")
                    i = close
            elif c == "\\" and i + 1 < len(text):
                i += 1
                out.append(re.escape(text[i]))
            else:
                out.append(re.escape(c))
            i += 1
        try:
            compiled = (anchored, re.compile("".join(out) + r"\Z"))
        except re.error:
            compiled = (anchored, None)
        _COMPILED[key] = compiled
    anchored, pattern = compiled
    if pattern is None:
        return False
    return bool(pattern.match(path if anchored else path.rsplit("/", 1)[-1]))


# ---- Bash ----------------------------------------------------------------------------------


def _bash(command: str, cwd: str, state: str) -> "str | None":
    if not any(w in command for w in _WALKERS):
        return None
    import re

    names = re.compile(r"(?:^|[\s'\"=/])\.?claude/(?:deliberation|[^\s'\"]*[*?\[{])")
    named = bool(names.search(command))
    for segment in re.split(r"&&|\|\||[;|&\n()`]|\$\(", command):
        words = _program(segment)
        if not words:
            continue
        if named and any(names.search(w) and not _excludes(w, words[j - 1] if j else "") for j, w in enumerate(words)):
            return _words("bash_names", "")
        if words[0] in ("cd", "pushd") and len(words) > 1:
            cwd = _abs(words[1], cwd)
            if _inside(cwd, posixpath.dirname(state)) and "deliberation" in command:
                return _words("bash_names", "")
            continue
        how = _walks_state(posixpath.basename(words[0]), words[1:], cwd, state)
        if how:
            return _words("bash_over", how)
    return None


def _excludes(word: str, before: str) -> bool:
    """A word that leaves the state folder out rather than naming it (find -not -path '*/.claude/*',
    rg -g '!.claude/**', git grep ':!.claude', grep --exclude-dir=.claude)."""
    return (
        before in ("-path", "-wholename", "-ipath", "--exclude-dir")
        and word != ""
        or word.startswith(("!", ":!", ":(exclude)", ":^", "--exclude-dir=", "--glob=!", "--iglob=!"))
        or before in ("-g", "--glob", "--iglob")
        and word.startswith("!")
    )


def _program(segment: str) -> "list[str]":
    """A simple command's words without leading assignments and wrappers (sudo, env, xargs…)."""
    import shlex

    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    while words and (
        "=" in words[0]
        and not words[0].startswith("-")
        or words[0] in ("sudo", "env", "time", "nohup", "exec", "command", "nice", "xargs")
    ):
        words.pop(0)
    return words


def _reaches(paths: "list[str]", cwd: str, state: str) -> bool:
    """Whether any of these start folders (none: the working folder) contains or is in the state folder."""
    for p in paths or ["."]:
        target = _abs(p, cwd)
        if _inside(state, target) or _inside(target, state):
            return True
    return False


# options that take a value as the next word (so it is not a pattern or a path)
_VALUED = {
    "grep": (
        "ABCDdefm",
        (
            "--regexp",
            "--file",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--exclude-from",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--label",
            "--devices",
            "--directories",
            "--binary-files",
            "--color",
            "--colour",
        ),
    ),
    "rg": (
        "ABCEefgjMmrTt",
        (
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--threads",
            "--max-depth",
            "--replace",
            "--encoding",
            "--max-columns",
            "--max-filesize",
            "--sort",
            "--sortr",
            "--color",
            "--colors",
            "--type-add",
            "--path-separator",
            "--pre",
            "--ignore-file",
            "--engine",
            "--dfa-size-limit",
            "--regex-size-limit",
        ),
    ),
    "ag": (
        "ABCGgmp",
        (
            "--file-search-regex",
            "--ignore",
            "--ignore-dir",
            "--max-count",
            "--context",
            "--after",
            "--before",
            "--depth",
            "--path-to-ignore",
        ),
    ),
}


def _split_args(prog: str, args: "list[str]") -> "tuple[list[str], list[str], bool]":
    """(flags, operands, an -e/-f pattern was given) — an option's value is neither."""
    shorts, longs = _VALUED.get(prog, ("", ()))
    flags, operands, given, skip = [], [], False, False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a == "--":
            operands.extend(args[i + 1 :])
            break
        if a.startswith("--"):
            flags.append(a)
            name = a.split("=", 1)[0]
            given = given or name in ("--regexp", "--file")
            skip = "=" not in a and name in longs
        elif a.startswith("-") and a != "-":
            flags.append(a)
            for j, c in enumerate(a[1:]):
                if c in shorts:
                    given = given or c in "ef"
                    skip = j == len(a) - 2  # the value is the next word
                    break
        else:
            operands.append(a)
    return flags, operands, given


def _walks_state(prog: str, args: "list[str]", cwd: str, state: str) -> "str | None":
    """Which program walks the state folder with these arguments: 'grep', 'rg', 'find', 'git',
    'other', or None."""
    flags, operands, given = _split_args(prog if prog not in ("egrep", "fgrep") else "grep", args)
    shorts = "".join(_flag_letters(prog, a) for a in flags if not a.startswith("--"))
    if prog in ("grep", "egrep", "fgrep"):
        if not ("r" in shorts or "R" in shorts or any(a.startswith(("--recursive", "--dereference-recursive")) for a in flags)):
            return None
        if _grep_excludes(args):
            return None
        return "grep" if _reaches(operands if given else operands[1:], cwd, state) else None
    if prog in ("rg", "ag"):
        hidden = any(a in ("--hidden", "--unrestricted", "--all-types") for a in flags) or "." in shorts or shorts.count("u") >= 2
        paths = operands if given else operands[1:]
        inside = any(_inside(_abs(p, cwd), posixpath.dirname(state)) for p in paths)
        # they skip hidden folders such as .claude, unless a glob names it (rg -g '*' walks it)
        admits = prog == "rg" and any(not g.startswith("!") and _matches(g, ".claude") for g in _rg_flags(args)[0])
        if not hidden and not inside and not admits:
            return None
        if prog == "rg" and _rg_keeps_out(args, cwd, state, paths):
            return None
        return prog if _reaches(paths, cwd, state) or inside else None
    if prog == "find":
        starts = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        rest = args[len(starts) :]
        for i, a in enumerate(rest[:-1]):
            if a in ("-path", "-wholename", "-ipath") and ".claude" in rest[i + 1]:
                before, after = rest[max(0, i - 1)], rest[i + 2] if i + 2 < len(rest) else ""
                if before in ("-not", "!") or after == "-prune":
                    return None
        return "find" if _reaches(starts, cwd, state) else None
    if prog == "tree":
        return "other" if "a" in shorts and _reaches(operands, cwd, state) else None
    if prog == "ls":
        recursive = "R" in shorts or "--recursive" in flags
        hidden = "a" in shorts or "A" in shorts or "--all" in flags or "--almost-all" in flags
        return "other" if recursive and hidden and _reaches(operands, cwd, state) else None
    if prog == "du":
        return "other" if "s" not in shorts and "--summarize" not in flags and _reaches(operands, cwd, state) else None
    if prog == "ack":
        return "other" if _reaches(operands[1:], cwd, state) else None
    if prog == "git" and args[:1] == ["grep"]:
        rest = args[1:]
        if any(a.startswith((":!.claude", ":(exclude).claude", ":^.claude")) for a in rest):
            return None
        spec = rest[rest.index("--") + 1 :] if "--" in rest else []
        return "git" if _reaches(spec, cwd, state) else None
    return None


def _flag_letters(prog: str, flag: str) -> str:
    """A short-option cluster's letters up to a valued one (-A3 is A, not A and 3)."""
    shorts = _VALUED.get("grep" if prog in ("egrep", "fgrep") else prog, ("", ()))[0]
    out = ""
    for c in flag[1:]:
        out += c
        if c in shorts:
            break
    return out


def _grep_excludes(args: "list[str]") -> bool:
    """grep's --exclude-dir=GLOB (matched against a folder's name) leaves .claude out."""
    values = []
    for i, a in enumerate(args):
        if a.startswith("--exclude-dir="):
            values.append(a.split("=", 1)[1])
        elif a == "--exclude-dir" and i + 1 < len(args):
            values.append(args[i + 1])
    return any(_matches(v.rstrip("/"), d) for v in values for d in (".claude", "deliberation") if "/" not in v.rstrip("/"))


def _rg_keeps_out(args: "list[str]", cwd: str, state: str, paths: "list[str]") -> bool:
    """rg's own -g/--glob/--iglob and -t/--type flags keep every start folder out of the state."""
    globs, kind = _rg_flags(args)
    for p in paths or ["."]:
        root = _abs(p, cwd)
        if _inside(root, state):
            return False
        if _inside(state, root) and not globs_keep_out(globs, kind, posixpath.relpath(state, root)):
            return False
    return True


def _rg_flags(args: "list[str]") -> "tuple[list[str], str]":
    """rg's -g/--glob/--iglob values in order, and its -t/--type."""
    globs, kind = [], ""
    for i, a in enumerate(args):
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if a in ("-g", "--glob", "--iglob"):
            globs.append(nxt)
        elif a.startswith(("--glob=", "--iglob=")):
            globs.append(a.split("=", 1)[1])
        elif a in ("-t", "--type"):
            kind = nxt
        elif a.startswith("--type="):
            kind = a.split("=", 1)[1]
        elif a.startswith("-g") and len(a) > 2:
            globs.append(a[2:])
    return globs, kind


def _words(case: str, how: str) -> str:
    from deliberation.text.refusals import state_folder

    return state_folder(case, how)
