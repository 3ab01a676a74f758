"""One deadline per hook event, the same for the hook, the warm worker and the config's limits
(docs/SECURITY.md, "The warm worker", gives the figures).

From the client's timeout of the event's hook (60 s, the Stop hook's 300 s): the hook stops
waiting for the worker at start + timeout − ANSWER_MARGIN_S, nothing commits after that −
COMMIT_MARGIN_S (the transaction is abandoned and the answer says so), and an event handed to
the worker commits nothing after `worker_commit_by` (IN_PROCESS_RESERVE_S earlier), so the hook
can still do it itself — never dropped. config.py validates its lock and probe limits against
these figures; a test checks hooks.json and settings.example.json against the table. Builtins
only: the hook client imports it; the event's deadline travels in `paths.REQUEST_DEADLINE`.
"""

import time

DEFAULT_TIMEOUT_S = 60.0  # Claude Code's default for a command hook
EVENT_TIMEOUT_S = {"Stop": 300.0}  # hooks.json / settings: "timeout" of each event's command
ANSWER_MARGIN_S = 5.0  # the hook prints its answer this long before the client would kill it
COMMIT_MARGIN_S = 3.0  # the last commit starts this long before the hook stops waiting
MIN_WORK_S = 5.0  # what a hook needs besides waiting for a lock or probes (load, decide, write)
IN_PROCESS_RESERVE_S = 3.0  # of MIN_WORK_S: kept for the hook when the worker holds its event too long
WORKER_ANSWER_GRACE_S = 0.5  # a commit started just before the worker's deadline ends within this


class DeadlineExceeded(Exception):
    """The event's time ran out before its transaction could commit: nothing was written."""


def timeout_s(event_name: str) -> float:
    return EVENT_TIMEOUT_S.get(event_name, DEFAULT_TIMEOUT_S)


def answer_by(event_name: str, started: float) -> float:
    """When the hook prints whatever it has (time.time())."""
    return started + timeout_s(event_name) - ANSWER_MARGIN_S


def commit_by(event_name: str, started: float) -> float:
    return answer_by(event_name, started) - COMMIT_MARGIN_S


def worker_commit_by(event_name: str, started: float) -> float:
    """Nothing is committed by the warm worker after this (the hook keeps the rest for itself)."""
    return commit_by(event_name, started) - IN_PROCESS_RESERVE_S


def worker_answer_by(event_name: str, started: float) -> float:
    """When the hook stops waiting for the worker's answer and does the event itself."""
    return worker_commit_by(event_name, started) + WORKER_ANSWER_GRACE_S


def budget_s(event_name: str) -> float:
    """How long one event may wait for locks and probes altogether."""
    return timeout_s(event_name) - ANSWER_MARGIN_S - COMMIT_MARGIN_S - MIN_WORK_S


def check(deadline: "float | None") -> None:
    """Raise DeadlineExceeded when the commit deadline has passed (None: no deadline)."""
    if deadline is not None and time.time() > deadline:
        raise DeadlineExceeded("the hook's time ran out before its changes could be saved; nothing was saved")
