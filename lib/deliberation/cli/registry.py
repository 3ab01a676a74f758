"""`deliberation reverse ID --reason TEXT`, `deliberation confirm ID`, `deliberation registry`.

`reverse` labels a past decision reversed: its class gains a reversal (count, dates, linked
decision, reason) and becomes reversal-prone, so T1/T2 watch it from now on. `confirm` labels a
decision correct. Both are logged in `adjudications.jsonl`. The class is the one recorded in the
decision's route, else computed from the deliberation, else `--class`. `registry` lists the
classes and their history (`--json` prints reversals.json's content).
"""

from __future__ import annotations

import json
import sys
import time

from deliberation.cli import fail

from deliberation.core import escalation
from deliberation.core import reversals
from deliberation.app.adjudication import record_label, who_default
from deliberation.state.config import project_config
from deliberation.state.paths import Layout
from deliberation.state.models import Deliberation
from deliberation.state.store import Store
from deliberation.text import route as route_words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import ReversalRegistry
    from typing import Callable, Sequence
    import argparse


def add_arguments(parser: "argparse.ArgumentParser", name: str) -> None:
    if name in ("reverse", "confirm"):
        parser.add_argument("id", metavar="ID", help="the deliberation id")
        parser.add_argument(
            "--class",
            dest="cls",
            metavar="CLASS",
            default=None,
            help="decision class, when the deliberation file is not in this project",
        )
        parser.add_argument("--who", default=None, help="who labels it (default: $USER)")
    if name == "reverse":
        parser.add_argument("--reason", required=True, help="what went wrong with the decision")
    elif name == "confirm":
        parser.add_argument("--reason", default="", help="optional note for the adjudication log")


def _class_of(store: Store, delib_id: str, explicit: "str | None") -> "str | None":
    if explicit:
        return explicit
    delib = store.load(store.layout.deliberation(delib_id), Deliberation)
    if delib is None:
        return None
    if delib.route is not None:
        return delib.route.decision_class
    cfg, _ = project_config(store.layout)
    return escalation.class_of(delib, cfg.escalation)


def _label(args: "argparse.Namespace", store: Store) -> int:
    cls = _class_of(store, args.id, args.cls)
    if cls is None:
        return fail(
            f"{args.command}: no deliberation {args.id} in {store.layout.project} "
            "(give --class CLASS to label a decision recorded elsewhere)"
        )
    at = time.time()
    if args.command == "reverse":
        changed = store.update_reversals(lambda r: reversals.mark_reversed(r, args.id, cls, args.reason, at))
    else:
        changed = store.update_reversals(lambda r: reversals.mark_confirmed(r, args.id, cls))
    who = args.who or who_default()
    if changed:
        record_label(store, args.id, args.command, who, args.reason, at)
    registry = store.reversals()
    entry = registry.classes[cls]
    if args.json:
        print(json.dumps({"id": args.id, "action": args.command, "changed": changed, "class": entry.model_dump(mode="json")}))
    else:
        label = "reversed" if args.command == "reverse" else "confirmed"
        was = "" if changed else " (already labelled so: nothing changed)"
        print(
            f"{args.id} {label} in class {cls}{was}: {entry.reversals} reversal(s), "
            f"{entry.confirmations} confirmation(s)" + ("; the class is reversal-prone" if entry.reversals else "")
        )
    return 0


def _class_now(store: Store) -> "Callable[[str], str | None]":
    """The class today's catalogue and config give a decision of this project (None when its
    deliberation file is not here)."""
    cfg, _ = project_config(store.layout)

    def class_now(delib_id: str) -> "str | None":
        delib = store.load(store.layout.deliberation(delib_id), Deliberation)
        return None if delib is None else escalation.class_now(delib, cfg.escalation, cfg.task_types.keywords)

    return class_now


def _date(t: "float | None") -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d", time.gmtime(t))


def render(registry: ReversalRegistry) -> str:
    entries = reversals.listing(registry)
    if not entries:
        return "no decision classes yet (label decisions with `deliberation reverse ID --reason ...` or `confirm ID`)"
    head = ("class", "reversals", "confirmed", "first reversed", "last reversed", "decisions")
    body = [
        (
            e.decision_class,
            str(e.reversals),
            str(e.confirmations),
            _date(e.first_reversed_at),
            _date(e.last_reversed_at),
            ", ".join(e.decisions) or "-",
        )
        for e in entries
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]

    def fmt(cells: "Sequence[str]") -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    lines = [fmt(head), fmt(tuple("-" * w for w in widths))] + [fmt(b) for b in body]
    reasons = [(e.decision_class, d, why) for e in entries for d, why in zip(e.decisions, e.reasons)]
    if reasons:  # reversals.json is the team's shared file: its text is theirs, quoted, never the plugin's
        lines.append(
            "reasons, quoted as written in reversals.json by whoever labelled the decision (the team's "
            "shared file — their words, not the plugin's):"
        )
        lines += [f"  {cls} {d}: {json.dumps(why, ensure_ascii=False)[:500]}" for cls, d, why in reasons]
    return "\n".join(lines)


def run(args: "argparse.Namespace") -> int:
    store = Store(Layout(args.project))
    try:
        if args.command in ("reverse", "confirm"):
            return _label(args, store)
        registry = store.reversals()
        if args.json:
            print(json.dumps(registry.model_dump(mode="json"), indent=2))
            return 0
        moved = route_words.reclassified(reversals.reclassified(registry, _class_now(store)))
        print(render(registry) + (f"\n{moved}" if moved else ""))
        return 0
    finally:
        for w in store.warnings:
            print(w, file=sys.stderr)
