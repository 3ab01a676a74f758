"""Fixtures of the end-to-end suite: the real client, the scripted API, an isolated project,
and `run_claude` — one headless run of the client with the plugin installed.

    def test_x(run_claude, e2e_project):
        run = run_claude(e2e_project, "prompt", PersonaPanel({...}), mode="install")
        assert run.subagent_stats["spawned"] == 2, run.describe()

Under CI=true a missing or broken client FAILS the test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_api import FakeApi
from harness import (
    DEFAULT_ALLOWED_TOOLS,
    DEFAULT_TIMEOUT_S,
    STATE_DIR,
    ClaudeRun,
    ClientUnavailable,
    find_claude_bin,
    hook_python_prefix,
    install_into_project,
    make_plugin_copy,
    run_claude_once,
)

MODES = ("install", "plugin")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned Claude Code binary ($CLAUDE_BIN, or installed by the repo's script)."""
    try:
        return find_claude_bin()
    except ClientUnavailable as exc:
        if _in_ci():
            pytest.fail(f"CI=true and the Claude Code client is unavailable: {exc}", pytrace=False)
        pytest.skip(f"Claude Code client unavailable ({exc}); run scripts/install_claude_client.sh")


@pytest.fixture
def fake_api():
    """The scripted Messages API on an ephemeral 127.0.0.1 port, stopped after the test."""
    api = FakeApi().start()
    try:
        yield api
    finally:
        api.stop()


@dataclass
class E2EProject:
    """A temp project with its own HOME and TMPDIR, so no user settings leak in and nothing
    the client writes outlives the test."""

    path: Path
    home: Path
    tmp: Path

    @property
    def state_dir(self) -> Path:
        return self.path / STATE_DIR

    def __fspath__(self) -> str:
        return str(self.path)


@pytest.fixture
def e2e_project(tmp_path) -> E2EProject:
    project = E2EProject(tmp_path / "project", tmp_path / "home", tmp_path / "tmp")
    for folder in (project.path, project.home, project.tmp):
        folder.mkdir()
    return project


@pytest.fixture(scope="session")
def plugin_copy(tmp_path_factory) -> Path:
    """A copy of the repo in a folder whose name has a space and a version number."""
    return make_plugin_copy(tmp_path_factory.mktemp("plugins"))


@pytest.fixture(scope="session")
def hook_python(tmp_path_factory) -> Path:
    """The Python prefix install.sh wires the hooks to (DELIBERATION_VENV): no pip at test time."""
    return hook_python_prefix(tmp_path_factory.mktemp("venv") / "hooks-venv")


@pytest.fixture
def run_claude(request, claude_bin, fake_api, tmp_path):
    """run_claude(project, prompt, scenario, mode="install"|"plugin", allowed_tools=...,
    timeout=..., extra_args=None, env=None) -> ClaudeRun.

    Installs the plugin into the project on its first run in that mode ("install": the repo's
    install.sh; "plugin": --plugin-dir at a copy of the repo), then runs
    `claude -p PROMPT --output-format json --allowedTools ...` against `fake_api`. The API log of
    each run is written to <tmp_path>/api-log-<n>.jsonl."""
    installed: "set[Path]" = set()
    counter = [0]

    def run(
        project: E2EProject,
        prompt: str,
        scenario,
        mode: str = "install",
        allowed_tools: str = DEFAULT_ALLOWED_TOOLS,
        timeout: float = DEFAULT_TIMEOUT_S,
        extra_args=None,
        env=None,
    ) -> ClaudeRun:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        plugin_dir = None
        if mode == "install":
            if project.path not in installed:
                install_into_project(project.path, request.getfixturevalue("hook_python"))
                installed.add(project.path)
        else:
            plugin_dir = request.getfixturevalue("plugin_copy")
        counter[0] += 1
        return run_claude_once(
            claude_bin,
            fake_api,
            project.path,
            project.home,
            project.tmp,
            prompt,
            scenario,
            plugin_dir=plugin_dir,
            allowed_tools=allowed_tools,
            timeout=timeout,
            extra_args=extra_args,
            env=env,
            log_path=tmp_path / f"api-log-{counter[0]}.jsonl",
        )

    return run
