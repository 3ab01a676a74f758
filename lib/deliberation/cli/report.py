"""`deliberation report ID [--format md|html] [--json] [-o FILE]` — the decision record.

md: the Markdown record; html: the self-contained HTML report (decision document, heatmap,
findings, gates, depth trail, route, cost, lineage); json: the structured record, checked against
`record_model.DecisionRecord` (its schema: state_schema/decision_record.schema.json). To stdout,
or to FILE with `-o`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from deliberation.cli import views as t
from deliberation.state import queries
from deliberation.report.decision_record import record_json, render_markdown
from deliberation.report.html_report import render_html
from deliberation.state.record_model import publish
from deliberation.state.models import Lineage


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("id", metavar="ID", help="deliberation id (see `deliberation status`)")
    parser.add_argument(
        "--format",
        choices=("md", "html", "json"),
        default="md",
        help="md or html (default md); for JSON give --json (--format json is deprecated)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def render(delib: Any, lineage: Any, fmt: str, strong: float, moderate: float, prices: Any = None) -> str:
    """The report text in `fmt` (pure); json follows state_schema/decision_record.schema.json."""
    if fmt == "html":
        return render_html(delib, lineage, strong, moderate, prices)
    if fmt == "json":
        record = publish(record_json(delib, strong, moderate, prices))
        return json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return render_markdown(delib, lineage, strong, moderate, prices)


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    delib, why = queries.find_deliberation(layout, store, args.id)
    if delib is None:
        t.show_store_warnings(store)
        return t.fail(why)
    lineage = store.load(layout.lineage(delib.session_id), Lineage)
    t.show_store_warnings(store)
    config = t.config_or_warn(layout)
    if args.format == "json" and not args.json:
        print("deliberation: `report --format json` is deprecated and will be removed: use `report --json`", file=sys.stderr)
    fmt = "json" if args.json else args.format
    text = render(delib, lineage, fmt, config.gates.strong, config.gates.moderate, config.cost.prices)
    if not args.output:
        sys.stdout.write(text)
        return 0
    out = os.path.abspath(args.output)
    try:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        return t.fail(f"cannot write {out}: {exc.strerror}")
    print(f"wrote {out} ({len(text.encode('utf-8'))} bytes, {fmt})", file=sys.stderr)
    return 0
