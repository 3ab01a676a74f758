"""The warm worker answers exactly what an in-process hook answers, races no budget, and steps
aside cleanly (not delivered → in-process; new code → new worker; idle → exit)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from tests import payloads as P
from tests.conftest import HOOKS, run_hook
from tests.integration.test_deliberation_flow import GOOD, QUESTION, APPROACHES, load_delib, rank, research, write_config

LIB = str(HOOKS.parent / "lib")


def worker_env(idle="20"):
    return {"DELIBERATION_WORKER": "1", "DELIBERATION_WORKER_IDLE_S": idle}


def worker_name():
    sys.path.insert(0, LIB)
    from deliberation import hook_client

    return hook_client.socket_name()


def worker_pids(name):
    out = subprocess.run(["pgrep", "-f", name], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def wait_for_worker(name, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker_pids(name):
            time.sleep(0.3)  # let it bind
            return True
        time.sleep(0.1)
    return False


def normalise(d: dict) -> dict:
    """A deliberation without its clock readings and ids minted from the session id."""
    def scrub(x):
        if isinstance(x, dict):
            return {k: (0 if k.endswith("_at") or k == "at" else scrub(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [scrub(v) for v in x]
        return x
    return scrub(d)


def full_run(project, env, sid):
    write_config(project, {"depth": {"posture": "off"}})
    hook = lambda event, payload, **kw: run_hook(event, payload, project, env=env)  # noqa: E731
    s = P.Session(hook, sid=sid)
    answers = [s.prompt(QUESTION).json]
    research(s)
    out = s.foreground("synthesis-lead", "Merge all findings into alternatives", P.synthesis_report(APPROACHES))
    answers.append(out["post"].json)
    for o in rank(s, GOOD):
        answers.append(o["post"].json)
    answers.append(s.stop().json)
    return answers, load_delib(project)


def test_worker_gives_the_same_decisions_and_state_as_in_process(tmp_path):
    sid = "5e55a7c1-0000-4000-8000-000000000001"
    a, b = tmp_path / "inproc", tmp_path / "worker"
    a.mkdir()
    b.mkdir()
    answers_a, delib_a = full_run(a, {"DELIBERATION_WORKER": "0"}, sid)
    # warm the worker up first so the run below is served by it
    run_hook("PreToolUse", P.pre_tool(sid, "Edit", {"file_path": "x"}), b, env=worker_env())
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), b, env=worker_env())
    assert wait_for_worker(worker_name()), "the first slow-path hook did not start a worker"
    answers_b, delib_b = full_run(b, worker_env(), sid)
    assert delib_a["phase"] == delib_b["phase"] == "COMPLETE"
    strip = lambda ans: [json.dumps(x).replace(str(a), "P").replace(str(b), "P") for x in ans]  # noqa: E731
    assert strip(answers_a) == strip(answers_b)
    da, db = normalise(delib_a), normalise(delib_b)
    for d in (da, db):
        d["record_path"] = os.path.basename(d["record_path"])
        d["record"] = None
    assert da == db


def test_budget_race_through_the_worker_allows_exactly_twelve(project):
    sid = "5e55a7c1-0000-4000-8000-000000000002"
    env = worker_env()
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=env)
    assert wait_for_worker(worker_name())
    payloads = [P.pre_agent(sid, f"toolu_{i}", "general-purpose", f"task {i}") for i in range(20)]
    results, _wall = P.fire_at_once("PreToolUse", payloads, project, env=env)
    denied = [r for r in results if r.decision == "deny"]
    assert len(results) - len(denied) == 12 and len(denied) == 8
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 12 and len(lineage["denied"]) == 8


def test_not_delivered_falls_back_in_process_and_starts_a_worker(project, monkeypatch):
    sys.path.insert(0, LIB)
    from deliberation import hook_client

    # a code stamp nobody serves yet: the request cannot be delivered
    monkeypatch.setattr(hook_client, "code_stamp", lambda: f"test-{os.getpid()}-{time.time_ns()}")
    name = hook_client.socket_name()
    with pytest.raises(hook_client.NotDelivered):
        hook_client.connect()
    assert worker_pids(name) == []


def test_worker_idles_out(tmp_path):
    env = {**os.environ, "PYTHONPATH": LIB, "DELIBERATION_WORKER_IDLE_S": "1"}
    name = f"deliberation-worker-test-{os.getpid()}"
    proc = subprocess.Popen([sys.executable, "-m", "deliberation.warm_worker", name], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert proc.wait(timeout=20) == 0  # bound, idle, gone
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_second_worker_for_the_same_code_exits_at_once():
    env = {**os.environ, "PYTHONPATH": LIB, "DELIBERATION_WORKER_IDLE_S": "5"}
    name = f"deliberation-worker-dup-{os.getpid()}"
    first = subprocess.Popen([sys.executable, "-m", "deliberation.warm_worker", name], env=env)
    try:
        time.sleep(1.0)
        second = subprocess.run([sys.executable, "-m", "deliberation.warm_worker", name], env=env, timeout=20)
        assert second.returncode == 0 and first.poll() is None
    finally:
        first.kill()
        first.wait()


class FakeWorker:
    """A listener on this code's worker address that takes requests and never answers."""

    def __init__(self):
        import threading

        name = worker_name()
        subprocess.run(["pkill", "-f", name], capture_output=True)  # a real worker steps aside
        time.sleep(0.3)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind("\0" + name)
        self.sock.listen(8)
        self.sock.settimeout(0.1)
        self.stop = False
        self.received: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(5)
            chunks = []
            try:
                while True:
                    chunk = conn.recv(1 << 16)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    if sum(map(len, chunks)) >= 4 and len(b"".join(chunks)) >= 4 + int.from_bytes(b"".join(chunks)[:4], "big"):
                        break
            except OSError:
                pass
            self.received.append(b"".join(chunks))
            conn.close()  # no answer

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()


def test_a_delivered_request_without_an_answer_fails_open_and_is_not_run_again(project):
    fake = FakeWorker()
    try:
        sid = "5e55a7c1-0000-4000-8000-000000000003"
        res = run_hook("PreToolUse", P.pre_agent(sid, "toolu_1", "security-analyst", "research"), project,
                       env=worker_env())
    finally:
        fake.close()
    assert res.returncode == 0 and res.decision is None
    assert "did not answer" in res.system_message and "continuing without deliberation checks" in res.system_message
    assert len(fake.received) == 1 and b"PreToolUse" in fake.received[0]
    # the hook did not do the work itself after handing it over: no lineage, no deliberation
    assert not (project / ".claude/deliberation/sessions" / sid / "lineage.json").exists()


def test_an_oversized_payload_is_refused_here_even_with_a_worker_up(project):
    fake = FakeWorker()
    try:
        big = b'{"session_id": "s", "hook_event_name": "Stop", "x": "' + b"a" * (9 << 20) + b'"}'
        res = run_hook("Stop", big, project, env=worker_env())
    finally:
        fake.close()
    assert res.returncode == 0 and "exceeds" in res.system_message
    assert fake.received in ([], [b""])  # connected before stdin was read, then closed unused


def test_the_trigger_starts_the_worker_so_the_spawns_find_it_warm(project):
    name = worker_name()
    subprocess.run(["pkill", "-f", name], capture_output=True)
    time.sleep(0.3)
    sid = "5e55a7c1-0000-4000-8000-000000000004"
    routine = run_hook("UserPromptSubmit", P.prompt(sid, "rename the helper in utils.py"), project, env=worker_env())
    assert routine.context is None
    time.sleep(1.0)
    assert worker_pids(name) == []  # a routine prompt starts nothing
    risky = run_hook("UserPromptSubmit", P.prompt(sid, "/deliberate " + QUESTION), project, env=worker_env())
    assert "deliberation" in (risky.context or "").lower()
    assert wait_for_worker(name), "injecting the protocol did not start the worker"
    spawn = run_hook("PreToolUse", P.pre_agent(sid, "toolu_1", "security-analyst", "Phase: research\n" + QUESTION),
                     project, env=worker_env())
    assert spawn.decision is None or spawn.decision == "allow", spawn.json
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 1
