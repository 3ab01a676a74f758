"""The state guard's verdict on a Grep or Glob over the project root, checked against the
client's own ripgrep run with the flags the client's Grep and Glob tools pass: every Grep the
guard lets through reads no state file, and every one it refuses would have read one; a Glob lists
names only, so it is refused only when its pattern names the state folder, and then it would list
nothing else."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from deliberation.core.state_guard import client_globs, refusal

AGENT = "deliberation:security-analyst"
# one file of each kind the state folder holds (state/paths.py, the store's locks, temp and
# quarantined files)
STATE_FILES = (
    "config.json",
    "reversals.json",
    "adjudications.jsonl",
    "errors.log",
    ".gitignore",
    "cache/config.resolved.json",
    "sessions/s-1/session.json",
    "sessions/s-1/events.jsonl",
    "sessions/s-1/commit.journal",
    "sessions/s-1/session.json.lock",
    "deliberations/d-1.json",
    "deliberations/d-1.json.tmp-12-345",
    "deliberations/d-2.json.corrupt-20261201T170000",
    "records/d-1.md",
    "records/d-1.html",
)
PROJECT_FILES = (
    "src/app.py",
    "src/web/index.ts",
    "README.md",
    "docs/guide.md",
    "config/settings.json",
    "Makefile",
    ".github/ci.yml",
)

GREP = [
    {"glob": g}
    for g in (
        "*.py",
        "**/*.py",
        "*.{py,ts}",
        "*.py *.ts",
        "*.py,*.ts",
        "!.claude",
        "!.claude/**",
        "*.md !.claude",
        "src/*",
        "docs/**/*.md",
        "Makefile",
        "*",
        "**/*",
        "*.json",
        "*.{py,md}",
        "*.py,*.jsonl",
        "**/records/*",
        ".claude/**",
        "!*.py",
        "!.claude *",
        "*.lock",
        "*.tmp-*",
        "*.journal",
        "*[0-9]",
    )
]
GREP += [{"type": t} for t in ("py", "ts", "json", "md", "html", "log", "lock")]
GREP += [{"type": "py", "glob": "*.md"}, {}]
GLOB = [
    "*.py",
    "**/*.ts",
    "*.json",
    "*.md",
    "!*.py",
    "**",
    "src/**",
    ".c*/**",
    "*/*/records/*",
    "*.gitignore",
    ".claude/deliberation/**",
    "**/.claude/deliberation/*/*.json",
    ".claude/deliberation/records/*",
    "{.claude/deliberation,src}/**/*.md",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("proj")
    for rel in PROJECT_FILES + tuple(".claude/deliberation/" + f for f in STATE_FILES):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("needle\n")
    return root


def rg(claude_bin: Path, root: Path, args: "list[str]") -> "list[str]":
    """The client's ripgrep (the binary run as `rg`)."""
    done = subprocess.run(
        args,
        executable=str(claude_bin),
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": os.environ.get("PATH", "")},
    )
    assert done.returncode in (0, 1), done.stderr
    return [line for line in done.stdout.replace("\0", "\n").splitlines() if line]


def in_state(lines: "list[str]") -> bool:
    return any(".claude/deliberation/" in line for line in lines)


@pytest.mark.parametrize("extra", GREP, ids=lambda e: repr(e))
def test_a_grep_the_guard_passes_reads_no_state_file(claude_bin, tree, extra):
    args = ["rg", "--hidden", "--no-follow", "--glob", "!.git", "-l", "needle"]
    if extra.get("type"):
        args += ["--type", extra["type"]]
    for g in client_globs(extra.get("glob", "")):
        args += ["--glob", g]
    found = rg(claude_bin, tree, args + ["."])
    why = refusal("Grep", {"pattern": "needle", **extra}, AGENT, str(tree), str(tree))
    assert (why is None) is (not in_state(found)), (extra, found)


@pytest.mark.parametrize("pattern", GLOB)
def test_a_glob_the_guard_refuses_would_list_the_state_folder(claude_bin, tree, pattern):
    found = rg(
        claude_bin, tree, ["rg", "--files", "--null", "--glob", pattern, "--sort=modified", "--no-ignore", "--hidden", "."]
    )
    why = refusal("Glob", {"pattern": pattern}, AGENT, str(tree), str(tree))
    names = ".claude/deliberation" in pattern
    assert (why is not None) is names, (pattern, why)
    if names:
        assert in_state(found), (pattern, found)


BASH = [
    "rg needle",
    "rg -l --type py needle",
    "rg --hidden -l needle",
    "rg -uu -l needle",
    "rg -l -g '*' needle",
    "rg --hidden -l -g '!.claude' needle",
    "rg -l needle src/ docs/",
    "grep -rl needle .",
    "grep -rl needle . --exclude-dir=.claude",
    "grep -rl needle src/ docs/",
    "find . -name '*.json'",
    "find . -path ./.claude -prune -o -name '*.md' -print",
    "find . -not -path '*/.claude/*' -name '*.json'",
    "find src docs -name '*.md'",
]


@pytest.mark.parametrize("command", BASH)
def test_a_command_the_guard_passes_reaches_no_state_file(claude_bin, tree, tmp_path, command):
    """The Bash branch and the commands its refusals advise, run for real (rg: the client's)."""
    (tmp_path / "rg").symlink_to(claude_bin)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{tmp_path}:{os.environ.get('PATH', '')}"},
    )
    assert done.returncode in (0, 1), done.stderr
    why = refusal("Bash", {"command": command}, AGENT, str(tree), str(tree))
    assert (why is None) is (not in_state(done.stdout.splitlines())), (command, done.stdout)
