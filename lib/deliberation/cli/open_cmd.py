"""`deliberation start` — open a deliberation explicitly (what /deliberate does from a prompt)."""

from __future__ import annotations

import json
import sys
import time

from deliberation.cli import fail
from deliberation.app.handlers.common import Ctx
from deliberation.defaults import TASK_TYPES
from deliberation.app.settings import project_config
from deliberation.state.paths import Layout
from deliberation.state.store import SessionTx, Store

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--session", required=True, help="the Claude Code session id")
    parser.add_argument("--question", help="the question (default: the session's latest prompt)")
    parser.add_argument(
        "--task-type",
        choices=list(TASK_TYPES),
        help="override the classified task type (and so the threshold)",
    )


def run(args: argparse.Namespace) -> int:
    layout = Layout(args.project)
    cfg, problems = project_config(layout)
    store = Store(layout, cfg.lock_timeout_s)
    with SessionTx(store, args.session) as tx:
        ctx = Ctx(layout, store, cfg, tx, time.time())
        current = ctx.active()
        if current is not None and current.phase not in ("COMPLETE", "FAILED"):
            return fail(f"session {args.session} already has an active deliberation {current.id} ({current.phase})")
        delib = ctx.open_deliberation(args.question, args.task_type)
    for p in problems + store.warnings:
        print(p, file=sys.stderr)
    if args.json:
        print(
            json.dumps({"id": delib.id, "task_type": delib.task_type, "threshold": delib.threshold, "question": delib.question})
        )
    else:
        print(f"opened {delib.id}: {delib.task_type}, threshold {delib.threshold:.2f}\n  {delib.question}")
    return 0
