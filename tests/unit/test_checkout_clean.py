"""The clone stays clean after the set-up and the demo: `git status` shows nothing they made.

install.sh and the test command make `.venv` a symbolic link to a venv outside the folder (a
marketplace added from the folder's path then copies no 40 MB venv into the client's cache). An
ignore rule `.venv/` matches folders only, so the link showed as `?? .venv` — and a formatting
commit once added it to the tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(autouse=True)
def _a_git_checkout():
    if shutil.which("git") is None or git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")


def test_the_venv_link_is_ignored_and_never_tracked():
    assert git("ls-files", "--", ".venv").stdout == "", ".venv is in the tree: git rm --cached .venv"
    # --no-index: the rule alone decides, whether .venv is a link, a folder or absent here
    assert git("check-ignore", "--no-index", "-q", ".venv").returncode == 0, "no ignore rule matches a .venv link"


def test_what_the_demo_and_the_tests_leave_is_ignored():
    # a folder named with its trailing slash: the rule for a folder need not match a file
    for made in (
        ".venv",
        "lib/claude_deliberation.egg-info/",
        ".pytest_cache/",
        ".ruff_cache/",
        ".mypy_cache/",
        "tests/e2e/.client/",
    ):
        assert git("check-ignore", "--no-index", "-q", made).returncode == 0, made
