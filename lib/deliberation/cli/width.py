"""Every line a command prints for a person fits 100 columns.

`Within` wraps a text stream line by line: a line longer than `WIDTH` goes on at its own
indent plus two, broken between words only (a single word longer than the width — a path —
stays whole). Table rows wrap like any line. Not wrapped:
`--json`, `report` (a Markdown or HTML document, maybe piped to a file), `open`/`latest` (a
path), `config` (JSON a person
may copy into config.json) and `history --export` (JSON lines).
"""

from __future__ import annotations

import textwrap
from typing import Any, TextIO

WIDTH = 100
UNWRAPPED = ("report", "config", "open", "latest")  # a document, JSON to copy, a path


def fit(line: str, width: int = WIDTH) -> "list[str]":
    """`line` in lines of at most `width` columns (a word longer than that alone on its line)."""
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(
        line,
        width,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
        replace_whitespace=False,
    ) or [line]


class Within:
    """A text stream whose lines are fitted to `WIDTH` as they are written."""

    def __init__(self, stream: TextIO, width: int = WIDTH) -> None:
        self.stream = stream
        self.width = width
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self.stream.write("\n".join(fit(line, self.width)) + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write("\n".join(fit(self.pending, self.width)))
            self.pending = ""
        self.stream.flush()

    def __getattr__(self, name: str) -> "Any":  # encoding, isatty, fileno…: the wrapped stream's
        return getattr(self.stream, name)
