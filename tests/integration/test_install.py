"""install.sh end to end: the real script against temp projects, and the plugin form.

Most tests reuse the running interpreter's environment through DELIBERATION_VENV (pip is
skipped when the dependencies are importable); `test_fresh_venv_*` takes the default path and
really builds <plugin>/.venv with pip. The plugin is copied into a folder whose name has a
space and a version number, the way plugin caches name them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.project import PREFIX, copy_plugin, install

ROOT = Path(__file__).resolve().parents[2]
EVENTS = {
    "SessionStart": "session_start.py",
    "UserPromptSubmit": "user_prompt_submit.py",
    "PreToolUse": "pre_tool_use.py",
    "PostToolUse": "post_tool_use.py",
    "PostToolUseFailure": "post_tool_use_failure.py",
    "SubagentStart": "subagent_start.py",
    "SubagentStop": "subagent_stop.py",
    "Stop": "stop.py",
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    return copy_plugin(tmp_path_factory.mktemp("plugin cache"))


def snapshot(root: Path) -> dict:
    """Every file's bytes and mtime, and every directory, under root."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = (Path(p).read_bytes(), os.stat(p).st_mtime_ns)
    return out


def settings_of(project: Path) -> dict:
    return json.loads((project / ".claude" / "settings.json").read_text())


def our_commands(settings: dict, plugin: Path) -> "list[tuple[str, str]]":
    return [
        (ev, h["command"])
        for ev, groups in settings["hooks"].items()
        for g in groups
        for h in g["hooks"]
        if str(plugin / "hooks") in h["command"]
    ]


def run_command(command: str, project: Path, payload: bytes, env=None) -> subprocess.CompletedProcess:
    """Run a hook command the way the client does: through the shell, in the project."""
    full_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), **(env or {})}
    return subprocess.run(["sh", "-c", command], input=payload, capture_output=True, env=full_env, cwd=str(project), timeout=60)


def assert_no_block(proc: subprocess.CompletedProcess) -> "dict | None":
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode().strip()
    if not out:
        return None
    answer = json.loads(out)
    assert answer.get("decision") != "block", answer
    assert answer.get("hookSpecificOutput", {}).get("permissionDecision") != "deny", answer
    return answer


needs_prefix = pytest.mark.skipif(PREFIX is None, reason="the test interpreter has no bin/python to reuse")


@needs_prefix
def test_empty_project_install_twice_then_uninstall(plugin, tmp_path):
    project = tmp_path / "empty project"
    project.mkdir()
    t0 = time.perf_counter()
    first = install(plugin, project)
    elapsed = time.perf_counter() - t0
    assert first.returncode == 0, first.stderr
    print(f"\ninstall.sh into an empty project (venv reused): {elapsed:.2f}s")
    settings = settings_of(project)
    assert list(settings) == ["hooks"]
    assert list(settings["hooks"]) == list(EVENTS)
    commands = our_commands(settings, plugin)
    assert (
        len(commands) == 11
    )  # PreToolUse four times: the subagent channels, the risky tools, the Skill tool, Read|Grep|Glob; PostToolUseFailure
    for event, command in commands:
        assert command.endswith(f"'{plugin}/hooks/{EVENTS[event]}'"), command  # quoted: the path has a space
        assert command.startswith(str(Path(PREFIX) / "bin" / "python"))
    from deliberation.state.paths import GITIGNORE  # git's verdict on it: tests/unit/test_gitignore.py

    assert (project / ".claude" / "deliberation" / ".gitignore").read_text() == GITIGNORE
    assert oct((project / ".claude" / "deliberation").stat().st_mode & 0o777) == "0o700"
    manifest = json.loads((project / ".claude" / "deliberation" / "install-manifest.json").read_text())
    assert manifest["settings"]["created_file"] is True
    assert manifest["plugin"] == str(plugin)
    # the plugin's workflow, where the client finds it by its name (meta.name "deliberate")
    shipped = (plugin / "workflows" / "deliberate.js").read_bytes()
    assert (project / ".claude" / "workflows" / "deliberate.js").read_bytes() == shipped

    before = snapshot(project)
    second = install(plugin, project)
    assert second.returncode == 0, second.stderr
    assert "already has the deliberation hooks; unchanged" in second.stdout
    assert snapshot(project) == before  # same bytes, and no file even rewritten

    gone = install(plugin, "--uninstall", project)
    assert gone.returncode == 0, gone.stderr
    assert snapshot(project) == {}


USER_SETTINGS = (
    "{\n"
    '    "model": "claude-opus",\n'
    '    "permissions": {"allow": ["Bash(ls:*)"]},\n'
    '    "hooks": {\n'
    '        "Stop": [{"hooks": [{"type": "command", "command": "echo done > /dev/null"}]}],\n'
    '        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]\n'
    "    },\n"
    '    "note": "caf\\u00e9 \u2014 kept as written"\n'
    "}"
)


@needs_prefix
def test_project_with_its_own_hooks_is_restored_byte_for_byte(plugin, tmp_path):
    project = tmp_path / "own hooks"
    (project / ".claude").mkdir(parents=True)
    settings_path = project / ".claude" / "settings.json"
    settings_path.write_text(USER_SETTINGS, encoding="utf-8")
    settings_path.chmod(0o640)
    original = snapshot(project)

    assert install(plugin, project).returncode == 0
    merged = settings_of(project)
    assert merged["model"] == "claude-opus" and merged["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert merged["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "echo done > /dev/null"}]}
    assert merged["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    assert [g.get("matcher") for g in merged["hooks"]["PreToolUse"][1:]] == [
        "Task|Agent|Workflow|SendMessage|StructuredOutput|SubagentHandback",
        "Edit|Write|MultiEdit|Bash|NotebookEdit",
        "Skill",
        "Read|Grep|Glob",
    ]
    backup = project / ".claude" / "settings.json.deliberation-backup"
    assert backup.read_text(encoding="utf-8") == USER_SETTINGS
    assert settings_path.stat().st_mode & 0o777 == 0o640

    after_first = snapshot(project)
    assert install(plugin, project).returncode == 0
    assert snapshot(project) == after_first
    assert backup.read_text(encoding="utf-8") == USER_SETTINGS  # backed up once, not overwritten

    assert install(plugin, "--uninstall", project).returncode == 0
    restored = snapshot(project)
    assert {k: v[0] if v else v for k, v in restored.items()} == {k: v[0] if v else v for k, v in original.items()}
    assert settings_path.stat().st_mode & 0o777 == 0o640


@needs_prefix
def test_uninstall_keeps_what_the_user_changed_since(plugin, tmp_path):
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(USER_SETTINGS)
    assert install(plugin, project).returncode == 0
    settings = settings_of(project)
    settings["env"] = {"ADDED": "later"}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    out = install(plugin, "--uninstall", project)
    assert out.returncode == 0, out.stderr
    left = settings_of(project)
    assert left["env"] == {"ADDED": "later"}
    assert our_commands(left, plugin) == []
    assert left["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "echo done > /dev/null"}]}]
    assert (project / ".claude" / "settings.json.deliberation-backup").read_text() == USER_SETTINGS
    assert "the original stays in" in out.stdout


@needs_prefix
@pytest.mark.parametrize("content", ["{not json", "", '{"hooks": []}'])
def test_refuses_settings_it_cannot_merge(plugin, tmp_path, content):
    project = tmp_path / "bad"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(content)
    before = snapshot(project)
    for args in ((project,), ("--uninstall", project), ("--dry-run", project)):
        proc = install(plugin, *args)
        assert proc.returncode != 0
        assert "install.sh: refusing:" in proc.stderr and "settings.json" in proc.stderr
        assert snapshot(project) == before


@needs_prefix
def test_dry_run_changes_nothing(plugin, tmp_path):
    project = tmp_path / "dry"
    project.mkdir()
    proc = install(plugin, "--dry-run", project)
    assert proc.returncode == 0, proc.stderr
    assert "dry run: nothing is changed" in proc.stdout
    assert "settings: create .claude/settings.json" in proc.stdout
    assert snapshot(project) == {}
    assert install(plugin, project).returncode == 0
    installed = snapshot(project)
    proc = install(plugin, "--uninstall", "--dry-run", project)
    assert "remove .claude/settings.json" in proc.stdout
    assert snapshot(project) == installed


@needs_prefix
def test_agents_and_commands_copied_without_clobbering(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins", "deliberation-0.2.0 (copy)")
    for sub in ("agents", "commands"):
        for f in (plugin / sub).glob("*.md"):
            f.unlink()
    (plugin / "agents" / "security-analyst.md").write_text("---\nname: security-analyst\n---\nv1\n")
    (plugin / "agents" / "cost-analyst.md").write_text("---\nname: cost-analyst\n---\nv1\n")
    (plugin / "commands" / "deliberate.md").write_text("run a deliberation\n")
    project = tmp_path / "proj"
    (project / ".claude" / "agents").mkdir(parents=True)
    mine = project / ".claude" / "agents" / "cost-analyst.md"
    mine.write_text("my own cost analyst\n")

    proc = install(plugin, project)
    assert proc.returncode == 0, proc.stderr
    assert mine.read_text() == "my own cost analyst\n"
    assert "keep your .claude/agents/cost-analyst.md" in proc.stdout
    sec = project / ".claude" / "agents" / "security-analyst.md"
    assert sec.read_text().endswith("v1\n")
    assert (project / ".claude" / "commands" / "deliberate.md").exists()

    # the plugin ships a new version: unchanged copies update, a copy the user edited does not
    (plugin / "agents" / "security-analyst.md").write_text("---\nname: security-analyst\n---\nv2\n")
    (plugin / "commands" / "deliberate.md").write_text("run a deliberation, v2\n")
    (project / ".claude" / "commands" / "deliberate.md").write_text("my tweak\n")
    assert install(plugin, project).returncode == 0
    assert sec.read_text().endswith("v2\n")
    assert (project / ".claude" / "commands" / "deliberate.md").read_text() == "my tweak\n"

    proc = install(plugin, "--uninstall", project)
    assert proc.returncode == 0, proc.stderr
    assert not sec.exists()
    assert mine.read_text() == "my own cost analyst\n"
    assert (project / ".claude" / "commands" / "deliberate.md").read_text() == "my tweak\n"
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".claude" / "deliberation").exists()
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["agents", "commands"]


@needs_prefix
def test_installed_hooks_never_block_on_garbage(plugin, tmp_path):
    project = tmp_path / "hooked"
    project.mkdir()
    assert install(plugin, project).returncode == 0
    for event, command in our_commands(settings_of(project), plugin):
        for payload in (b"", b"\xff not json", b"[1, 2]"):
            answer = assert_no_block(run_command(command, project, payload))
            assert answer and answer["systemMessage"].startswith("deliberation"), (event, answer)
        valid = json.dumps(
            {"session_id": "s-1", "hook_event_name": event, "cwd": str(project), "transcript_path": "/dev/null"}
        ).encode()
        assert_no_block(run_command(command, project, valid))


def test_plugin_form_from_an_unusual_folder(plugin, tmp_path):
    """hooks/hooks.json as the client runs it: ${CLAUDE_PLUGIN_ROOT} in the environment."""
    project = tmp_path / "proj"
    project.mkdir()
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(EVENTS)
    for event, groups in hooks.items():
        for group in groups:
            command = group["hooks"][0]["command"]
            valid = json.dumps({"session_id": "s-1", "hook_event_name": event, "cwd": str(project)}).encode()
            assert_no_block(run_command(command, project, valid, env={"CLAUDE_PLUGIN_ROOT": str(plugin)}))
            answer = assert_no_block(run_command(command, project, b"garbage", env={"CLAUDE_PLUGIN_ROOT": str(plugin)}))
            assert answer and "deliberation" in answer["systemMessage"]


def test_plugin_form_without_install_or_dependencies(plugin, tmp_path):
    """No venv and a python3 without pydantic & co.: one clear message, exit 0, never a block."""
    assert not (plugin / ".venv").exists()
    # a real python3 with nothing installed: a fresh venv without site packages (not `-S`: the
    # hooks load site-packages themselves when the slow path needs them)
    bare_venv = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare_venv)], check=True)
    assert subprocess.run([str(bare_venv / "bin" / "python3"), "-c", "import pydantic"], capture_output=True).returncode != 0
    env = {"CLAUDE_PLUGIN_ROOT": str(plugin), "PATH": f"{bare_venv / 'bin'}:/usr/bin:/bin"}
    project = tmp_path / "proj"
    project.mkdir()
    # a forced deliberation and a spawn in it: somewhere on that way the dependencies are needed
    base = {"session_id": "s-1", "cwd": str(project), "transcript_path": "/dev/null"}
    spawn = {
        "tool_name": "Agent",
        "tool_use_id": "toolu_1",
        "tool_input": {
            "subagent_type": "security-analyst",
            "description": "research",
            "prompt": "Phase: research\nShould we move session storage?",
        },
    }
    sequence = [
        ("UserPromptSubmit", {"prompt": "/deliberate should we move session storage to a new database?"}),
        ("PreToolUse", spawn),
        ("PostToolUse", {**spawn, "tool_response": {"status": "async_launched", "agentId": "a1"}}),
        ("SubagentStop", {"agent_id": "a1", "agent_type": "security-analyst", "last_assistant_message": "x"}),
        ("Stop", {"stop_hook_active": False}),
    ]
    messages = []
    for event, extra in sequence:
        payload = json.dumps({**base, "hook_event_name": event, **extra}).encode()
        command = f'sh "${{CLAUDE_PLUGIN_ROOT}}/hooks/run.sh" {EVENTS[event]}'
        answer = assert_no_block(run_command(command, project, payload, env=env))
        messages.append((answer or {}).get("systemMessage", ""))
    hint = [m for m in messages if "install.sh" in m]
    assert hint and hint[0].startswith("deliberation plugin: dependency missing"), messages
    # the launcher itself: no interpreter at all, or a name that is not a hook script
    bare = tmp_path / "bare"  # a PATH with a shell and coreutils but no python at all
    bare.mkdir()
    for tool in ("sh", "dirname", "cat"):
        (bare / tool).symlink_to(shutil.which(tool))
    command = 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh" user_prompt_submit.py'
    for cmd, env2 in (
        (command, {**env, "PATH": str(bare)}),
        ('sh "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh" ../../etc/passwd', env),
        ('sh "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh" nope.py', env),
    ):
        proc = subprocess.run(
            ["/bin/sh", "-c", cmd],
            input=payload,
            capture_output=True,
            env={**env2, "CLAUDE_PROJECT_DIR": str(project)},
            timeout=30,
        )
        answer = assert_no_block(proc)
        assert answer is not None and answer["systemMessage"].startswith("deliberation: "), proc.stdout


def test_refuses_python_older_than_3_10(plugin, tmp_path):
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    for name in ("python3", "python3.10", "python3.11", "python3.12", "python3.13"):
        (fakebin / name).write_text(
            '#!/bin/sh\n[ "$1" = "--version" ] && echo "Python 3.8.18" && exit 0\n'
            'case "$2" in *version_info*) echo ""; exit 0;; esac\nexit 1\n'
        )
        (fakebin / name).chmod(0o755)
    project = tmp_path / "proj"
    project.mkdir()
    proc = install(plugin, project, venv=None, env={"PATH": f"{fakebin}:/usr/bin:/bin"})
    assert proc.returncode != 0
    assert "Python >= 3.10 is required (found: Python 3.8.18)" in proc.stderr
    assert snapshot(project) == {}


def test_demo_is_reported_clearly_when_absent(plugin, tmp_path):
    if (plugin / "lib" / "deliberation" / "cli" / "demo.py").exists() or (plugin / "lib" / "deliberation" / "demo").is_dir():
        pytest.skip("the demo exists in this checkout")
    proc = install(plugin, "--demo", venv=PREFIX)
    assert proc.returncode != 0
    assert "deliberation.cli.demo" in proc.stderr and "not part of this checkout" in proc.stderr


@pytest.mark.slow
def test_fresh_venv_from_a_folder_with_a_space_and_version(tmp_path):
    """The default path: no DELIBERATION_VENV, a real venv and pip install."""
    plugin = copy_plugin(tmp_path / "my plugins", "deliberation 0.1.0")
    project = tmp_path / "proj"
    project.mkdir()
    t0 = time.perf_counter()
    proc = install(plugin, project, venv=None)
    fresh = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the venv lives outside the plugin folder, <plugin>/.venv links to it (a marketplace added
    # from the folder's path copies the folder into the client's cache, but no link leading out)
    link = plugin / ".venv"
    home = Path(os.readlink(link))
    assert link.is_symlink() and home.parent == tmp_path / "my plugins" / "xdg-data" / "deliberation" / "venvs"
    assert home.name.startswith("deliberation_0.1.0-") and (home / "pyvenv.cfg").is_file()
    assert "venv: creating the plugin's Python environment, linked as .venv, in\n" in proc.stdout
    assert f"\n  {home}\n  with " in proc.stdout
    # every line within 100 columns, save a path on a line of its own
    wide = [line for line in proc.stdout.splitlines() if over_100(line)]
    assert wide == [], wide
    venv_python = plugin / ".venv" / "bin" / "python"
    assert (plugin / ".venv" / "bin" / "deliberation").exists()
    for _, command in our_commands(settings_of(project), plugin):
        assert command.startswith(f"'{venv_python}' ")
        assert_no_block(run_command(command, project, b"garbage"))
    t0 = time.perf_counter()
    again = install(plugin, project, venv=None)
    rerun = time.perf_counter() - t0
    assert again.returncode == 0
    assert "venv: reusing" in again.stdout and "up to date" in again.stdout
    print(f"\nfresh install.sh (venv + pip): {fresh:.1f}s; re-run: {rerun:.2f}s")
    doc = subprocess.run(
        [str(plugin / ".venv" / "bin" / "deliberation"), "doctor", "--project", str(project), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(doc.stdout)
    assert [f for f in report["findings"] if f["status"] == "problem"] == [], report
    assert doc.returncode == 0


def over_100(line: str) -> bool:
    """Longer than 100 columns for another reason than one path: a path alone on its line, or
    with at most 40 columns of words around it (`with PATH`, `"PATH" doctor \\`), may be longer."""
    if len(line) <= 100 or re.fullmatch(r"\s*/.*", line):
        return False
    paths = re.findall(r"'[^']*'|\"[^\"]*\"|/\S+", line)
    return len(line) - len(max(paths, key=len, default="")) > 40


def test_demo_through_install_sh_prints_no_internal_command_and_fits_100_columns(tmp_path):
    """`./install.sh --demo`: its set-up lines and the story fit 100 columns (a path alone on its
    line aside), no line shows how the demo is started inside (`python -m …`), and the last
    screen says how to settle, where the records are and how to use the plugin for real."""
    plugin = copy_plugin(tmp_path / "clone")
    shutil.copytree(ROOT / "examples", plugin / "examples")
    keep = tmp_path / "demo run"
    proc = install(plugin, "--demo", "--keep", keep, venv=PREFIX)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if "python -m" in line or "deliberation.cli" in line], lines[:5]
    widest = max(len(line) for line in lines if len(line) <= 100 or over_100(line))  # a long path aside
    print(f"\nwidest line of ./install.sh --demo: {widest} columns")
    assert widest <= 100, [line for line in lines if over_100(line)]
    tail = "\n".join(lines[-30:])
    assert f"{plugin}/bin/deliberation" in tail
    assert "/plugin marketplace add" in tail and "/plugin install deliberation@deliberation-gates" in tail
    assert str(keep / "project" / ".claude" / "deliberation" / "records") in tail
