"""Where a user's warm worker listens, and how each side proves the other is that user.

Builtins only (`posix`, `sys`, `_socket`): the hook's side imports this before anything else.

The worker is a long-lived process that receives every hook's payload and environment (API
keys, tokens) and whose answers the client obeys. So nobody but the user may take its place or
reach it:

- Its socket is a file in a per-user folder: `$XDG_RUNTIME_DIR/claude-deliberation/` when the
  session has one, else `$HOME/.cache/claude-deliberation/`. Every folder on the way from the
  base must be a real folder (not a symlink) owned by the user (or root, for the base's parents)
  and writable by nobody else, and ours must be mode 0700 — so no other user can create,
  replace or even connect to the socket. A folder that fails these checks means no worker: each
  hook does its own work (slower, never wrong), and `deliberation doctor` says why.
- Both ends check the peer's user id on the connected socket before sending or reading a byte:
  `SO_PEERCRED` on Linux, `LOCAL_PEERCRED` on macOS and the BSDs. Where neither exists the
  worker is not used at all.
- One socket per install: its name is a digest of the plugin's lib folder and the interpreter.
"""

import posix
import sys

import _socket

DIRNAME = "claude-deliberation"
MAX_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS, with its NUL; longer paths are
# reached from inside their folder (see `_from_folder`)


class Unsafe(Exception):
    """The per-user folder cannot be trusted (or made): no worker for this user here."""


def _fnv64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _trusted(path: str, uid: int, allow_root: bool) -> None:
    """`path` is a real folder owned by `uid` (or root when allowed) that no one else may write."""
    try:
        st = posix.lstat(path)
    except OSError as exc:
        raise Unsafe(f"{path}: {exc.strerror}") from None
    if (st.st_mode & 0o170000) != 0o040000:
        raise Unsafe(f"{path} is not a folder (a symlink or a file)")
    if st.st_uid != uid and not (allow_root and st.st_uid == 0):
        raise Unsafe(f"{path} belongs to user {st.st_uid}, not {uid}")
    if st.st_mode & 0o022:
        raise Unsafe(f"{path} is writable by other users")


def _mkdir(path: str) -> None:
    try:
        posix.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise Unsafe(f"cannot create {path}: {exc.strerror}") from None


def _bases(environ: "dict[bytes, bytes]") -> "list[tuple[str, list[str]]]":
    """(the per-user base folder, the folders to create inside it) in order of preference."""
    out = []
    runtime = environ.get(b"XDG_RUNTIME_DIR", b"").decode("utf-8", "surrogateescape")
    if runtime.startswith("/"):
        out.append((runtime.rstrip("/") or "/", [DIRNAME]))
    home = environ.get(b"HOME", b"").decode("utf-8", "surrogateescape")
    if home.startswith("/") and home.rstrip("/"):
        out.append((home.rstrip("/"), [".cache", DIRNAME]))
    return out


def private_dir(environ: "dict[bytes, bytes] | None" = None, create: bool = True) -> str:
    """The user's private folder for worker sockets, checked (and created) on the way; raises
    Unsafe when no candidate is trustworthy."""
    uid = posix.getuid()
    problems = []
    for base, inner in _bases(posix.environ if environ is None else environ):
        try:
            _trusted(base, uid, allow_root=True)
            path = base
            for name in inner:
                path = f"{path}/{name}"
                if create:
                    _mkdir(path)
                _trusted(path, uid, allow_root=False)
                if name == DIRNAME and posix.lstat(path).st_mode & 0o077:
                    if not create:
                        raise Unsafe(f"{path} is readable by other users")
                    posix.chmod(path, 0o700)  # ours, in a folder only we can write: tighten it
            return path
        except Unsafe as exc:
            problems.append(str(exc))
    raise Unsafe("; ".join(problems) or "neither XDG_RUNTIME_DIR nor HOME is set")


def socket_path(folder: str, lib: str, executable: str) -> str:
    """The one socket of this install (lib folder + interpreter) in the user's folder."""
    place = _fnv64(f"{lib}|{executable}".encode("utf-8", "surrogateescape"))
    return f"{folder}/w-{place:016x}.sock"


def _from_folder(sock: "_socket.socket", method: str, path: str) -> None:
    """`sock.connect(path)` / `sock.bind(path)`, also for a path longer than a socket address
    holds: then from inside its folder, by its short name (the working directory is restored)."""
    if len(path.encode("utf-8", "surrogateescape")) <= MAX_PATH:
        getattr(sock, method)(path)
        return
    folder, _, name = path.rpartition("/")
    here = posix.open(".", posix.O_RDONLY)
    try:
        posix.chdir(folder)
        getattr(sock, method)(name)
    finally:
        posix.fchdir(here)
        posix.close(here)


def connect(sock: "_socket.socket", path: str) -> None:
    _from_folder(sock, "connect", path)


def bind(sock: "_socket.socket", path: str) -> None:
    _from_folder(sock, "bind", path)


# -- the peer's user id (the only platform-specific code) ----------------------------------------

_SOL_LOCAL = 0  # macOS / BSD <sys/un.h>
_LOCAL_PEERCRED = 0x001
_XUCRED_SIZE = 76  # u_int cr_version; uid_t cr_uid; short cr_ngroups; gid_t cr_groups[16]


def peer_uid(sock: "_socket.socket") -> "int | None":
    """The user id of the process at the other end of a connected Unix socket; None when this
    platform offers no way to know (then the caller must not trust the peer)."""
    if hasattr(_socket, "SO_PEERCRED"):  # Linux: struct ucred {pid_t; uid_t; gid_t}
        raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        return int.from_bytes(raw[4:8], sys.byteorder)
    if sys.platform == "darwin" or "bsd" in sys.platform:  # struct xucred
        raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE)
        return int.from_bytes(raw[4:8], sys.byteorder)
    return None


_LOCAL_PEERPID = 0x002  # macOS <sys/un.h>


def peer_pid(sock: "_socket.socket") -> "int | None":
    """The process id at the other end of a connected Unix socket; None when this platform
    does not say (Linux: SO_PEERCRED's pid; macOS: LOCAL_PEERPID)."""
    try:
        if hasattr(_socket, "SO_PEERCRED"):
            raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
            return int.from_bytes(raw[0:4], sys.byteorder) or None
        if sys.platform == "darwin":
            raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERPID, 4)
            return int.from_bytes(raw[0:4], sys.byteorder) or None
    except OSError:
        return None
    return None


def peer_is_me(sock: "_socket.socket") -> bool:
    try:
        uid = peer_uid(sock)
    except OSError:
        return False
    return uid is not None and uid == posix.getuid()
