"""Running the real Claude Code CLI against the scripted Messages API, with the plugin installed.

Owns: locating/installing the client (`find_claude_bin`), the two install modes of the plugin
into a temp project (`install_into_project`, `make_plugin_copy`), the isolated environment of a
run (`client_env`), and one headless run (`run_claude_once` → `ClaudeRun`: the CLI's parsed JSON
result, the API request log and readers for the plugin's state files) or one interactive session
in a pseudo-terminal (`run_claude_interactive`, POSIX).
The pytest fixtures in conftest.py are thin wrappers around these functions.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_api import ApiRequest, FakeApi, RequestLog, Scenario

REPO = Path(__file__).resolve().parents[2]
INSTALL_CLIENT = REPO / "scripts" / "install_claude_client.sh"
STATE_DIR = Path(".claude") / "deliberation"
DEFAULT_ALLOWED_TOOLS = "Agent Read"
DEFAULT_TIMEOUT_S = 90.0
PLUGIN_COPY_NAME = "deliberation plugin 0.1.0 (e2e copy)"
# what a plugin copy leaves out: the client cache, VCS data, virtualenvs, test outputs
COPY_IGNORE = shutil.ignore_patterns(
    ".git",
    ".cache",
    ".venv",
    "venv",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".hypothesis",
    "node_modules",
    "build",
    "dist",
    "*.egg-info",
)


class ClientUnavailable(RuntimeError):
    """The Claude Code client could not be found or installed; the message says why."""


# --------------------------------------------------------------------------- the client


def find_claude_bin() -> Path:
    """$CLAUDE_BIN if set, else the pinned client from scripts/install_claude_client.sh
    (installs it on first use; idempotent afterwards)."""
    explicit = os.environ.get("CLAUDE_BIN")
    if explicit:
        path = Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ClientUnavailable(f"CLAUDE_BIN={explicit} is not an executable file")
        return _checked(path)
    try:
        proc = subprocess.run(["bash", str(INSTALL_CLIENT)], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClientUnavailable(f"{INSTALL_CLIENT.name} did not run: {exc}") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise ClientUnavailable(f"{INSTALL_CLIENT.name} failed (exit {proc.returncode}): {proc.stderr.strip()[-800:]}")
    return _checked(Path(lines[-1]))


def _checked(path: Path) -> Path:
    try:
        proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClientUnavailable(f"{path} --version failed: {exc}") from None
    if proc.returncode != 0:
        raise ClientUnavailable(f"{path} --version exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return path


# --------------------------------------------------------------------------- install modes


def plugin_name(plugin_root: Path = REPO) -> str:
    """The plugin's name from .claude-plugin/plugin.json: the prefix of its agent types."""
    manifest = plugin_root / ".claude-plugin" / "plugin.json"
    try:
        return json.loads(manifest.read_text(encoding="utf-8"))["name"]
    except (OSError, ValueError, KeyError):
        return "deliberation"


def agent_type(slug: str, mode: str) -> str:
    """The `subagent_type` that selects persona `slug` in an install mode: plugin agents carry
    the plugin's name as a prefix (`deliberation:security-analyst`)."""
    return f"{plugin_name()}:{slug}" if mode == "plugin" else slug


def make_plugin_copy(dest_parent: Path) -> Path:
    """Copy the repo (without caches, VCS data and venvs) into a folder with an unusual name —
    a space and a version number, like the client's plugin cache — and return it."""
    dest = dest_parent / PLUGIN_COPY_NAME
    shutil.copytree(REPO, dest, ignore=COPY_IGNORE, symlinks=True)
    return dest


def hook_python_prefix(scratch: Path) -> Path:
    """A Python prefix for install.sh's DELIBERATION_VENV in which the plugin's dependencies are
    importable, so install.sh skips pip and nothing is downloaded at test time: the running
    interpreter's own prefix when it has bin/python (a venv such as CI's .venv, or a pyenv
    build), else a venv in `scratch` that sees the system packages."""
    own = Path(sys.prefix)
    if (own / "bin" / "python").is_file():
        return own
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(scratch)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return scratch


def install_into_project(project: Path, venv: Path) -> subprocess.CompletedProcess:
    """Mode "install": the repo's own `install.sh <project>` (hooks merged into
    <project>/.claude/settings.json, persona agents copied into <project>/.claude/agents/),
    with DELIBERATION_VENV=`venv` (see hook_python_prefix)."""
    env = {**os.environ, "DELIBERATION_VENV": str(venv)}
    proc = subprocess.run(
        ["bash", str(REPO / "install.sh"), str(project)], capture_output=True, text=True, timeout=300, cwd=str(REPO), env=env
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"install.sh {project} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return proc


# --------------------------------------------------------------------------- one run


def client_env(api: FakeApi, home: Path, tmp: Path, extra: "dict[str, str] | None" = None) -> "dict[str, str]":
    """A minimal environment: nothing of the caller's ANTHROPIC_*/CLAUDE_* settings leaks in."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "ANTHROPIC_BASE_URL": api.base_url,
        "ANTHROPIC_API_KEY": "test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # hooks run as users run them: the slow path through the warm worker, which idles out soon
        "DELIBERATION_WORKER": "1",
        "DELIBERATION_WORKER_IDLE_S": "30",
        # plugin mode (--plugin-dir) would set up the plugin's own environment in each test's
        # HOME at session start; these tests use python3's packages instead. The set-up itself
        # is tested end to end in test_e2e_plugin_install.py.
        "DELIBERATION_SELF_SETUP": "0",
    }
    if os.environ.get("DELIBERATION_USER_DATA"):  # one key and one set of approvals with the test process
        env["DELIBERATION_USER_DATA"] = os.environ["DELIBERATION_USER_DATA"]
    env.update(extra or {})
    return env


@dataclass
class ClaudeRun:
    """The outcome of one `claude -p` run."""

    project: Path
    argv: "list[str]"
    returncode: int
    stdout: str
    stderr: str
    result: "dict[str, Any]"
    log: RequestLog
    duration_s: float
    log_path: "Path | None" = None
    notes: "list[str]" = field(default_factory=list)

    # -- the CLI's JSON result --------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self.result.get("session_id", "")

    @property
    def num_turns(self) -> int:
        return self.result.get("num_turns", 0)

    @property
    def subagent_stats(self) -> dict:
        return self.result.get("subagent_stats") or {}

    @property
    def text(self) -> str:
        """The final `result` text of the main agent."""
        return self.result.get("result", "")

    # -- what the model was shown -----------------------------------------------------

    @property
    def requests(self) -> "list[ApiRequest]":
        """Every Messages request of this run (side requests included)."""
        return self.log.requests

    @property
    def main_requests(self) -> "list[ApiRequest]":
        return self.log.main_requests

    def subagent_requests(self, prompt_contains: str = "") -> "list[ApiRequest]":
        return self.log.subagent_requests(prompt_contains)

    # -- the plugin's state -----------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        return self.project / STATE_DIR

    @property
    def session_dir(self) -> Path:
        return self.state_dir / "sessions" / self.session_id

    def events(self) -> "list[dict]":
        """sessions/<session_id>/events.jsonl, parsed ([] when absent); each `answer` as the client
        got it (the outcome kinds the log keeps beside it, for the demo, are not part of it)."""
        events = read_jsonl(self.session_dir / "events.jsonl")
        for e in events:
            if isinstance(e.get("answer"), dict):
                e["answer"].pop("kinds", None)
        return events

    def event_names(self) -> "list[str]":
        return [e.get("event", "") for e in self.events()]

    def deliberations(self) -> "list[dict]":
        """Every deliberations/<id>.json of the project, oldest first by file name."""
        folder = self.state_dir / "deliberations"
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]

    def undelivered_hook_output(self) -> "list[tuple[str, str]]":
        """(event, text) for every model-facing text the plugin answered (a block/deny reason,
        an additionalContext) that appears verbatim in no request of the agent it was meant for
        (subagent for SubagentStart/SubagentStop and events fired inside a subagent, else the
        main agent). A Stop block the client ended the run on (its block limit) shows up here
        too: that one is expected to be undelivered."""
        missing = []
        for event in self.events():
            name, answer, payload = event.get("event", ""), event.get("answer") or {}, event.get("payload") or {}
            for text in _model_facing(name, answer):
                needle = text.strip()
                to_subagent = name in ("SubagentStop", "SubagentStart") or bool(payload.get("agent_id"))
                audience = [r for r in self.requests if r.is_subagent == to_subagent and not r.is_side_request]
                if needle and not any(r.saw(needle) for r in audience):
                    missing.append((name, needle[:300]))
        return missing

    def plugin_errors(self) -> str:
        """The plugin's internal error log (errors.log), '' when absent."""
        path = self.state_dir / "errors.log"
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def state_json(self, relative: str) -> Any:
        """A JSON state file, e.g. `sessions/<sid>/lineage.json`; `{sid}` is substituted."""
        path = self.state_dir / relative.format(sid=self.session_id)
        return json.loads(path.read_text(encoding="utf-8"))

    def describe(self) -> str:
        """Everything needed to understand a failure, for assertion messages."""
        lines = [
            f"exit {self.returncode} after {self.duration_s:.1f}s: {' '.join(shlex.quote(a) for a in self.argv)}",
            f"result: {json.dumps(self.result)[:1500]}",
            f"stderr: {self.stderr[-1500:]}",
            f"api log: {self.log_path} ({len(self.log)} requests, {len(self.log.errors)} scenario errors)",
        ]
        lines.extend(f"scenario error: {e.error[-1500:]}" for e in self.log.errors)
        lines.extend(self.notes)
        return "\n".join(lines)


CONTEXT_EVENTS = ("UserPromptSubmit", "PostToolUse", "SessionStart", "SubagentStart", "PreToolUse")


def assert_clean(run: ClaudeRun, undelivered_ok: int = 0) -> None:
    """The run ended normally, the scenario never failed, the plugin logged no internal error,
    and every reason/context the plugin answered reached the model (but `undelivered_ok`
    Stop answers the client ended the run on)."""
    info = run.describe()
    assert run.returncode == 0, info
    assert run.result.get("is_error") is False, info
    assert run.log.errors == [], info
    assert run.plugin_errors() == "", f"plugin errors:\n{run.plugin_errors()[-3000:]}"
    missing = run.undelivered_hook_output()
    assert len(missing) == undelivered_ok, f"{missing}\n{info}"


def _model_facing(event: str, answer: dict) -> "list[str]":
    """The texts of a logged answer (hookio.Answer.summary()) that the client shows the model."""
    texts = []
    if answer.get("decision") in ("block", "deny") and answer.get("reason"):
        texts.append(answer["reason"])
    if answer.get("context") and event in CONTEXT_EVENTS:
        texts.append(answer["context"])
    if answer.get("stop_reason") and event == "UserPromptSubmit":  # read after "Operation stopped by hook: "
        texts.append(answer["stop_reason"])
    return texts


def read_jsonl(path: Path) -> "list[dict]":
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            rows.append(json.loads(line))
    return rows


def parse_result(stdout: str) -> "dict[str, Any]":
    """The CLI prints one JSON object (`type: result`); take the last JSON line to be safe."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return {}


def run_claude_once(
    claude_bin: Path,
    api: FakeApi,
    project: Path,
    home: Path,
    tmp: Path,
    prompt: str,
    scenario: Scenario,
    plugin_dir: "Path | None" = None,
    allowed_tools: str = DEFAULT_ALLOWED_TOOLS,
    timeout: float = DEFAULT_TIMEOUT_S,
    extra_args: "list[str] | None" = None,
    env: "dict[str, str] | None" = None,
    log_path: "Path | None" = None,
) -> ClaudeRun:
    """Run `claude -p PROMPT --output-format json` in `project` against `api` with `scenario`.
    The client runs in its own process group, killed whole on timeout (hooks included)."""
    api.scenario = scenario
    first_logged = len(api.log)
    argv = [str(claude_bin), "-p", prompt, "--output-format", "json", "--allowedTools", allowed_tools]
    if plugin_dir is not None:
        argv += ["--plugin-dir", str(plugin_dir)]
    argv += extra_args or []
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=str(project),
        env=client_env(api, home, tmp, env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    notes = []
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        notes.append(f"TIMEOUT after {timeout}s: the client was killed")
    finally:
        _kill_group(proc)  # stray hook or subagent processes of this run
    duration = time.monotonic() - started
    log = api.snapshot(since=first_logged)
    if log_path is not None:
        log.dump(str(log_path))
    return ClaudeRun(
        project=project,
        argv=argv,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        result=parse_result(stdout),
        log=log,
        duration_s=duration,
        log_path=log_path,
        notes=notes,
    )


def run_claude_interactive(
    claude_bin: Path,
    api: FakeApi,
    project: Path,
    home: Path,
    tmp: Path,
    prompt: str,
    scenario: Scenario,
    done,
    allowed_tools: "str | None" = DEFAULT_ALLOWED_TOOLS,
    timeout: float = DEFAULT_TIMEOUT_S,
    permission_mode: "str | None" = "default",
    plugin_dir: "Path | None" = None,
    log_path: "Path | None" = None,
) -> ClaudeRun:
    """An INTERACTIVE session (no `-p`) in a pseudo-terminal: `claude PROMPT` with onboarding,
    the folder's trust and the test API key already accepted in HOME's `.claude.json`. The
    permission mode is `permission_mode` (None: the client's own default — auto mode since
    2.1.332 —, whose server-side check the stand-in cannot give: every action that needs it
    waits for a keypress nobody gives, so such a session stalls where a person would be asked);
    `allowed_tools` None passes no allow list; `plugin_dir` loads the plugin with --plugin-dir.
    The screen is drained (never read for decisions; `stdout` keeps its tail); the session is
    killed once `done(RequestLog)` holds, or at `timeout` (noted). `result` holds only the
    session id, read from the plugin's state."""
    import pty
    import select

    api.scenario = scenario
    first_logged = len(api.log)
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "numStartups": 3,
                "customApiKeyResponses": {"approved": ["test"], "rejected": []},
                "projects": {
                    str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True, "allowedTools": []}
                },
            }
        ),
        encoding="utf-8",
    )
    argv = [str(claude_bin), prompt]
    if permission_mode is not None:
        argv += ["--permission-mode", permission_mode]
    if allowed_tools is not None:
        argv += ["--allowedTools", allowed_tools]
    if plugin_dir is not None:
        argv += ["--plugin-dir", str(plugin_dir)]
    env = client_env(api, home, tmp, {"TERM": "xterm-256color", "COLUMNS": "160", "LINES": "50"})
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the client on the terminal's other end
        os.chdir(project)
        os.execve(argv[0], argv, env)
    notes = []
    screen = bytearray()
    try:
        while not done(api.snapshot(since=first_logged)):
            if time.monotonic() - started > timeout:
                notes.append(f"TIMEOUT after {timeout}s: the session was killed")
                break
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                screen += chunk
    finally:
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)  # pty.fork made the client a session leader
        except (ProcessLookupError, PermissionError):
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    sessions = project / STATE_DIR / "sessions"
    sids = sorted(p.name for p in sessions.iterdir()) if sessions.is_dir() else []
    log = api.snapshot(since=first_logged)
    if log_path is not None:
        log.dump(str(log_path))
    return ClaudeRun(
        project=project,
        argv=argv,
        returncode=0 if not notes else -9,
        stdout=screen.decode("utf-8", "replace")[-20000:],
        stderr="",
        result={"session_id": sids[0]} if len(sids) == 1 else {},
        log=log,
        duration_s=time.monotonic() - started,
        log_path=log_path,
        notes=notes,
    )


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


FULL_FLOW = ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]


def only_deliberation(run: ClaudeRun) -> dict:
    """The run's one deliberation (fails, describing the run, when there are none or several)."""
    delibs = run.deliberations()
    assert len(delibs) == 1, f"{[d['id'] for d in delibs]}\n{run.describe()}"
    return delibs[0]
