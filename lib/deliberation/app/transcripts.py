"""Reading the client's subagent transcripts: the one place that opens them.

A transcript is JSON lines; every API response is an `assistant` entry whose `message` has an
`id` and a `usage`. `read_transcript` scans back from the end (at most `MAX_SCAN` bytes) for the
last response's figure; `read_usage` sums every response once the agent has finished
(core/token_usage.py says which figure is which and why). Only regular `.jsonl` files are
opened, without following a symlink and without blocking on a FIFO.
"""

from __future__ import annotations

import os
import stat

from deliberation.core.token_usage import last_usage, sum_usage

MAX_SCAN = 8 << 20          # bytes read back from the end of a transcript, at most
MAX_USAGE_FILE = 64 << 20   # a transcript larger than this is not summed (the record says so)
BLOCK = 1 << 16


def _lines_backwards(fh, size: int):
    end, start_limit, carry = size, max(0, size - MAX_SCAN), b""
    while end > start_limit:
        start = max(start_limit, end - BLOCK)
        fh.seek(start)
        chunk = fh.read(end - start) + carry
        end = start
        lines = chunk.split(b"\n")
        carry = lines.pop(0) if end > start_limit else b""
        for line in reversed(lines):
            if line.strip():
                yield line


def read_transcript(path: "str | None") -> "int | None":
    """The token figure of a subagent transcript, or None when it cannot be read (no path, not
    a regular `.jsonl` file, no API response recorded yet)."""
    if not path or not path.endswith(".jsonl"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fh.fileno())
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return last_usage(_lines_backwards(fh, st.st_size))


def read_usage(path: "str | None"):
    """The summed usage (`state.TokenUsage`) of a subagent transcript, or None when it cannot
    be read whole (no path, not a regular `.jsonl` file, larger than MAX_USAGE_FILE, no API
    response recorded)."""
    if not path or not path.endswith(".jsonl"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fh.fileno())
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_USAGE_FILE:
            return None
        summed = sum_usage(fh)
    if summed is None:
        return None
    from deliberation.state.models import TokenUsage

    return TokenUsage(**summed)
