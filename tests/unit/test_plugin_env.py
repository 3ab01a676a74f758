"""plugin_env: the dependency key, the session-start decision, its messages, failure reasons."""

from __future__ import annotations

import ast
import fcntl
import json
import os
import sys
from pathlib import Path

import pytest

from deliberation.runtime import plugin_env as pe

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_800_000_000.0


# --------------------------------------------------------------------------- the dependency list


def test_reads_the_repos_dependencies_as_tomllib_does():
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert pe.read_dependencies(text) == tomllib.loads(text)["project"]["dependencies"]
    assert pe.plugin_dependencies(str(ROOT)) == tomllib.loads(text)["project"]["dependencies"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[project]\nname = "x"\ndependencies = ["a>=1", \'b<2\']\n', ["a>=1", "b<2"]),
        (
            '[project]\ndependencies = [\n  "a>=1",  # the first\n  # "not-this",\n  "c[extra]>=3",\n]\n'
            '[project.optional-dependencies]\ntest = ["pytest"]\n',
            ["a>=1", "c[extra]>=3"],
        ),
        ('[tool.other]\ndependencies = ["no"]\n[project]\nname = "x"\n', []),
        ('[project]\nname = "x"\n[tool.x]\ndependencies = ["no"]\n', []),
        ("[project]\ndependencies = []\n", []),
        ("[project]\ndependencies = [ \"a ; python_version >= '3.10'\" ]\n", ["a ; python_version >= '3.10'"]),
    ],
)
def test_reads_the_shapes_a_dependency_array_takes(text, expected):
    assert pe.read_dependencies(text) == expected
    tomllib = pytest.importorskip("tomllib")
    assert tomllib.loads(text).get("project", {}).get("dependencies", []) == expected


def test_an_unclosed_array_is_an_error_not_an_empty_list():
    with pytest.raises(ValueError, match="not closed"):
        pe.read_dependencies('[project]\ndependencies = [\n "a",\n')


def test_the_key_names_the_list_not_its_spelling():
    key = pe.dependency_key(["pydantic>=2.6,<3", "filelock>=3.12"])
    assert key == pe.dependency_key(["filelock >= 3.12", "Pydantic>=2.6, <3"])
    assert key != pe.dependency_key(["pydantic>=2.6,<3", "filelock>=3.12.2"])
    assert key != pe.dependency_key(["pydantic>=2.6,<3"])
    assert len(key) == 16 and int(key, 16) >= 0
    assert pe.dependency_key(["a"]) == pe.dependency_key(["a"]) != pe.dependency_key(["b"])
    assert pe.distribution_name("pydantic>=2.6,<3") == "pydantic"
    assert pe.distribution_name("c[extra]>=3") == "c"


def test_runs_on_an_interpreter_too_old_for_the_rest_of_the_plugin():
    """The session-start step must be able to say "Python is too old": the module parses as
    Python 3.6 (no walrus, no positional-only parameters, no `X | Y` at run time)."""
    source = (ROOT / "lib" / "deliberation" / "runtime" / "plugin_env.py").read_text(encoding="utf-8")
    ast.parse(source, feature_version=(3, 6))
    tree = ast.parse(source)
    assert not any(isinstance(n, ast.JoinedStr) for n in ast.walk(tree)), "no f-strings: 3.5 reads it too"
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    # and, only to retire an old worker, the builtins-only worker_socket
    assert imported - {"deliberation"} <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    ours = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "deliberation.wire" for a in n.names}
    assert ours == {"worker_socket"}, ours


# --------------------------------------------------------------------------- the decision


def status(**kw):
    base = dict(key="k1", current="envs/k1-1", current_key="k1", current_ready=True, announced=True, running=False, last={})
    base.update(kw)
    return pe.Status(**base)


@pytest.mark.parametrize(
    "st, step",
    [
        (status(current=None, current_key=None, current_ready=False), pe.BUILD),
        (status(current=None, current_key=None, current_ready=False, running=True), pe.RUNNING),
        (status(announced=False, last={"state": "ready", "key": "k1"}), pe.ANNOUNCE),
        (status(announced=True, last={"state": "ready", "key": "k1"}), pe.READY),
        (status(announced=False, last={"state": "ready", "key": "k0"}), pe.READY),
        (status(), pe.READY),
        # an update changed the dependency list: a new environment, the old one serves meanwhile
        (status(current_key="k0"), pe.BUILD),
        (status(current_key="k0", running=True), pe.RUNNING),
        # finished but broken (a dangling base python, or marked by a hook that missed a module)
        (status(current_ready=False), pe.BUILD),
        # a failed pip install is retried only after RETRY_AFTER_S
        (
            status(current=None, current_ready=False, last={"state": "failed", "key": "k1", "retry": True, "finished": NOW - 60}),
            pe.FAILED,
        ),
        (
            status(
                current=None,
                current_ready=False,
                last={"state": "failed", "key": "k1", "retry": True, "finished": NOW - pe.RETRY_AFTER_S - 1},
            ),
            pe.BUILD,
        ),
        (
            status(current=None, current_ready=False, last={"state": "failed", "key": "k0", "retry": True, "finished": NOW - 60}),
            pe.BUILD,
        ),
        # "no Python >= 3.10" is looked at again at every session start
        (
            status(
                current=None, current_ready=False, last={"state": "failed", "key": "k1", "retry": False, "finished": NOW - 60}
            ),
            pe.BUILD,
        ),
    ],
)
def test_next_step(st, step):
    assert pe.next_step(st, NOW) == step


def test_messages_say_what_happens_and_where_to_look(tmp_path):
    data = str(tmp_path)
    log = os.path.join(data, "setup.log")
    first = pe.message(pe.BUILD, status(current=None, current_ready=False), NOW, data)
    assert first.startswith("deliberation: setting up the plugin's Python environment in the background")
    assert "checks run as soon as it is ready" in first and first.endswith(log)
    update = pe.message(pe.BUILD, status(current_key="k0"), NOW, data)
    assert "updating" in update and "the current one serves until the new one is ready" in update
    running = pe.message(pe.RUNNING, status(running=True, last={"started": NOW - 42}), NOW, data)
    assert "still setting up" in running and "started 42 s ago" in running
    failed = pe.message(
        pe.FAILED,
        status(current=None, current_ready=False, last={"state": "failed", "reason": "pip could not download", "finished": NOW}),
        NOW,
        data,
    )
    assert "could not set up the plugin's Python environment: pip could not download." in failed
    assert "The deliberation checks are off until it is set up" in failed
    assert "tried again at a session start after" in failed and log in failed
    failed_update = pe.message(
        pe.FAILED, status(current_key="k0", last={"state": "failed", "reason": "x", "finished": NOW}), NOW, data
    )
    assert "x. The previous environment serves until then; it is tried again" in failed_update
    ready = pe.message(pe.ANNOUNCE, status(last={"started": NOW - 14, "finished": NOW}), NOW, data)
    assert ready == "deliberation: the plugin's Python environment is ready (set up in 14 s); the deliberation checks run."
    assert pe.message(pe.READY, status(), NOW, data) is None
    old = pe.no_python_message(["python3 3.8.18"])
    assert "needs Python 3.10 or newer (found: python3 3.8.18)" in old and "DELIBERATION_PYTHON" in old
    assert "found: no python3 on PATH" in pe.no_python_message([])


@pytest.mark.parametrize(
    "step, output, expected",
    [
        (
            "pip",
            "ERROR: Could not find a version that satisfies the requirement pydantic\n"
            "ERROR: No matching distribution found for pydantic",
            "offline, or the package index is unreachable",
        ),
        ("pip", "WARNING: Retrying ... NewConnectionError('Connection refused')\nERROR: x", "offline"),
        ("pip", "OSError: [Errno 28] No space left on device", "the disk is full"),
        ("pip", "ERROR: Failed building wheel for x", "pip install failed (exit 1): ERROR: Failed building wheel for x"),
        ("venv", "Error: Command '[...ensurepip...]' returned non-zero exit status 1.", "python3-venv"),
        ("venv", "something else", "creating the virtual environment failed (exit 1): something else"),
    ],
)
def test_failure_reasons(step, output, expected):
    assert expected in pe.failure_reason(step, 1, output)


# --------------------------------------------------------------------------- what is there


def make_env(data: Path, name: str, key: str, python=True, marker=True) -> str:
    env = data / "envs" / name
    (env / "bin").mkdir(parents=True)
    if python:
        (env / "bin" / "python").symlink_to(sys.executable)
    if marker:
        (env / "env.json").write_text(json.dumps({"key": key}))
    (data / "current").write_text(f"envs/{name}\n")
    return f"envs/{name}"


def plugin_root(tmp_path: Path, deps='["a>=1"]') -> Path:
    root = tmp_path / "plugin"
    root.mkdir()
    (root / "pyproject.toml").write_text(f'[project]\nname = "x"\ndependencies = {deps}\n')
    return root


@pytest.mark.parametrize("content", ["../../etc\n", "envs/../x\n", "elsewhere/abc\n", "envs/notakey-1\n", ""])
def test_current_names_only_an_environment_of_ours(tmp_path, content):
    (tmp_path / "current").write_text(content)
    assert pe.read_current(str(tmp_path)) is None


def test_observe(tmp_path):
    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    st = pe.observe(str(root), str(data))
    assert (st.key, st.current, st.current_ready, st.running, st.last) == (key, None, False, False, {})
    current = make_env(data, f"{key}-1", key)
    st = pe.observe(str(root), str(data))
    assert (st.current, st.current_key, st.current_ready, st.announced) == (current, key, True, False)
    (data / current / "announced").write_text("1\n")
    assert pe.observe(str(root), str(data)).announced
    (data / current / "broken").write_text("No module named 'pydantic'\n")
    assert not pe.observe(str(root), str(data)).current_ready
    # a base interpreter that went away leaves a dangling link: not ready
    dangling = make_env(data, f"{key}-2", key, python=False)
    (data / dangling / "bin" / "python").symlink_to(tmp_path / "gone")
    assert not pe.observe(str(root), str(data)).current_ready
    # half made (no env.json yet): never ready
    make_env(data, f"{key}-3", key, marker=False)
    assert not pe.observe(str(root), str(data)).current_ready


def test_a_held_lock_is_a_running_set_up(tmp_path):
    assert not pe.set_up_running(str(tmp_path))
    fd = os.open(tmp_path / "setup.lock", os.O_RDWR | os.O_CREAT)
    try:
        assert not pe.set_up_running(str(tmp_path))
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert pe.set_up_running(str(tmp_path))
    finally:
        os.close(fd)
    assert not pe.set_up_running(str(tmp_path))


# --------------------------------------------------------------------------- a hook without its dependency


def test_dependency_message_outside_the_plugin_form_is_left_to_the_caller(tmp_path):
    assert pe.dependency_message(ImportError("x"), {}, NOW) is None


def test_dependency_message_follows_the_set_up(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    environ = {"CLAUDE_PLUGIN_DATA": str(data)}
    exc = ModuleNotFoundError("No module named 'pydantic'", name="pydantic")
    text = pe.dependency_message(exc, environ, NOW, prefix="/usr")
    assert text.startswith("deliberation plugin: dependency missing (No module named 'pydantic')")
    assert "not set up yet; it is set up at the next session start" in text
    (data / "setup.json").write_text(json.dumps({"state": "running", "started": NOW - 30}))
    fd = os.open(data / "setup.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert "still being set up (started 30 s ago)" in pe.dependency_message(exc, environ, NOW, prefix="/usr")
    finally:
        os.close(fd)
    (data / "setup.json").write_text(json.dumps({"state": "failed", "reason": "pip could not download"}))
    text = pe.dependency_message(exc, environ, NOW, prefix="/usr")
    assert "could not be set up (pip could not download; details in" in text
    off = pe.dependency_message(exc, {**environ, "DELIBERATION_SELF_SETUP": "0"}, NOW, prefix="/usr")
    assert "set-up is off (DELIBERATION_SELF_SETUP)" in off


def test_a_hook_that_misses_a_module_in_the_plugins_environment_marks_it_broken(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    current = make_env(data, f"{'a' * 16}-1", "a" * 16)
    exc = ModuleNotFoundError("No module named 'orjson'", name="orjson")
    text = pe.dependency_message(exc, {"CLAUDE_PLUGIN_DATA": str(data)}, NOW, prefix=str(data / current))
    assert "in the plugin's Python environment; it is set up again at the next session start" in text
    assert (data / current / "broken").read_text() == "No module named 'orjson'\n"


def test_a_session_start_that_finds_its_environment_ready_stays_light(tmp_path):
    """Nearly every session start finds the environment ready: it reads two small files and
    stats a few, and imports none of json, re, subprocess, hashlib (each costs more than the
    rest of the check)."""
    import subprocess

    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    current = make_env(data, f"{key}-1", key)
    (data / current / "announced").write_text("1\n")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from deliberation.runtime import plugin_env as pe; "
        "out = pe.session_start(sys.argv[2], sys.argv[3], {}, 0.0); "
        "print(out, sorted(m for m in ('json', 're', 'subprocess', 'hashlib', 'fcntl') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(ROOT / "lib"), str(root), str(data)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip() == "None []", proc.stdout + proc.stderr


def test_an_update_to_a_new_folder_retires_the_previous_versions_worker(tmp_path):
    """A marketplace installs each version in its own folder and keeps the old one: the warm
    worker of the previous folder is told to go by removing its socket."""
    from deliberation.wire import worker_socket

    home = tmp_path / "home"
    home.mkdir()
    data = tmp_path / "data"
    data.mkdir()
    key = "a" * 16
    current = make_env(data, f"{key}-1", key)
    old_root, new_root = tmp_path / "cache" / "0.1.0", tmp_path / "cache" / "0.1.1"
    environ = {b"HOME": str(home).encode()}
    folder = worker_socket.private_dir(environ, create=True)
    python = str(data / current / "bin" / "python")
    old_socket = Path(worker_socket.socket_path(folder, str(old_root / "lib"), python))
    other_socket = Path(worker_socket.socket_path(folder, str(tmp_path / "elsewhere" / "lib"), python))
    for sock in (old_socket, other_socket):
        sock.write_text("")  # stands in for a socket: only its name matters here
    st = pe.Status(key, current, key, True, True)
    env = {"HOME": str(home)}
    pe.retire_previous_version(str(old_root), str(data), st, env)  # first session start: remembered only
    assert old_socket.exists() and (data / "root").read_text() == f"{old_root / 'lib'}\n"
    pe.retire_previous_version(str(old_root) + "/", str(data), st, env)  # the same folder, spelled otherwise
    assert old_socket.exists()
    pe.retire_previous_version(str(new_root), str(data), st, env)  # updated: the old worker goes
    assert not old_socket.exists() and other_socket.exists()
    assert (data / "root").read_text() == f"{new_root / 'lib'}\n"


# --------------------------------------------------------------------------- the end of a set-up, in the same session


def hold_lock(data: Path) -> int:
    fd = os.open(data / "setup.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_session_told_that_a_set_up_runs_hears_its_end_once(tmp_path):
    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    (data / "setup.json").write_text(json.dumps({"state": "running", "key": key, "started": NOW - 5}))
    fd = hold_lock(data)
    try:
        said = pe.session_start(str(root), str(data), {}, NOW, session_id="s-1", deps_here=False)
        assert "still setting up" in said and "a later message in this session says when it is ready" in said
        assert (data / "told" / "s-1").exists()
        assert pe.later_notice(str(data), "s-1", NOW + 1) is None  # still running
    finally:
        os.close(fd)
    current = make_env(data, f"{key}-1", key)
    # `current` switched, the record not yet: nothing said until it says ready
    assert pe.later_notice(str(data), "s-1", NOW + 2) is None
    (data / "setup.json").write_text(
        json.dumps({"state": "ready", "key": key, "started": NOW - 5, "finished": NOW + 25, "env": current})
    )
    assert pe.later_notice(str(data), "s-2", NOW + 30) is None  # a session never told
    assert pe.later_notice(str(data), "s-1", NOW + 30) == (
        "deliberation: set-up finished in 30 s; the deliberation checks are on (the plugin's Python environment is ready)."
    )
    assert pe.later_notice(str(data), "s-1", NOW + 31) is None  # once
    # the next session start does not say it again, and clears what is left
    assert (data / current / "announced").exists()
    assert pe.session_start(str(root), str(data), {}, NOW + 40, session_id="s-3") is None


def test_a_failed_set_up_is_told_once_with_the_way_to_retry(tmp_path):
    data = tmp_path / "data"
    (data / "told").mkdir(parents=True)
    (data / "told" / "s-1").write_text("")
    (data / "setup.json").write_text(
        json.dumps(
            {
                "state": "failed",
                "key": "k",
                "started": NOW,
                "finished": NOW + 9,
                "reason": "pip could not download the dependencies",
                "retry": True,
            }
        )
    )
    said = pe.later_notice(str(data), "s-1", NOW + 10)
    assert said.startswith("deliberation: could not set up the plugin's Python environment: pip could not download")
    assert "`! deliberation setup --retry`" in said and "checks are off until it is set up" in said
    assert pe.later_notice(str(data), "s-1", NOW + 11) is None


@pytest.mark.parametrize("sid", ["", "../x", "a/b", ".hidden", "x" * 129, None, 7, "é"])
def test_a_session_id_that_cannot_name_a_file_is_not_used(tmp_path, sid):
    assert pe.safe_session_id(sid) is None
    pe._tell(str(tmp_path), sid)
    assert not (tmp_path / "told").exists()
    assert pe.later_notice(str(tmp_path), sid, NOW) is None


def test_told_entries_of_sessions_that_ended_are_removed(tmp_path):
    (tmp_path / "told").mkdir()
    for name, age in (("old", pe.TOLD_KEEP_S + 5), ("new", 5)):
        (tmp_path / "told" / name).write_text("")
        os.utime(tmp_path / "told" / name, (NOW - age, NOW - age))
    pe._forget_told(str(tmp_path), NOW)
    assert sorted(os.listdir(tmp_path / "told")) == ["new"]
    os.utime(tmp_path / "told" / "new", (NOW - pe.TOLD_KEEP_S - 1,) * 2)
    pe._forget_told(str(tmp_path), NOW)
    assert not (tmp_path / "told").exists()


def test_the_start_message_says_when_checks_already_run_meanwhile(tmp_path):
    first = pe.message(pe.BUILD, status(current=None, current_ready=False), NOW, str(tmp_path), deps_here=True)
    assert f"Meanwhile the deliberation checks run with {sys.executable}, which has the dependencies" in first
    assert "checks run as soon as it is ready" not in first


def test_the_hook_runner_checks_the_folder_plugin_env_writes():
    from deliberation.runtime import hook_runner

    source = Path(hook_runner.__file__).read_text()
    assert f'"{pe.TOLD}", session_id' in source


def test_the_end_names_the_step_that_puts_the_command_on_a_terminal_s_path(tmp_path):
    last = {"state": "ready", "started": NOW, "finished": NOW + 12}
    bare = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path)}
    assert pe.finished_message(last, bare).endswith(
        "For a terminal: `! deliberation setup --command` puts the `deliberation` command (status, doctor) on your PATH."
    )
    own = tmp_path / "bin" / "deliberation"
    own.parent.mkdir()
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    assert pe.finished_message(last, {**bare, "PATH": str(own.parent)}) == (
        "deliberation: set-up finished in 12 s; the deliberation checks are on (the plugin's Python environment is ready)."
    )
    ready = pe.message(pe.ANNOUNCE, status(last=last), NOW, str(tmp_path), environ=bare)
    assert ready.startswith("deliberation: the plugin's Python environment is ready (set up in 12 s)")
    assert "setup --command" in ready


def test_a_resumed_session_that_hears_the_end_at_its_start_is_not_told_again(tmp_path):
    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    current = make_env(data, f"{key}-1", key)
    (data / "setup.json").write_text(
        json.dumps({"state": "ready", "key": key, "started": NOW, "finished": NOW + 9, "env": current})
    )
    (data / "told").mkdir()
    (data / "told" / "s-1").write_text("")
    (data / "told" / "s-2").write_text("")
    for name in ("s-1", "s-2"):
        os.utime(data / "told" / name, (NOW, NOW))
    said = pe.session_start(str(root), str(data), {}, NOW + 20, session_id="s-1")  # `claude --resume` of s-1
    assert said.startswith("deliberation: the plugin's Python environment is ready (set up in 9 s)")
    assert pe.later_notice(str(data), "s-1", NOW + 21) is None
    # s-2, still running, was promised a message: it still gets it
    assert pe.later_notice(str(data), "s-2", NOW + 22).startswith("deliberation: set-up finished in 9 s")


def test_the_session_id_is_parsed_only_when_a_step_needs_it(tmp_path):
    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    current = make_env(data, f"{key}-1", key)
    (data / current / "announced").write_text("1\n")
    asked = []
    assert pe.session_start(str(root), str(data), {}, NOW, session_id=lambda: asked.append(1) or "s-1") is None
    assert asked == []  # ready: nothing to note, no payload parsed
    (data / "setup.json").write_text(json.dumps({"state": "running", "key": "other", "started": NOW}))
    (data / "current").unlink()
    fd = hold_lock(data)
    try:
        pe.session_start(str(root), str(data), {}, NOW, session_id=lambda: asked.append(1) or "s-1", deps_here=False)
    finally:
        os.close(fd)
    assert asked == [1] and (data / "told" / "s-1").exists()


def test_the_session_start_hook_that_finds_its_environment_ready_parses_no_json(tmp_path):
    import subprocess

    root, data = plugin_root(tmp_path), tmp_path / "data"
    data.mkdir()
    key = pe.dependency_key(["a>=1"])
    current = make_env(data, f"{key}-1", key)
    (data / current / "announced").write_text("1\n")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from deliberation.runtime import plugin_env as pe; "
        "pe.hook_main(); sys.stderr.write(repr(sorted(m for m in ('json', 're', 'subprocess') if m in sys.modules)))"
    )
    env = {"CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_ROOT": str(root), "PATH": os.environ.get("PATH", "")}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(ROOT / "lib")],
        capture_output=True,
        text=True,
        input=json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"}),
        env=env,
        timeout=60,
    )
    assert (proc.stdout, proc.stderr) == ("", "[]"), proc.stdout + proc.stderr
