"""The one atomic file writer: a temp file beside the target, fsync, rename, fsync of the folder.

A reader, or a process killed mid-write, never sees half a file: the target is the old file or
the new one. Every file the plugin writes whole goes through here — the state files and the
commit journal (state/store.py), the plugin's environment records (runtime/plugin_env.py), a
project's settings (cli/install_settings.py).

Temp files are named `<target>.tmp-<pid>-<ns>`, so a sweep can tell a dead writer's leftovers
(`sweep_temps`). Standard library only, and written so that an old python3 can import it:
plugin_env runs before any environment of the plugin exists.
"""

import os
import time

from deliberation.state import gitignore

FILE_MODE = 0o600
DIR_MODE = 0o700


def write(
    path: str,
    data: bytes,
    mode: int = FILE_MODE,
    durable: bool = True,
    make_parent: "int | None" = DIR_MODE,
    exact_mode: bool = False,
) -> None:
    """Replace `path` with the bytes `data` atomically (see `write_many`)."""
    write_many([(path, data)], mode, durable, make_parent, exact_mode)


def write_many(
    items: "list[tuple[str, bytes]]",
    mode: int = FILE_MODE,
    durable: bool = True,
    make_parent: "int | None" = DIR_MODE,
    exact_mode: bool = False,
) -> "dict[str, list[str]]":
    """Write each (path, bytes) of `items` atomically, then fsync each folder once: a
    transaction that changes three files of two folders pays two folder syncs, not three.

    `mode`: the new file's permission bits (the umask applies, unless `exact_mode`: then they
    are set as given, before the rename); `durable`: fsync the file before
    its rename and the folder after it (a journal that only guards against a killed process
    skips both); `make_parent`: missing folders are created with this mode (None: they must
    exist)."""
    folders: "dict[str, list[str]]" = {}
    for path, data in items:
        folder = os.path.dirname(path)
        if make_parent is not None:
            make_dirs(folder, make_parent)
        _write_and_rename(path, data, mode, durable, exact_mode)
        folders.setdefault(folder, []).append(os.path.basename(path))
    if durable:
        for folder in folders:
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    return folders


def make_dirs(path: str, mode: int = DIR_MODE) -> None:
    """`os.makedirs`, but every folder it creates gets `mode` (os.makedirs gives only the
    leaf `mode`; intermediate ones would get the umask default, e.g. 0755). The state folder
    gets its .gitignore as it is created (state/gitignore.py), whoever creates it."""
    if not path or os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path:
        make_dirs(parent, mode)
    try:
        os.mkdir(path, mode)
    except FileExistsError:
        if not os.path.isdir(path):
            raise
        return
    gitignore.created(path)


def _write_and_rename(path: str, data: bytes, mode: int, durable: bool, exact_mode: bool = False) -> None:
    tmp = "%s.tmp-%d-%d" % (path, os.getpid(), int(time.monotonic() * 1e9))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        if exact_mode:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: str) -> None:
    """Remove `path` if it is there (no contextlib: its imports are a hook's latency)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def sweep_temps(folder: str, names: "list[str] | tuple[str, ...] | set[str]") -> None:
    """Remove the temp files of `names` that a writer killed mid-write left behind (its pid is
    gone). Callers hold the files' lock, so no live writer of theirs is writing them now; a temp
    file whose pid is alive (the pid reused by another process) is left alone."""
    prefixes = tuple("%s.tmp-" % name for name in names)
    try:
        entries = [e for e in os.listdir(folder) if e.startswith(prefixes)]
    except OSError:
        return
    for entry in entries:
        pid_text = entry.rpartition(".tmp-")[2].partition("-")[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        _unlink(os.path.join(folder, entry))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, not ours to signal
    return True
