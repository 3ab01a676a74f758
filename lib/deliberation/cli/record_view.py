"""`deliberation latest` / `deliberation open ID` — a deliberation's record, in the browser.

Renders the HTML record from the deliberation's current state into
`.claude/deliberation/records/ID.html` (the Markdown record beside it stays what the Stop hook
or `approve`/`reject` wrote) and opens it with the system's browser. Where there is none — under
CI, on a Linux machine without a display, or when no browser is registered — it prints the path
instead; `--print` always does. `--json` gives `{"id", "html", "md", "opened"}`.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from typing import Any

from deliberation.cli import fail
from deliberation.cli import views as t
from deliberation.report.html_report import render_html
from deliberation.state import queries
from deliberation.state.store import atomic_write_bytes
from deliberation.state.models import Lineage


def add_arguments(parser: Any, name: str) -> None:
    if name == "open":
        parser.add_argument("id", metavar="ID", help="deliberation id (see `deliberation status`)")
    parser.add_argument("--print", dest="print_only", action="store_true", help="print the record's path; do not start a browser")


def no_browser_reason(environ: "dict[str, str]", platform: str) -> "str | None":
    """Why no browser should be started here, or None (pure)."""
    if environ.get("CI"):
        return "running under CI"
    if platform.startswith("linux") and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "no display"
    return None


def open_in_browser(path: str) -> "str | None":
    """Open `path` in the user's browser; None when it was, else why not."""
    reason = no_browser_reason(dict(os.environ), sys.platform)
    if reason:
        return reason
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "no browser found"
    try:
        return None if browser.open("file://" + path) else "the browser did not start"
    except OSError as exc:
        return f"the browser did not start ({exc.strerror or exc})"


def newest(layout: Any, store: Any) -> Any:
    delibs = queries.load_deliberations(layout, store)
    return max(delibs, key=lambda d: (d.updated_at or 0, d.id)) if delibs else None


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    if args.command == "latest":
        delib = newest(layout, store)
        why = f"no deliberations in {layout.root}"
    else:
        delib, why = queries.find_deliberation(layout, store, args.id)
    if delib is None:
        t.show_store_warnings(store)
        return fail(why)
    lineage = store.load(layout.lineage(delib.session_id), Lineage)
    t.show_store_warnings(store)
    config = t.config_or_warn(layout)
    html_path = layout.record(delib.id, "html")
    atomic_write_bytes(
        layout.checked(html_path),
        render_html(delib, lineage, config.gates.strong, config.gates.moderate, config.cost.prices).encode(),
    )
    md_path = layout.record(delib.id)
    why_not = "--print given" if args.print_only else open_in_browser(html_path)
    if args.json:
        t.print_json(
            {"id": delib.id, "html": html_path, "md": md_path if os.path.exists(md_path) else None, "opened": why_not is None}
        )
    elif why_not is None:
        print(f"{delib.id}: opened {html_path} in your browser")
    else:
        print(html_path if args.print_only else f"{delib.id}: {html_path} ({why_not}: open it yourself)")
    return 0
