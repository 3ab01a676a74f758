import time
from dataclasses import dataclass


@dataclass
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int


class FixedWindowLimiter:
    """Counts requests per key in fixed windows of `window_seconds`."""

    def __init__(self, window_seconds=60, clock=time.time):
        self.window_seconds = window_seconds
        self._clock = clock
        self._counts = {}

    def window_start(self, now=None):
        if now is None:
            now = self._clock()
        now = int(now)
        return now - now % self.window_seconds

    def hit(self, key, limit):
        window = self.window_start()
        reset_at = window + self.window_seconds
        slot = (key, window)

        count = self._counts.get(slot, 0)
        if count >= limit:
            return Decision(allowed=False, limit=limit, remaining=0, reset_at=reset_at)

        self._counts[slot] = count + 1
        return Decision(
            allowed=True,
            limit=limit,
            remaining=limit - count - 1,
            reset_at=reset_at,
        )

    def peek(self, key):
        return self._counts.get((key, self.window_start()), 0)

    def reset(self):
        self._counts.clear()
