"""What the plugin leaves in a project, with the real client, in each install form: the state
folder's .gitignore (install.sh, --plugin-dir, a marketplace), no text of a plain session, and
the off switch — the environment variable and the in-session commands as the client sends them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fake_api import agent_call
from harness import STATE_DIR, agent_type, run_claude_once
from plugin_manager import PluginCli, scratch_source

pytestmark = pytest.mark.e2e

SECRET = "the staging password is hunter2"
RISKY = (
    "Deliberate: should we migrate all customer data irreversibly in production and redesign the auth "
    "architecture? It depends on legacy clients we have not measured."
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=str(cwd),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
    ).stdout


def untracked_state(project: Path) -> "list[str]":
    out = git(project, "status", "--porcelain", "--untracked-files=all")
    return [line[3:] for line in out.splitlines() if line[3:].startswith(str(STATE_DIR))]


def plain_work(mode: str):
    """A turn of plain work: a helper subagent reads, the main agent answers."""
    helper = "general-purpose"

    def scenario(req):
        if req.is_subagent:
            return "Found it in the config module. " + SECRET
        if not req.tool_results:
            return agent_call("Find where the staging password is set. " + SECRET, helper, run_in_background=False)
        return "Done: " + SECRET

    return scenario


def assert_private(project: Path) -> None:
    from deliberation.state.paths import GITIGNORE

    state = project / STATE_DIR
    assert (state / ".gitignore").read_text() == GITIGNORE
    assert untracked_state(project) == []  # git sees nothing the plugin keeps
    for path in state.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
            assert "Deliberate: should we migrate" not in path.read_text(errors="replace"), path


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_a_plain_session_leaves_an_ignored_folder_without_text(run_claude, e2e_project, mode):
    git(e2e_project.path, "init", "-q")
    run = run_claude(e2e_project, "Where is the staging password set? " + SECRET, plain_work(mode), mode=mode)
    assert run.returncode == 0 and run.log.errors == [], run.describe()
    assert run.plugin_errors() == ""
    assert run.subagent_stats.get("spawned") == 1, run.describe()
    assert_private(e2e_project.path)
    lineage = run.state_json("sessions/{sid}/lineage.json")
    assert [s["status"] for s in lineage["spawns"]] == ["completed"]


def test_a_marketplace_install_leaves_an_ignored_folder_without_text(claude_bin, fake_api, tmp_path):
    home, tmp, project = tmp_path / "home", tmp_path / "tmp", tmp_path / "project"
    for folder in (home, tmp, project):
        folder.mkdir()
    source = scratch_source(tmp_path / "source")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    cli = PluginCli(claude_bin, env)
    cli.run("marketplace", "add", str(source))
    cli.run("install", "deliberation@deliberation-gates")
    git(project, "init", "-q")
    run = run_claude_once(
        claude_bin,
        fake_api,
        project,
        home,
        tmp,
        "Where is the staging password set? " + SECRET,
        plain_work("plugin"),
        log_path=tmp_path / "api-log.jsonl",
    )
    assert run.returncode == 0 and run.log.errors == [], run.describe()
    assert run.subagent_stats.get("spawned") == 1, run.describe()
    assert run.plugin_errors() == ""
    assert run.state_json("sessions/{sid}/lineage.json")["spawns"]  # the plugin's hooks ran
    assert_private(project)
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""  # no `?? .claude/`


def panel(mode: str):
    """Spawns two personas at once and answers; the plugin's protocol, if any, is ignored."""

    def scenario(req):
        if req.is_subagent:
            return "My view: keep the old auth for now."
        if not req.tool_results:
            return [
                agent_call(
                    "PERSONA: security-analyst\nResearch it.", agent_type("security-analyst", mode), run_in_background=False
                ),
                agent_call(
                    "PERSONA: performance-engineer\nResearch it.",
                    agent_type("performance-engineer", mode),
                    run_in_background=False,
                ),
            ]
        return "We keep the old auth."

    return scenario


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_deliberation_off_in_the_environment(run_claude, e2e_project, mode):
    run = run_claude(
        e2e_project,
        RISKY,
        panel(mode),
        mode=mode,
        env={"DELIBERATION": "off"},
        extra_args=["--output-format", "stream-json", "--verbose"],
    )
    assert run.returncode == 0 and run.log.errors == [], run.describe()
    assert not any(r.saw("DELIBERATION PROTOCOL") for r in run.main_requests), run.describe()
    assert not (e2e_project.state_dir / "deliberations").exists()
    assert not (e2e_project.state_dir / "sessions").exists()  # nothing recorded
    said = [line for line in run.stdout.splitlines() if "Deliberation checks are off for this session" in line]
    assert len(said) == 1, run.stdout[-3000:]  # once, at the session start


@pytest.mark.parametrize("mode,command", [("plugin", "/deliberation:off"), ("install", "/deliberation-off")])
def test_the_off_command_then_the_session_goes_on_unchecked(run_claude, e2e_project, mode, command):
    off = run_claude(e2e_project, command, lambda req: "Deliberation checks are off for this session.", mode=mode)
    assert off.returncode == 0, off.describe()
    first = off.main_requests[0]
    assert first.saw("switched the deliberation plugin's checks off for this session"), off.describe()
    assert first.saw("Tell the user what that note says"), off.describe()  # the command's body reached the model
    switch = json.loads((off.session_dir / "switch.json").read_text())
    assert (switch["checks"], switch["by"]) == ("off", "command")
    resumed = run_claude(e2e_project, RISKY, panel(mode), mode=mode, extra_args=["--resume", off.session_id])
    assert resumed.returncode == 0 and resumed.log.errors == [], resumed.describe()
    assert resumed.session_id == off.session_id
    assert not any(r.saw("DELIBERATION PROTOCOL") for r in resumed.main_requests), resumed.describe()
    assert resumed.subagent_stats.get("spawned") == 2, resumed.describe()
    assert sorted(os.listdir(off.session_dir)) == ["switch.json"]
    back = "/deliberation:on" if mode == "plugin" else "/deliberation-on"
    on = run_claude(e2e_project, back, lambda req: "On again.", mode=mode, extra_args=["--resume", off.session_id])
    assert on.main_requests[0].saw("checks back on for this session"), on.describe()
    assert not (off.session_dir / "switch.json").exists()
