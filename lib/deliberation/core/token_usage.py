"""What a subagent used, in tokens: the figure the depth axis' budget counts (docs/DEPTH_AXIS.md,
"What the token budget counts").

`last_usage` / `usage_total` give an agent's last API response's input (uncached, cache writes,
cache reads) plus output tokens — the client's own `totalTokens` figure; `notified_tokens` reads a
task notification's `subagent_tokens`. Each agent records the largest reading and its source
(`SOURCES`); `summary` counts the agents per source for the record. `sum_usage` is the other
figure, every response's usage summed by message id, which the record's cost section shows.
Pure: app/transcripts.py reads the transcripts.
"""

from __future__ import annotations

import json
import re

from deliberation.text.tokens import COUNTED

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Literal
    from deliberation.state.models import AgentRecord, Deliberation
    from typing import Iterable, Iterator

USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
SOURCES = ("transcript", "totalTokens", "task-notification")
_NOTIFIED = re.compile(r"<subagent_tokens>\s*([0-9]{1,12})\s*</subagent_tokens>")


def usage_total(usage: object) -> "int | None":
    """input + cache creation + cache read + output tokens of one API response's usage."""
    if not isinstance(usage, dict):
        return None
    total = 0
    for key in USAGE_KEYS:
        value = usage.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            value = 0
        total += value
    return total


def assistant_messages(lines: "Iterable[bytes]", key: bytes) -> "Iterator[dict]":
    """The `message` objects of the client's assistant entries among transcript lines, in the
    order given. A line without `key` (b'"usage"', b'"model"') is skipped before any parsing."""
    for line in lines:
        if key not in line or b'"assistant"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "assistant" and isinstance(entry.get("message"), dict):
            yield entry["message"]


def last_usage(lines: "Iterable[bytes]") -> "int | None":
    """The token figure of the last API response among transcript lines given LAST LINE FIRST."""
    for message in assistant_messages(lines, b'"usage"'):
        total = usage_total(message.get("usage"))
        if total is not None:
            return total
    return None


def entries_since(lines: "Iterable[bytes]", since: float) -> "Iterator[bytes]":
    """The lines whose entry's `timestamp` (ISO 8601, as the client writes it) is at or after
    `since` (epoch seconds); a line without a readable timestamp is left out."""
    from datetime import datetime

    for line in lines:
        m = _TIMESTAMP.search(line)
        if not m:
            continue
        try:
            at = datetime.fromisoformat(m.group(1).decode().replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
        if at >= since:
            yield line


_TIMESTAMP = re.compile(rb'"timestamp"\s*:\s*"([0-9T:.+Z-]{10,40})"')


def first_usage(lines: "Iterable[bytes]") -> "int | None":
    """The token figure of the first API response among transcript lines given oldest first
    (`last_usage` reads the first figure in the order the lines come, whichever that is)."""
    return last_usage(lines)


def sum_usage(lines: "Iterable[bytes]") -> "dict[str, int] | None":
    """Every API response's usage among transcript lines (oldest first), one per message id
    (the client writes one entry per content block, each repeating its response's usage):
    {calls, input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens},
    or None when no response is recorded."""
    by_id: dict = {}
    anonymous = 0
    for message in assistant_messages(lines, b'"usage"'):
        if usage_total(message.get("usage")) is None:
            continue
        mid = message.get("id")
        if not isinstance(mid, str) or not mid:
            anonymous += 1
            mid = f"#anonymous-{anonymous}"
        by_id[mid] = message["usage"]  # the last entry of a response wins (same usage repeated)
    if not by_id:
        return None
    out = {"calls": len(by_id)}
    for key in USAGE_KEYS:
        out[key] = sum(
            v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0 for v in (u.get(key, 0) for u in by_id.values())
        )
    return out


def notified_tokens(notification: str) -> "int | None":
    """`<subagent_tokens>` of a task notification, if it carries one."""
    m = _NOTIFIED.search(notification or "")
    return int(m.group(1)) if m else None


def count(
    delib: "Deliberation",
    rec: "AgentRecord",
    tokens: "int | None",
    source: "Literal['', 'transcript', 'totalTokens', 'task-notification']",
) -> bool:
    """Record a reading of an agent's figure and keep the deliberation's total in step. Every
    source measures the same thing, and it only grows while the agent works, so the largest
    reading wins (and names the source). True if the figure changed."""
    if tokens is None or tokens < 0 or tokens <= rec.tokens:
        return False
    delib.tokens_used = max(0, delib.tokens_used - rec.tokens + tokens)
    rec.tokens = tokens
    rec.tokens_source = source
    return True


def plan_due(delib: "Deliberation") -> bool:
    """Is the depth step about to be planned (the moment the budget is read)? Then the
    transcripts of the agents that finished earlier are read again: at SubagentStop the client
    may not have written an agent's last response to its transcript yet."""
    from deliberation.core import minimum_deliberation, phases

    st = delib.depth
    if st.posture or st.status != "not_needed":
        return False
    if delib.phase == "RESEARCH":
        return delib.two_agent is None and minimum_deliberation.eligible(delib)
    return (
        delib.phase == "DELIBERATION"
        and not phases.pending(delib, "deliberation")
        and any(a.kind == "red-team" for a in phases.current(delib, "deliberation"))
    )


def summary(delib: "Deliberation") -> dict:
    """What the deliberation's token total counted, for the decision record."""
    by: dict = {s: 0 for s in SOURCES}
    not_counted = 0
    for a in delib.agents:
        if a.status in ("refused",):
            continue
        if a.tokens_source in by:
            by[a.tokens_source] += 1
        else:
            not_counted += 1
    return {"used": delib.tokens_used, "counted": COUNTED, "agents_by_source": by, "agents_not_counted": not_counted}
