"""Reading a file that someone else may have written: bounded, never blocking, never through a link
(docs/SECURITY.md says what a cloned repository can commit to make a read hang or explode).

`read_bytes` (and `open_file` for readers that stream) opens with O_NOFOLLOW — with `root`, every
folder between it and the file one by one with O_NOFOLLOW|O_DIRECTORY — checks the entry before
and after the open (lstat, O_NONBLOCK, fstat of the same inode: only a regular file is read),
refuses a file over `limit` and never reads more than `limit` + 1 bytes. A refusal raises
`Refused` (an OSError, so a caller that only knows OSError treats the file as unreadable) with
what was found and what to do; a missing file raises FileNotFoundError. Standard library only:
the fast path reads through it.
"""

import errno
import os
import stat

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import BinaryIO

KIB = 1024
MIB = 1024 * KIB

_BASE = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = _BASE | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = _BASE | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_LINK_ERRNOS = (errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP), getattr(errno, "EFTYPE", errno.ELOOP))


class Refused(OSError):
    """A file that is not read: a symlink, not a regular file, too large, or outside its root."""

    def __init__(self, path: str, why: str, code: int = errno.EPERM) -> None:
        super().__init__(code, why, path)
        self.path = path
        self.why = why

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def kind_of(mode: int) -> str:
    """'a FIFO', 'a device', … — what a non-regular file is, for the message."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _relative_parts(root: str, path: str) -> "list[str]":
    """The components of `path` below `root` (both made absolute lexically); Refused when
    `path` is not strictly inside `root` or names '..' on the way."""
    root_abs = os.path.abspath(root)
    path_abs = os.path.abspath(path)
    prefix = root_abs.rstrip(os.sep) + os.sep
    if not path_abs.startswith(prefix) or path_abs == root_abs:
        raise Refused(path, f"outside {root}: only files inside it are read")
    return path_abs[len(prefix) :].split(os.sep)


def _open_in(dir_fd: "int | None", name: str, shown: str) -> "tuple[int, os.stat_result]":
    """Open the regular file `name` (relative to dir_fd, or a path) without following a link
    and without blocking; (fd, stat)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except NotADirectoryError:
        raise FileNotFoundError(errno.ENOENT, "a folder on the way is a file", shown) from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused(shown, f"{kind_of(st.st_mode)}, not a regular file")
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise Refused(shown, "a symbolic link (not followed)") from None
        raise
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
            raise Refused(shown, "replaced while it was opened")
    except BaseException:
        os.close(fd)
        raise
    return fd, now


def open_fd(path: str, root: "str | None" = None) -> "tuple[int, os.stat_result]":
    """(descriptor, fstat) of the regular file `path`, opened read-only, never through a link
    (with `root`: no link on any folder below `root` either), never blocking. The caller closes
    the descriptor."""
    if root is None:
        return _open_in(None, path, path)
    parts = _relative_parts(root, path)
    dir_fd = os.open(os.path.abspath(root), _BASE | getattr(os, "O_DIRECTORY", 0))
    try:
        for part in parts[:-1]:
            if part in ("", ".", ".."):
                raise Refused(path, "a path with '.' or '..' in it")
            try:
                sub = os.open(part, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:
                    raise Refused(path, f"the folder {part!r} on the way is a symbolic link (not followed)") from None
                if exc.errno == errno.ENOTDIR:
                    try:
                        mode = os.stat(part, dir_fd=dir_fd, follow_symlinks=False).st_mode
                    except OSError:
                        mode = 0
                    if stat.S_ISLNK(mode):
                        raise Refused(path, f"the folder {part!r} on the way is a symbolic link (not followed)") from None
                    raise FileNotFoundError(errno.ENOENT, f"{part!r} on the way is not a folder", path) from None
                raise
            os.close(dir_fd)
            dir_fd = sub
        return _open_in(dir_fd, parts[-1], path)
    finally:
        os.close(dir_fd)


def read_fd(fd: int, size: int, limit: int, shown: str) -> bytes:
    """At most `limit` bytes from `fd` (Refused when there are more)."""
    if size > limit:
        raise Refused(shown, f"{size} bytes, more than the {_human(limit)} a file of this kind may have", errno.EFBIG)
    chunks = []
    got = 0
    while True:
        chunk = os.read(fd, min(limit + 1 - got, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        if got > limit:
            raise Refused(shown, f"grew past {_human(limit)} while it was read", errno.EFBIG)
    return b"".join(chunks)


def read_bytes(path: str, limit: int, root: "str | None" = None) -> bytes:
    """The whole content of the regular file `path`, at most `limit` bytes (see the module
    docstring). Raises FileNotFoundError, Refused, or the OSError of the read."""
    fd, st = open_fd(path, root)
    try:
        return read_fd(fd, st.st_size, limit, path)
    finally:
        os.close(fd)


def open_file(path: str, root: "str | None" = None, limit: "int | None" = None) -> "tuple[BinaryIO, int]":
    """(a binary file object, its size) for a reader that streams (the event log read backwards,
    a transcript). The same checks as `read_bytes`; with `limit`, a larger file is refused."""
    fd, st = open_fd(path, root)
    if limit is not None and st.st_size > limit:
        os.close(fd)
        raise Refused(path, f"{st.st_size} bytes, more than the {_human(limit)} a file of this kind may have", errno.EFBIG)
    return os.fdopen(fd, "rb"), st.st_size


def _human(n: int) -> str:
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB} MiB"
    if n >= KIB and n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} bytes"
