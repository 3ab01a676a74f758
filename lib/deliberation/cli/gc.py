"""`deliberation gc [--dry-run]` — prune the state folder now, and show what is kept.

The same plan a session start runs once an hour (app/retention.py, docs/STORAGE.md): session
folders and logs past `retention.max_age_days` or beyond `retention.max_total_mb` go; a session
whose deliberation is open or awaits review, or whose lock a hook holds, stays; deliberations
and their records are never removed (delete those files yourself). `--dry-run` changes nothing.
"""

from __future__ import annotations

import os
import time
from typing import Any

from deliberation.cli import views as t
from deliberation.names import quoted
from deliberation.app import retention
from deliberation.core.retention import summary
from deliberation.state.paths import Layout

KINDS = ("sessions", "deliberations", "records", "errors.log", "quarantined", "project files")


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("--dry-run", action="store_true", help="show what would be removed; change nothing")


def size(n: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


NOUNS = {
    "sessions": "session folder(s)",
    "deliberations": "deliberation(s)",
    "records": "record file(s)",
    "quarantined": "quarantined file(s)",
}


def kept_line(layout: Layout) -> str:
    """One line: what the state folder keeps, by kind, with sizes."""
    kept = retention.storage(layout)
    parts = [
        f"{kept[k]['files']} {NOUNS[k]} {size(kept[k]['bytes'])}" if k in NOUNS else f"{k} {size(kept[k]['bytes'])}"
        for k in KINDS
        if k in kept
    ]
    total = sum(e["bytes"] for e in kept.values())
    return f"kept in {quoted(layout.root)}: {size(total)}" + (f" — {', '.join(parts)}" if parts else "")


def last_run_line(layout: Layout) -> str:
    run = retention.last_run(layout)
    if not run or not isinstance(run.get("at"), (int, float)):
        return "never pruned yet (a session start prunes at most once an hour; `deliberation gc` now)"
    return (
        f"last pruned {t.fmt_time(run['at'])} UTC: {run.get('removed', 0)} removed, "
        f"{size(int(run.get('freed_bytes', 0)))} freed, in {float(run.get('seconds', 0)) * 1000:.1f} ms"
    )


def run(args: Any) -> int:
    layout = Layout(getattr(args, "project", None))
    cfg = t.config_or_warn(layout)
    data = cfg.model_dump(mode="json")
    now = time.time()
    steps = retention.plan(layout, data, now)
    if not args.dry_run:
        steps = retention.apply(layout, steps, None, now, cfg.retention.max_age_days)
    rows = [
        {
            "path": s.item.name,
            "kind": s.item.kind,
            "bytes": s.item.size,
            "last_used": s.item.mtime,
            "action": s.action,
            "reason": s.reason,
        }
        for s in steps
    ]
    result: "dict[str, Any]" = {
        "dry_run": bool(args.dry_run),
        "state_dir": layout.root,
        "items": rows,
        **summary(steps),
        "kept": retention.storage(layout),
        "limits": {
            "max_age_days": cfg.retention.max_age_days,
            "max_total_mb": cfg.retention.max_total_mb,
            "auto": cfg.retention.auto,
        },
    }
    if args.json:
        t.print_json(result)
        return 0
    verb = {
        "remove": "would remove" if args.dry_run else "removed",
        "trim": "would trim" if args.dry_run else "trimmed",
        "keep": "keep",
    }
    body = [[verb[r["action"]], quoted(r["path"]), size(r["bytes"]), t.fmt_time(r["last_used"]), r["reason"]] for r in rows]
    if body:
        print(t.table(["ACTION", "PATH", "SIZE", "LAST USED (UTC)", "WHY"], body, "llrll"))
    gone = result["removed"] + result["trimmed"]
    print(
        f"{'would free' if args.dry_run else 'freed'} {size(result['freed_bytes'])} "
        f"({gone} item(s)); limits: {cfg.retention.max_age_days:g} days, {cfg.retention.max_total_mb:g} MB"
        + ("" if cfg.retention.auto else "; pruning at session start is off (retention.auto)")
    )
    print(kept_line(layout))
    print(
        "deliberations and their records stay until you remove them "
        f"({quoted(os.path.join(layout.root, 'deliberations'))}, {quoted(os.path.join(layout.root, 'records'))})"
    )
    return 0
