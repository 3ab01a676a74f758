"""`deliberation lineage [SESSION]` — a session's spawn tree with the spawn budget used.

Every parent (main or a subagent) shows its active / total children against
`spawn_budget.max_active_children`, and the session its subagents against
`spawn_budget.max_session_total`; a request never seen to start stops counting after
`spawn_budget.stale_after_s`, as in the budget decision itself. Each spawn says how it started
(a Workflow's agent, a start no hook announced), the model it ran on, its resumes and whether it
started past the budget. Denied spawns, workflow runs and SendMessage resumes are listed.
Default session: the most recent one with a lineage.
"""

from __future__ import annotations

import time
from typing import Any

from deliberation.cli import views as t
from deliberation.state import queries
from deliberation.state.ids import is_valid_id
from deliberation.report import decision_record as dr
from deliberation.core import spawn_budget
from deliberation.state.models import Lineage


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("session", metavar="SESSION", nargs="?", help="session id (default: the most recent)")


def build(lineage: Any, max_active: int, stale_after_s: float, now: float, max_total: "int | None" = None) -> "dict[str, Any]":
    """The tree as data (pure): rows in depth-first order with per-parent budget use."""
    rows = dr.lineage_rows(lineage, now, stale_after_s)
    counts = dr.children_counts(lineage, now, stale_after_s)
    main_active, main_total = counts.get(dr.MAIN, (0, 0))
    active = sum(1 for s in lineage.spawns if dr.is_active(s, now, stale_after_s))
    use = spawn_budget.usage(lineage, dr.MAIN, now, stale_after_s)
    return {
        "session_id": lineage.session_id,
        "budget": {
            "max_active_children": max_active,
            "stale_after_s": stale_after_s,
            "max_session_total": max_total,
            "session_used": use.session_used,
            "session_reserved": use.session_reserved,
            "over_budget": sum(1 for s in lineage.spawns if s.over_budget),
        },
        "spawned": len(lineage.spawns),
        "active": active,
        "denied_count": len(lineage.denied),
        "workflows": [w.model_dump(mode="json") for w in lineage.workflows],
        "resumes": [r.model_dump(mode="json") for r in lineage.resumes],
        "main": {"active": main_active, "children": main_total, "over_budget": main_active > max_active},
        "spawns": [
            {
                "node": r.node,
                "parent": r.spawn.parent,
                "level": r.level,
                "prefix": r.prefix,
                "label": dr.spawn_label(r.spawn),
                "subagent_type": r.spawn.subagent_type,
                "kind": r.spawn.kind,
                "agent_id": r.spawn.agent_id,
                "tool_use_id": r.spawn.tool_use_id,
                "depth": r.spawn.depth,
                "status": r.spawn.status,
                "background": r.spawn.background,
                "deliberation_id": r.spawn.deliberation_id,
                "requested_at": r.spawn.requested_at,
                "active_children": r.active,
                "children": r.total,
                "orphan": r.orphan,
                "channel": r.spawn.channel,
                "workflow": r.spawn.workflow,
                "model": r.spawn.model,
                "model_requested": r.spawn.model_requested,
                "resumes": r.spawn.resumes,
                "over_budget": r.spawn.over_budget,
            }
            for r in rows
        ],
        "denied": [d.model_dump(mode="json") for d in lineage.denied],
    }


def render_text(tree: dict) -> str:
    cap = tree["budget"]["max_active_children"]
    total = tree["budget"].get("max_session_total")
    m = tree["main"]
    per_session = f", {tree['budget']['session_used']} of {total} per session" if total else ""
    past = tree["budget"].get("over_budget")
    lines = [
        f"session {tree['session_id']}: {tree['spawned']} spawned, {tree['active']} active, "
        f"{tree['denied_count']} denied; budget {cap} active children per parent{per_session}"
        + (f"; {past} started PAST THE BUDGET" if past else ""),
        f"main  [{m['active']}/{cap} active, {m['children']} spawned]",
    ]
    for s in tree["spawns"]:
        kids = f"  [{s['active_children']}/{cap} active, {s['children']} spawned]" if s["children"] else ""
        flags = ("  (parent unknown)" if s["orphan"] else "") + ("" if s["background"] else "  foreground")
        lines.append(f"{s['prefix']}{s['label']} · {t.one_line(s['node'], 40)} · depth {s['depth']} · {s['status']}{kids}{flags}")
    if tree["denied"]:
        lines += ["", "denied spawns:"]
        for d in tree["denied"]:
            lines.append(
                f"  {t.fmt_time(d['at'])} UTC  {t.one_line(d['subagent_type'], 40)} ({d['rule']}, "
                f"parent {d['parent']}): {t.first_line(d['reason'], 120)}"
            )
    if tree.get("workflows"):
        lines += ["", "workflows:"]
        for w in tree["workflows"]:
            bound = f"bound {w['bound']}" if w["bound"] is not None else "no bound"
            past = f", {w['overrun']} PAST THE BUDGET" if w["overrun"] else ""
            lines.append(
                f"  {t.fmt_time(w['requested_at'])} UTC  {t.one_line(w['name'] or w['task_id'] or '?', 40)}: "
                f"{w['status']}, {bound}, {w['agents']} agent(s) started{past}"
            )
    if tree.get("resumes"):
        lines += ["", "messages to subagents (SendMessage):"]
        for r in tree["resumes"]:
            lines.append(f"  {t.fmt_time(r['at'])} UTC  to {r['agent_id']} from {r['sender']}: {r['rule']}, {r['status']}")
    return "\n".join(lines) + "\n"


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    sid = args.session or queries.latest_session(layout, store, "lineage")
    if sid is None:
        t.show_store_warnings(store)
        return t.fail(f"no session with a lineage in {layout.sessions_dir}")
    if not is_valid_id(sid):
        return t.fail(f"invalid session id {sid!r}: ids contain only letters, digits, '-' and '_'")
    lineage = store.load(layout.lineage(sid), Lineage)
    t.show_store_warnings(store)
    if lineage is None:
        known = queries.session_ids(layout)
        hint = f" (known: {', '.join(known[-5:])})" if known else ""
        return t.fail(f"no lineage for session {sid!r} in {layout.sessions_dir}{hint}")
    config = t.config_or_warn(layout)
    sb = config.spawn_budget
    tree = build(lineage, sb.max_active_children, sb.stale_after_s, time.time(), sb.max_session_total)
    if args.json:
        t.print_json(tree)
    else:
        print(render_text(tree), end="")
    return 0
