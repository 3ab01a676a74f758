"""A warm worker that dies or runs out of time loses nothing and half-applies nothing.

- Killed (SIGKILL) at many moments during a burst of background SubagentStops: every report is
  recorded and logged once, no hook fails open, no file is corrupt, and the session's files
  agree with each other and with the event log.
- A transaction killed between its commit point and its last rename is finished by the next
  transaction of the session (the journal), and an event re-run by its hook is answered as it
  was committed, not applied twice.
- Past an event's commit deadline nothing is committed, and the hook says so.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time

import pytest

from tests.helpers import payloads as P
from tests.helpers.children import open_sockets, wait_until
from tests.helpers.project import state_dir
from tests.conftest import hook_argv
from tests.helpers.workers import Workers

SID = "5e55a7c1-0000-4000-8000-0000000000f1"
QUESTION = "Should we shard the orders table or move it to a managed Postgres cluster, given the irreversible cutover?"
PERSONAS = [
    "technical-architect",
    "security-analyst",
    "performance-engineer",
    "cost-analyst",
    "reliability-engineer",
    "test-engineer",
    "maintainability-reviewer",
    "ux-advocate",
    "product-strategist",
    "devils-advocate",
]


def in_process(
    project, event: str, payload: dict, event_id: "str | None" = None, rerun: bool = False, now: "float | None" = None
) -> str:
    from deliberation.runtime import hook_runner

    now = time.time() if now is None else now
    return hook_runner.respond(
        event, json.dumps(payload).encode(), now, project=str(project), event_id=event_id, rerun=rerun, started=now
    )


def agent_id(i: int) -> str:
    return f"a{i:04d}fault{i:03d}"


def launch_panel(project) -> None:
    """A deliberation with ten background research personas running (set up in-process)."""
    in_process(project, "UserPromptSubmit", P.prompt(SID, "/deliberate " + QUESTION))
    for i, persona in enumerate(PERSONAS):
        prompt = f"Research the question from your perspective: {QUESTION}"
        in_process(project, "PreToolUse", P.pre_agent(SID, f"toolu_{i}", persona, prompt, background=True))
        in_process(project, "PostToolUse", P.post_agent_async(SID, f"toolu_{i}", agent_id(i), persona, prompt))
        in_process(project, "SubagentStart", P.subagent_start(SID, agent_id(i), persona))


def stops() -> "list[dict]":
    return [
        P.subagent_stop(
            SID, agent_id(i), persona, P.research_report(persona, [f"{persona} finding {i}"], [("A", "Shard"), ("B", "Managed")])
        )
        for i, persona in enumerate(PERSONAS)
    ]


def check_whole(project) -> dict:
    """Every report recorded once, logged once; files agree; nothing corrupt. Returns figures."""
    root = state_dir(project)
    corrupt = [p for p in root.rglob("*") if ".corrupt-" in p.name]
    assert corrupt == []
    delib = json.loads(next((root / "deliberations").glob("*.json")).read_text())
    lineage = json.loads((root / "sessions" / SID / "lineage.json").read_text())
    session = json.loads((root / "sessions" / SID / "session.json").read_text())
    events = [json.loads(line) for line in (root / "sessions" / SID / "events.jsonl").read_text().splitlines()]
    reported = {a["agent_id"] for a in delib["agents"] if a["status"] == "reported"}
    assert reported == {agent_id(i) for i in range(len(PERSONAS))}, reported
    logged = [e for e in events if e["event"] == "SubagentStop"]
    assert len(logged) == len(PERSONAS) and len({e["eid"] for e in logged}) == len(PERSONAS)
    assert {e["payload"]["agent_id"] for e in logged} == reported
    completed = {s["agent_id"] for s in lineage["spawns"] if s["status"] == "completed" and s["finished_at"]}
    assert completed == reported  # the lineage and the deliberation tell the same story
    assert session["active_deliberation"] == delib["id"]
    return {
        "worker": sum(e.get("handled_by") == "worker" for e in logged),
        "hook": sum(e.get("handled_by") == "hook" for e in logged),
    }


@pytest.fixture(scope="module")
def base_project(tmp_path_factory):
    base = tmp_path_factory.mktemp("fault-base") / "project"
    base.mkdir()
    launch_panel(base)
    return base


def fire(project, env, payloads, kill_at: "float | None" = None, worker_pid: "int | None" = None):
    """Start one hook process per payload, release them together, SIGKILL the worker `kill_at`
    seconds after the release. Returns the hook answers."""
    full_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), **env}
    procs = [
        subprocess.Popen(
            hook_argv("SubagentStop"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=str(project),
        )
        for _ in payloads
    ]
    # every hook is up and connected to the worker (it connects before it reads its payload)
    wait_until(lambda: all(open_sockets(p.pid) for p in procs), 30, "every hook to connect to the worker")
    killer = None
    if kill_at is not None:

        def kill():
            time.sleep(kill_at)
            try:
                os.kill(worker_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        killer = threading.Thread(target=kill)
    for proc, payload in zip(procs, payloads):
        proc.stdin.write(json.dumps(payload).encode())
    if killer:
        killer.start()
    for proc in procs:
        proc.stdin.close()
        proc.stdin = None
    outs = [proc.communicate(timeout=120) for proc in procs]
    if killer:
        killer.join()
    return [o.decode() for o, _e in outs]


def test_a_worker_killed_at_any_moment_of_a_burst_loses_no_report(base_project, tmp_path):
    rng = random.Random(14)
    trials = 24
    figures = {"all by worker": 0, "all re-run by the hooks": 0, "mixed": 0}
    fail_open = 0
    for trial in range(trials):
        project = tmp_path / f"t{trial}"
        shutil.copytree(base_project, project, symlinks=True)
        workers = Workers(tmp_path / f"home{trial}", idle="30")
        proc = workers.start()
        try:
            workers.wait_up()
            kill_at = rng.uniform(0.0, 0.05)
            answers = fire(project, workers.hook_env, stops(), kill_at=kill_at, worker_pid=proc.pid)
        finally:
            proc.kill()
            proc.wait()
            workers.kill_all()
        fail_open += sum("continuing without" in a for a in answers)
        assert all("continuing without" not in a for a in answers), answers
        split = check_whole(project)
        key = "all by worker" if split["hook"] == 0 else "all re-run by the hooks" if split["worker"] == 0 else "mixed"
        figures[key] += 1
        assert not (state_dir(project) / "sessions" / SID / "commit.journal").exists()
    print(
        f"\nworker/kill: {trials} SIGKILLs of the worker 0-50 ms into a burst of {len(PERSONAS)} background "
        f"SubagentStops → reports recorded {trials * len(PERSONAS)}/{trials * len(PERSONAS)}, logged once each, "
        f"fail-open warnings {fail_open}, corrupt files 0; where the events were applied: {figures}"
    )


def test_a_commit_killed_after_its_journal_is_finished_by_the_next_transaction(base_project, tmp_path, monkeypatch):
    """Kill the commit right after its commit point (the journal), the log and one file written:
    the re-run of the same event answers as committed, applies nothing twice, and the files agree."""
    from deliberation.state import store

    project = tmp_path / "p"
    shutil.copytree(base_project, project, symlinks=True)
    payload = stops()[0]

    class Killed(BaseException):
        pass

    real = store.atomic_write_many

    def die_after_first_file(items):
        real(items[:1])
        raise Killed()

    monkeypatch.setattr(store, "atomic_write_many", die_after_first_file)
    with pytest.raises(Killed):
        from deliberation.runtime import hook_runner

        hook_runner.handle("SubagentStop", json.dumps(payload).encode(), time.time(), str(project), event_id="e-kill")
    monkeypatch.setattr(store, "atomic_write_many", real)
    journal = state_dir(project) / "sessions" / SID / "commit.journal"
    assert journal.exists()
    # the hook re-runs its event: answered as committed, the journal finished, nothing applied twice
    again = in_process(project, "SubagentStop", payload, event_id="e-kill", rerun=True)
    assert "continuing without" not in again
    assert not journal.exists()
    events = [json.loads(line) for line in (state_dir(project) / "sessions" / SID / "events.jsonl").read_text().splitlines()]
    assert [e["eid"] for e in events].count("e-kill") == 1
    delib = json.loads(next((state_dir(project) / "deliberations").glob("*.json")).read_text())
    assert [a["status"] for a in delib["agents"] if a["agent_id"] == agent_id(0)] == ["reported"]


def test_a_journal_left_behind_is_replayed_before_the_fast_path_reads_the_session(base_project, tmp_path):
    from deliberation.state import store
    from deliberation.state.paths import Layout

    project = tmp_path / "p"
    shutil.copytree(base_project, project, symlinks=True)
    layout = Layout(str(project))
    session_path = layout.session_state(SID)
    before = json.loads(open(session_path).read())
    after = {k: v for k, v in before.items() if k != "mac"} | {"active_deliberation": None, "notices": []}
    from deliberation.state import seal

    text = seal.seal_file(layout, session_path, store.dumps(after)).decode()  # what a commit writes: sealed
    journal = {
        "schema_version": 1,
        "session_id": SID,
        "appends": [],
        "writes": [{"path": os.path.relpath(session_path, layout.root), "text": text}],
        "upserts": [],
    }
    store.atomic_write_bytes(layout.journal(SID), seal.seal_file(layout, layout.journal(SID), json.dumps(journal).encode()))
    # a Stop would read session.json on the fast path; the pending commit sends it the slow way
    out = in_process(project, "Stop", P.stop(SID))
    assert "continuing without" not in out
    assert not os.path.exists(layout.journal(SID))
    assert json.loads(open(session_path).read())["active_deliberation"] is None


def test_past_its_commit_deadline_an_event_commits_nothing_and_says_so(base_project, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(base_project, project, symlinks=True)
    root = state_dir(project)
    before = {p: p.read_bytes() for p in root.rglob("*.json")}
    log_before = (root / "sessions" / SID / "events.jsonl").read_bytes()
    from deliberation.wire import deadlines

    started = time.time() - deadlines.timeout_s("SubagentStop") + deadlines.ANSWER_MARGIN_S + 1  # 1 s past
    out = json.loads(in_process(project, "SubagentStop", stops()[0], now=started))
    assert "time ran out" in out["systemMessage"] and "nothing was saved" in out["systemMessage"]
    assert {p: p.read_bytes() for p in root.rglob("*.json")} == before
    assert (root / "sessions" / SID / "events.jsonl").read_bytes() == log_before


def test_the_deadlines_are_the_hook_timeouts_of_hooks_json_and_the_settings(tmp_path):
    from deliberation.wire import deadlines
    from tests.conftest import ROOT

    for source in ("hooks/hooks.json", "settings.example.json"):
        hooks = json.loads((ROOT / source).read_text())["hooks"]
        for event, groups in hooks.items():
            for group in groups:
                for hook in group["hooks"]:
                    declared = float(hook.get("timeout", deadlines.DEFAULT_TIMEOUT_S))
                    assert declared == deadlines.timeout_s(event), (source, event, declared)
