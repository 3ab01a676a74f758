"""The state folder's .gitignore: its text, and writing it when the folder is created.

`atomic.make_dirs`, the one folder maker, calls `created` for every folder it makes, so the
.gitignore is there from the moment `.claude/deliberation` exists, whichever install form or
hook made it; a session start writes it again when a clone brought the folder without one
(`paths.ensure_gitignore`). It names what a team shares and ignores everything else, itself
included, so `git status` shows nothing the plugin keeps on this machine (docs/STORAGE.md).

Standard library only (os), importable by an old python3, as atomic.py is.
"""

import os

FOLDER = os.path.join(".claude", "deliberation")  # the state folder, relative to the project

TEXT = """\
# Written by the deliberation plugin with this folder. What it keeps here stays on this machine
# (session logs, deliberations, records, caches, errors.log, this file); a team shares only
# config.json and reversals.json: commit those. docs/STORAGE.md in the plugin says what is kept.
*
!/config.json
!/reversals.json
"""


def created(folder: str) -> None:
    """`folder` was just created: when it is the state folder, write its .gitignore."""
    if folder.endswith(os.sep + FOLDER):
        write(folder)


def write(state_root: str) -> bool:
    """Create `state_root/.gitignore` unless a file of that name exists (the user may have
    edited it); True when written. Never follows a symlink."""
    try:
        fd = os.open(os.path.join(state_root, ".gitignore"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:  # present already (or a link), or the folder is not writable: nothing to do
        return False
    try:
        os.write(fd, TEXT.encode("utf-8"))
    finally:
        os.close(fd)
    return True
