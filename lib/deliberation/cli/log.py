"""`deliberation log [SESSION]` — a session's event log (`sessions/<sid>/events.jsonl`), readable.

One row per hook event: sequence number, time (UTC), event, the tool or agent it concerns, the
answer's decision and the first line of its reason. An unreadable line is shown as such, never
fatal; a line without this user's seal (state/seal.py: not written by this user's plugin) is
shown as such too, without its content. Default session: the most recent one with an event log. `--json` gives the rows.
"""

from __future__ import annotations

import json
from typing import Any

from deliberation.cli import views as t
from deliberation.state import queries, safe_read, seal
from deliberation.state.ids import is_valid_id
from deliberation.wire.hookio import is_agent_message, is_task_notification
from deliberation.core.personas import normalise_agent_type

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Callable


def add_arguments(parser: Any, name: str) -> None:
    parser.add_argument("session", metavar="SESSION", nargs="?", help="session id (default: the most recent)")
    parser.add_argument(
        "--event", metavar="NAME", action="append", help="only these events (repeatable), e.g. --event PreToolUse"
    )
    parser.add_argument("--tail", metavar="N", type=int, help="only the last N events")


def _actor(event: str, payload: dict) -> str:
    """What the event is about: the subagent spawned, the agent that stopped, the prompt."""
    if event in ("PreToolUse", "PostToolUse"):
        tool = str(payload.get("tool_name") or "?")
        tin = got if isinstance(got := payload.get("tool_input"), dict) else {}
        target = normalise_agent_type(tin.get("subagent_type")) if tin.get("subagent_type") else ""
        caller = payload.get("agent_id")
        text = f"{tool} -> {target}" if target else tool
        return text + (f" (by {str(caller)[:10]})" if caller else "")
    if event in ("SubagentStart", "SubagentStop"):
        kind = normalise_agent_type(payload.get("agent_type")) or "?"
        aid = str(payload.get("agent_id") or "")[:10]
        return f"{kind} {aid}".strip()
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "")
        if is_task_notification(prompt):
            return "task notification"
        if is_agent_message(prompt):
            return "hand-back message"
        return f'prompt "{t.one_line(prompt, 40)}"'
    if event == "Stop" and payload.get("stop_hook_active"):
        return "stop_hook_active"
    return ""


def _decision(answer: dict) -> "tuple[str, str]":
    """(decision, first line of the reason) from either answer dialect (summary or rendered)."""
    specific = got if isinstance(got := answer.get("hookSpecificOutput"), dict) else {}
    decision = answer.get("decision") or specific.get("permissionDecision") or ""
    reason = answer.get("reason") or specific.get("permissionDecisionReason") or ""
    message = answer.get("system_message") or answer.get("systemMessage") or ""
    context = answer.get("context") or specific.get("additionalContext") or ""
    if not decision:
        decision = "warn" if message else ("context" if context else "-")
    return str(decision), t.first_line(reason or message or context, 100)


def rows_from_lines(lines: "list[bytes]", opener: "Callable[[bytes], bytes | None] | None" = None) -> "list[dict[str, Any]]":
    """Parse event-log lines into display rows (pure); bad lines become 'unreadable' rows; with
    `opener` (seal.line_opener), a line it does not open becomes a 'not written by' row."""
    rows: list[dict[str, Any]] = []
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            rows.append(
                {
                    "seq": n,
                    "at": None,
                    "event": "(unreadable line)",
                    "actor": "",
                    "decision": "-",
                    "reason": t.one_line(str(exc), 100),
                    "notes": [],
                }
            )
            continue
        if opener is not None and opener(raw) is None:
            rows.append(
                {
                    "seq": n,
                    "at": None,
                    "event": "(not this user's)",
                    "actor": "",
                    "decision": "-",
                    "reason": "not written by this user's plugin (no valid seal): not shown",
                    "notes": [],
                }
            )
            continue
        rec.pop("mac", None)
        payload = got if isinstance(got := rec.get("payload"), dict) else {}
        answer = got if isinstance(got := rec.get("answer"), dict) else {}
        event = str(rec.get("event") or payload.get("hook_event_name") or "?")
        decision, reason = _decision(answer)
        at = rec.get("at")
        rows.append(
            {
                "seq": rec.get("seq", n),
                "at": at if isinstance(at, (int, float)) else None,
                "event": event,
                "actor": _actor(event, payload),
                "decision": decision,
                "reason": reason,
                "notes": [str(x) for x in rec.get("notes") or []],
            }
        )
    return rows


LOG_LIMIT = 64 << 20  # bytes of an event log `deliberation log` reads (its newest)


def run(args: Any) -> int:
    layout, store = t.open_store(args)
    sid = args.session or queries.latest_session(layout, store, "events")
    if sid is None:
        return t.fail(f"no session with an event log in {layout.sessions_dir}")
    if not is_valid_id(sid):
        return t.fail(f"invalid session id {sid!r}: ids contain only letters, digits, '-' and '_'")
    path = layout.events(sid)
    try:
        fh, size = safe_read.open_file(path, root=layout.project)
        with fh:  # the newest LOG_LIMIT bytes at most: a log is read bounded, whatever its size
            if size > LOG_LIMIT:
                fh.seek(size - LOG_LIMIT)
            lines = fh.read(LOG_LIMIT).splitlines()[1 if size > LOG_LIMIT else 0 :]
    except FileNotFoundError:
        known = [s for s in queries.session_ids(layout)]
        hint = f" (known: {', '.join(known[-5:])})" if known else ""
        return t.fail(f"no event log for session {sid!r} in {layout.sessions_dir}{hint}")
    except safe_read.Refused as exc:
        return t.fail(f"the event log {path} is not read: {exc.why}")
    rows = rows_from_lines(lines, seal.line_opener(layout, path))
    if args.event:
        wanted = {e.lower() for e in args.event}
        rows = [r for r in rows if r["event"].lower() in wanted]
    if args.tail is not None:
        rows = rows[-args.tail :] if args.tail > 0 else []
    if args.json:
        t.print_json(rows)
        return 0
    print(f"session {sid}: {len(rows)} events ({path})")
    head = ["SEQ", "TIME (UTC)", "EVENT", "TOOL/AGENT", "DECISION"]
    cells = [
        [str(r["seq"]), t.fmt_time(r["at"], with_date=False), r["event"], t.one_line(r["actor"], 32), r["decision"]] for r in rows
    ]
    # the reason gets what is left of 100 columns (at least 16): `show` and `--json` have it whole
    used = max((len(line) for line in t.table(head, cells, "rllll").splitlines()), default=0)
    room = max(16, 100 - used - 2)
    print(t.table(head + ["REASON"], [c + [t.one_line(r["reason"], room)] for c, r in zip(cells, rows)], "rlllll"))
    return 0
