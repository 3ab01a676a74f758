"""`deliberation --help` and `--version` load the dispatcher and nothing else: no argparse, no
command module, no models, no store (their time is printed by bench/cli_startup.py; no wall
clock is asserted here). `deliberation COMMAND --help` loads that command's module alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import LIB

from deliberation import cli

# run as `python -m deliberation` runs it; the modules loaded after are printed on stderr
PROBE = (
    "import sys\nbefore = set(sys.modules)\ntry:\n    from deliberation.cli import main\n    main(sys.argv[1:])\n"
    "finally:\n    sys.stdout.flush()\n    sys.stderr.write(' '.join(sorted(set(sys.modules) - before)))\n"
)


def loaded_by(*argv: str) -> "tuple[str, set[str]]":
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(LIB), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    return proc.stdout, set(proc.stderr.split())


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["--version"], []])
def test_help_and_version_load_only_the_dispatcher(argv):
    out, loaded = loaded_by(*argv)
    assert loaded <= {"deliberation", "deliberation.cli"}, sorted(loaded)
    assert out.startswith("deliberation 0.") if argv == ["--version"] else out.startswith("usage: deliberation")


def test_the_help_lists_every_command_with_its_line():
    text = cli.top_help()
    for name, (_module, help_text) in cli.COMMANDS.items():
        assert f"  {name}" in text and help_text in text, name
    assert "--project DIR" in text and "--json" in text and "--version" in text


def test_a_command_help_loads_that_command_alone():
    out, loaded = loaded_by("status", "--help")
    assert "--project DIR" in out and "--json" in out
    commands = {m for m in loaded if m.startswith("deliberation.cli.")}
    assert "deliberation.cli.status" in commands  # with views and gc, which status uses
    assert not commands & {f"deliberation.cli.{mod}" for mod, _ in cli.COMMANDS.values() if mod not in ("status", "views", "gc")}


def test_bin_deliberation_starts_the_cli_as_the_bench_measures_it():
    import os

    sys.path.insert(0, os.path.join(os.path.dirname(str(LIB)), "bench"))
    import cli_startup

    launcher = (LIB.parent / "bin" / "deliberation").read_text()
    assert f'-E -c \'{cli_startup.ENTRY}\' "$plugin/lib" "$@"' in launcher
