"""Shared helpers of the CLI's views: plain-text tables, times, numbers, JSON output, the one
way to fail, the store and config as a command opens them (look-ups: state/queries.py).

Output for people is aligned plain text (no colour, no terminal tricks: it pipes and diffs);
output for machines is JSON on stdout. Messages and warnings go to stderr.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Iterable
from deliberation import cli
from deliberation.names import inert
from deliberation.state.paths import Layout
from deliberation.state.store import Store
from deliberation.app.settings import project_config


# --------------------------------------------------------------------------------------------
# formatting


def one_line(text: Any, limit: int = 0) -> str:
    """Whitespace collapsed to single spaces, every character that could act on the terminal shown
    as an escape (names.inert: a name from the project never retitles or clears it); cut to
    `limit` characters with an ellipsis."""
    s = inert(" ".join(("" if text is None else str(text)).split()), None)
    if limit and len(s) > limit:
        s = s[: max(1, limit - 1)].rstrip() + "…"
    return s


def first_line(text: Any, limit: int = 0) -> str:
    lines = ("" if text is None else str(text)).strip().splitlines()
    return one_line(lines[0] if lines else "", limit)


def fmt_time(ts: "float | None", with_date: bool = True) -> str:
    """UTC: `2026-01-01 09:00:00` (or `09:00:00`); `-` when missing."""
    if not ts:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S", time.gmtime(ts))


def fmt_num(x: "float | None", digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def table(headers: "list[str]", rows: "Iterable[Iterable[Any]]", align: "str | None" = None, indent: str = "") -> str:
    """Aligned columns separated by two spaces; `align` is one letter per column, l or r."""
    body = [[one_line(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    align = align or "l" * len(headers)

    def line(cells: "list[str]") -> str:
        out = [c.rjust(widths[i]) if align[i] == "r" else c.ljust(widths[i]) for i, c in enumerate(cells)]
        return (indent + "  ".join(out)).rstrip()

    return "\n".join([line(headers)] + [line(r) for r in body])


def print_json(obj: Any) -> None:
    """Pretty, key-sorted JSON on stdout (pydantic models are dumped in JSON mode)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    # ASCII only: a C1 control or an invisible format character of a project's name is a \\u escape
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=True, default=str) + "\n")


def fail(message: str, code: int = 1) -> int:
    """One clear line on stderr (under --json: a JSON error on stdout); returns the exit code."""
    return cli.fail(message, code)


def show_store_warnings(store: Any) -> None:
    for w in getattr(store, "warnings", []):
        print(inert(w, None), file=sys.stderr)


# --------------------------------------------------------------------------------------------
# read-only look-ups


def open_store(args: Any) -> "tuple[Layout, Store]":
    """(layout, store) for `--project` (default: $CLAUDE_PROJECT_DIR or the current directory)."""
    layout = Layout(getattr(args, "project", None))
    return layout, Store(layout)


def config_or_warn(layout: Any) -> Any:
    """The project's effective config; its problems are printed as warnings."""
    config, problems = project_config(layout)
    for p in problems:
        print(f"deliberation: {p}", file=sys.stderr)
    return config
