"""One deadline per hook event, the same for the hook, the warm worker and the config's limits.

Claude Code kills a hook command at its timeout (60 s unless hooks.json sets one; the Stop hook
sets 300 s, because its probes may take minutes). From that single figure:

    the hook gives up waiting for the worker at   start + timeout - ANSWER_MARGIN_S
    nothing is committed after                    that - COMMIT_MARGIN_S

so a hook never walks away from work that then completes unseen: past the commit deadline the
transaction is abandoned (nothing written), the hook's answer says so, and the event can be
sent again.

An event handed to the warm worker has an earlier commit deadline, `worker_commit_by` (the
commit deadline less IN_PROCESS_RESERVE_S, taken from MIN_WORK_S): a worker that holds an event
past it without answering commits nothing more of it, and the hook, which stops waiting then
(`worker_answer_by`), does the event itself in the time kept back — it is never dropped. The config's lock and probe limits are validated against these figures
(`config.py`), and a test checks hooks.json and settings.example.json agree with the table.

Builtins only: the hook client imports this. The deadline of the event being handled travels
in `paths.REQUEST_DEADLINE`, beside the request's environment.
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
