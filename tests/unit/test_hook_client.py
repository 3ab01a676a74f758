"""hook_client: the hook's side of the warm worker — builtins only, a wire format the worker
reads back exactly, a socket name that changes with the code, and the flags hooks run with."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time

from deliberation.runtime import warm_worker
from deliberation.wire import worker_protocol
from tests.conftest import HOOK_FLAGS, HOOKS, ROOT


def test_the_hook_side_imports_no_stdlib_module_beyond_the_interpreter_s_own():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); before = set(sys.modules); "
        "import deliberation.runtime.hook_client; print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run(
        [sys.executable, *HOOK_FLAGS, "-c", code, str(ROOT / "lib")], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.replace("'", '"')) == [
        "_socket",
        "deliberation",
        "deliberation.runtime",
        "deliberation.runtime.hook_client",
        "deliberation.wire",
        "deliberation.wire.deadlines",
        "deliberation.wire.worker_protocol",
        "deliberation.wire.worker_socket",
    ]


def test_normpath_is_abspath(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for p in ("/a/b/../c", "/a/./b//c/", "rel/x/../y", "./z", "/..", "a/../../b", "/"):
        assert worker_protocol._normpath(p) == os.path.abspath(p), p


def test_a_request_reads_back_exactly_as_sent():
    env = {b"CLAUDE_PROJECT_DIR": b"/proj ect", b"WEIRD": b"a=b=c", b"BYTES": b"\xff\xfe", b"EMPTY": b""}
    data = b'{"session_id": "s", "x": "\xc3\xa9\x00"}'
    message = worker_protocol.encode_request("SubagentStop", data, 1234.5678, b"/cwd", env, "e-1", "stamp-1")
    req = warm_worker.Request(message)
    assert (req.event, req.now, req.data, req.event_id, req.stamp) == ("SubagentStop", 1234.5678, data, "e-1", "stamp-1")
    assert req.env["WEIRD"] == "a=b=c" and req.env["EMPTY"] == "" and os.fsencode(req.env["BYTES"]) == b"\xff\xfe"
    assert req.project == "/proj ect"  # CLAUDE_PROJECT_DIR wins over the cwd
    del env[b"CLAUDE_PROJECT_DIR"]
    assert warm_worker.Request(worker_protocol.encode_request("Stop", b"", 1.0, b"/cwd/sub/..", env)).project == "/cwd"
    # a relative CLAUDE_PROJECT_DIR is the hook's: resolved against the hook's cwd, not the worker's
    env[b"CLAUDE_PROJECT_DIR"] = b"proj/./x"
    assert warm_worker.Request(worker_protocol.encode_request("Stop", b"", 1.0, b"/home/u", env)).project == "/home/u/proj/x"


def test_a_malformed_request_is_refused():
    for bad in (
        b"",
        b"\x00\x00\x00\x09abc",
        worker_protocol.pack_fields([b"1", b"Stop"]),
        worker_protocol.pack_fields([b"2", b"Stop", b"1.0", b"/", b"", b"{}"]),
    ):  # the old protocol
        try:
            warm_worker.Request(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_the_code_stamp_changes_with_the_code(tmp_path, monkeypatch):
    pkg = tmp_path / "deliberation"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    (pkg / "notes.txt").write_text("not code")
    monkeypatch.setattr(worker_protocol, "_PKG", str(pkg))
    first = worker_protocol.code_stamp()
    assert first == worker_protocol.code_stamp()
    (pkg / "notes.txt").write_text("still not code")
    assert worker_protocol.code_stamp() == first
    os.utime(pkg / "sub" / "b.py", ns=(time.time_ns(), time.time_ns() + 10**9))
    second = worker_protocol.code_stamp()
    (pkg / "c.py").write_text("")
    third = worker_protocol.code_stamp()
    assert len({first, second, third}) == 3


def test_one_socket_per_install_in_the_user_s_private_folder(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    env = {b"HOME": str(home).encode()}
    path = worker_protocol.socket_path(env, create=True)
    assert path.startswith(str(home / ".cache" / "claude-deliberation") + "/w-") and path.endswith(".sock")
    assert oct(os.stat(home / ".cache" / "claude-deliberation").st_mode & 0o777) == "0o700"
    assert worker_protocol.socket_path(env) == path  # the same install, the same socket


def test_event_ids_are_unique_per_hook_process():
    ids = {worker_protocol.new_event_id() for _ in range(1000)}
    out = subprocess.run(
        [
            sys.executable,
            *HOOK_FLAGS,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from deliberation.wire import worker_protocol; "
            "print(worker_protocol.new_event_id())",
            str(ROOT / "lib"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert len(ids) == 1000 and out not in ids


def test_the_hooks_run_with_the_flags_the_tests_use():
    settings = json.loads((ROOT / "settings.example.json").read_text())
    commands = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(shlex.split(c)[1:3] == list(HOOK_FLAGS) for c in commands)
    assert f'exec "$python" {" ".join(HOOK_FLAGS)} "$here/$1"' in (HOOKS / "run.sh").read_text()


def test_worker_off_means_off():
    assert worker_protocol.enabled({}) and worker_protocol.enabled({b"DELIBERATION_WORKER": b"1"})
    for off in (b"0", b"off", b"FALSE", b" no "):
        assert not worker_protocol.enabled({b"DELIBERATION_WORKER": off})
