"""Reading the client's subagent transcripts: the one place that opens them.

A transcript is JSON lines; every API response is an `assistant` entry whose `message` has an
`id` and a `usage`. `read_transcript` scans back from the end (at most `MAX_SCAN` bytes) for the
last response's figure; `read_usage` sums every response once the agent has finished
(core/token_usage.py says which figure is which and why); `read_model` finds the model the
agent ran on. Only regular files are opened (the token figures read `.jsonl` files only),
never through a symlink and never blocking on a FIFO.
"""

from __future__ import annotations

import json
import os
import stat

from deliberation.core.agent_model import transcript_model
from deliberation.core.token_usage import entries_since, first_usage, last_usage, sum_usage
from deliberation.state.event_log import lines_backwards_of
from deliberation.state.models import TokenUsage

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import BinaryIO

MAX_SCAN = 8 << 20  # bytes read back from the end of a transcript, at most
MAX_USAGE_FILE = 64 << 20  # a transcript larger than this is not summed (the record says so)
MODEL_SCAN = 1 << 20  # bytes read back for the model an agent ran on
BLOCK = 1 << 16


def _open(path: str, max_size: "int | None" = None) -> "tuple[BinaryIO, int] | None":
    """(the open file, its size) when `path` is a regular file no larger than `max_size`, else
    None. Never through a symlink, never blocking on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    fh = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fh.fileno())
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode) or (max_size is not None and st.st_size > max_size):
        fh.close()
        return None
    return fh, st.st_size


def read_transcript(path: "str | None") -> "int | None":
    """The token figure of a subagent transcript, or None when it cannot be read (no path, not
    a regular `.jsonl` file, no API response recorded yet)."""
    if not path or not path.endswith(".jsonl"):
        return None
    opened = _open(path)
    if opened is None:
        return None
    fh, size = opened
    with fh:
        return last_usage(lines_backwards_of(fh, size, MAX_SCAN, BLOCK))


def read_usage(path: "str | None", since: "float | None" = None) -> "TokenUsage | None":
    """The summed usage (`state.TokenUsage`) of a transcript — of its entries from `since` (epoch
    seconds) on, when given: the main agent's calls during a deliberation — or None when it
    cannot be read whole (no path, not a regular `.jsonl` file, larger than MAX_USAGE_FILE, no
    API response recorded)."""
    if not path or not path.endswith(".jsonl"):
        return None
    opened = _open(path, MAX_USAGE_FILE)
    if opened is None:
        return None
    fh, _size = opened
    with fh:
        summed = sum_usage(fh if since is None else entries_since(fh, since))
    if summed is None:
        return None
    return TokenUsage(**summed)


def read_main_usage(path: "str | None", since: float) -> "tuple[TokenUsage | None, int | None]":
    """The main agent's calls from `since` on (`state.TokenUsage`, or None) and the first of them's
    tokens — the call that received the question: what one agent answering alone would make."""
    usage = read_usage(path, since)
    if usage is None or path is None:
        return None, None
    opened = _open(path, MAX_USAGE_FILE)
    if opened is None:
        return usage, None
    fh, _size = opened
    with fh:
        return usage, first_usage(entries_since(fh, since))


def read_model(path: str) -> "str | None":
    """The model of the newest assistant entry in the last MODEL_SCAN bytes of a transcript."""
    opened = _open(path)
    if opened is None:
        return None
    fh, size = opened
    with fh:
        return transcript_model(lines_backwards_of(fh, size, MODEL_SCAN, BLOCK))


MAX_JOURNAL = 16 << 20  # a workflow run's journal larger than this is not read


def read_bounded(path: str, max_bytes: int) -> "bytes | None":
    """A regular file of at most `max_bytes`, whole (None: missing, a symlink, not a regular
    file, too large, unreadable). Used for workflow scripts the client will run."""
    opened = _open(path, max_bytes)
    if opened is None:
        return None
    fh, _size = opened
    with fh:
        try:
            return fh.read(max_bytes + 1)
        except OSError:
            return None


def journal_starts(run_dir: str) -> "list[dict]":
    """The `started` entries of a workflow run's `journal.jsonl` (agentId, key, label, phase), in
    the order the run started them ([] when it cannot be read)."""
    data = read_bounded(os.path.join(run_dir, "journal.jsonl"), MAX_JOURNAL) if run_dir else None
    out = []
    for line in (data or b"").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "started" and isinstance(entry.get("agentId"), str):
            out.append(entry)
    return out
