"""`deliberation history [--export FILE]`: the project's own labelled decisions.

A decision is exported when its deliberation has a route and a label from `deliberation
confirm` / `reverse` (bad = reversed), in `deliberation eval`'s input format: decision = the
vote's outcome (pass when approvals outnumber rejections), votes from the ranking, confidence =
the judges' confidence (the approving agents' mean self-reported confidence — what live T2
reads), probe = fail if any probe failed, pass if all passed, null if none ran.
Without `--export` the same rows are shown as a table.
"""

from __future__ import annotations

import json
import os
import sys

from deliberation.core import escalation
from deliberation.core import reversals
from deliberation.state.paths import Layout
from deliberation.state.models import Deliberation
from deliberation.state.store import Store, atomic_write_bytes

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        "--export", metavar="FILE", default=None, help="write the labelled decisions as JSON Lines ('-' = stdout)"
    )


def row_of(delib: Deliberation, bad: bool) -> dict:
    """One eval input line for a routed, labelled deliberation."""
    if delib.route is None:
        raise ValueError(f"deliberation {delib.id} has no route")
    vote = escalation.vote_of(delib)
    probes = delib.route.probes
    probe = None if not probes else ("pass" if all(p.passed for p in probes) else "fail")
    votes = ["pass"] * vote.approvals + ["fail"] * vote.rejections
    return {
        "id": delib.id,
        "class": delib.route.decision_class,
        "decision": "pass" if vote.passes else "fail",
        "bad": bad,
        "votes": votes or None,
        "confidence": vote.confidence,
        "probe": probe,
    }


def labelled_rows(store: Store) -> "list[dict]":
    registry = store.reversals()
    directory = store.layout.deliberations_dir
    names = sorted(n for n in os.listdir(directory) if n.endswith(".json")) if os.path.isdir(directory) else []
    rows = []
    for name in names:
        delib_id = name[:-5]
        label = reversals.label_of(registry, delib_id)
        if label is None:
            continue
        delib = store.load(store.layout.deliberation(delib_id), Deliberation)
        if delib is None or delib.route is None:
            continue
        rows.append(row_of(delib, bad=label[0] == "reversed"))
    return rows


def run(args: argparse.Namespace) -> int:
    store = Store(Layout(args.project))
    rows = labelled_rows(store)
    for w in store.warnings:
        print(w, file=sys.stderr)
    if args.export:
        data = "".join(json.dumps(r) + "\n" for r in rows)
        if args.export == "-":
            sys.stdout.write(data)
        else:
            atomic_write_bytes(os.path.abspath(args.export), data.encode())
            print(f"wrote {len(rows)} labelled decision(s) to {args.export}", file=sys.stderr if args.json else sys.stdout)
        return 0
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no labelled decisions yet (label them with `deliberation confirm ID` or `reverse ID --reason ...`)")
        return 0
    for r in rows:
        votes = "/".join(r["votes"]) if r["votes"] else "-"
        conf = "-" if r["confidence"] is None else f"{r['confidence']:.2f}"
        print(
            f"{r['id']}  {r['class']}  {r['decision']}  {'BAD' if r['bad'] else 'good'}  "
            f"votes {votes}  confidence {conf}  probe {r['probe'] or '-'}"
        )
    return 0
