"""`deliberation replay EVENTS.jsonl` — run recorded hook events through the library.

Each event of a session's log (or any file of hook payloads, one per line) is answered by the
same code a hook process runs, in a fresh temporary state directory, at the recorded time. The
decision is printed next to the one recorded; `--check` exits 1 when any differs, so replaying
a session's own log proves its decisions reproduce exactly.

A record that does not hold its whole payload is replayed (its effect on the state counts) but
not compared: one logged before the session opened a deliberation keeps only ids and flags, and
one with a string beyond the field cap keeps it cut (docs/STORAGE.md).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile

from deliberation.cli import fail
from deliberation.runtime.hook_runner import answer_for
from deliberation.state import consent
from deliberation.state.consent import CONFIG_LIMIT
from deliberation.state.paths import Layout

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import IO, Callable
    import argparse

COMPARED = ("decision", "reason", "context")


def add_arguments(parser: "argparse.ArgumentParser", name: str) -> None:
    parser.add_argument("events", help="events.jsonl (a session log) or a file of raw hook payloads")
    parser.add_argument("--check", action="store_true", help="exit 1 if a decision differs from the recorded one")
    parser.add_argument("--config", metavar="FILE", help="config.json to use for the replay")
    parser.add_argument("--keep", metavar="DIR", help="replay into DIR instead of a temporary directory")


def load_events(path: str) -> "list[dict]":
    out = []
    with open(path, "rb") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                raise SystemExit(fail(f"{path}:{n}: not JSON ({exc})")) from None
            if not isinstance(rec, dict):
                raise SystemExit(fail(f"{path}:{n}: not a JSON object"))
            if "payload" not in rec:  # a raw hook payload
                rec = {"event": rec.get("hook_event_name"), "payload": rec, "answer": None, "at": None}
            out.append(rec)
    return latest_per_event(out)


def latest_per_event(records: "list[dict]") -> "list[dict]":
    """One record per event: a prompt logged with ids only, then whole when a deliberation
    opened in its turn (common.Ctx.open_deliberation), replays once, from its whole record."""
    last = {rec["eid"]: i for i, rec in enumerate(records) if isinstance(rec.get("eid"), str)}
    return [rec for i, rec in enumerate(records) if not isinstance(rec.get("eid"), str) or last[rec["eid"]] == i]


def partial_payload(rec: dict) -> "str | None":
    """Why a logged record cannot be compared (its payload is not whole), or None."""
    if rec.get("ids_only"):
        return "logged before a deliberation opened: ids only"
    cut = rec.get("truncated")
    if isinstance(cut, dict) and cut:
        return "cut at the field cap: " + ", ".join(sorted(cut))[:120]
    return None


def progress_printer(total: int, stream: "IO[str] | None" = None) -> "Callable[[int], None]":
    """A progress line on a terminal (every 25 events), nothing when output is redirected."""
    stream = stream or sys.stderr
    if not stream.isatty() or total < 50:
        return lambda done: None

    def show(done: int) -> None:
        if done % 25 == 0 or done == total:
            stream.write(f"\rreplaying {done}/{total} events")
            if done == total:
                stream.write("\n")
            stream.flush()

    return show


def replay(
    events: "list[dict]", project_dir: str, config: "str | None" = None, on_progress: "Callable[[int], None] | None" = None
) -> "list[dict]":
    """Answer each event in `project_dir`; returns [{event, expected, got, same}]."""
    if config:
        state = os.path.join(project_dir, ".claude", "deliberation")
        os.makedirs(state, exist_ok=True)
        with open(config, "rb") as src, open(os.path.join(state, "config.json"), "wb") as dst:
            dst.write(src.read(CONFIG_LIMIT + 1))  # a larger one is refused when read (state/config.py)
    old = os.environ.get("CLAUDE_PROJECT_DIR")
    os.environ["CLAUDE_PROJECT_DIR"] = project_dir
    old_data = os.environ.get("DELIBERATION_USER_DATA")
    own_data = None
    if config:
        # the config the person named for this replay applies as given: approved (state/consent.py)
        # in a user folder of the replay's own, so no approval of a throw-away project is kept
        own_data = os.environ["DELIBERATION_USER_DATA"] = tempfile.mkdtemp(prefix="deliberation-replay-")
        consent.approve(Layout(project_dir))
    results = []
    try:
        for i, rec in enumerate(events):
            name = str(rec.get("event") or (rec.get("payload") or {}).get("hook_event_name") or "")
            data = json.dumps(rec["payload"]).encode()
            at = float(got) if isinstance(got := rec.get("at"), (int, float)) else 1_800_000_000.0 + i
            answer = answer_for(name, data, at)
            got = {k: v for k, v in answer.summary().items() if k in COMPARED}
            expected = rec.get("answer")
            partial = partial_payload(rec)
            exp = None if expected is None or partial else {k: v for k, v in expected.items() if k in COMPARED}
            results.append(
                {
                    "n": i + 1,
                    "event": name,
                    "got": got,
                    "expected": exp,
                    "same": exp is None or exp == got,
                    **({"not_compared": partial} if partial else {}),
                }
            )
            if on_progress is not None:
                on_progress(i + 1)
    finally:
        for name, value in (("CLAUDE_PROJECT_DIR", old), ("DELIBERATION_USER_DATA", old_data)):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if own_data is not None:
            shutil.rmtree(own_data, ignore_errors=True)
    return results


def _line(r: dict) -> str:
    got = r["got"]
    verdict = got.get("decision") or ("context" if got.get("context") else "-")
    reason = (got.get("reason") or got.get("context") or "").splitlines()
    mark = "" if r["expected"] is None else ("  = recorded" if r["same"] else "  ≠ RECORDED")
    if r.get("not_compared"):
        mark = f"  (not compared: {r['not_compared']})"
    return f"{r['n']:>4}  {r['event']:<17} {verdict:<8} {reason[0][:90] if reason else ''}{mark}"


def run(args: "argparse.Namespace") -> int:
    events = load_events(args.events)
    show = progress_printer(len(events))
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        results = replay(events, os.path.abspath(args.keep), args.config, show)
    else:
        with tempfile.TemporaryDirectory(prefix="deliberation-replay-") as tmp:
            results = replay(events, tmp, args.config, show)
    differ = [r for r in results if not r["same"]]
    if args.json:
        json.dump({"events": len(results), "differ": len(differ), "results": results}, sys.stdout, indent=1)
        print()
    else:
        for r in results:
            print(_line(r))
        skipped = sum(1 for r in results if r.get("not_compared"))
        print(
            f"{len(results)} events replayed, {len(differ)} decision(s) differ from the record"
            + (f", {skipped} not compared (partial payloads)" if skipped else "")
        )
    return 1 if (args.check and differ) else 0
