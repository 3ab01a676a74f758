"""The client's own DELIBERATION value, which a project's settings.json `env` replaces for hooks.

Claude Code gives every hook its settings' `env` on top of the environment the client was
started with, so a project that commits `"env": {"DELIBERATION": "on"}` would hide the user's
`DELIBERATION=off claude` from the hooks (measured on 2.1.328). At a session start the hook
process walks up its ancestors (hook → shell → the client) on Linux, reading
`/proc/<pid>/environ`: the first ancestor without CLAUDE_PROJECT_DIR (which the client sets for
its hooks only) is the client, and its environment is the one the user gave it. Elsewhere (macOS
has no /proc) the value is unknown and the session start says how to switch off in-session.

Builtins only (`posix`): hook_client runs this before it hands the event on, and passes the
result as DELIBERATION_AT_CLIENT_START (`off`, `unknown`, or absent).
"""

import posix

NAME = b"DELIBERATION"
CARRIER = b"DELIBERATION_AT_CLIENT_START"
MAX_STEPS = 6
MAX_ENV_READ = 1 << 20
OFF_WORDS = frozenset({"off", "0", "false", "no"})  # core.off_switch.OFF_WORDS (that module's `__future__` is no builtin)


def _read(path: str, limit: int) -> bytes:
    fd = posix.open(path, posix.O_RDONLY)
    try:
        out = b""
        while len(out) < limit:
            chunk = posix.read(fd, limit - len(out))
            if not chunk:
                break
            out += chunk
        return out
    finally:
        posix.close(fd)


def _parent(pid: int) -> int:
    stat = _read(f"/proc/{pid}/stat", 4096)
    return int(stat[stat.rindex(b")") + 2 :].split()[1])  # after "pid (comm) state"


def client_value(start_pid: "int | None" = None) -> "bytes | None":
    """The client's DELIBERATION (b'' when it has none), or None when it cannot be read."""
    try:
        pid = posix.getppid() if start_pid is None else start_pid
        for _ in range(MAX_STEPS):
            if pid <= 1:
                return None
            entries = _read(f"/proc/{pid}/environ", MAX_ENV_READ).split(b"\0")
            if not any(e.startswith(b"CLAUDE_PROJECT_DIR=") for e in entries):
                for e in entries:
                    if e.startswith(NAME + b"="):
                        return e[len(NAME) + 1 :]
                return b""
            pid = _parent(pid)
    except (OSError, ValueError, IndexError):
        return None
    return None


def mark(environ: "dict[bytes, bytes]") -> None:
    """Set the carrier in `environ` (the hook's own, which the worker and the in-process path
    both read): `off` when the client was started with an off word, `unknown` when its
    environment cannot be read; absent otherwise (whatever a project's settings put there)."""
    environ.pop(CARRIER, None)
    value = client_value()
    if value is None:
        environ[CARRIER] = b"unknown"
    elif value.strip().lower().decode("latin-1") in OFF_WORDS:
        environ[CARRIER] = b"off"
