"""The documented command starts a deliberation in the install form (`/deliberate Q`, copied
into .claude/commands/ by install.sh) and the plugin form (`/deliberation:deliberate Q`, which
the client passes to the prompt hook as typed, namespace and all). The marketplace form runs the
same check in test_e2e_plugin_install.py."""

from __future__ import annotations

import pytest

from scenarios_commands import CommandAsked, assert_command_forced, command_prompt

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize("mode", ["install", "plugin"])
def test_the_command_forces_a_deliberation_on_the_users_question(mode, run_claude, e2e_project):
    run = run_claude(e2e_project, command_prompt(mode), CommandAsked(mode), mode=mode)
    assert run.returncode == 0 and run.log.errors == [], run.describe()
    assert run.plugin_errors() == "", run.plugin_errors()[-3000:]
    assert_command_forced(run, mode)
