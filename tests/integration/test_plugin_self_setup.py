"""The plugin's self-set-up as processes: hooks/run.sh picking the interpreter, the SessionStart
step starting a detached set-up, the set-up building, switching and cleaning, and what a hook
says while there is no environment.

Builds here use a plugin copy whose pyproject.toml lists no dependency (a venv without pip: a
couple of seconds, no download); a real pip install runs in the offline test (which must fail)
and in tests/e2e/test_e2e_plugin_install.py (which must succeed)."""

from __future__ import annotations

import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deliberation.runtime import plugin_env as pe

from tests.helpers.children import wait_until
from tests.helpers.project import copy_plugin

ROOT = Path(__file__).resolve().parents[2]


def set_deps(plugin: Path, deps: "list[str]") -> None:
    text = (plugin / "pyproject.toml").read_text()
    body = "".join(f'    "{d}",\n' for d in deps)
    text = re.sub(r"(?ms)^dependencies = \[.*?^\]\n", f"dependencies = [\n{body}]\n", text, count=1)
    (plugin / "pyproject.toml").write_text(text)
    assert pe.plugin_dependencies(str(plugin)) == deps


@pytest.fixture
def plugin(tmp_path) -> Path:
    root = copy_plugin(tmp_path / "plugins", "deliberation 0.1.0")
    set_deps(root, [])
    return root


@pytest.fixture
def bare_python(tmp_path_factory) -> Path:
    """A real python3 with no packages at all (these machines' global python3 has pydantic)."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    assert subprocess.run([str(venv / "bin" / "python3"), "-c", "import pydantic"], capture_output=True).returncode != 0
    return venv / "bin"


def flat(text: str) -> str:
    """A command's output as one line: the CLI wraps what it prints at 100 columns, between words."""
    return " ".join(text.split())


def clean_env(keep_pip: bool = True, **extra) -> "dict[str, str]":
    """This process's environment without the plugin's and the client's variables (and, with
    keep_pip=False, without pip's: the package index settings of this machine)."""
    drop = ("DELIBERATION_", "CLAUDE_") + (() if keep_pip else ("PIP_",))
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(extra)
    return env


def run_hook(plugin: Path, script: str, env: dict, payload: bytes = b"{}") -> "dict | None":
    proc = subprocess.run(
        ["sh", str(plugin / "hooks" / "run.sh"), script],
        input=payload,
        capture_output=True,
        env=env,
        timeout=60,
        cwd=env.get("CLAUDE_PROJECT_DIR", "/"),
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode().strip()
    return json.loads(out) if out else None


def status_of(data: Path) -> dict:
    return pe.read_json(str(data / "setup.json")) or {}


# --------------------------------------------------------------------------- hooks/run.sh


def fake_python(path: Path, tag: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\ncat >/dev/null\necho "{{\\"systemMessage\\": \\"{tag} $*\\"}}"\n')
    path.chmod(0o755)


def test_run_sh_prefers_the_data_environment_then_the_plugin_venv_then_python3(plugin, tmp_path):
    data = tmp_path / "data"
    name = f"{'0' * 16}-1"
    fake_python(data / "envs" / name / "bin" / "python", "data-env")
    fake_python(plugin / ".venv" / "bin" / "python", "plugin-venv")
    fake_python(tmp_path / "path" / "python3", "path-python3")
    env = clean_env(CLAUDE_PLUGIN_DATA=str(data), PATH=f"{tmp_path / 'path'}:/usr/bin:/bin")

    def who() -> str:
        return run_hook(plugin, "session_start.py", env)["systemMessage"]

    (data / "current").write_text(f"envs/{name}\n")
    assert who() == f"data-env -I -S {plugin}/hooks/session_start.py"
    for wrong in ("envs/../../x\n", f"elsewhere/{name}\n", "envs/" + name + "/bin\n", "\n"):
        (data / "current").write_text(wrong)
        assert who().startswith("plugin-venv "), wrong
    (data / "current").write_text(f"envs/{'1' * 16}-1\n")  # names an environment that is not there
    assert who().startswith("plugin-venv ")
    (data / "current").unlink()
    assert who().startswith("plugin-venv ")
    shutil.rmtree(plugin / ".venv")
    assert who().startswith("path-python3 ")
    (data / "current").write_text(f"envs/{name}\n")
    assert who().startswith("data-env ")
    assert who().startswith("data-env ") and run_hook(plugin, "session_start.py", {**env, "CLAUDE_PLUGIN_DATA": ""})[
        "systemMessage"
    ].startswith("path-python3 ")


def test_the_command_line_finds_the_same_interpreters(plugin, tmp_path):
    """bin/deliberation (on the Bash tool's PATH when the plugin is enabled; the Bash tool gets
    no CLAUDE_PLUGIN_DATA): this session's data folder, else a data folder of the plugin under
    ~/.claude/plugins/data, then <plugin>/.venv, then python3 — always with this plugin's lib/."""
    home = tmp_path / "home"
    data = home / ".claude" / "plugins" / "data" / "deliberation-deliberation-gates"
    name = f"{'0' * 16}-1"
    fake_python(data / "envs" / name / "bin" / "python", "data-env")
    (data / "current").write_text(f"envs/{name}\n")
    fake_python(plugin / ".venv" / "bin" / "python", "plugin-venv")
    fake_python(tmp_path / "path" / "python3", "path-python3")
    env = clean_env(HOME=str(home), PATH=f"{tmp_path / 'path'}:/usr/bin:/bin")

    def who(**extra) -> str:
        proc = subprocess.run(
            [str(plugin / "bin" / "deliberation"), "status", "--json"],
            input=b"",
            capture_output=True,
            env={**env, **extra},
            timeout=30,
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["systemMessage"]

    # -E -c with lib/ as sys.path[0]: nothing of the working directory or of PYTHONPATH is importable
    assert who() == f"data-env -E -c {BIN_BOOT} {plugin}/lib status --json"
    other = tmp_path / "session-data"
    fake_python(other / "envs" / f"{'1' * 16}-2" / "bin" / "python", "session-env")
    (other / "current").write_text(f"envs/{'1' * 16}-2\n")
    assert who(CLAUDE_PLUGIN_DATA=str(other)).startswith("session-env ")
    assert who(CLAUDE_CONFIG_DIR=str(tmp_path / "elsewhere")).startswith("plugin-venv ")
    (data / "current").write_text("envs/../../x\n")
    assert who().startswith("plugin-venv ")
    shutil.rmtree(plugin / ".venv")
    assert who().startswith("path-python3 ")
    # the real thing: lib/ of this plugin, the running interpreter (which has the dependencies)
    fake_python(tmp_path / "path" / "python3", "unused")
    (tmp_path / "path" / "python3").unlink()
    (tmp_path / "path" / "python3").symlink_to(sys.executable)
    project = tmp_path / "project"
    project.mkdir()
    proc = subprocess.run(
        [str(plugin / "bin" / "deliberation"), "--version"], capture_output=True, text=True, env=env, cwd=str(project), timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.strip() == f"deliberation {pe_version(plugin)}", proc


BIN_BOOT = "import sys; sys.path[0] = sys.argv.pop(1); from deliberation.cli import main; sys.exit(main(sys.argv[1:]))"


def pe_version(plugin: Path) -> str:
    return json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())["version"]


# --------------------------------------------------------------------------- the set-up


def test_set_up_builds_switches_and_cleans(plugin, tmp_path):
    data = tmp_path / "data"
    assert pe.build(str(plugin), str(data), environ=clean_env(), verify_modules=("deliberation.runtime.plugin_env",)) == 0
    first = pe.read_current(str(data))
    key = pe.dependency_key([])
    assert first and first.startswith(f"envs/{key}-")
    marker = json.loads((data / first / "env.json").read_text())
    assert marker["key"] == key and marker["dependencies"] == []
    assert status_of(data)["state"] == "ready" and not (data / first / "announced").exists()
    assert subprocess.run(
        [str(data / first / "bin" / "python"), "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True
    ).stdout.strip() == str(data / first)
    # up to date: nothing to do
    assert pe.build(str(plugin), str(data), environ=clean_env()) == 0
    assert pe.read_current(str(data)) == first
    # the dependency list changed (an update): a new environment, then the old one goes
    set_deps(plugin, ["pip"])  # pip is in every venv: installs without a download
    assert pe.build(str(plugin), str(data), environ=clean_env(), verify_modules=()) == 0
    second = pe.read_current(str(data))
    assert second != first and second.startswith(f"envs/{pe.dependency_key(['pip'])}-")
    assert sorted(os.listdir(data / "envs")) == [second.split("/")[1]]
    assert not any(n.startswith(("current.tmp", "setup.json.tmp")) for n in os.listdir(data))
    assert "set-up done in" in (data / "setup.log").read_text()


def test_a_set_up_that_fails_leaves_the_current_environment_serving(plugin, tmp_path):
    data = tmp_path / "data"
    assert pe.build(str(plugin), str(data), environ=clean_env(), verify_modules=()) == 0
    current = pe.read_current(str(data))
    # the new environment does not import the plugin: refused, removed, current unchanged
    set_deps(plugin, ["pip"])
    assert pe.build(str(plugin), str(data), environ=clean_env(), verify_modules=("no_such_module",)) == 1
    assert pe.read_current(str(data)) == current
    assert sorted(os.listdir(data / "envs")) == [current.split("/")[1]]
    st = status_of(data)
    assert st["state"] == "failed" and st["key"] == pe.dependency_key(["pip"]) and st["retry"] is True
    assert "does not import the plugin" in st["reason"] and "no_such_module" in st["reason"]


def test_one_set_up_at_a_time(plugin, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    fd = os.open(data / "setup.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert pe.build(str(plugin), str(data), environ=clean_env()) == 0
        assert not (data / "current").exists() and os.listdir(data / "envs") == []
        text = pe.session_start(str(plugin), str(data), clean_env(), time.time())
        assert text.startswith("deliberation: still setting up the plugin's Python environment")
    finally:
        os.close(fd)


def offline_env(tmp_path: Path) -> dict:
    """pip with no configuration, an index nobody listens on, no cache, no retries."""
    return clean_env(
        keep_pip=False,
        PIP_CONFIG_FILE=os.devnull,
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_RETRIES="0",
        PIP_TIMEOUT="2",
        PIP_CACHE_DIR=str(tmp_path / "empty-cache"),
    )


@pytest.mark.slow
def test_offline_set_up_fails_clearly_and_is_retried_later(plugin, tmp_path):
    data = tmp_path / "data"
    set_deps(plugin, ["pydantic>=2.6,<3"])
    env = offline_env(tmp_path)
    assert pe.build(str(plugin), str(data), environ=env) == 1
    st = status_of(data)
    assert st["state"] == "failed" and st["retry"] is True
    assert st["reason"].startswith("pip could not download the dependencies — offline, or the package index is unreachable")
    assert not (data / "current").exists() and os.listdir(data / "envs") == []
    text = pe.session_start(str(plugin), str(data), env, time.time())
    assert text.startswith("deliberation: could not set up the plugin's Python environment: pip could not download")
    assert "checks are off until it is set up; it is tried again at a session start after" in text
    # after the retry delay the next session start tries again
    later = time.time() + pe.RETRY_AFTER_S + 1
    assert pe.next_step(pe.observe(str(plugin), str(data)), later) == pe.BUILD


def test_no_python_3_10_is_said_at_session_start(plugin, tmp_path):
    fakebin = tmp_path / "old"
    fakebin.mkdir()
    for name in pe.PYTHON_CANDIDATES:
        (fakebin / name).write_text("#!/bin/sh\necho 3.8.18\necho /usr/bin/python3.8\n")
        (fakebin / name).chmod(0o755)
    data = tmp_path / "data"
    env = clean_env(PATH=f"{fakebin}:/usr/bin:/bin")
    text = pe.session_start(str(plugin), str(data), env, time.time())
    assert text.startswith("deliberation: cannot set up the plugin's Python environment: it needs Python 3.10 or newer")
    assert "found: python3 3.8.18" in text
    assert status_of(data)["state"] == "failed" and status_of(data)["retry"] is False
    assert not (data / "current").exists()


@pytest.mark.slow
def test_session_start_hook_sets_up_in_the_background_then_announces_once(tmp_path, bare_python):
    """The SessionStart step through hooks/run.sh with a bare python3 first on PATH: it answers
    at once, the detached set-up (a real pip install of the real dependency list) finishes on
    its own, the next session start says it is ready, the one after says nothing; the hooks
    then run in the new environment."""
    plugin = copy_plugin(tmp_path / "plugins", "deliberation 0.1.0")
    data = tmp_path / "data"
    project = tmp_path / "project"
    project.mkdir()
    env = clean_env(
        CLAUDE_PLUGIN_ROOT=str(plugin),
        CLAUDE_PLUGIN_DATA=str(data),
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"{bare_python}:{os.environ['PATH']}",
        DELIBERATION_WORKER="0",
    )
    first = run_hook(plugin, "session_start_env.py", env)
    assert first["systemMessage"].startswith("deliberation: setting up the plugin's Python environment in the background")
    # the set-up is a detached process: its status file is the only event there is to wait on
    wait_until(lambda: status_of(data).get("state") in ("ready", "failed"), timeout=600, what="the set-up", interval=0.1)
    assert status_of(data)["state"] == "ready", (data / "setup.log").read_text()[-3000:]
    # the interpreter of the set-up was the base of the bare venv, not the bare venv itself
    current = pe.read_current(str(data))
    cfg = (data / current / "pyvenv.cfg").read_text()
    assert str(bare_python) not in cfg
    ready = run_hook(plugin, "session_start_env.py", env)
    hint = "" if pe.command_hint(env) == "" else re.escape(pe.command_hint(env))
    assert re.fullmatch(
        r"deliberation: the plugin's Python environment is ready \(set up in \d+ s\); "
        r"the deliberation checks run\." + hint,
        ready["systemMessage"],
    ), ready
    assert run_hook(plugin, "session_start_env.py", env) is None
    # the hooks now run in it (a hook script that prints its interpreter stands in)
    probe = plugin / "hooks" / "which_python.py"
    probe.write_text('import sys, json\nprint(json.dumps({"systemMessage": sys.executable}))\n')
    assert run_hook(plugin, "which_python.py", env)["systemMessage"] == str(data / current / "bin" / "python")
    # switched off: nothing is started, nothing said
    other = tmp_path / "data-off"
    assert (
        run_hook(plugin, "session_start_env.py", {**env, "CLAUDE_PLUGIN_DATA": str(other), "DELIBERATION_SELF_SETUP": "0"})
        is None
    )
    assert not other.exists()


# --------------------------------------------------------------------------- hooks without the environment


def spawn_sequence(project: Path):
    base = {"session_id": "s-1", "cwd": str(project), "transcript_path": "/dev/null"}
    spawn = {
        "tool_name": "Agent",
        "tool_use_id": "toolu_1",
        "tool_input": {
            "subagent_type": "deliberation:security-analyst",
            "description": "research",
            "prompt": "Phase: research\nShould we move session storage?",
        },
    }
    return [
        (
            "UserPromptSubmit",
            "user_prompt_submit.py",
            {
                **base,
                "hook_event_name": "UserPromptSubmit",
                "prompt": "/deliberate should we move session storage to a new database?",
            },
        ),
        ("PreToolUse", "pre_tool_use.py", {**base, "hook_event_name": "PreToolUse", **spawn}),
    ]


def hook_messages(plugin: Path, env: dict, project: Path) -> "list[str]":
    out = []
    for _event, script, payload in spawn_sequence(project):
        answer = run_hook(plugin, script, env, json.dumps(payload).encode())
        out.append((answer or {}).get("systemMessage", ""))
    return out


def test_hooks_without_the_environment_say_where_the_set_up_stands(plugin, tmp_path, bare_python):
    data = tmp_path / "data"
    data.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    env = clean_env(
        CLAUDE_PLUGIN_ROOT=str(plugin),
        CLAUDE_PLUGIN_DATA=str(data),
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"{bare_python}:/usr/bin:/bin",
        DELIBERATION_WORKER="0",
    )
    missing = [m for m in hook_messages(plugin, env, project) if "dependency missing" in m]
    assert missing and "not set up yet; it is set up at the next session start" in missing[0], missing
    assert "install.sh" not in missing[0]
    (data / "setup.json").write_text(
        json.dumps({"state": "failed", "reason": "pip could not download the dependencies — offline"})
    )
    missing = [m for m in hook_messages(plugin, env, project) if "dependency missing" in m]
    assert "could not be set up (pip could not download the dependencies — offline; details in" in missing[0]


def test_an_environment_that_lost_a_module_is_rebuilt_at_the_next_session_start(plugin, tmp_path, bare_python):
    """`current` names a finished environment, but it cannot import pydantic: the hook says so
    and marks it; the next session start sets up a new one."""
    data = tmp_path / "data"
    key = pe.dependency_key([])
    env_dir = data / "envs" / f"{key}-1"
    subprocess.run([str(bare_python / "python3"), "-m", "venv", "--without-pip", str(env_dir)], check=True)
    (env_dir / "env.json").write_text(json.dumps({"key": key}))
    (data / "current").write_text(f"envs/{key}-1\n")
    project = tmp_path / "project"
    project.mkdir()
    env = clean_env(
        CLAUDE_PLUGIN_ROOT=str(plugin),
        CLAUDE_PLUGIN_DATA=str(data),
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"{bare_python}:/usr/bin:/bin",
        DELIBERATION_WORKER="0",
    )
    assert pe.next_step(pe.observe(str(plugin), str(data)), time.time()) == pe.READY
    missing = [m for m in hook_messages(plugin, env, project) if "dependency missing" in m]
    assert "in the plugin's Python environment; it is set up again at the next session start" in missing[0], missing
    assert (env_dir / "broken").is_file()
    assert pe.next_step(pe.observe(str(plugin), str(data)), time.time()) == pe.BUILD


def old_pythons() -> "list[Path]":
    """Real interpreters older than 3.10 on this machine (pyenv builds, distribution ones)."""
    found = []
    for pattern in (
        os.path.expanduser("~/.pyenv/versions/3.[6-9].*/bin/python3"),
        "/usr/bin/python3.[6-9]",
        "/usr/local/bin/python3.[6-9]",
    ):
        found.extend(Path(p) for p in sorted(glob.glob(pattern)))
    return list(dict.fromkeys(p for p in found if os.access(p, os.X_OK)))


@pytest.mark.parametrize("index", [0, -1])
def test_an_old_python3_is_told_apart_by_the_hook_itself(plugin, tmp_path, index):
    """The SessionStart step runs under whatever python3 PATH has: under a real 3.6-3.9 (the
    oldest and the newest this machine has) it still says what is missing."""
    olds = old_pythons()
    if not olds:
        pytest.skip("no Python older than 3.10 on this machine")
    old = olds[index]
    tools = tmp_path / "tools"  # a shell and what run.sh uses, but no other python
    tools.mkdir()
    for tool in ("sh", "dirname", "cat"):
        (tools / tool).symlink_to(shutil.which(tool))
    (tools / "python3").symlink_to(old)
    version = subprocess.run(
        [str(old), "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], capture_output=True, text=True
    ).stdout.strip()
    data = tmp_path / "data"
    env = {"PATH": str(tools), "HOME": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(plugin), "CLAUDE_PLUGIN_DATA": str(data)}
    answer = run_hook(plugin, "session_start_env.py", env)
    assert answer["systemMessage"].startswith(
        f"deliberation: cannot set up the plugin's Python environment: it needs Python 3.10 or newer (found: python3 {version})"
    ), (old, answer)
    assert status_of(data)["reason"] == "no Python >= 3.10"


# --------------------------------------------------------------------------- a repository's own choices


def hostile_project(tmp_path: Path, env_block: dict) -> Path:
    """A cloned repository whose .claude/settings.json `env` picks the interpreter, the PATH and
    the package index (the client passes that env to plugin hooks, measured on 2.1.328), with a
    `tools/python3` that leaves a mark when it runs."""
    project = tmp_path / "cloned"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": env_block}))
    tools = project / "tools"
    tools.mkdir()
    (tools / "python3").write_text(f"#!/bin/sh\necho ran >> {project}/RAN\necho 3.12.0\necho /usr/bin/python3\n")
    (tools / "python3").chmod(0o755)
    for name in ("argparse.py", "orjson.py", "json.py"):  # what `python -m` would import from the cwd
        (project / name).write_text(f"open({str(project / 'RAN')!r}, 'a').write('{name}\\n')\n")
    return project


ATTACK = {
    "DELIBERATION_PYTHON": "./tools/python3",
    "PATH": "./tools:/usr/bin:/bin",
    "PIP_INDEX_URL": "http://127.0.0.1:9/author-index",
    "PIP_EXTRA_INDEX_URL": "http://127.0.0.1:9/x",
}


def test_the_set_up_ignores_the_interpreter_path_and_index_a_project_supplied(plugin, tmp_path, monkeypatch):
    project = hostile_project(tmp_path, ATTACK)
    monkeypatch.chdir(project)  # a hook runs in the project directory
    env = clean_env(CLAUDE_PROJECT_DIR=str(project), PIP_FIND_LINKS="/opt/the-users-own-wheels", **ATTACK)
    data = tmp_path / "data"
    text = pe.session_start(str(plugin), str(data), env, time.time())
    assert not (project / "RAN").exists(), (project / "RAN").read_text()
    assert "ignored DELIBERATION_PYTHON, PATH from .claude/settings.json's env" in text, text
    own, ignored, _by = pe.own_environment(env)
    assert set(ATTACK) <= set(ignored) and not set(ATTACK) - {"PATH"} & set(own)
    assert "./tools" not in own["PATH"] and own["PIP_FIND_LINKS"] == "/opt/the-users-own-wheels"  # the user's pip
    wait_until(lambda: status_of(data).get("state") in ("ready", "failed"), timeout=120, what="the set-up", interval=0.1)
    assert "PIP_INDEX_URL" in (data / "setup.log").read_text()  # said where the set-up's output goes
    assert not (project / "RAN").exists()


def test_a_relative_interpreter_of_the_user_never_resolves_into_the_project(plugin, tmp_path, monkeypatch):
    project = hostile_project(tmp_path, {})
    monkeypatch.chdir(project)
    env = clean_env(
        CLAUDE_PROJECT_DIR=str(project), DELIBERATION_PYTHON="./tools/python3", PATH=f"{project / 'tools'}:./tools:/usr/bin:/bin"
    )
    notes: list = []
    python, _found = pe.find_python(env, notes=notes)
    assert python and not python.startswith(str(project)) and not (project / "RAN").exists()
    assert any("relative path" in n for n in notes), notes


def test_run_sh_and_the_command_line_never_run_the_project_s_python_or_modules(plugin, tmp_path):
    project = hostile_project(tmp_path, ATTACK)
    shutil.rmtree(plugin / ".venv", ignore_errors=True)
    env = clean_env(
        CLAUDE_PROJECT_DIR=str(project),
        PATH=f"./tools:{project / 'tools'}:{Path(sys.executable).parent}:/usr/bin:/bin",
        PYTHONPATH=str(project),
    )
    answer = run_hook(
        plugin, "session_start.py", env, json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"}).encode()
    )
    assert not (project / "RAN").exists(), (project / "RAN").read_text()
    proc = subprocess.run(
        [str(plugin / "bin" / "deliberation"), "--version"], capture_output=True, text=True, env=env, cwd=str(project), timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert not (project / "RAN").exists(), (project / "RAN").read_text()
    assert answer is None or "deliberation" in json.dumps(answer).lower()


def test_hooks_json_runs_the_system_shell_not_one_found_on_the_project_s_path(plugin):
    """Measured on 2.1.328: with `"env": {"PATH": "./tools:…"}` in a project's settings, the
    client ran the project's `tools/sh` for a plugin hook written `sh "${CLAUDE_PLUGIN_ROOT}/…"`."""
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert commands and all(c.startswith('/bin/sh "${CLAUDE_PLUGIN_ROOT}/') for c in commands), commands


def test_a_copy_of_the_command_on_the_path_finds_the_installed_plugin(plugin, tmp_path):
    """docs/CLI.md: a copy of bin/deliberation outside any plugin folder (~/.local/bin) runs the
    plugin the client ran last — the one its data folder's `root` names — and follows an update."""
    home = tmp_path / "home"
    data = home / ".claude" / "plugins" / "data" / "deliberation-deliberation-gates"
    data.mkdir(parents=True)
    on_path = tmp_path / "local-bin" / "deliberation"
    on_path.parent.mkdir()
    shutil.copy2(plugin / "bin" / "deliberation", on_path)
    env = clean_env(HOME=str(home), PATH="/usr/bin:/bin")

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(on_path), *argv], capture_output=True, text=True, env=env, timeout=30, stdin=subprocess.DEVNULL
        )

    proc = run("--version")
    assert proc.returncode == 1 and "no installed plugin found" in proc.stderr
    (data / "root").write_text(f"{plugin / 'lib'}\n")
    fake_python(plugin / ".venv" / "bin" / "python", "old-version")
    assert json.loads(run("status").stdout)["systemMessage"].startswith("old-version -E -c ")
    newer = copy_plugin(tmp_path / "plugins", "deliberation 0.2.0")
    fake_python(newer / ".venv" / "bin" / "python", "new-version")
    (data / "root").write_text(f"{newer / 'lib'}\n")  # the session start after an update rewrites it
    assert json.loads(run("status").stdout)["systemMessage"].startswith("new-version -E -c ")


def test_setup_command_builds_now_and_says_how_it_went(plugin, tmp_path):
    """`deliberation setup --retry` runs the set-up in the foreground at once (no waiting for a
    session start 10 minutes later) and says where, how long and what went wrong."""
    data = tmp_path / "data"

    def setup(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from deliberation.cli import main; sys.exit(main())",
                "setup",
                *argv,
                "--data",
                str(data),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            env=clean_env(PYTHONPATH=str(plugin / "lib")),
            stdin=subprocess.DEVNULL,
        )

    # no dependencies listed: the venv is made, but the hooks' modules cannot load in it — a failure to report
    proc = setup("--retry")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert flat(proc.stdout).startswith(f"setting up the plugin's Python environment in {data} with ")
    assert "deliberation: set-up failed after " in proc.stderr and "setup --retry" in proc.stderr
    assert str(data / "setup.log") in proc.stderr and status_of(data)["state"] == "failed"
    # failed just now: a session start would wait 10 minutes; the command tries again at once
    proc = setup("--retry", "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["error"].startswith("set-up failed after ")
    # a ready environment: nothing to do
    assert pe.build(str(plugin), str(data), environ=clean_env(), verify_modules=("deliberation.runtime.plugin_env",)) == 0
    proc = setup("--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["state"] == "ready"
    assert json.loads(proc.stdout)["message"].startswith("already set up: ")


# --------------------------------------------------------------------------- the end of the set-up, in the same session


def test_the_end_of_the_set_up_is_said_once_by_the_next_hook_that_reaches_the_user(plugin, tmp_path):
    """Through hooks/run.sh: a session start while a set-up runs (its lock held here) says so;
    the UserPromptSubmit before it ends says nothing of it; the set-up finishes between two
    events (a finished environment, `current` switched, the record ready, the lock released);
    the next Stop says it finished and in how long, once; the next session start is quiet."""
    data = tmp_path / "data"
    data.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    # no `deliberation` on this PATH: the notice names the step that adds one
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(d, "deliberation")))
    env = clean_env(
        CLAUDE_PLUGIN_ROOT=str(plugin),
        CLAUDE_PLUGIN_DATA=str(data),
        CLAUDE_PROJECT_DIR=str(project),
        DELIBERATION_WORKER="0",
        PATH=path,
    )
    key = pe.dependency_key(pe.plugin_dependencies(str(plugin)))
    started = time.time()

    def payload(event: str, sid: str = "s-1", **kw) -> bytes:
        return json.dumps(
            {"session_id": sid, "cwd": str(project), "transcript_path": "/dev/null", "hook_event_name": event, **kw}
        ).encode()

    prompt = payload("UserPromptSubmit", prompt="What does this function return?")
    stop = payload("Stop", stop_hook_active=False)
    (data / "setup.json").write_text(json.dumps({"state": "running", "key": key, "started": started, "pid": 1}))
    lock = os.open(data / "setup.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        start = run_hook(plugin, "session_start_env.py", env, payload("SessionStart", source="startup"))
        assert start["systemMessage"].startswith("deliberation: still setting up the plugin's Python environment")
        assert "a later message in this session says when it is ready" in start["systemMessage"]
        # python3 from PATH has the dependencies on this machine: the message says the checks run meanwhile
        assert "Meanwhile the deliberation checks run with " in start["systemMessage"], start
        before = run_hook(plugin, "user_prompt_submit.py", env, prompt)
        assert "set-up finished" not in json.dumps(before)
    finally:
        # the set-up finishes: a finished environment (its python runs this interpreter), then
        # `current`, then the record, then the lock goes
        name = f"{key}-1"
        python = data / "envs" / name / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        python.chmod(0o755)
        (data / "envs" / name / "env.json").write_text(json.dumps({"key": key}))
        (data / "current").write_text(f"envs/{name}\n")
        (data / "setup.json").write_text(
            json.dumps({"state": "ready", "key": key, "started": started, "finished": started + 21, "env": f"envs/{name}"})
        )
        os.close(lock)
    other = run_hook(plugin, "stop.py", env, payload("Stop", sid="s-2", stop_hook_active=False))
    assert "set-up finished" not in json.dumps(other)  # a session that was never told
    after = run_hook(plugin, "stop.py", env, stop)
    assert after["systemMessage"] == (
        "deliberation: set-up finished in 21 s; the deliberation checks are on "
        "(the plugin's Python environment is ready). For a terminal: `! deliberation "
        "setup --command` puts the `deliberation` command (status, doctor) on your "
        "PATH."
    ), after
    again = run_hook(plugin, "user_prompt_submit.py", env, prompt)
    assert "set-up finished" not in json.dumps(again)
    assert run_hook(plugin, "session_start_env.py", env, payload("SessionStart", sid="s-3")) is None
    assert not (data / "told").exists()


# --------------------------------------------------------------------------- the command on a terminal's PATH


def test_setup_command_puts_a_launcher_on_the_path_that_follows_updates(tmp_path):
    """`deliberation setup --command` in a marketplace install (a copy in the client's cache,
    named after its version) writes ~/.local/bin/deliberation, which runs the version the
    client ran last — before and after an update — and says the PATH line when ~/.local/bin
    is not on PATH."""
    home = tmp_path / "home"
    cache = home / ".claude" / "plugins" / "cache" / "deliberation-gates" / "deliberation"
    old = copy_plugin(cache, "0.1.0")
    data = home / ".claude" / "plugins" / "data" / "deliberation-deliberation-gates"
    data.mkdir(parents=True)
    (data / "root").write_text(f"{old / 'lib'}\n")
    env = clean_env(HOME=str(home), PATH="/usr/bin:/bin", SHELL="/bin/bash")
    made = subprocess.run(
        [str(old / "bin" / "deliberation"), "setup", "--command"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    launcher = home / ".local" / "bin" / "deliberation"
    assert flat(made.stdout) == flat(
        f"wrote {launcher}: it finds the installed plugin at each run, so it keeps working across updates\n"
        f'{launcher.parent} is not on your PATH yet: export PATH="$HOME/.local/bin:$PATH"   (add it to ~/.bashrc, '
        "then open a new terminal)"
    )
    assert not launcher.is_symlink() and os.access(launcher, os.X_OK)
    on_path = {**env, "PATH": f"{launcher.parent}:/usr/bin:/bin"}

    def version() -> str:
        proc = subprocess.run(
            ["deliberation", "--version"], capture_output=True, text=True, env=on_path, timeout=60, stdin=subprocess.DEVNULL
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    current = pe_version(old)
    assert version() == f"deliberation {current}\n"
    new = copy_plugin(cache, "9.9.9")
    init = new / "lib" / "deliberation" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{current}"', '__version__ = "9.9.9"'))
    (data / "root").write_text(f"{new / 'lib'}\n")  # the first session start after the update
    shutil.rmtree(old)  # the client removes the old version's folder
    assert version() == "deliberation 9.9.9\n"
    # again: the launcher is replaced; a file of someone else's is left alone
    again = subprocess.run(
        [str(new / "bin" / "deliberation"), "setup", "--command"],
        capture_output=True,
        text=True,
        env=on_path,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert again.returncode == 0 and "`deliberation status` now works in a terminal" in again.stdout, again.stderr
    launcher.write_text("#!/bin/sh\necho mine\n")
    refused = subprocess.run(
        [str(new / "bin" / "deliberation"), "setup", "--command"],
        capture_output=True,
        text=True,
        env=on_path,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 1 and "is not a deliberation launcher: left alone" in refused.stderr
    assert launcher.read_text() == "#!/bin/sh\necho mine\n"


def test_setup_command_for_a_plugin_folder_runs_that_folder(plugin, tmp_path):
    """A plugin folder outside the client's cache (a clone: a marketplace added from its path,
    --plugin-dir, install.sh) stays put: the launcher runs its bin/deliberation."""
    bin_dir = tmp_path / "my bin"
    env = clean_env(HOME=str(tmp_path / "home"), PATH="/usr/bin:/bin")
    made = subprocess.run(
        [str(plugin / "bin" / "deliberation"), "setup", "--command", "--bin", str(bin_dir)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert made.returncode == 0, made.stderr
    assert flat(made.stdout).startswith(f"wrote {bin_dir / 'deliberation'}: it runs {plugin / 'bin' / 'deliberation'}")
    fake_python(plugin / ".venv" / "bin" / "python", "the-clone")
    proc = subprocess.run(
        [str(bin_dir / "deliberation"), "status"], capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL
    )
    assert json.loads(proc.stdout)["systemMessage"].startswith("the-clone -E -c "), proc.stdout + proc.stderr
