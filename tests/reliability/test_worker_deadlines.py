"""The warm worker under a peer or a file that will not let go.

- A request trickled a byte at a time is cut at READ_TIMEOUT_S from the start of its read
  (a whole-message deadline), never ACKed; a per-recv timeout would have let it run on.
- A worker that ACKs and GOs and then holds the event is not trusted with it past its deadline:
  the hook does the event itself (answered, logged once, handled_by "hook"), removes that
  worker's socket, so the next hook does not hand it another, and ends that worker — even one
  whose thread spins in a regular expression that keeps the interpreter's lock, so no thread of
  it stays busy after the hook answered.
- No file holds a worker thread: FIFOs planted where the fast path and the slow path read leave
  every hook answered by the worker, promptly, and the worker still serves afterwards.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.helpers import payloads as P
from tests.conftest import run_hook
from tests.helpers.reliability import summary
from tests.helpers.workers import LIB, Workers, hook_client, worker_protocol

SID = "de7d11e0-0000-4000-8000-000000000001"


@pytest.fixture
def workers(tmp_path):
    w = Workers(tmp_path / "home")
    yield w
    w.kill_all()


def test_a_trickled_request_is_cut_at_the_whole_message_deadline(project, workers):
    from deliberation.runtime import warm_worker

    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    workers.wait_up()
    message = worker_protocol.frame(
        worker_protocol.encode_request(
            "Stop", json.dumps(P.stop(SID)).encode(), time.time(), str(project).encode(), {}, "e1", worker_protocol.code_stamp()
        )
    )
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hook_client.worker_socket.connect(s, workers.socket_path())
    s.settimeout(0.01)
    t0 = time.monotonic()
    reply, sent, closed_at = b"", 0, None
    while time.monotonic() - t0 < warm_worker.READ_TIMEOUT_S * 3 and sent < len(message):
        try:
            s.send(message[sent : sent + 1])
            sent += 1
        except OSError:  # the worker closed the connection
            closed_at = time.monotonic() - t0
            break
        try:
            chunk = s.recv(16)
            if not chunk:
                closed_at = time.monotonic() - t0
                break
            reply += chunk
        except (TimeoutError, BlockingIOError):
            pass
        time.sleep(0.25 if sent < 200 else 0)
    s.close()
    assert reply == b"" and closed_at is not None, (reply, closed_at, sent)
    # cut by the whole-message deadline: a per-read timeout never fires on a byte every 0.25 s
    assert closed_at < warm_worker.READ_TIMEOUT_S * 3, closed_at
    summary(
        f"hostile/worker: a request trickled 1 byte per 0.25 s was cut after {closed_at:.1f} s and {sent} bytes, "
        f"never ACKed (deadline {warm_worker.READ_TIMEOUT_S:g} s for the whole message)"
    )


HOLDER = """
import socket, sys, time
sys.path.insert(0, sys.argv[1])
from deliberation.wire import worker_protocol, worker_socket
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
worker_socket.bind(server, sys.argv[2])
server.listen(8)
print("up", flush=True)
held = []
while True:
    conn, _ = server.accept()
    worker_protocol.recv_message(conn, worker_protocol.MAX_REQUEST)
    conn.sendall(worker_protocol.frame(worker_protocol.ACK))
    worker_protocol.recv_message(conn, 16)
    held.append(conn)  # GO received: now hold the event and never answer
"""

HOOK = """
import sys
sys.path.insert(0, sys.argv[1])
from deliberation.wire import deadlines
deadlines.EVENT_TIMEOUT_S[sys.argv[2]] = float(sys.argv[3])  # a short hook timeout, so the test is quick
from deliberation.runtime import hook_client
hook_client.main(sys.argv[2])
"""


def test_a_worker_that_holds_an_event_past_its_deadline_is_not_trusted_and_the_hook_does_it(project, workers):
    from deliberation.wire import deadlines

    path = workers.socket_path()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, LIB, path], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "up"
        timeout = 16.0  # worker answer deadline: 16 - 5 - 3 - 3 + 0.5 = 5.5 s after the start
        env = {**os.environ, **workers.hook_env, "CLAUDE_PROJECT_DIR": str(project)}
        payload = json.dumps(P.prompt(SID, "/deliberate should we move the sessions to Redis?")).encode()
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", HOOK, LIB, "UserPromptSubmit", str(timeout)],
            input=payload,
            capture_output=True,
            env=env,
            cwd=str(project),
            timeout=60,
        )
        took = time.monotonic() - t0
        ended = holder.wait(timeout=10)  # the hook that took the event over ended the worker
    finally:
        holder.kill()
        holder.wait()
    assert ended == -9, ended
    out = json.loads(proc.stdout)
    assert "DELIBERATION PROTOCOL" in out["hookSpecificOutput"]["additionalContext"], out
    folder = project / ".claude" / "deliberation" / "sessions" / SID
    log = (
        [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
        if (folder / "events.jsonl").exists()
        else []
    )
    if (folder / "prompt.json").exists():  # a session without a deliberation keeps the prompt aside
        log.append(json.loads((folder / "prompt.json").read_text())["record"])
    assert {(e["event"], e["handled_by"]) for e in log} == {("UserPromptSubmit", "hook")}, log
    assert len({e["eid"] for e in log}) == 1, log
    assert not os.path.exists(path), "the worker that held the event still has its socket"
    limit = deadlines.worker_answer_by("UserPromptSubmit", 0) - 0 + (timeout - deadlines.DEFAULT_TIMEOUT_S)
    assert took < limit + 20, (took, limit)  # well before the 55 s fail-open it was; loose for a loaded machine
    summary(
        f"hostile/worker: a worker that ACKed, took GO and held the event → the hook did it itself after "
        f"{took:.1f} s (event logged 1×, handled_by hook; before: dropped, 0 lines, fail-open at 55 s), "
        "and removed that worker's socket"
    )


SPINNER = HOLDER.replace(
    "    held.append(conn)  # GO received: now hold the event and never answer",
    "    import re\n    re.fullmatch('(?:.*){500}Q', 'Bash' * 10)  # GO received: a thread that never lets go of the GIL",
)


def test_a_worker_busy_past_its_hook_s_deadline_is_ended(project, workers):
    """Before: the hook gave up on the worker, answered, and the worker's thread went on at 100 %
    CPU (a pattern that backtracks for ever holds the interpreter's lock: it could not even retire)."""
    path = workers.socket_path()
    spinner = subprocess.Popen([sys.executable, "-c", SPINNER, LIB, path], stdout=subprocess.PIPE, text=True)
    try:
        assert spinner.stdout.readline().strip() == "up"
        env = {**os.environ, **workers.hook_env, "CLAUDE_PROJECT_DIR": str(project)}
        payload = json.dumps(P.prompt(SID, "hello")).encode()
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", HOOK, LIB, "UserPromptSubmit", "16"],
            input=payload,
            capture_output=True,
            env=env,
            cwd=str(project),
            timeout=60,
        )
        took = time.monotonic() - t0
        ended = spinner.wait(timeout=10)
    finally:
        spinner.kill()
        spinner.wait()
    assert proc.returncode == 0 and ended == -9, (proc.stdout, proc.stderr, ended)
    summary(
        f"hostile/worker: a worker thread spinning in a regex past its deadline — the hook answered after {took:.1f} s and ended it"
    )


def test_no_file_can_hold_a_worker_thread(project, workers):
    from deliberation.runtime import warm_worker
    from tests.helpers.factories import write_state

    root = project / ".claude" / "deliberation"
    write_state(root / "config.json", b"{}")
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    workers.wait_up()
    os.unlink(root / "config.json")
    os.mkfifo(root / "config.json")
    os.mkfifo(root / "escalations.json")
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    os.mkfifo(agents / "security-analyst.md")
    n = warm_worker.POOL_SIZE + 8
    results = [None] * n

    def one(i):
        payload = (
            P.pre_tool(SID, "Bash", {"command": "ls"}, f"toolu_{i}")
            if i % 2
            else P.pre_agent(SID, f"toolu_a{i}", "security-analyst", "Research: x")
        )
        results[i] = run_hook("PreToolUse", payload, project, env=workers.hook_env, timeout=60)

    t0 = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    assert all(r.returncode == 0 for r in results)
    assert took < 30, took
    log = (root / "sessions" / SID / "events.jsonl").read_text().splitlines()
    by_worker = sum(json.loads(line).get("handled_by") == "worker" for line in log)
    after = run_hook(
        "PreToolUse", P.pre_tool(SID, "Bash", {"command": "ls"}, "toolu_after"), project, env=workers.hook_env, timeout=30
    )
    log = (root / "sessions" / SID / "events.jsonl").read_text().splitlines()
    assert after.returncode == 0 and json.loads(log[-1])["handled_by"] == "worker", log[-1]
    summary(
        f"hostile/worker: FIFOs at config.json, escalations.json and an agent file: {n} hooks answered in "
        f"{took:.1f} s ({by_worker} by the worker), and the worker still served the next one "
        "(before: threads blocked for good)"
    )
