"""Why a prune removes, trims or keeps each item of the state folder (core/retention.py decides
which rule applies and passes its figures; `deliberation gc` and cache/retention.json show the
reason). Standard library only: a session start's upkeep says these."""

from __future__ import annotations

LEFTOVER = "left by an interrupted prune"
WITHIN = "within the limits"


def too_old(days: int, limit: float) -> str:
    """Untouched for `days` whole days, over the age limit of `limit` days."""
    return f"untouched for {days} days (the limit is {limit:g})"


def trimmed(size: int, limit: int) -> str:
    """errors.log of `size` bytes, over its own limit of `limit` bytes."""
    return f"{size} bytes, over its {limit}: its newest {limit // 2} bytes stay"


def beyond_total(limit_mb: float) -> str:
    """The oldest items removed while the folder is over its total of `limit_mb` MB."""
    return f"the oldest beyond the {limit_mb:g} MB total"
