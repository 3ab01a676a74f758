"""Backoff policy for failed webhook deliveries."""
import random

MAX_ATTEMPTS = 7
BASE_DELAY_S = 2.0
FACTOR = 2.0
JITTER = 0.2

# Status codes we do not retry: the consumer told us the request itself is bad.
NO_RETRY = {400, 401, 403, 404, 410, 422}


def should_retry(status: int | None) -> bool:
    if status is None:  # connection error / timeout
        return True
    return status not in NO_RETRY and not (200 <= status < 300)


def next_delay(attempt: int) -> float | None:
    """Seconds to wait before the next attempt, or None to give up.

    attempt is the number of attempts already made (1 after the first try).
    Delays: 2, 4, 8, 16, 32, 64 s (+/- 20% jitter).
    """
    if attempt >= MAX_ATTEMPTS:
        return None
    delay = BASE_DELAY_S * FACTOR ** (attempt - 1)
    return delay * random.uniform(1 - JITTER, 1 + JITTER)


MAX_RETRY_AFTER_S = 60.0


def parse_retry_after(value: str | None) -> float | None:
    """Honour a consumer's Retry-After (seconds form only), capped at 60 s."""
    if not value:
        return None
    try:
        secs = float(value)
    except ValueError:
        return None  # HTTP-date form not supported
    return max(0.0, min(secs, MAX_RETRY_AFTER_S))
