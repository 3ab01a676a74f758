"""The warm worker answers exactly what an in-process hook answers, races no budget, serves one
per install, steps aside cleanly (not delivered → in-process; other code → in-process and a new
worker; replaced, uninstalled, upgraded or idle → it exits within seconds), and keeps only each
request's own environment."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from tests.helpers import payloads as P
from tests.conftest import run_hook
from tests.helpers.children import open_sockets, wait_until
from tests.helpers.flows import APPROACHES, GOOD, QUESTION, rank, research
from tests.helpers.project import load_delib, write_config
from tests.helpers.workers import LIB, Workers, hook_client, wait_worker_serving, worker_launch, worker_protocol


@pytest.fixture
def workers(tmp_path):
    w = Workers(tmp_path / "home")
    yield w
    w.kill_all()


def normalise(d: dict) -> dict:
    """A deliberation without its clock readings and ids minted from the session id."""

    def scrub(x):
        if isinstance(x, dict):
            # the seal (state/seal.py) covers the clock readings: it varies with them
            return {k: (0 if k.endswith("_at") or k == "at" else scrub(v)) for k, v in x.items() if k != "mac"}
        if isinstance(x, list):
            return [scrub(v) for v in x]
        return x

    return scrub(d)


def full_run(project, env, sid):
    write_config(project, {"depth": {"posture": "off"}})
    hook = lambda event, payload, **kw: run_hook(event, payload, project, env=env)  # noqa: E731 - the hook fixture's shape, with the worker on
    s = P.Session(hook, sid=sid)
    answers = [s.prompt(QUESTION).json]
    research(s)
    out = s.foreground("synthesis-lead", "Merge all findings into alternatives\n" + s.findings(), P.synthesis_report(APPROACHES))
    answers.append(out["post"].json)
    for o in rank(s, GOOD):
        answers.append(o["post"].json)
    answers.append(s.stop(message=P.prd_message(["security-analyst:F1", "cost-analyst:F1"])).json)
    return answers, load_delib(project)


def served(workers, project, sid) -> int:
    """How many of the session's logged events the worker handled (its process is not the hook's)."""
    log = project / ".claude/deliberation/sessions" / sid / "events.jsonl"
    return sum(1 for line in log.read_text().splitlines() if json.loads(line).get("handled_by") == "worker")


def test_worker_gives_the_same_decisions_and_state_as_in_process(tmp_path, workers):
    sid = "5e55a7c1-0000-4000-8000-000000000001"
    a, b = tmp_path / "inproc", tmp_path / "worker"
    a.mkdir()
    b.mkdir()
    answers_a, delib_a = full_run(a, {"DELIBERATION_WORKER": "0"}, sid)
    # warm the worker up first so the run below is served by it
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), b, env=workers.hook_env)
    workers.wait_up()
    answers_b, delib_b = full_run(b, workers.hook_env, sid)
    assert delib_a["phase"] == delib_b["phase"] == "COMPLETE"
    strip = lambda ans: [json.dumps(x).replace(str(a), "P").replace(str(b), "P") for x in ans]  # noqa: E731 - a one-line normaliser
    assert strip(answers_a) == strip(answers_b)
    da, db = normalise(delib_a), normalise(delib_b)
    for d in (da, db):
        d["record_path"] = os.path.basename(d["record_path"])
        d["record"] = None
    assert da == db
    assert served(workers, b, sid) > 10  # the hooks' events did reach the worker


def test_budget_race_through_the_worker_allows_exactly_twelve(project, workers):
    sid = "5e55a7c1-0000-4000-8000-000000000002"
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    workers.wait_up()
    payloads = [P.pre_agent(sid, f"toolu_{i}", "general-purpose", f"task {i}") for i in range(20)]
    results, _wall = P.fire_at_once("PreToolUse", payloads, project, env=workers.hook_env)
    denied = [r for r in results if r.decision == "deny"]
    assert len(results) - len(denied) == 12 and len(denied) == 8
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 12 and len(lineage["denied"]) == 8
    assert served(workers, project, sid) == 20


def test_not_delivered_falls_back_in_process_and_starts_a_worker(project, workers):
    env = {b"HOME": str(workers.home).encode()}
    with pytest.raises(hook_client.NotDelivered):
        hook_client.connect(env)  # nothing listens yet
    assert workers.pids() == []
    sid = "5e55a7c1-0000-4000-8000-000000000005"
    res = run_hook("PreToolUse", P.pre_agent(sid, "toolu_1", "general-purpose", "task"), project, env=workers.hook_env)
    assert res.returncode == 0 and res.json is None  # allowed, by this hook itself
    workers.wait_up()
    hook_client.connect(env).close()


def test_worker_idles_out(workers):
    path = workers.socket_path()
    proc = workers.start(idle="1")
    assert proc.wait(timeout=20) == 0  # bound, idle, gone
    assert not os.path.exists(path)  # and its socket with it
    assert not os.path.exists(os.path.dirname(path))  # the last worker takes the per-user folder along


def test_a_second_worker_replaces_the_first_which_exits(workers):
    first = workers.start()
    pid = workers.wait_up()
    assert pid == first.pid
    second = workers.start()
    took = workers.wait_gone(first.pid)
    assert took < 5 and second.poll() is None  # one worker per install serves
    assert workers.pids() == [second.pid]
    second.kill()
    second.wait()


def test_a_worker_exits_when_its_code_changes_or_its_folder_is_gone(tmp_path, workers):
    lib = tmp_path / "plugin" / "lib"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    proc = workers.start(lib=str(lib))
    workers.wait_serving(proc, str(lib))  # its code stamp is taken
    assert proc.poll() is None
    (lib / "deliberation" / "core" / "confidence.py").write_text(
        (lib / "deliberation" / "core" / "confidence.py").read_text() + "\n# edited\n"
    )
    assert workers.wait_gone(proc.pid) < 5  # an edit: retired within seconds

    proc = workers.start(lib=str(lib))
    workers.wait_serving(proc, str(lib))
    assert proc.poll() is None
    shutil.rmtree(tmp_path / "plugin")  # uninstalled
    assert workers.wait_gone(proc.pid) < 5


def test_a_worker_exits_when_its_plugins_data_folder_is_gone(tmp_path, project, workers):
    """An uninstall removes the plugin's data folder at once, while the client may keep the
    cached plugin folder (and so the worker's lib) for a while: the worker goes within seconds."""
    data = tmp_path / "plugin-data"
    data.mkdir()
    proc = workers.start()
    assert workers.wait_up() == proc.pid
    sid = "5e55a7c1-0000-4000-8000-000000000009"
    env = {**workers.hook_env, "CLAUDE_PLUGIN_DATA": str(data)}
    res = run_hook("PreToolUse", P.pre_agent(sid, "toolu_1", "general-purpose", "task"), project, env=env)
    assert res.returncode == 0 and served(workers, project, sid) == 1  # the worker saw its data folder
    assert proc.poll() is None
    shutil.rmtree(data)  # uninstalled
    assert workers.wait_gone(proc.pid) < 5


def test_a_worker_exits_when_a_package_folder_of_its_import_path_changes(tmp_path, workers):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    site = subprocess.run(
        [py, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()

    stamp = worker_protocol.code_stamp()
    path = hook_client.worker_socket.socket_path(os.path.dirname(workers.socket_path()), LIB, py)
    proc = subprocess.Popen([py, "-I", "-c", worker_launch.BOOT, LIB, path, stamp, "30"], cwd="/", env={})
    try:
        wait_worker_serving(proc.pid, path)  # its import path's stamp (folder mtimes) is taken
        # the folder's next change must get a later mtime than the one stamped: wait until the
        # file clock has moved on
        stamped = os.stat(site).st_mtime_ns
        probe = tmp_path / "clock"
        wait_until(lambda: (probe.write_text("x"), probe.stat().st_mtime_ns > stamped)[1], 10, "a later mtime")
        assert proc.poll() is None
        os.mkdir(os.path.join(site, "newpkg-1.0.dist-info"))  # what pip install/upgrade does
        assert workers.wait_gone(proc.pid) < 5
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_hook_of_other_code_is_answered_in_process_and_replaces_the_worker(tmp_path, project, workers):
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    old = workers.wait_up()
    env = {b"HOME": str(workers.home).encode()}
    sock = hook_client.connect(env)
    data = json.dumps(P.pre_agent("5e55a7c1-0000-4000-8000-000000000006", "toolu_1", "general-purpose", "x")).encode()
    with pytest.raises(hook_client.NotDelivered) as refused:
        hook_client.exchange(
            sock, "PreToolUse", data, time.time(), "e1", "another-code-stamp", {b"CLAUDE_PROJECT_DIR": str(project).encode()}
        )
    assert refused.value.stale
    assert workers.wait_gone(old) < 5  # an older worker steps aside when newer code reaches it
    assert not (project / ".claude/deliberation/sessions/5e55a7c1-0000-4000-8000-000000000006").exists()


def test_the_worker_keeps_no_environment_of_its_own(project, workers):
    run_hook(
        "SubagentStart",
        P.subagent_start("warm-up", "a1", "general-purpose"),
        project,
        env={**workers.hook_env, "SECRET_TOKEN": "hunter2"},
    )
    pid = workers.wait_up()
    with open(f"/proc/{pid}/environ", "rb") as fh:
        environ = fh.read()
    assert b"hunter2" not in environ and b"ANTHROPIC" not in environ
    cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    assert b"-I" in cmdline
    # each request's own environment decides: the plugin form namespaces agent types, a bare
    # project install does not — answered by the same worker, one after the other
    plugin = project / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "deliberation"}')
    sid = "5e55a7c1-0000-4000-8000-000000000007"
    with_root = run_hook(
        "UserPromptSubmit",
        P.prompt(sid, "/deliberate " + QUESTION),
        project,
        env={**workers.hook_env, "CLAUDE_PLUGIN_ROOT": str(plugin)},
    )
    without = run_hook("UserPromptSubmit", P.prompt(sid, "/deliberate " + QUESTION), project, env=workers.hook_env)
    assert 'namespace: "deliberation:<slug>"' in with_root.context
    assert "namespace:" not in without.context and "deliberation:security-analyst" not in without.context
    assert "security-analyst" in without.context


def test_an_oversized_payload_is_refused_here_even_with_a_worker_up(project, workers):
    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    workers.wait_up()
    big = b'{"session_id": "s", "hook_event_name": "Stop", "x": "' + b"a" * (9 << 20) + b'"}'
    res = run_hook("Stop", big, project, env=workers.hook_env)
    assert res.returncode == 0 and "exceeds" in res.system_message


def test_the_trigger_starts_the_worker_so_the_spawns_find_it_warm(project, workers):
    sid = "5e55a7c1-0000-4000-8000-000000000004"
    routine = run_hook("UserPromptSubmit", P.prompt(sid, "rename the helper in utils.py"), project, env=workers.hook_env)
    assert routine.context is None
    # a hook that starts a worker has started it before it exits (one Popen): none runs now
    assert workers.pids() == []  # a routine prompt starts nothing
    risky = run_hook("UserPromptSubmit", P.prompt(sid, "/deliberate " + QUESTION), project, env=workers.hook_env)
    assert "deliberation" in (risky.context or "").lower()
    workers.wait_up()
    spawn = run_hook(
        "PreToolUse",
        P.pre_agent(sid, "toolu_1", "security-analyst", "Phase: research\n" + QUESTION),
        project,
        env=workers.hook_env,
    )
    assert spawn.decision is None or spawn.decision == "allow", spawn.json
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 1
    assert served(workers, project, sid) == 1


def test_a_flood_of_idle_connections_holds_no_more_threads_than_the_pool(project, workers):
    from deliberation.runtime import warm_worker

    run_hook("SubagentStart", P.subagent_start("warm-up", "a1", "general-purpose"), project, env=workers.hook_env)
    pid = workers.wait_up()
    path = workers.socket_path()
    idle = []
    for _ in range(300):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        hook_client.worker_socket.connect(s, path)
        idle.append(s)
    # the worker has taken enough of them to fill its pool (each one taken is a socket of its own;
    # past the pool they queue, past the queue they are closed): more threads would show now
    wait_until(lambda: open_sockets(pid) > warm_worker.POOL_SIZE, 30, "the worker's pool to fill")
    threads = len(os.listdir(f"/proc/{pid}/task"))
    sid = "5e55a7c1-0000-4000-8000-000000000008"
    t0 = time.monotonic()
    res = run_hook("PreToolUse", P.pre_agent(sid, "toolu_1", "general-purpose", "task"), project, env=workers.hook_env)
    took = time.monotonic() - t0
    for s in idle:
        s.close()
    assert threads <= warm_worker.POOL_SIZE + 2, threads  # the pool, the accept loop, the main thread
    assert res.returncode == 0 and res.json is None  # answered (in-process: the pool was busy)
    lineage = json.loads((project / ".claude/deliberation/sessions" / sid / "lineage.json").read_text())
    assert len(lineage["spawns"]) == 1
    print(f"\nworker/flood: 300 idle connections → {threads} threads in the worker; a hook answered in {took:.2f} s")
