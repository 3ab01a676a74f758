"""`deliberation show ID` — everything about one deliberation, as text; `--json` dumps the model.

Sections: overview, decision, decision document (PRD), agents, scores, gates, conformity, depth
axis, route, cost, warnings, refused transitions, phase history. Built from `decision_record.record_json` so the terminal,
the Markdown and the HTML say the same thing.
"""

from __future__ import annotations

import os
from typing import Any

from deliberation.cli import views as t
from deliberation import defaults
from deliberation.state import queries
from deliberation import plugin_root
from deliberation.report import outcome
from deliberation.runtime.command_path import terminal_command
from deliberation.report.decision_record import hot_spot_verdicts, record_json
from deliberation.state.record_model import CheckRow, DecisionRecord, Depth, GateRow
from deliberation.text.depth import hot_spot_line


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("id", metavar="ID", help="deliberation id (see `deliberation status`)")


def _overview(d: Any, rec: dict) -> "list[str]":
    over = " (overridden)" if d.task_type_overridden else ""
    o = outcome.outcome(DecisionRecord.model_validate(rec))
    cmd = terminal_command(plugin_root(), dict(os.environ))  # the commands as they run from this terminal
    todo = [f"  to do      {o.action}"] + [f"               {cmd}{c.removeprefix('deliberation')}" for c in o.commands]
    return [
        f"deliberation {d.id}  phase {d.phase}",
        f"  outcome    {o.headline}",
        f"  route      {o.route}",
        *todo,
        f"  question   {t.one_line(d.question) or '-'}",
        f"  session    {d.session_id}",
        f"  task type  {d.task_type}{over}, threshold {d.threshold:.2f}",
        f"  opened     {t.fmt_time(d.created_at)} UTC   updated {t.fmt_time(d.updated_at)} UTC",
        f"  trigger confidence {t.fmt_num(d.initial_confidence)}{' (forced)' if d.trigger_forced else ''}   "
        f"tokens {d.tokens_used}   "
        f"stop blocks {d.stop_blocks}",
        f"  record     {d.record_path or '-'}",
    ]


def _decision(rec: dict) -> "list[str]":
    x = rec["decision"]
    if x.get("outcome") == "no-consensus":
        lead = (
            f"; leading approach {t.one_line(x['title'])} [{x['approach']}], consensus {x['consensus']:.2f} "
            f"< {x['threshold']:.2f}"
            if x["approach"] is not None and x["consensus"] is not None
            else ""
        )
        return ["", "decision: none — no consensus, handed to the user (human review)" + lead]
    if x["approach"] is None:
        return ["", "decision: none yet (no ranking)"]
    if x.get("outcome") == "rejected":
        return [
            "",
            "decision: rejected — no approach adopted (unanimous reject)",
            f"  {x['approvals']} approve, {x['rejections']} reject, {x['abstentions']} abstain; top-scored "
            f"approach, not adopted: {t.one_line(x['title'])} [{x['approach']}], consensus {x['consensus']:.2f}",
        ]
    verdict = "meets" if x["meets_threshold"] else "below"
    return [
        "",
        f"decision: {t.one_line(x['title'])} [{x['approach']}]",
        f"  consensus {x['consensus']:.2f} vs threshold {x['threshold']:.2f}: {verdict}, {x['band']} "
        f"(spread {x['spread']:.2f}, stdev {x['stdev']:.2f}; {x['approvals']} approve, "
        f"{x['rejections']} reject, {x['abstentions']} abstain)",
    ]


def _document(rec: dict) -> "list[str]":
    p = rec["prd"]
    doc = p["document"]
    if doc is None:
        state = {
            "not_due": "not due yet (the vote has not passed)",
            "due": f"due (the vote passed; {p['send_backs']} send-back(s) so far)",
            "missing": f"MISSING after {p['send_backs']} send-back(s)",
        }.get(p["status"], p["status"])
        why = f"\n  why: {t.one_line(p['problem'], 160)}" if p.get("problem") else ""
        return ["", f"decision document: {state}{why}"]

    def cites(sources: list) -> str:
        return " <- " + ", ".join(s["id"] for s in sources) if sources else ""

    lines = ["", f"decision document ({p['status']}): {t.one_line(doc['decision'], 160)}"]
    lines += [
        f"  requirement {r['id']} ({r['priority']}): {t.one_line(r['text'], 100)}{cites(r['sources'])}"
        for r in doc["requirements"]
    ]
    lines += [f"  non-goal: {t.one_line(n['text'], 100)}{cites(n['sources'])}" for n in doc["non_goals"]]
    lines += [f"  acceptance {a['id']}: {t.one_line(a['text'], 100)}{cites(a['sources'])}" for a in doc["acceptance_criteria"]]
    lines += [
        f"  risk {k['id']} ({k['severity']}): {t.one_line(k['risk'], 80)} -> {t.one_line(k['mitigation'], 60)}"
        f"{cites(k['sources'])}"
        for k in doc["risks"]
    ]
    lines += [f"  open question: {t.one_line(q['question'], 100)}{cites(q['sources'])}" for q in doc["open_questions"]]
    return lines


def _agents(d: Any, rec: dict) -> "list[str]":
    if not d.agents:
        return ["", "agents: none"]
    labels = {p["key"]: p["label"] for p in rec["participants"]}
    rows = []
    for a in d.agents:
        rep = a.report
        note = a.problem or ("superseded" if a.superseded else "")
        rows.append(
            [
                a.key[:16],
                labels[a.key],
                a.kind,
                a.stage,
                str(a.tier),
                a.status,
                rep.verdict if rep else "-",
                (rep.preferred_approach or "-") if rep else "-",
                t.fmt_num(rep.confidence) if rep else "-",
                str(a.tokens),
                t.one_line(note, 40),
            ]
        )
    return [
        "",
        "agents:",
        t.table(
            ["KEY", "AGENT", "KIND", "STAGE", "TIER", "STATUS", "VERDICT", "PREFERS", "CONF", "TOKENS", "NOTE"],
            rows,
            "lllllllllrl",
            indent="  ",
        ),
    ]


def _scores(rec: dict) -> "list[str]":
    if not rec["scores"]:
        return []
    ids = [a["id"] for a in rec["approaches"]]
    lead = rec["decision"]["approach"]
    head = ["AGENT"] + [f"{a}*" if a == lead else a for a in ids]
    rows = [[r["label"]] + [t.fmt_num(r["scores"].get(a)) for a in ids] for r in rec["scores"]]
    rows.append(["mean"] + [t.fmt_num(a["mean"]) for a in rec["approaches"]])
    lines = ["", "scores (weighted 0-10, * leading):", t.table(head, rows, "l" + "r" * len(ids), indent="  ")]
    for a in rec["approaches"]:
        lines.append(f"  {a['id']}: {t.one_line(a['title'], 90)}" + ("  [struck by the depth axis]" if a["struck"] else ""))
    return lines


def _gates(rec: dict) -> "list[str]":
    lines = [""]
    for key, name in (("consensus", "gate 1 (consensus)"), ("quality", "gate 2 (quality)")):
        g = rec["gates"][key]
        if g is None:
            lines.append(f"{name}: not run")
            continue
        lines.append(f"{name}: {outcome.gate_mark(GateRow.model_validate(g)).upper()} at {g['at']}")
        for c in g["checks"]:
            detail = f" ({t.one_line(c['detail'], 80)})" if c["detail"] else ""
            lines.append(
                f"  {outcome.check_mark(CheckRow.model_validate(c)).replace('fail', 'FAIL')}  {c['name']}: {t.one_line(c['figure'])}{detail}"
            )
        if g["next_step"]:
            lines.append(f"  next step: {t.one_line(g['next_step'])}")
    return lines


def _dissent_conformity(rec: dict) -> "list[str]":
    lines = []
    if rec["dissent"] or rec["undocumented_dissent"]:
        lines += ["", "dissent:"]
        for c in rec["dissent"]:
            lines.append(f"  {c['label']} ({c['verdict']}) on {c['target']}: {t.one_line(c['concern'], 120)}")
            lines.append(f"    reason: {t.one_line(c['reason'], 120)}")
        for x in rec["undocumented_dissent"]:
            lines.append(f"  {x['label']} dissented ({x['why']}) without a documented concern")
    if rec["conformity"]:
        lines += ["", "conformity warnings:"]
        for w in rec["conformity"]:
            lines.append(f"  {w['detector']} ({', '.join(w['agents'])}): {t.one_line(w['evidence'], 120)}")
            lines.append(f"    recommendation: {t.one_line(w['recommendation'], 120)}")
    return lines


def _depth(rec: dict) -> "list[str]":
    x = rec["depth"]
    lines = ["", f"depth axis: posture {x['posture'] or '-'}, status {x['status']}, {x['passes']} pass(es)"]
    if x["clamped"]:
        lines.append(f"  clamped: {t.one_line(x['clamped'])}")
    if x["skipped_reason"]:
        lines.append(f"  SKIPPED: {t.one_line(x['skipped_reason'])}")
    found = hot_spot_verdicts(Depth.model_validate(x))
    for h in x["hot_spots"]:
        lines.append(f"  {h['id']} {hot_spot_line(h['kind'], found.get(h['id'], []))}: {t.one_line(h['statement'], 110)}")
    if x["tier2_by_lens"]:
        lines.append("  tier 2 by lens: " + ", ".join(f"{k} {v}" for k, v in sorted(x["tier2_by_lens"].items())))
    for o in x["overrides"]:
        lines.append(f"  override {o['hot_spot']} -> {o['target']}: {t.one_line(o['effect'], 100)}")
    if x["zeroed"]:
        lines.append("  zero signal (tier 1 stands): " + ", ".join(x["zeroed"]))
    return lines


def _route(rec: dict) -> "list[str]":
    r = rec["route"]
    if r is None:
        return ["", "route: not routed yet"]
    lines = [
        "",
        f"route: {r['route']} (class {r['decision_class']}, {'unanimous' if r['unanimous'] else 'split'}, review {r['review']})",
    ]
    for x in r["rules"]:
        lines.append(f"  {x['rule']}: {t.one_line(x['detail'], 120)}")
    for p in r["probes"]:
        res = "pass" if p["passed"] else ("timeout" if p["timed_out"] else "FAIL")
        warn = f" - causal warning: {t.one_line(p['causal_warning'], 100)}" if p["causal_warning"] else ""
        lines.append(f"  probe {p['name']}: {res} (exit {p['exit_code']}, {p['duration_s']:.1f}s){warn}")
    return lines


def _lists(d: Any, rec: dict) -> "list[str]":
    lines = []
    for title, items in (
        ("warnings", d.warnings),
        ("failure reasons", d.failure_reasons),
        ("refused transitions", d.refused_transitions),
    ):
        if items:
            lines += ["", f"{title}:"] + [f"  - {t.one_line(x, 160)}" for x in items]
    if d.phase_history:
        rows = [[t.fmt_time(p.at), f"{p.from_phase} -> {p.to_phase}", t.one_line(p.why, 80)] for p in d.phase_history]
        lines += ["", "phase history:", t.table(["WHEN (UTC)", "TRANSITION", "WHY"], rows, indent="  ")]
    return lines


def render_text(
    d: Any, strong: float = defaults.CONFIG["gates"]["strong"], moderate: float = defaults.CONFIG["gates"]["moderate"]
) -> str:
    rec = record_json(d, strong, moderate)
    lines = (
        _overview(d, rec)
        + _decision(rec)
        + _document(rec)
        + _agents(d, rec)
        + _scores(rec)
        + _gates(rec)
        + _dissent_conformity(rec)
        + _depth(rec)
        + _route(rec)
        + ["", t.one_line(rec["usage"]["summary"])]
        + _lists(d, rec)
    )
    return "\n".join(lines) + "\n"


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    delib, why = queries.find_deliberation(layout, store, args.id)
    t.show_store_warnings(store)
    if delib is None:
        return t.fail(why)
    if args.json:
        t.print_json(delib)
        return 0
    config = t.config_or_warn(layout)
    print(render_text(delib, config.gates.strong, config.gates.moderate), end="")
    return 0
