"""Shared tools of the reliability suite: state-file validation against the published JSON
Schemas, snapshots, an in-process hook (the real `hook_runner.respond`, the fail-open layer
of every hook script) and a one-line summary that pytest shows with `-rA`.

Every test here prints its counts with print() (visible with `pytest -s`) and also records a
one-line summary through `summary(...)`, which the suite's conftest prints in pytest's
terminal summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.conftest import HookResult
from tests.helpers.project import state_dir

SUMMARIES: "list[str]" = []
_VALIDATORS: dict = {}


def summary(line: str) -> None:
    """Print `line` now (pytest -s) and keep it for the terminal summary (pytest -rA or not)."""
    print(line)
    SUMMARIES.append(line)


def _validator(name: str):
    if name not in _VALIDATORS:
        from deliberation.state import schemas

        _VALIDATORS[name] = schemas.validator(name)
    return _VALIDATORS[name]


def state_files(project) -> "list[str]":
    """Every file under the state dir, relative to it, '/'-separated, sorted."""
    root = state_dir(project)
    out = []
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


class Validation:
    """What `validate_state` found: files checked, problems (path: why), temp files, torn tails."""

    def __init__(self) -> None:
        self.checked = 0
        self.problems: "list[str]" = []
        self.temp_files: "list[str]" = []
        self.torn_tails: "list[str]" = []
        self.quarantined: "list[str]" = []

    def __repr__(self) -> str:
        return (
            f"Validation(checked={self.checked}, problems={self.problems[:5]}, "
            f"temp={len(self.temp_files)}, torn={self.torn_tails}, quarantined={self.quarantined})"
        )


def strict_json(raw: bytes):
    """JSON from bytes that must be valid UTF-8 (json.loads alone would accept CESU-encoded
    surrogates, which strict readers such as orjson or jq reject)."""
    return json.loads(raw.decode("utf-8"))


def validate_file(path: str, name: str, jsonl: bool) -> "tuple[list[str], bool]":
    """(problems, torn tail) of one state file against its schema.

    A JSONL file's content is its newline-terminated lines; an unterminated last fragment is a
    writer killed mid-append (`torn`), dropped by the next append — never a record."""
    from deliberation.state import schemas

    raw = Path(path).read_bytes()
    docs: list = []
    torn = False
    if jsonl:
        lines = raw.split(b"\n")
        torn = lines[-1] != b""
        for i, line in enumerate(lines[:-1], 1):
            try:
                docs.append((f"line {i}", strict_json(line)))
            except ValueError as exc:
                return [f"line {i} does not parse: {exc}"], torn
    else:
        try:
            docs.append(("", strict_json(raw)))
        except ValueError as exc:
            return [f"does not parse: {exc}"], False
    problems = []
    validator = _validator(name)
    for where, doc in docs:
        problems += [f"{where} {p}".strip() for p in schemas.explain(validator, doc)]
    return problems, torn


def validate_state(project, only: "set[str] | None" = None) -> Validation:
    """Check every state file that has a schema (or only the relative paths in `only`)."""
    from deliberation.state import schemas

    v = Validation()
    root = state_dir(project)
    if not root.is_dir():
        return v
    for rel in state_files(project):
        base = rel.rsplit("/", 1)[-1]
        if ".tmp-" in base:
            v.temp_files.append(rel)
            continue
        if ".corrupt-" in base:
            v.quarantined.append(rel)
            continue
        found = schemas.schema_for_path(rel)
        if found is None or (only is not None and rel not in only):
            continue
        probs, torn = validate_file(str(root / rel), *found)
        v.checked += 1
        v.problems += [f"{rel}: {p}" for p in probs]
        if torn:
            v.torn_tails.append(rel)
    return v


def snapshot(project) -> "dict[str, bytes]":
    """rel path → bytes of every file under the state dir (locks and temp files excluded)."""
    root = state_dir(project)
    out = {}
    for rel in state_files(project):
        if rel.endswith(".lock") or ".tmp-" in rel:
            continue
        out[rel] = (root / rel).read_bytes()
    return out


def restore(project, snap: "dict[str, bytes]") -> None:
    """Make the state dir hold exactly `snap` (plus lock files)."""
    root = state_dir(project)
    for rel in state_files(project):
        if rel not in snap and not rel.endswith(".lock"):
            (root / rel).unlink()
    for rel, data in snap.items():
        p = root / rel
        if p.is_file() and p.read_bytes() == data:
            continue  # untouched: keeps its mtime (the config cache is keyed by it)
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        p.write_bytes(data)


# -- hooks in-process -----------------------------------------------------------------------


def respond(event: str, payload, now: "float | None" = None) -> str:
    """The real hook code path minus the interpreter start: `hook_runner.respond` (fail-open)."""
    from deliberation.runtime import hook_runner

    data = (
        payload
        if isinstance(payload, bytes)
        else (payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
    )
    return hook_runner.respond(event, data, time.time() if now is None else now)


def inproc_hook(event: str, payload, **_kw) -> HookResult:
    """Same shape as the `hook` fixture (a HookResult), run in-process against CLAUDE_PROJECT_DIR."""
    out = respond(event, payload)
    return HookResult(subprocess.CompletedProcess([event], 0, out + "\n" if out else "", ""), event)


def fork_respond(event: str, payload) -> "tuple[int, int]":
    """Run `respond` in a forked child (a real separate process, no interpreter start);
    returns (pid, read end of a pipe carrying its stdout text). See `collect`."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(rfd)
            from deliberation.runtime import hook_runner

            out = hook_runner.respond(event, data, time.time()).encode("utf-8", "surrogatepass")
            while out:
                out = out[os.write(wfd, out) :]
        except BaseException:  # noqa: BLE001 - the parent sees the exit code
            code = 6
        os._exit(code)
    os.close(wfd)
    return pid, rfd


def collect(pid: int, rfd: int) -> HookResult:
    chunks = []
    while True:
        chunk = os.read(rfd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return HookResult(subprocess.CompletedProcess([str(pid)], code, b"".join(chunks).decode(), ""))
