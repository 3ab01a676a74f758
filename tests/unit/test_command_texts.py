"""The slash commands say what is true in the install form they run in (text/commands.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deliberation.cli.install_settings import plugin_files
from deliberation.text import commands

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(commands.COMMANDS))
def test_the_shipped_commands_are_the_plugin_forms_words(name):
    assert (ROOT / "commands" / name).read_text(encoding="utf-8") == commands.body(name, "plugin"), (
        f"commands/{name} drifted from text/commands.py: regenerate it with body({name!r}, 'plugin')"
    )


def test_the_namespace_is_the_plugins_name():
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert commands.PLUGIN == manifest["name"]
    assert commands.command_name("deliberate", "plugin") == "/deliberation:deliberate"
    assert commands.command_name("deliberate", "project") == "/deliberate"


def test_the_plugin_form_never_points_to_install_sh_and_names_its_own_commands():
    for name in commands.COMMANDS:
        text = commands.body(name, "plugin")
        assert "install.sh" not in text and ".venv" not in text, name
    text = commands.body("deliberate.md", "plugin")
    assert "/deliberation:deliberation-status" in text and "`deliberation doctor`" in text


def test_the_project_form_names_bare_commands_and_install_sh():
    text = commands.body("deliberate.md", "project")
    assert "/deliberation-status" in text and "deliberation:" not in text and "install.sh" in text
    assert "install.sh" in commands.body("deliberation-status.md", "project")


def test_install_copies_the_project_forms_words():
    files = plugin_files(str(ROOT))
    for name in commands.COMMANDS:
        assert files[str(Path(".claude") / "commands" / name)].decode("utf-8") == commands.body(name, "project")
    assert commands.body("unheard-of.md", "plugin") is None
