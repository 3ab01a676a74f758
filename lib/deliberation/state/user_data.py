"""This user's own folder: what the plugin keeps outside every project.

    <home>/.local/share/claude-deliberation/     (DELIBERATION_USER_DATA when the user set it)
      key            32 random bytes, 0600: the key that seals the runtime files (seal.py)
      trusted.json   the settings this user approved, per project (consent.py)

`<home>` comes from the password database, not from $HOME; DELIBERATION_USER_DATA is taken only
when the project's settings did not supply it (project_env: a repository must not point the
plugin at a key or an approval it committed itself). The folder must be a real folder (not a
symlink) owned by this user that nobody else may write, and is created 0700; otherwise
`Unavailable` says why, and no runtime file can be sealed or believed — the hooks fail open
with that sentence.

Standard library only: the fast path reads the key to check a seal.
"""

import errno
import os
import stat

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Mapping

DIRNAME = "claude-deliberation"
KEY = "key"
TRUSTED = "trusted.json"
ENV = "DELIBERATION_USER_DATA"
KEY_BYTES = 32


class Unavailable(Exception):
    """This user's folder cannot be used (the message says why and what to do)."""


def home() -> str:
    """The user's home from the password database ($HOME when there is no entry)."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return os.environ.get("HOME") or "/"


def location(environ: "Mapping[str, str]", project: "str | None" = None) -> "tuple[str, str]":
    """(the folder, a note when DELIBERATION_USER_DATA was ignored)."""
    chosen = environ.get(ENV)
    if chosen:
        from deliberation.state import project_env

        by = project_env.supplied(project, environ)
        if not by.chose(ENV) and os.path.isabs(chosen):
            return chosen, ""
        return (
            os.path.join(home(), ".local", "share", DIRNAME),
            project_env.note([ENV], by) if by.chose(ENV) else "%s=%s is not an absolute path: ignored" % (ENV, chosen),
        )
    return os.path.join(home(), ".local", "share", DIRNAME), ""


def _check(path: str) -> None:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise Unavailable(
            "%s is not a folder (a symlink or a file): the plugin keeps this user's key and "
            "approvals there; remove it or set %s to a folder of yours" % (path, ENV)
        )
    if st.st_uid != os.getuid():
        raise Unavailable(
            "%s belongs to user %d, not to you (%d); set %s to a folder of yours" % (path, st.st_uid, os.getuid(), ENV)
        )
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)  # ours: tighten it


def folder(environ: "Mapping[str, str]", project: "str | None" = None, create: bool = True) -> str:
    """This user's folder, checked (and created 0700); raises Unavailable."""
    path, _note = location(environ, project)
    try:
        if create and not os.path.isdir(path):
            from deliberation.state.paths import make_dirs

            make_dirs(path, 0o700)
        _check(path)
    except OSError as exc:
        raise Unavailable(
            "cannot use %s for this user's plugin data (%s); set %s to a folder of yours" % (path, exc.strerror or exc, ENV)
        ) from None
    return path


_KEYS: "dict[str, tuple[tuple[int, int, int], bytes]]" = {}  # path → (its stat, the key)


def key(environ: "Mapping[str, str]", project: "str | None" = None) -> bytes:
    """The key that seals this user's runtime files (made on first use)."""
    base = folder(environ, project)
    path = os.path.join(base, KEY)
    try:
        st = os.lstat(path)
        held = _KEYS.get(path)
        if held is not None and held[0] == (st.st_ino, st.st_mtime_ns, st.st_size):
            return held[1]
    except FileNotFoundError:
        try:
            _make_key(path)
        except OSError as exc:
            raise Unavailable(
                "cannot make the plugin's key %s (%s); set %s to a folder of yours" % (path, exc.strerror or exc, ENV)
            ) from None
    from deliberation.state import safe_read

    try:
        fd, st = safe_read.open_fd(path)
        try:
            if st.st_uid != os.getuid() or st.st_mode & 0o077:
                raise Unavailable("%s must be this user's and readable by nobody else (mode 0600)" % path)
            data = safe_read.read_fd(fd, st.st_size, 4096, path)
        finally:
            os.close(fd)
    except OSError as exc:
        raise Unavailable("cannot read the plugin's key %s (%s)" % (path, exc)) from None
    if len(data) < KEY_BYTES:
        raise Unavailable(
            "the plugin's key %s is damaged (%d bytes); delete it and a new one is made "
            "(runtime files sealed with the old one are then moved aside)" % (path, len(data))
        )
    _KEYS[path] = ((st.st_ino, st.st_mtime_ns, st.st_size), data)
    return data


def _make_key(path: str) -> None:
    """Write a new key under a temp name and link it into place: two hooks that start at once
    agree on one key (the second link fails and that hook reads the first one's)."""
    tmp = "%s.tmp-%d-%s" % (path, os.getpid(), os.urandom(4).hex())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, os.urandom(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except OSError as exc:
        if exc.errno in (errno.EPERM, errno.ENOTSUP, getattr(errno, "EOPNOTSUPP", errno.ENOTSUP), errno.EXDEV):
            os.rename(tmp, path)  # no hard links here (some network filesystems): the last one wins
            return
        if exc.errno != errno.EEXIST:  # EEXIST: another hook made it first; its key is the key
            _unlink(tmp)
            raise
    _unlink(tmp)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
