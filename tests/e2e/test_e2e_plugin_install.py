"""Installing the plugin as Claude Code users do — marketplace, self-set-up, update, uninstall —
in a temporary HOME with a bare python3 first on PATH (this machine's global one has pydantic,
which would hide a missing environment).

The story: marketplace add + install → session 1 sets the environment up in the background →
session 2: 15 background spawns (12 run, 3 denied by the budget), then the plugin's workflow in
one call → release A (new dependencies): a new environment, the old one and its workers gone,
the new code enforces → release B (same dependencies): same environment, new code → the command
line through the Bash tool → uninstall: nothing keeps running, nothing left but the project's
state. SOURCE is the scratch clone's path or its git URL over HTTP; pip's cache is the repo's
.cache/pip (or PIP_CACHE_DIR), so later runs download nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import REPO, STATE_DIR, ClaudeRun, run_claude_once
from plugin_manager import (
    GitHttpServer,
    PluginCli,
    commit_all,
    leftovers,
    plugin_processes,
    scratch_source,
)
from fake_api import tool_use
from scenarios_commands import CommandAsked, assert_command_forced, command_prompt
from scenarios_gates import SpawnFlood, write_config
from scenarios_workflow import WorkflowDeliberation

pytestmark = pytest.mark.e2e

MARKETPLACE = "deliberation-gates"
PLUGIN = "deliberation"
PLUGIN_ID = f"{PLUGIN}@{MARKETPLACE}"
RESEARCH_PERSONAS = (
    "security-analyst",
    "performance-engineer",
    "cost-analyst",
    "devils-advocate",
    "reliability-engineer",
    "maintainability-reviewer",
    "ux-advocate",
    "product-strategist",
    "technical-architect",
    "test-engineer",
)
SET_UP_TIMEOUT_S = 600.0
RETIRE_TIMEOUT_S = 5.0  # a worker whose code, environment or folder is gone exits within ~2 s
PASS_THROUGH = (
    "PIP_",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
)


def manifest_version(root: Path) -> str:
    return json.loads((root / ".claude-plugin" / "plugin.json").read_text())["version"]


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("bare-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    for module in ("pydantic", "orjson", "jsonschema"):
        assert subprocess.run([str(venv / "bin" / "python3"), "-c", f"import {module}"], capture_output=True).returncode != 0, (
            module
        )
    return venv / "bin"


def user_env(home: Path, tmp: Path, bare_python: Path) -> "dict[str, str]":
    """What a user's shell would give the client: the bare python3 first on PATH, the package
    index settings of this machine, and a pip cache that outlives the test."""
    env = {k: v for k, v in os.environ.items() if k.startswith(PASS_THROUGH)}
    env.setdefault("PIP_CACHE_DIR", str(REPO / ".cache" / "pip"))
    env.update(
        {
            "PATH": f"{bare_python}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
    )
    return env


class Flow:
    """One user's machine: HOME, TMPDIR, a project, the client, the scripted API."""

    def __init__(self, claude_bin: Path, api, tmp_path: Path, bare_python: Path) -> None:
        self.claude_bin = claude_bin
        self.api = api
        self.tmp_path = tmp_path
        self.home = tmp_path / "home"
        self.tmp = tmp_path / "tmp"
        self.project = tmp_path / "project"
        for folder in (self.home, self.tmp, self.project):
            folder.mkdir()
        self.env = user_env(self.home, self.tmp, bare_python)
        self.cli = PluginCli(claude_bin, self.env)
        self.data = self.home / ".claude" / "plugins" / "data" / f"{PLUGIN}-{MARKETPLACE}"
        self.runs = 0

    def session(
        self, prompt: str, scenario, stream: bool = False, allowed_tools: str = "Agent Read", timeout: float = 180
    ) -> ClaudeRun:
        """One headless session in the project, with the user's environment; the hooks' warm
        worker keeps its default idle time, so only its own checks retire it."""
        self.runs += 1
        extra = {k: v for k, v in self.env.items() if k not in ("HOME", "TMPDIR")}
        extra.update({"DELIBERATION_SELF_SETUP": "1", "DELIBERATION_WORKER_IDLE_S": "600"})
        args = ["--output-format", "stream-json", "--verbose"] if stream else None
        return run_claude_once(
            self.claude_bin,
            self.api,
            self.project,
            self.home,
            self.tmp,
            prompt,
            scenario,
            allowed_tools=allowed_tools,
            extra_args=args,
            env=extra,
            timeout=timeout,
            log_path=self.tmp_path / f"api-log-{self.runs}.jsonl",
        )

    def installed(self) -> dict:
        entries = [p for p in self.cli.installed() if p["id"] == PLUGIN_ID]
        assert len(entries) == 1, entries
        return entries[0]

    def setup_status(self) -> dict:
        try:
            return json.loads((self.data / "setup.json").read_text())
        except (OSError, ValueError):
            return {}

    def wait_for_set_up(self, key_not: "str | None" = None) -> dict:
        deadline = time.monotonic() + SET_UP_TIMEOUT_S
        while time.monotonic() < deadline:
            st = self.setup_status()
            if st.get("state") in ("ready", "failed") and st.get("key") != key_not:
                break
            time.sleep(0.25)
        log = (self.data / "setup.log").read_text() if (self.data / "setup.log").exists() else ""
        assert st.get("state") == "ready", f"{st}\n{log[-4000:]}"
        return st

    def current_env(self) -> Path:
        return self.data / (self.data / "current").read_text().strip()

    def update_to(self, old: str, new: str) -> Path:
        """`claude plugin marketplace update` + `claude plugin update`; the new plugin root."""
        self.cli.run("marketplace", "update", MARKETPLACE)
        updated = self.cli.run("update", PLUGIN_ID)
        assert f"updated from {old} to {new}" in updated.stdout + updated.stderr, updated.stdout + updated.stderr
        entry = self.installed()
        assert entry["version"] == new, entry
        root = Path(entry.get("readFromFolder") or entry["installPath"])
        assert manifest_version(root) == new
        return root

    def resolved_by(self) -> str:
        """The version of the code that last resolved the project's config (its cache key says)."""
        resolved = json.loads((self.project / STATE_DIR / "cache" / "config.resolved.json").read_text())
        found = re.findall(r'"(\d+\.\d+\.\d+)/\d+"', json.dumps(resolved))
        assert len(found) == 1, resolved
        return found[0]

    def workers_not_of(self, env: Path, root: Path) -> "list[tuple[int, str, str]]":
        return [w for w in self.workers() if w[1] != str(env / "bin" / "python") or w[2] != str(root / "lib")]

    def assert_only_workers_of(self, env: Path, root: Path) -> None:
        """Within RETIRE_TIMEOUT_S at most one warm worker runs (one per install), and none runs
        other code or another environment. (With a marketplace read from a folder, old and new
        code share the folder: only the count tells an old worker apart.)"""
        deadline = time.monotonic() + RETIRE_TIMEOUT_S
        while time.monotonic() < deadline and (self.workers_not_of(env, root) or len(self.workers()) > 1):
            time.sleep(0.2)
        stale = self.workers_not_of(env, root)
        assert stale == [], f"warm workers of an old version or environment still run: {stale}"
        assert len(self.workers()) <= 1, f"more than one warm worker runs: {self.workers()}"

    def workers(self) -> "list[tuple[int, str, str]]":
        """(pid, interpreter, lib folder) of every warm worker started under this HOME
        (`python -I -c BOOT LIB SOCKET STAMP IDLE`, see worker_launch.start)."""
        out = []
        for pid, argv in plugin_processes([self.home]):
            if len(argv) >= 5 and argv[1:3] == ["-I", "-c"] and "deliberation.runtime.warm_worker" in argv[3]:
                out.append((pid, argv[0], argv[4]))
        return out


def session_start_messages(run: ClaudeRun) -> "list[str]":
    """The systemMessages of the SessionStart hooks (stream-json --verbose prints each hook's output)."""
    out = []
    for line in run.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if item.get("subtype") == "hook_response" and item.get("hook_event") == "SessionStart":
            for raw in (item.get("stdout") or "").splitlines():
                try:
                    message = json.loads(raw).get("systemMessage")
                except (ValueError, AttributeError):
                    continue
                if message:
                    out.append(message)
    return out


def hello(req) -> str:
    return "Hello."


def run_status_command(req):
    """The main agent runs the plugin's command line with the Bash tool, then answers."""
    if req.tool_results:
        return "Shown."
    return [tool_use("Bash", {"command": "deliberation status --json", "description": "the project's deliberations"})]


def assert_budget_enforced(run: ClaudeRun) -> None:
    info = run.describe()
    stats = run.subagent_stats
    assert run.returncode == 0, info
    assert stats.get("spawned") == 12 and stats.get("completed") == 12, info
    assert stats["requested"]["background"] + stats["requested"]["unset"] == 12, info
    lineage = run.state_json("sessions/{sid}/lineage.json")
    assert len(lineage["spawns"]) == 12 and len(lineage["denied"]) == 3, lineage
    budget = "Spawn budget: the main agent already has 12 of 12 active subagents"
    assert all(d["rule"] == "budget" and d["reason"].startswith(budget) for d in lineage["denied"]), lineage["denied"]
    # what the model got: three refusals with the budget's reason (every request repeats the history)
    denials = {r["tool_use_id"]: r["text"] for req in run.main_requests for r in req.tool_results if r.get("is_error")}
    assert sorted(denials) == sorted(d["tool_use_id"] for d in lineage["denied"]), denials
    assert all(t.startswith("PreToolUse:Agent hook error: " + budget) for t in denials.values()), denials
    assert run.plugin_errors() == "", run.plugin_errors()


def release(source: Path, server: "GitHttpServer | None", version: str, tighten_deps: bool) -> None:
    """A new release in the marketplace source: the version (scripts/set_version.py) and, with
    `tighten_deps`, a changed dependency list (a tighter bound the current orjson still meets)."""
    changelog = source / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("\n## ", "\n## Unreleased\n\n- e2e: a new release.\n\n## ", 1))
    subprocess.run(
        [sys.executable, str(source / "scripts" / "set_version.py"), version], check=True, capture_output=True, timeout=60
    )
    if tighten_deps:
        pyproject = source / "pyproject.toml"
        text = pyproject.read_text()
        assert '"orjson>=3.9",' in text
        pyproject.write_text(text.replace('"orjson>=3.9",', '"orjson>=3.9.1",'))
    commit_all(source, f"release {version}")
    if server is not None:
        server.publish(source, "deliberation")


@pytest.fixture
def flow(claude_bin, fake_api, tmp_path, bare_python):
    machine = Flow(claude_bin, fake_api, tmp_path, bare_python)
    try:
        yield machine
    finally:
        for pid, _ in plugin_processes([machine.home, tmp_path / "source"]):
            try:  # anything of this test still running (a failed assertion left it)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.slow
@pytest.mark.parametrize("source_kind", ["git", "path"])
def test_marketplace_install_set_up_update_uninstall(flow, tmp_path, source_kind):
    source = scratch_source(tmp_path / "source")
    old_version = manifest_version(source)
    server = None
    try:
        if source_kind == "git":
            (tmp_path / "served").mkdir()
            server = GitHttpServer(tmp_path / "served").start()
            where = server.publish(source, "deliberation")
        else:
            where = str(source)

        # ---- marketplace add, install
        added = flow.cli.run("marketplace", "add", where)
        assert f"Successfully added marketplace: {MARKETPLACE}" in added.stdout + added.stderr
        installed = flow.cli.run("install", PLUGIN_ID)
        assert f"Successfully installed plugin: {PLUGIN_ID}" in installed.stdout + installed.stderr
        entry = flow.installed()
        assert entry["version"] == old_version and entry["enabled"], entry
        root = Path(entry.get("readFromFolder") or entry["installPath"])
        if source_kind == "git":
            assert root == flow.home / ".claude" / "plugins" / "cache" / MARKETPLACE / PLUGIN / old_version
        else:
            assert root == source
        assert not (root / ".venv").exists()

        # ---- session 1: the plugin sets itself up, in the background
        write_config(flow.project, {"depth": {"posture": "off"}, "gates": {"stop_block_limit": 1}})
        first = flow.session("Hello there.", hello, stream=True)
        assert first.returncode == 0, first.describe()
        messages = session_start_messages(first)
        assert any(
            m.startswith("deliberation: setting up the plugin's Python environment in the background") for m in messages
        ), (messages, first.describe())
        status = flow.wait_for_set_up()
        env1 = flow.current_env()
        assert env1.parent == flow.data / "envs" and (env1 / "env.json").is_file()
        got = subprocess.run(
            [str(env1 / "bin" / "python"), "-c", "import pydantic, orjson, jsonschema"], capture_output=True, text=True
        )
        assert got.returncode == 0, got.stderr
        print(f"\n[{source_kind}] first set-up: {status['finished'] - status['started']:.1f} s")

        # ---- session 2: the checks run: 15 background spawns, 12 run, 3 denied
        flood = SpawnFlood(RESEARCH_PERSONAS, helpers=5, mode="plugin", project=flow.project, background=True)
        second = flow.session("Deliberate: should the checkout service cache prices per node?", flood, stream=True)
        assert any(
            m.startswith("deliberation: the plugin's Python environment is ready") for m in session_start_messages(second)
        ), session_start_messages(second)
        assert_budget_enforced(second)
        workers = flow.workers()
        assert workers and all(py == str(env1 / "bin" / "python") and lib == str(root / "lib") for _, py, lib in workers), workers

        # ---- session 2b: the deliberation as the installed plugin's workflow, in one call
        question = "should the checkout service cache prices per node?"
        one_call = flow.session(
            f"Deliberate: {question}", WorkflowDeliberation(question, "plugin"), allowed_tools="Agent Read Workflow"
        )
        done = [d for d in one_call.deliberations() if d.get("workflow")]
        assert len(done) == 1 and done[0]["phase"] == "COMPLETE", one_call.describe()
        assert [w["name"] for w in done[0]["workflow"]["waves"]] == ["research", "deliberation", "ranking", "drafting"]
        assert [w["script_check"] for w in one_call.state_json("sessions/{sid}/lineage.json")["workflows"]] == ["shipped"]
        assert len(one_call.main_requests) == 3, one_call.describe()

        # ---- release A changes the dependency list; update
        version_a = "9.9.1"
        release(source, server, version_a, tighten_deps=True)
        root_a = flow.update_to(old_version, version_a)
        assert (source_kind == "path") == (root_a == root)

        # ---- session 3: a new environment is set up; the old one serves meanwhile, then goes
        third = flow.session("Hello again.", hello, stream=True)
        assert any(
            m.startswith("deliberation: updating the plugin's Python environment in the background")
            for m in session_start_messages(third)
        ), session_start_messages(third)
        status = flow.wait_for_set_up(key_not=status["key"])
        env2 = flow.current_env()
        assert env2 != env1 and not env1.exists(), (env1, env2)
        assert "orjson>=3.9.1" in json.loads((env2 / "env.json").read_text())["dependencies"]
        # no warm worker of the old code or the old environment keeps running
        flow.assert_only_workers_of(env2, root_a)

        # ---- session 4: the new code in the new environment enforces the budget
        fourth = flow.session(
            "Deliberate: should the checkout service cache prices per node?",
            SpawnFlood(RESEARCH_PERSONAS, helpers=5, mode="plugin", project=flow.project, background=True),
        )
        assert_budget_enforced(fourth)
        assert flow.resolved_by() == version_a
        assert flow.workers() and flow.workers_not_of(env2, root_a) == []

        # ---- release B keeps the dependency list (the usual update): same environment, new code
        version_b = "9.9.2"
        release(source, server, version_b, tighten_deps=False)
        root_b = flow.update_to(version_a, version_b)
        fifth = flow.session(
            "Deliberate: should the checkout service cache prices per node?",
            SpawnFlood(RESEARCH_PERSONAS, helpers=5, mode="plugin", project=flow.project, background=True),
            stream=True,
        )
        assert not any("environment" in m for m in session_start_messages(fifth)), session_start_messages(fifth)
        assert flow.current_env() == env2
        assert_budget_enforced(fifth)
        assert flow.resolved_by() == version_b
        flow.assert_only_workers_of(env2, root_b)

        # ---- the command line: the plugin's bin/ is on the Bash tool's PATH, in the plugin's environment
        sixth = flow.session("Show this project's deliberations.", run_status_command, allowed_tools="Bash(deliberation:*)")
        results = [r for req in sixth.main_requests for r in req.tool_results]
        assert results and not results[-1].get("is_error"), sixth.describe()
        shown = json.loads(results[-1]["text"])
        assert sorted(d["id"] for d in shown) == sorted(d["id"] for d in sixth.deliberations()), shown

        # ---- the documented command starts a deliberation in this form too
        seventh = flow.session(command_prompt("plugin"), CommandAsked("plugin"))
        assert seventh.returncode == 0, seventh.describe()
        assert_command_forced(seventh, "plugin")

        # ---- uninstall: nothing keeps running, nothing is left outside the plugin's folders
        flow.cli.run("uninstall", PLUGIN_ID)
        assert not flow.data.exists(), sorted(os.listdir(flow.data))
        deadline = time.monotonic() + RETIRE_TIMEOUT_S
        while time.monotonic() < deadline and plugin_processes([flow.home, source]):
            time.sleep(0.2)
        assert plugin_processes([flow.home, source]) == []
        plugins = flow.home / ".claude" / "plugins"
        allowed = [plugins / "cache" / MARKETPLACE, plugins / "marketplaces" / MARKETPLACE]
        # the warm workers' per-user socket folder (worker_socket: $XDG_RUNTIME_DIR or ~/.cache)
        # goes with the last worker: each removes its socket, the last one the folder
        sockets = flow.home / ".cache" / "claude-deliberation"
        assert not sockets.exists(), list(sockets.iterdir())
        assert leftovers([flow.home, flow.tmp], allowed) == []
        created = sorted(
            str(p.relative_to(flow.project))
            for p in flow.project.rglob("*")
            if (flow.project / STATE_DIR) not in p.parents and p != flow.project / STATE_DIR
        )
        assert created == [".claude"], created
    finally:
        if server is not None:
            server.stop()


def test_validate_reports_no_warning(claude_bin, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    for target in (REPO, REPO / ".claude-plugin" / "plugin.json", REPO / ".claude-plugin" / "marketplace.json"):
        proc = subprocess.run(
            [str(claude_bin), "plugin", "validate", str(target)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0, out
        assert "✔ Validation passed" in out and "with warnings" not in out, out
        assert "⚠" not in out and "✘" not in out and "warning" not in out.lower(), out
        assert "Hosts not declared" not in out, out


def test_plugin_tag_in_a_scratch_clone(claude_bin, tmp_path):
    source = scratch_source(tmp_path / "source")
    version = manifest_version(source)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "GIT_AUTHOR_NAME": "e2e",
        "GIT_AUTHOR_EMAIL": "e2e@localhost",
        "GIT_COMMITTER_NAME": "e2e",
        "GIT_COMMITTER_EMAIL": "e2e@localhost",
    }

    def tag(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(claude_bin), "plugin", "tag", *args],
            cwd=str(source),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    dry = tag("--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"Tag:     {PLUGIN}--v{version}" in dry.stdout and "Marketplace entry: plugins[0]" in dry.stdout
    made = tag("-m", "deliberation %s")
    assert made.returncode == 0, made.stdout + made.stderr
    tags = subprocess.run(["git", "tag", "-n"], cwd=str(source), capture_output=True, text=True).stdout
    assert re.search(rf"^{re.escape(PLUGIN)}--v{re.escape(version)}\s+deliberation {re.escape(version)}$", tags, re.M), tags
    again = tag()
    assert again.returncode != 0 and "already exists" in (again.stdout + again.stderr)


def informational(run: ClaudeRun) -> "list[str]":
    """Every hook message the client showed the user (stream-json --verbose): the SessionStart
    hooks' systemMessages and the `<Event> says: …` notices of the others."""
    out = session_start_messages(run)
    for line in run.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if item.get("type") == "system" and item.get("subtype") == "informational":
            out.append(str(item.get("content") or ""))
    return out


def tree_size(root: Path) -> int:
    return sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir() or p.is_symlink())


@pytest.mark.slow
def test_a_clone_with_its_venv_added_as_a_marketplace(flow, tmp_path):
    """The README's order on a user's machine: clone, `./install.sh --demo` (a venv for the
    demo), then the clone added as a marketplace by its path. The client copies the folder into
    its cache — untracked and git-ignored files included — but not a symlink that leads out of
    it, and `.venv` is one: no venv in the cache. The first session (while the plugin sets up
    its own environment) enforces the checks in the clone's venv and says so; the end of the
    set-up is announced once, in that session or at the next start."""
    source = scratch_source(tmp_path / "source")
    pip_conf = Path.home() / ".config" / "pip" / "pip.conf"  # this machine's package index
    if pip_conf.is_file():
        (flow.home / ".config" / "pip").mkdir(parents=True)
        shutil.copy2(pip_conf, flow.home / ".config" / "pip" / "pip.conf")
    started = time.monotonic()
    demo = subprocess.run(
        ["./install.sh", "--demo"],
        cwd=str(source),
        env=flow.env,
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    link = source / ".venv"
    venv = Path(os.readlink(link))
    assert link.is_symlink() and venv.parent == flow.home / ".local" / "share" / "deliberation" / "venvs", venv
    print(f"\n./install.sh --demo: {time.monotonic() - started:.0f} s; venv {tree_size(venv) / 1e6:.0f} MB at {venv}")

    flow.cli.run("marketplace", "add", str(source))
    flow.cli.run("install", PLUGIN_ID)
    entry = flow.installed()
    cache = flow.home / ".claude" / "plugins" / "cache" / MARKETPLACE / PLUGIN / entry["version"]
    assert cache.is_dir(), entry
    assert (cache / "install.sh").is_file() and not (cache / ".git").exists()
    copied_venvs = [str(p) for p in cache.rglob("*") if p.name == ".venv"]
    assert copied_venvs == [], copied_venvs
    size = tree_size(cache)
    assert size < 20e6, size  # the plugin itself: a few MB (the venv alone is about 40)
    print(f"cache copy: {size / 1e6:.1f} MB, no .venv")

    write_config(flow.project, {"depth": {"posture": "off"}, "gates": {"stop_block_limit": 1}})
    flood = SpawnFlood(RESEARCH_PERSONAS, helpers=5, mode="plugin", project=flow.project, background=True)
    first = flow.session("Deliberate: should the checkout service cache prices per node?", flood, stream=True)
    said = informational(first)
    start = [m for m in said if "setting up the plugin's Python environment" in m]
    assert start and f"Meanwhile the deliberation checks run with {link}/bin/python" in start[0], said
    assert not any("dependency missing" in m or "checks are off" in m for m in said), said
    assert_budget_enforced(first)  # the checks ran, in the clone's venv, while the set-up ran
    status = flow.wait_for_set_up()
    print(f"set-up during session 1: {status['finished'] - status['started']:.1f} s")
    second = flow.session("Hello again.", hello, stream=True)
    ended = [
        m for m in said + informational(second) if "set-up finished in" in m or "the plugin's Python environment is ready" in m
    ]
    assert len(ended) == 1, (said, informational(second))
    assert second.returncode == 0 and second.plugin_errors() == "", second.describe()


@pytest.mark.slow
def test_the_end_of_the_set_up_reaches_the_session_that_started_it(flow, tmp_path):
    """The first session after an install says the set-up runs; the model's answer comes only
    once the set-up has finished (the scripted API waits for its record), so the Stop hook of
    the same session is the first hook after it: it says the set-up finished, once, and the
    next session start says nothing more of it."""
    source = scratch_source(tmp_path / "source")
    pip_conf = Path.home() / ".config" / "pip" / "pip.conf"
    if pip_conf.is_file():
        (flow.home / ".config" / "pip").mkdir(parents=True)
        shutil.copy2(pip_conf, flow.home / ".config" / "pip" / "pip.conf")
    flow.cli.run("marketplace", "add", str(source))
    flow.cli.run("install", PLUGIN_ID)

    def after_the_set_up(req) -> str:
        deadline = time.monotonic() + SET_UP_TIMEOUT_S
        while time.monotonic() < deadline and flow.setup_status().get("state") not in ("ready", "failed"):
            time.sleep(0.2)
        return "Hello."

    first = flow.session("Hello there.", after_the_set_up, stream=True, timeout=SET_UP_TIMEOUT_S + 60)
    assert first.returncode == 0, first.describe()
    status = flow.wait_for_set_up()
    said = informational(first)
    assert any(m.startswith("deliberation: setting up the plugin's Python environment") for m in said), said
    ended = [m for m in said if "set-up finished in" in m]
    took = round(status["finished"] - status["started"])
    assert len(ended) == 1 and ended[0].startswith("Stop says: deliberation: set-up finished in "), said
    assert "; the deliberation checks are on" in ended[0], ended
    print(f"\nset-up {took} s, announced by the same session's Stop hook: {ended[0]}")
    second = flow.session("Hello again.", hello, stream=True)
    assert not any("environment is ready" in m or "set-up finished" in m for m in informational(second)), informational(second)
