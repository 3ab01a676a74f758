"""`deliberation status` — the deliberations of this project at a glance.

One row each: id, phase, agents done/pending (and, for a run of the plugin's workflow, its
checkpoint agents), consensus vs threshold, warnings, route. Newest
first; then whether the checks are off (this environment, sessions switched by command) and what
the state folder keeps, with sizes and the last prune. `--json` gives the rows as objects.
"""

from __future__ import annotations

import os
import textwrap
import time
from typing import Any

from deliberation.cli import views as t
from deliberation.cli import gc
from deliberation import plugin_root
from deliberation.runtime.command_path import terminal_command
from deliberation.state.paths import find_project
from deliberation.text import terminal
from deliberation.core.off_switch import env_off
from deliberation.state.session_switch import read_switch
from deliberation.state import queries

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.paths import Layout


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("--session", metavar="SESSION", help="only this session's deliberations")
    parser.add_argument("--open", dest="only_open", action="store_true", help="hide COMPLETE and FAILED ones")


def summarise(d: Any) -> "dict[str, Any]":
    """The status row of one deliberation (pure)."""
    counts = {"done": 0, "pending": 0, "invalid": 0, "never_ran": 0}
    for a in d.agents:
        if a.status == "reported":
            counts["done"] += 1
        elif a.status in ("spawned", "running"):
            counts["pending"] += 1
        elif a.status == "refused":  # the client refused the spawn, or never launched its workflow
            counts["never_ran"] += 1
        else:
            counts["invalid"] += 1
    r = d.ranking
    return {
        "id": d.id,
        "session_id": d.session_id,
        "phase": d.phase,
        "task_type": d.task_type,
        "question": d.question,
        "agents": {**counts, "total": len(d.agents)},
        "checkpoints": d.workflow.checkpoints if d.workflow is not None else 0,
        "consensus": r.consensus if r else None,
        "threshold": d.threshold,
        "meets_threshold": bool(r and r.consensus >= d.threshold),
        "leading": r.leading if r else None,
        "warnings": len(d.warnings) + len(d.conformity),
        "conformity": len(d.conformity),
        "route": d.route.route if d.route else None,
        "review": d.route.review if d.route else None,
        "created_at": d.created_at,
        "updated_at": d.updated_at,
    }


def _agents_cell(row: dict) -> str:
    """'20/0', '6/1 (1 invalid)', '16/0 (4 never ran)': an agent the client refused to start (or
    whose workflow it never launched) did not fail; a run of the plugin's workflow adds its
    checkpoints — agents it started too (one after each wave but the last), counted in the spawn
    budget, no panel member."""
    a = row["agents"]
    odd = [f"{a[k]} {label}" for k, label in (("invalid", "invalid"), ("never_ran", "never ran")) if a.get(k)]
    cell = f"{a['done']}/{a['pending']}" + (f" ({', '.join(odd)})" if odd else "")
    n = row.get("checkpoints") or 0
    return cell + (f" +{n} checkpoint{'s' if n != 1 else ''}" if n else "")


def _consensus_cell(row: dict) -> str:
    if row["consensus"] is None:
        return f"-/{row['threshold']:.2f}"
    mark = "ok" if row["meets_threshold"] else "below"
    return f"{row['consensus']:.2f}/{row['threshold']:.2f} {mark}"


def _route_cell(row: dict) -> str:
    if not row["route"]:
        return "-"
    if row["review"] in ("pending", "approved", "rejected"):
        return f"{row['route']} ({row['review']})"
    return row["route"]


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    rows = [summarise(d) for d in queries.load_deliberations(layout, store)]
    t.show_store_warnings(store)
    if args.session:
        rows = [r for r in rows if r["session_id"] == args.session]
    if args.only_open:
        rows = [r for r in rows if r["phase"] not in ("COMPLETE", "FAILED")]
    rows.sort(key=lambda r: (-r["updated_at"], r["id"]))
    if args.json:
        t.print_json(rows)
        return 0
    cmd = terminal_command(plugin_root(), dict(os.environ))
    if not rows:
        for line in terminal.no_deliberations(layout.root, cmd):
            print(line)
        print_footer(layout)
        return 0
    body = []
    for r in rows:
        body.append(
            [
                r["id"],
                r["phase"],
                _agents_cell(r),
                _consensus_cell(r),
                str(r["warnings"]),
                _route_cell(r),
            ]
        )
    print(t.table(["ID", "PHASE", "DONE/PENDING", "CONSENSUS", "WARN", "ROUTE"], body, "lllrrl"))
    # each question on its own line, with its task type and when it last changed: within 100 columns
    for r in rows:
        when = time.strftime("%m-%d %H:%M UTC", time.gmtime(r["updated_at"])) if r["updated_at"] else "-"
        print(t.one_line(f"{r['id']} ({r['task_type']}, {when}): {r['question']}", terminal.WIDTH))
    flag = terminal.project_flag(os.path.realpath(layout.project), os.path.realpath(find_project(os.getcwd())))
    for r in rows:
        if r["review"] == "pending":
            print()
            print(f"{r['id']} {terminal.pending_heading()}")
            for line in terminal.settle_lines(cmd, r["id"], flag):
                print(line)
    print_footer(layout)
    return 0


def switch_lines(layout: "Layout", environ: "dict[str, str]") -> "list[str]":
    """Where the checks are off: this environment (the Bash tool's is the client's), and every
    session switched by its command (core/off_switch, docs/STORAGE.md)."""
    lines = []
    if env_off(environ.get("DELIBERATION")):
        lines.append("checks: OFF in this environment (DELIBERATION=off): sessions started with it run no checks")
    try:
        names = sorted(os.listdir(layout.sessions_dir))
    except OSError:
        names = []
    switched = []
    for name in names:
        try:
            sw = read_switch(layout, name)
        except ValueError:
            continue
        if sw:
            switched.append((sw.get("at") or 0, name, sw))
    for at, name, sw in sorted(switched, reverse=True)[:10]:
        how = "/deliberation:off" if sw.get("by") == "command" else "DELIBERATION=off at its start"
        lines.append(
            f"checks: {sw['checks'].upper()} in session {name} since {t.fmt_time(at)} UTC "
            f"({how if sw['checks'] == 'off' else 'switched back on'})"
        )
    if not lines:
        lines.append("checks: on (for one session: `DELIBERATION=off claude`, or /deliberation:off in it)")
    return lines


def print_footer(layout: "Layout") -> None:
    print()
    lines = switch_lines(layout, dict(os.environ))
    lines += [gc.kept_line(layout), gc.last_run_line(layout) + "; `deliberation gc --dry-run` lists each item"]
    for line in lines:  # within 100 columns, a long line going on indented
        print(
            "\n".join(textwrap.wrap(line, terminal.WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False))
        )
