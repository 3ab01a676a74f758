"""`deliberation eval HISTORY.jsonl`: routing policies D, T1, T2, D+T2 (and PROBE, D+T2+PROBE
with probe data) on a labelled decision history. Definitions: evaluation.py's docstring.

A malformed line fails the run with its line number (exit 1) unless `--skip-invalid`, which
counts and lists what it skipped.
"""

from __future__ import annotations

import json
import sys

from deliberation.cli import fail

from deliberation.core import evaluation
from deliberation.state.models import ReversalRegistry
from deliberation.text.evaluation import render_table

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import IO, AnyStr
    import argparse


def add_arguments(parser: "argparse.ArgumentParser", name: str) -> None:
    parser.add_argument("history", metavar="HISTORY.jsonl", help="labelled decisions, one JSON object a line ('-' = stdin)")
    parser.add_argument(
        "--registry", metavar="FILE", default=None, help="reversal registry in the project's reversals.json format"
    )
    parser.add_argument(
        "--reversal-classes",
        metavar="GLOBS",
        default=None,
        help="comma-separated class globs that are reversal-prone, e.g. 'DF*,DS*'",
    )
    parser.add_argument(
        "--holdout",
        metavar="CLASS",
        action="append",
        default=[],
        help="remove this class from the registry for the run (repeatable)",
    )
    parser.add_argument(
        "--skip-invalid", action="store_true", help="skip malformed lines (counted and listed) instead of failing"
    )


READ_LIMIT = 64 << 20  # a registry or an adjudications log: far below this


def _bounded(fh: "IO[AnyStr]", what: str) -> "AnyStr":
    data = fh.read(READ_LIMIT + 1)
    if len(data) > READ_LIMIT:
        raise ValueError(f"{what} is larger than {READ_LIMIT >> 20} MiB: not read")
    return data


def _read_registry(path: str) -> ReversalRegistry:
    with open(path, "rb") as fh:
        data = json.loads(_bounded(fh, path))
    return ReversalRegistry.model_validate(data)


def _lines(path: str) -> "list[str]":
    if path == "-":
        return _bounded(sys.stdin, "standard input").splitlines()
    with open(path, encoding="utf-8") as fh:
        return _bounded(fh, path).splitlines()


def run(args: "argparse.Namespace") -> int:
    registry = None
    if args.registry:
        try:
            registry = _read_registry(args.registry)
        except (OSError, ValueError) as exc:
            return fail(f"eval: cannot use registry {args.registry}: {str(exc).splitlines()[0]}")
    globs = evaluation.split_globs(args.reversal_classes)
    try:
        history = evaluation.parse_history(_lines(args.history), skip_invalid=args.skip_invalid)
    except OSError as exc:
        return fail(f"eval: cannot read {args.history}: {exc.strerror or exc}")
    except evaluation.HistoryError as exc:
        return fail(f"eval: {args.history} {exc} (use --skip-invalid to skip malformed lines)")
    listed = evaluation.registry_predicate(registry, globs, args.holdout)
    result = evaluation.evaluate(history, listed, args.holdout)
    if args.json:
        out = result.to_json()
        out["registry"] = {"file": args.registry, "globs": globs}
        print(json.dumps(out, indent=2))
    else:
        if registry is None and not globs:
            print("note: no registry given (--registry or --reversal-classes): T1/T2 escalate nothing")
        print(render_table(result))
    return 0
