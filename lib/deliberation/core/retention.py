"""What to prune from the state folder: a pure plan over what is there (docs/STORAGE.md).

The shell (app/retention.py) lists the folder as `Item`s; `plan` says what goes and why:
- leftovers of an interrupted prune go at once;
- an item that is in use is kept whatever its age or size — a session whose deliberation is open
  or awaits a person's review, one whose commit awaits replay, the session that is starting;
- an item untouched for longer than the age limit goes;
- beyond the size limit the oldest go first, but never one used within `RECENT_S` (a live
  session's lineage holds its spawn budget);
- errors.log beyond its own limit is trimmed to the newest half of that limit (only that tail is read).
Deliberations and their records are never items: they stay until the user removes them.
"""

from __future__ import annotations

from deliberation.text import prune as words

RECENT_S = 24 * 3600
DAY_S = 24 * 3600


class Item:
    """One prunable thing: a session folder, errors.log, a quarantined file, a leftover."""

    __slots__ = ("kind", "name", "size", "mtime", "busy")

    def __init__(self, kind: str, name: str, size: int, mtime: float, busy: "str | None" = None) -> None:
        self.kind = kind  # session | errors_log | quarantined | leftover
        self.name = name  # relative to the state folder
        self.size = size
        self.mtime = mtime
        self.busy = busy  # why it must stay, whatever its age and size

    def __repr__(self) -> str:
        return f"Item({self.kind}, {self.name}, {self.size}, busy={self.busy!r})"


class Step:
    """One decision of the plan: `action` remove | trim | keep, with the reason said to the user."""

    __slots__ = ("item", "action", "reason", "keep")

    def __init__(self, item: Item, action: str, reason: str, keep: int = 0) -> None:
        self.item, self.action, self.reason = item, action, reason
        self.keep = keep  # a trim: the bytes that stay (trimmed_to)


def trimmed_to(size: int, limit: int) -> int:
    """The bytes a trimmed errors.log keeps: the newest half of its own limit at most, whatever
    its size — the trim reads no more than that (a 2 GiB errors.log costs a session start 512 KiB)."""
    return min(size // 2, limit // 2)


def plan(items: "list[Item]", now: float, max_age_days: float, max_total_mb: float, errors_log_max: int) -> "list[Step]":
    """A step for every item, oldest first."""
    steps: dict[str, Step] = {}
    max_age_s = max_age_days * DAY_S
    for it in sorted(items, key=lambda i: (i.mtime, i.name)):
        if it.kind == "leftover":
            steps[it.name] = Step(it, "remove", words.LEFTOVER)
        elif it.busy:
            steps[it.name] = Step(it, "keep", it.busy)
        elif now - it.mtime > max_age_s:
            steps[it.name] = Step(it, "remove", words.too_old(int((now - it.mtime) // DAY_S), max_age_days))
        elif it.kind == "errors_log" and it.size > errors_log_max:
            steps[it.name] = Step(it, "trim", words.trimmed(it.size, errors_log_max), trimmed_to(it.size, errors_log_max))
        else:
            steps[it.name] = Step(it, "keep", words.WITHIN)
    limit = int(max_total_mb * 1024 * 1024)
    total = sum(s.item.size for s in steps.values() if s.action == "keep") + sum(
        s.keep for s in steps.values() if s.action == "trim"
    )
    for s in steps.values():  # oldest first
        if total <= limit:
            break
        if s.action == "keep" and not s.item.busy and now - s.item.mtime > RECENT_S:
            s.action, s.reason = "remove", words.beyond_total(max_total_mb)
            total -= s.item.size
    return list(steps.values())


def summary(steps: "list[Step]") -> "dict[str, int]":
    """Counts and bytes: removed, trimmed (bytes freed), kept."""
    out = {"removed": 0, "freed_bytes": 0, "kept": 0, "kept_bytes": 0, "trimmed": 0}
    for s in steps:
        if s.action == "remove":
            out["removed"] += 1
            out["freed_bytes"] += s.item.size
        elif s.action == "trim":
            out["trimmed"] += 1
            out["freed_bytes"] += s.item.size - s.keep
            out["kept_bytes"] += s.keep
        else:
            out["kept"] += 1
            out["kept_bytes"] += s.item.size
    return out
