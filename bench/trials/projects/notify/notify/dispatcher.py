"""In-process delivery queue. Worker threads pull deliveries and send them."""
import dataclasses
import logging
import queue
import threading
import time

from notify import retry, sender, store

log = logging.getLogger("notify.dispatcher")

WORKERS = 8
_q: "queue.PriorityQueue[tuple[float, int, Delivery]]" = queue.PriorityQueue()
_seq = 0
_lock = threading.Lock()


@dataclasses.dataclass
class Delivery:
    event_id: str
    event_type: str
    endpoint_id: int
    url: str
    secret: str
    payload: dict
    attempt: int = 0


def enqueue(d: Delivery, not_before: float = 0.0) -> None:
    global _seq
    with _lock:
        _seq += 1
        _q.put((not_before, _seq, d))


def queue_depth() -> int:
    return _q.qsize()


def _work() -> None:
    while True:
        not_before, _, d = _q.get()
        wait = not_before - time.time()
        if wait > 0:
            # not due yet: put it back and sleep briefly
            enqueue(d, not_before)
            time.sleep(min(wait, 0.5))
            continue
        d.attempt += 1
        ok, status = sender.send(d)
        store.log_attempt(d.event_id, d.endpoint_id, d.attempt, status)
        if ok:
            continue
        delay = retry.next_delay(d.attempt)
        if delay is None:
            log.warning("giving up event_id=%s endpoint=%s after %d attempts",
                        d.event_id, d.endpoint_id, d.attempt)
            store.mark_failed(d.event_id, d.endpoint_id)
            continue
        enqueue(d, time.time() + delay)


def start() -> None:
    for i in range(WORKERS):
        threading.Thread(target=_work, name=f"deliver-{i}", daemon=True).start()
