"""`deliberation approve ID` / `deliberation reject ID`: a person settles an escalated decision.

Sets the deliberation's `route.review`, removes it from `escalations.json` (so PreToolUse stops
asking) and appends who/when/what to `adjudications.jsonl`. Refuses an unknown id or a
deliberation that is not awaiting review.
"""

from __future__ import annotations

import json
import sys

from deliberation.cli import fail

from deliberation.app.adjudication import AdjudicationError, adjudicate, who_default
from deliberation.state.models import AdjudicationAction
from deliberation.state.paths import Layout
from deliberation.state.store import Store

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("id", metavar="ID", help="the deliberation id, e.g. d-949c07c6-1 (`deliberation status` lists them)")
    parser.add_argument("--reason", default="", help="optional: why (kept in the adjudication log and the record)")
    parser.add_argument("--who", default=None, help="who decides (default: $USER, else the OS account name)")


def run(args: argparse.Namespace) -> int:
    action: AdjudicationAction = "approve" if args.command == "approve" else "reject"
    store = Store(Layout(args.project))
    who = args.who or who_default()
    try:
        delib = adjudicate(store, args.id, action, who, args.reason)
    except AdjudicationError as exc:
        return fail(f"{args.command}: {exc}")
    for w in store.warnings:
        print(w, file=sys.stderr)
    route = delib.route
    assert route is not None  # adjudicate() refuses a deliberation that has no route
    if args.json:
        print(
            json.dumps(
                {
                    "id": delib.id,
                    "action": action,
                    "who": who,
                    "reason": args.reason,
                    "review": route.review,
                    "route": route.route,
                    "decision_class": route.decision_class,
                }
            )
        )
    else:
        print(
            f"{delib.id}: {route.route} decision ({route.decision_class}) {route.review} by {who}"
            + (f" — {args.reason}" if args.reason else "")
        )
    return 0
