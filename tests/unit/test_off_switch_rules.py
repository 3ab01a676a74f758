"""off_switch: which words switch checks off (none switches them on), the command in every form
the client sends it, and the client's own environment behind a project's settings."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from deliberation.core import off_switch as sw
from deliberation.runtime import client_env


@pytest.mark.parametrize(
    "value,off",
    [
        ("off", True),
        ("OFF ", True),
        ("0", True),
        ("false", True),
        ("no", True),
        ("on", False),
        ("1", False),
        ("", False),
        (None, False),
        ("yes", False),
    ],
)
def test_only_off_words_switch_off(value, off):
    assert sw.env_off(value) is off


def test_the_session_s_switch_wins_over_the_environment():
    assert sw.checks_off("off", None) == (True, "environment")
    assert sw.checks_off(None, None) == (False, "environment")
    assert sw.checks_off("off", {"checks": "on", "by": "command"}) == (False, "command")
    assert sw.checks_off(None, {"checks": "off", "by": "command"}) == (True, "command")
    assert sw.checks_off("on", {"checks": "off", "by": "environment"}) == (True, "environment")
    assert sw.checks_off("off", {"checks": "maybe"}) == (True, "environment")  # not a switch: ignored


@pytest.mark.parametrize(
    "prompt,want",
    [
        ("/deliberation:off", "off"),
        ("/deliberation:on", "on"),
        ("  /deliberation:off please", "off"),
        ("/deliberation-off", "off"),
        ("/deliberation-on now", "on"),
        # the client's expansion (measured on 2.1.328), namespaced and not
        ("<command-message>deliberation:off</command-message>\n<command-name>/deliberation:off</command-name>\n", "off"),
        (
            "<command-message>deliberation-on</command-message>\n<command-name>/deliberation-on</command-name>\n"
            "<command-args>now</command-args>\n",
            "on",
        ),
        ("<command-name>/deliberation:on</command-name>", "on"),
        ("/off", None),
        ("/on", None),
        ("/deliberation:offload", None),
        ("/deliberate off", None),
        ("please /deliberation:off", None),
        ("/other:off", None),
        ("<command-name>/off</command-name>", None),
        ("/deliberation:deliberation-off", "off"),
        ("", None),
        ("/", None),
    ],
)
def test_the_command_in_every_form(prompt, want):
    assert sw.command_of(prompt) == want


def test_a_renamed_plugin_s_namespace_counts_too():
    assert sw.command_of("/mine:off", "mine:") == "off"
    assert sw.command_of("/mine:off") is None


def test_command_names_per_install_form():
    assert sw.command_names(True, "deliberation:") == ("/deliberation:off", "/deliberation:on")
    assert sw.command_names(False) == ("/deliberation-off", "/deliberation-on")


def test_client_env_mirrors_the_off_words():
    assert client_env.OFF_WORDS == sw.OFF_WORDS


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux); elsewhere the value is unknown")
def test_the_client_s_own_value_is_found_above_the_hook_s_shells(tmp_path):
    """client (DELIBERATION=off, no CLAUDE_PROJECT_DIR) → hook process (the project's value)."""
    # the "hook" says it runs before its pid is handed on: read earlier, mid-exec, its environ is empty
    code = (
        "import subprocess, sys, os\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; print(1, flush=True); time.sleep(30)'],"
        " env={'CLAUDE_PROJECT_DIR': '/p', 'DELIBERATION': 'on'}, stdout=subprocess.PIPE)\n"
        "p.stdout.readline(); print(p.pid, flush=True); sys.stdin.read(); p.kill()\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", code],
        env={"DELIBERATION": "off", "PATH": os.environ["PATH"]},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        hook_pid = int(client.stdout.readline())
        assert client_env.client_value(hook_pid) == b"off"
        environ = {client_env.CARRIER: b"off"}  # whatever a project put there is replaced
        client_env.mark(environ)  # this process's own ancestors: pytest has no DELIBERATION
        assert client_env.CARRIER not in environ or environ[client_env.CARRIER] == b"unknown"
    finally:
        client.communicate("", timeout=30)
    assert client_env.client_value(999_999_999) is None
