"""Retention: a session start prunes old session folders and logs (at most once an hour), never
one a deliberation uses or a hook holds; `deliberation gc` and `status` show what is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid

from tests.helpers import payloads as P
from tests.conftest import LIB
from tests.helpers.project import write_config
from tests.helpers.factories import write_state

DAY = 24 * 3600


def state(project):
    return project / ".claude" / "deliberation"


def session_folder(project, sid=None, age_days=0.0, files=None, active=None):
    sid = sid or str(uuid.uuid4())
    folder = state(project) / "sessions" / sid
    folder.mkdir(parents=True, exist_ok=True)
    write_state(folder / "lineage.json", {"schema_version": 1, "session_id": sid, "spawns": []})
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    if active:
        write_state(
            folder / "session.json",
            {"schema_version": 1, "session_id": sid, "active_deliberation": active, "deliberations": [active]},
        )
    when = time.time() - age_days * DAY
    for p in [*folder.iterdir(), folder]:
        os.utime(p, (when, when))
    return sid


def old_file(path, text, age_days):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".json" and text != "{}":
        write_state(path, text)  # a runtime file of this user's plugin: sealed
    else:
        path.write_text(text)
    when = time.time() - age_days * DAY
    os.utime(path, (when, when))


def cli(project, *args):
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    env.pop("DELIBERATION", None)
    return subprocess.run(
        [sys.executable, "-m", "deliberation", *args, "--project", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_session_start_prunes_what_is_old_and_keeps_what_is_used(project, hook):
    old = session_folder(project, age_days=40, files={"events.jsonl": "{}\n" * 100})
    recent = session_folder(project, age_days=3)
    open_one = session_folder(project, age_days=200, active="d-abc-1")
    review = session_folder(project, age_days=90)
    write_state(
        state(project) / "escalations.json",
        {
            "schema_version": 1,
            "open": [
                {"deliberation_id": "d-r-1", "session_id": review, "route": "human-review", "reason": "r", "opened_at": 1.0}
            ],
        },
    )
    resumed = session_folder(project, age_days=60)
    old_file(state(project) / "deliberations" / "d-abc-1.json", "{}", 400)
    old_file(state(project) / "records" / "d-old-1.md", "# record", 400)
    res = hook("SessionStart", {**P.base(resumed, "SessionStart"), "source": "resume"})
    assert res.returncode == 0 and "systemMessage" not in (res.json or {}), res.stdout  # the prune warned of nothing
    left = set(os.listdir(state(project) / "sessions"))
    assert old not in left and left == {recent, open_one, review, resumed}  # the old one went; the starting session stays
    assert (state(project) / "deliberations" / "d-abc-1.json").exists()  # records stay until the user removes them
    assert (state(project) / "records" / "d-old-1.md").exists()
    stamp = json.loads((state(project) / "cache" / "retention.json").read_text())
    assert stamp["removed"] == 1 and stamp["freed_bytes"] > 300 and stamp["seconds"] < 5
    # within the hour the next session start does not look again (one stat)
    again = session_folder(project, age_days=50)
    hook("SessionStart", {**P.base(str(uuid.uuid4()), "SessionStart"), "source": "startup"})
    assert again in os.listdir(state(project) / "sessions")
    assert json.loads((state(project) / "cache" / "retention.json").read_text()) == stamp


def test_no_prune_when_switched_off_in_the_config(project, hook):
    write_config(project, {"retention": {"auto": False}})
    hook("UserPromptSubmit", P.prompt(str(uuid.uuid4()), "hi"))  # the slow path validates the config once
    old = session_folder(project, age_days=400)
    hook("SessionStart", {**P.base(str(uuid.uuid4()), "SessionStart"), "source": "startup"})
    assert old in os.listdir(state(project) / "sessions")


def test_a_session_whose_lock_a_hook_holds_is_not_pruned(project):
    from deliberation.app import retention
    from deliberation.state.paths import Layout

    sid = session_folder(project, age_days=45)
    layout = Layout(str(project))
    fd = retention._try_lock(str(state(project) / "sessions" / sid / "session.lock"))
    assert fd is not None
    try:
        steps = retention.apply(layout, retention.plan(layout, {}, time.time()))
    finally:
        os.close(fd)
    assert [(s.item.name, s.action, s.reason) for s in steps] == [(f"sessions/{sid}", "keep", "a hook holds its lock")]
    assert sid in os.listdir(state(project) / "sessions")


def test_a_hook_waiting_for_a_pruned_session_s_lock_takes_a_new_one(project):
    """The prune holds the lock, moves the folder aside and lets go; the waiting hook must not
    hold the lock of the moved file (two holders), but the file now at the path."""
    from deliberation.app import retention
    from deliberation.state import store
    from deliberation.state.paths import Layout

    layout = Layout(str(project))
    sid = session_folder(project, age_days=45)
    lock_path = os.path.join(layout.session_dir(sid), "session")
    fd = retention._try_lock(lock_path + ".lock")
    waiting, held = threading.Event(), threading.Event()
    release = threading.Event()

    def hook_thread():
        with store.lock(lock_path, timeout=30, blocked_cb=waiting.set):
            held.set()
            release.wait(30)

    t = threading.Thread(target=hook_thread)
    t.start()
    assert waiting.wait(30)
    moved = os.path.join(layout.sessions_dir, retention.TRASH + sid)
    os.rename(layout.session_dir(sid), moved)
    os.close(fd)
    assert held.wait(30)
    try:
        assert os.path.exists(lock_path + ".lock")  # it took the lock at the session's path again
        assert retention._try_lock(lock_path + ".lock") is None  # and holds it
    finally:
        release.set()
        t.join(30)


def test_gc_dry_run_changes_nothing_then_gc_prunes_and_says_what_is_kept(project):
    old = session_folder(project, age_days=35, files={"events.jsonl": "x" * 5000})
    keep = session_folder(project, age_days=1)
    old_file(state(project) / "errors.log", "--- old\ntraceback\n", 40)
    from tests.helpers.factories import make_deliberation

    delib = make_deliberation(deliberation_id="d-k-1")
    old_file(state(project) / "deliberations" / "d-k-1.json", delib.model_dump_json(), 100)
    dry = cli(project, "gc", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would remove" in dry.stdout and f"sessions/{old}" in dry.stdout and "would free" in dry.stdout
    assert old in os.listdir(state(project) / "sessions") and (state(project) / "errors.log").exists()
    out = cli(project, "gc", "--json")
    data = json.loads(out.stdout)
    assert {i["path"]: i["action"] for i in data["items"]} == {
        f"sessions/{old}": "remove",
        "errors.log": "remove",
        f"sessions/{keep}": "keep",
    }
    assert data["removed"] == 2 and data["kept"]["deliberations"]["files"] == 1
    assert set(os.listdir(state(project) / "sessions")) == {keep}
    status = cli(project, "status")
    assert "kept in" in status.stdout and "1 session folder(s)" in status.stdout and "1 deliberation(s)" in status.stdout
    assert "checks: on" in status.stdout


def test_status_shows_where_the_checks_are_off(project, hook):
    sid = str(uuid.uuid4())
    hook("UserPromptSubmit", P.prompt(sid, "/deliberation-off"))
    out = cli(project, "status")
    assert f"checks: OFF in session {sid}" in out.stdout and "/deliberation:off" in out.stdout
    env = {**os.environ, "PYTHONPATH": str(LIB), "DELIBERATION": "off"}
    off = subprocess.run(
        [sys.executable, "-m", "deliberation", "status", "--project", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "checks: OFF in this environment (DELIBERATION=off)" in off.stdout


def test_a_session_start_s_prune_stops_at_its_budget_and_the_next_one_goes_on(project, monkeypatch):
    from deliberation.app import retention
    from deliberation.state.paths import Layout

    layout = Layout(str(project))
    old = [session_folder(project, age_days=40) for _ in range(5)]
    monkeypatch.setattr(retention, "PRUNE_BUDGET_S", 0.0)
    first = retention.at_session_start(layout, {}, "s-now", time.time())
    assert first["removed"] <= 1 and first["left"] == 5 - first["removed"]
    assert time.time() - os.stat(layout.retention_stamp).st_mtime >= retention.RETENTION_CHECK_EVERY_S  # due again
    monkeypatch.setattr(retention, "PRUNE_BUDGET_S", 10.0)
    second = retention.at_session_start(layout, {}, "s-next", time.time())
    assert second["left"] == 0 and second["removed"] + first["removed"] == 5
    assert not set(old) & set(os.listdir(layout.sessions_dir))
    assert retention.at_session_start(layout, {}, "s-later", time.time()) is None  # not due for an hour
