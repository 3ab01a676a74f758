"""Shared fixtures: a temporary project with CLAUDE_PROJECT_DIR set, and a hook runner that
executes the real hook scripts as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "lib"
HOOKS = ROOT / "hooks"
if str(LIB) not in sys.path:
    sys.path.insert(0, str(LIB))

# Hook subprocesses do their own work in the tests (faults injected into a hook process must hit
# the code that writes); the warm worker has its own tests (test_warm_worker.py) and the
# end-to-end suite runs with it on, as users do. Workers started by a test idle out quickly.
os.environ.setdefault("DELIBERATION_WORKER", "0")
os.environ.setdefault("DELIBERATION_WORKER_IDLE_S", "20")
# This user's own folder (the key that seals runtime files, the approvals of `deliberation
# trust`): one private folder for the test run, never the machine user's.
if not os.environ.get("DELIBERATION_USER_DATA"):
    import tempfile

    os.environ["DELIBERATION_USER_DATA"] = tempfile.mkdtemp(prefix="deliberation-user-data-")

HOOK_SCRIPTS = {
    "SessionStart": "session_start.py",
    "UserPromptSubmit": "user_prompt_submit.py",
    "PreToolUse": "pre_tool_use.py",
    "PostToolUse": "post_tool_use.py",
    "PostToolUseFailure": "post_tool_use_failure.py",
    "SubagentStart": "subagent_start.py",
    "SubagentStop": "subagent_stop.py",
    "Stop": "stop.py",
}


# How install.sh (settings.example.json) and hooks/run.sh start a hook's interpreter: isolated
# from the user's Python environment, without the site module (hook_client explains why).
HOOK_FLAGS = ("-I", "-S")


def hook_argv(event: str) -> "list[str]":
    """The command line of one hook script, as Claude Code runs it after install.sh."""
    return [sys.executable, *HOOK_FLAGS, str(HOOKS / HOOK_SCRIPTS[event])]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory; CLAUDE_PROJECT_DIR points at it for in-process code too."""
    proj = tmp_path / "project"
    proj.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(proj))
    return proj


# Where the plugin's block travels as additionalContext (hookio.HOLD_BY_CONTEXT): on Stop and
# SubagentStop that context holds the turn, so it reads back here as decision "block" + reason.
HELD_BY_CONTEXT = ("Stop", "SubagentStop")


class HookResult:
    def __init__(self, proc: subprocess.CompletedProcess, event: str = "") -> None:
        self.event = event
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = json.loads(proc.stdout) if proc.stdout.strip() else None

    @property
    def system_message(self):
        return (self.json or {}).get("systemMessage")

    @property
    def decision(self):
        j = self.json or {}
        if self.event in HELD_BY_CONTEXT and self.context:
            return "block"
        return j.get("decision") or j.get("hookSpecificOutput", {}).get("permissionDecision")

    @property
    def reason(self):
        j = self.json or {}
        if self.event in HELD_BY_CONTEXT and self.context:
            return self.context
        return j.get("reason") or j.get("hookSpecificOutput", {}).get("permissionDecisionReason")

    @property
    def context(self):
        return (self.json or {}).get("hookSpecificOutput", {}).get("additionalContext")


def run_hook(event: str, payload, project_dir, env=None, timeout=60) -> HookResult:
    """Run hooks/<event>.py as Claude Code would: JSON on stdin, CLAUDE_PROJECT_DIR set."""
    data = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    if isinstance(data, str):
        data = data.encode()
    full_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project_dir), **(env or {})}
    proc = subprocess.run(hook_argv(event), input=data, capture_output=True, env=full_env, cwd=str(project_dir), timeout=timeout)
    return HookResult(subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()), event)


@pytest.fixture
def hook(project):
    """hook(event, payload) → HookResult, against the `project` fixture."""
    return lambda event, payload, **kw: run_hook(event, payload, project, **kw)
