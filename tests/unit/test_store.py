"""store: atomic writes, owner-only modes, quarantine of corrupt files, schema versions, locks."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from tests.helpers.factories import write_state
from deliberation import SCHEMA_VERSION
from deliberation.state.paths import Layout
from deliberation.state.models import Lineage, SessionState
from deliberation.state.store import (
    LockTimeout,
    SchemaVersionError,
    SessionTx,
    Store,
    append_jsonl,
    atomic_write_bytes,
    lock,
    quarantine,
)
from tests.helpers.children import lock_holder


@pytest.fixture
def store(project):
    return Store(Layout(), lock_timeout=0.5)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def files_under(root) -> "list[str]":
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def dirs_under(root) -> "list[str]":
    return sorted(os.path.join(d, n) for d, ns, _ in os.walk(root) for n in ns)


# -- atomic writes and modes -------------------------------------------------------------------


def test_atomic_write_leaves_no_temp_files_and_replaces_content(tmp_path):
    path = tmp_path / "d" / "f.json"
    atomic_write_bytes(str(path), b'{"a": 1}\n')
    atomic_write_bytes(str(path), b'{"a": 2}\n')
    assert path.read_bytes() == b'{"a": 2}\n'
    assert os.listdir(path.parent) == ["f.json"]


def test_failed_atomic_write_keeps_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / "f.json"
    atomic_write_bytes(str(path), b"old")

    with pytest.raises(TypeError):
        atomic_write_bytes(str(path), object())  # type: ignore[arg-type]  # the wrong type is the test
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.json"]


def test_state_files_are_0600_and_state_dirs_0700(project, store):
    lay = store.layout
    store.save(lay.session_state("s1"), SessionState(session_id="s1"))
    store.update(lay.lineage("s1"), Lineage, lambda: Lineage(session_id="s1"), lambda l: None)
    store.append(lay.events("s1"), {"event": "Stop"})
    with lock(lay.deliberation("d-1")):
        pass
    root = lay.root
    for f in files_under(root):
        assert mode(os.path.join(root, f)) == 0o600, f
    assert mode(root) == 0o700
    for d in dirs_under(root):
        assert mode(d) == 0o700, d
    assert set(files_under(root)) == {
        "sessions/s1/session.json",
        "sessions/s1/lineage.json",
        "sessions/s1/lineage.json.lock",
        "sessions/s1/events.jsonl",
        "deliberations/d-1.json.lock",
        ".gitignore",
    }  # written with the folder


def test_saved_file_is_readable_json_with_schema_version(project, store):
    lay = store.layout
    store.save(lay.session_state("s1"), SessionState(session_id="s1", last_prompt="hi"))
    data = json.loads(open(lay.session_state("s1")).read())
    assert data["schema_version"] == SCHEMA_VERSION == 1
    assert data["session_id"] == "s1" and data["last_prompt"] == "hi"
    assert store.load(lay.session_state("s1"), SessionState).last_prompt == "hi"


def test_update_writes_only_when_the_model_changed(project, store):
    path = store.layout.session_state("s1")
    new = lambda: SessionState(session_id="s1")  # noqa: E731 - a one-line default factory
    store.update(path, SessionState, new, lambda s: None)  # missing file is created once
    first = os.stat(path)
    assert store.update(path, SessionState, new, lambda s: "same") == "same"
    # not rewritten: an atomic write would have renamed a new file (inode) into place
    assert (os.stat(path).st_ino, os.stat(path).st_mtime_ns) == (first.st_ino, first.st_mtime_ns)

    def change(s):
        s.last_prompt = "x"
        return 7

    assert store.update(path, SessionState, new, change) == 7
    assert store.load(path, SessionState).last_prompt == "x"


# -- corrupt files ------------------------------------------------------------------------------

CORRUPT = {
    "bad json": b'{"schema_version": 1, "session_id": "s1",',
    "not an object": b"[1, 2, 3]",
    "wrong schema": b'{"schema_version": 1, "session_id": 12345}',
    "unknown field": b'{"schema_version": 1, "session_id": "s1", "evil": true}',
    "no schema_version": b'{"session_id": "s1"}',
    "empty": b"",
}


@pytest.mark.parametrize("why", list(CORRUPT))
def test_corrupt_file_is_moved_aside_and_reported_not_silently_reset(project, store, why):
    path = store.layout.session_state("s1")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as fh:
        fh.write(CORRUPT[why])
    got = store.load(path, SessionState, lambda: SessionState(session_id="s1"))
    assert got == SessionState(session_id="s1")
    assert not os.path.exists(path)
    aside = [f for f in os.listdir(os.path.dirname(path)) if f.startswith("session.json.corrupt-")]
    assert len(aside) == 1
    assert len(aside[0]) == len("session.json.corrupt-20260101T090000")
    with open(os.path.join(os.path.dirname(path), aside[0]), "rb") as fh:
        assert fh.read() == CORRUPT[why]  # the evidence is kept byte for byte
    assert len(store.warnings) == 1
    w = store.warnings[0]
    assert "corrupt state file .claude/deliberation/sessions/s1/session.json" in w
    assert aside[0] in w


def test_update_on_a_corrupt_file_keeps_the_evidence_and_writes_a_fresh_one(project, store):
    path = store.layout.lineage("s1")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as fh:
        fh.write(b"{oops")
    store.update(path, Lineage, lambda: Lineage(session_id="s1"), lambda l: l.denied.clear())
    names = sorted(os.listdir(os.path.dirname(path)))
    assert "lineage.json" in names
    assert [n for n in names if n.startswith("lineage.json.corrupt-")]
    assert store.warnings and "moved aside" in store.warnings[0]


def test_quarantine_never_overwrites_an_earlier_corrupt_copy(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("one")
    first = quarantine(str(p))
    p.write_text("two")
    second = quarantine(str(p))
    assert first != second
    assert open(first).read() == "one" and open(second).read() == "two"


def test_newer_schema_version_is_refused_with_a_clear_message_and_left_alone(project, store):
    path = store.layout.session_state("s1")
    os.makedirs(os.path.dirname(path))
    write_state(path, json.dumps({"schema_version": SCHEMA_VERSION + 1, "session_id": "s1", "future": 1}))
    body = open(path).read()  # written by a newer plugin of this user: sealed with the same key
    with pytest.raises(SchemaVersionError) as err:
        store.load(path, SessionState)
    msg = str(err.value)
    assert f"schema_version {SCHEMA_VERSION + 1}, newer than this plugin's {SCHEMA_VERSION}" in msg
    assert "upgrade the plugin" in msg
    assert open(path).read() == body  # not quarantined, not reset
    assert os.listdir(os.path.dirname(path)) == ["session.json"]
    assert store.warnings == []


# -- locks across processes ---------------------------------------------------------------------


def test_lock_times_out_when_another_process_holds_it(tmp_path):
    path = str(tmp_path / "d" / "state.json")
    child = lock_holder(path)
    try:
        calls = []
        t0 = time.monotonic()
        with pytest.raises(LockTimeout, match=r"state.json.lock for more than 0.3s"):
            with lock(path, timeout=0.3, blocked_cb=lambda: calls.append(1)):
                pass
        waited = time.monotonic() - t0
        assert calls == [1]  # told once that it has to wait
        assert 0.25 <= waited < 3
    finally:
        child.kill()
        child.wait()


def test_store_update_times_out_instead_of_hanging(project, store):
    path = store.layout.session_state("s1")
    child = lock_holder(path)
    try:
        with pytest.raises(LockTimeout):
            store.update(path, SessionState, lambda: SessionState(session_id="s1"), lambda s: None)
        assert not os.path.exists(path)
    finally:
        child.kill()
        child.wait()


def test_lock_of_a_sigkilled_process_is_free_again(tmp_path):
    path = str(tmp_path / "state.json")
    child = lock_holder(path)
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL
    assert os.path.exists(path + ".lock")  # the file stays; the kernel dropped the lock
    with lock(path, timeout=0.5):  # taken at once: a wait of 0.5 s would raise LockTimeout
        pass


def test_lock_is_released_after_an_exception(tmp_path):
    path = str(tmp_path / "state.json")
    with pytest.raises(RuntimeError):
        with lock(path, timeout=0.2):
            raise RuntimeError("bug")
    with lock(path, timeout=0.2):
        pass


# -- JSONL and the session transaction -----------------------------------------------------------


def test_append_jsonl_writes_one_line_per_record(tmp_path):
    path = str(tmp_path / "e" / "events.jsonl")
    for i in range(3):
        append_jsonl(path, {"i": i, "text": "é\nnewline inside"})
    lines = open(path, encoding="utf-8").read().splitlines()
    assert [json.loads(l)["i"] for l in lines] == [0, 1, 2]
    assert mode(path) == 0o600


def test_session_tx_writes_changes_and_log_only_on_success(project, store):
    lay = store.layout
    with SessionTx(store, "s1") as tx:
        tx.session.last_prompt = "q"
        tx.lineage  # loaded, unchanged: written? (missing file → yes, it is new)
        tx.log({"event": "UserPromptSubmit"})
    assert store.load(lay.session_state("s1"), SessionState).last_prompt == "q"
    assert [json.loads(l)["event"] for l in open(lay.events("s1"))] == ["UserPromptSubmit"]
    with pytest.raises(RuntimeError):
        with SessionTx(store, "s1") as tx:
            tx.session.last_prompt = "lost"
            tx.log({"event": "Stop"})
            raise RuntimeError("handler bug")
    assert store.load(lay.session_state("s1"), SessionState).last_prompt == "q"
    assert len(open(lay.events("s1")).read().splitlines()) == 1


def test_session_tx_refuses_an_unsafe_session_id(project, store):
    from deliberation.state.ids import InvalidId

    with pytest.raises(InvalidId):
        SessionTx(store, "../../etc")
    assert not os.path.exists(store.layout.root)


def test_a_write_sweeps_temp_files_that_dead_writers_left(tmp_path):
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    path = tmp_path / "d-1.json"
    left = tmp_path / f"d-1.json.tmp-{dead.pid}-123"  # a writer killed mid-write
    live = tmp_path / f"d-1.json.tmp-{os.getppid()}-456"  # a live pid: not ours to judge
    other = tmp_path / f"d-2.json.tmp-{dead.pid}-789"  # another file's: not locked by this writer
    for f in (left, live, other):
        f.write_bytes(b"{partial")
    atomic_write_bytes(str(path), b'{"a": 1}\n')
    assert path.read_bytes() == b'{"a": 1}\n'
    assert not left.exists() and live.exists() and other.exists()


def test_without_flock_the_lock_is_a_posix_record_lock(tmp_path, monkeypatch):
    """A filesystem without flock (ENOLCK): the same lock file takes a lockf lock, which another
    process sees as held."""
    import errno

    from deliberation.state import store as store_mod

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "no flock here")

    monkeypatch.setattr(store_mod.fcntl, "flock", no_flock)
    path = str(tmp_path / "state.json")
    probe = (
        "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    print('held')\n"
        "else:\n    print('free')\n"
    )
    with lock(path, timeout=1):
        inside = subprocess.run([sys.executable, "-c", probe, path + ".lock"], capture_output=True, text=True).stdout
    after = subprocess.run([sys.executable, "-c", probe, path + ".lock"], capture_output=True, text=True).stdout
    assert (inside.strip(), after.strip()) == ("held", "free")
