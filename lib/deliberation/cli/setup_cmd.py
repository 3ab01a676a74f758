"""`deliberation setup [--retry]` — set up the plugin's own Python environment now.

In the plugin form (a marketplace install, or `claude --plugin-dir`) a session start builds the
environment in the background, and after a failure tries again only at a session start 10
minutes later. This command builds it in the foreground, at once, whatever the last attempt
said (`--retry` names that intent; the build is the same): it prints where, what it is doing,
how long it took and what to do on a failure. The same lock as the session start's set-up:
when one is already building, it says so and leaves it be.

`deliberation setup --command [--bin DIR]` instead puts the `deliberation` command on a
terminal's PATH (a launcher in ~/.local/bin that outlives updates: runtime/command_path.py).

Standard library only: it runs before the environment with the dependencies exists.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time

from deliberation import plugin_root
from deliberation.cli import fail
from deliberation.cli.doctor import plugin_data_dir
from deliberation.runtime import command_path
from deliberation.runtime import plugin_env as penv

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: "argparse.ArgumentParser", name: str) -> None:
    parser.add_argument(
        "--retry",
        action="store_true",
        help="build now even though the last set-up failed (no waiting for the next session start)",
    )
    parser.add_argument(
        "--command",
        action="store_true",
        dest="put_on_path",  # `command` names the subcommand
        help="instead: put the `deliberation` command on your terminal's PATH (a launcher in "
        "~/.local/bin, or --bin DIR, that keeps working across plugin updates)",
    )
    parser.add_argument("--bin", metavar="DIR", help="with --command: the folder for the launcher")
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="the plugin's data folder (default: $CLAUDE_PLUGIN_DATA, else the one under "
        "~/.claude/plugins/data that names this plugin)",
    )


def run(args: "argparse.Namespace") -> int:
    plugin = plugin_root()
    environ = dict(os.environ)
    if args.put_on_path:
        return _command(args, plugin, environ)
    data = args.data or plugin_data_dir(plugin, environ)
    if not data:
        return fail(
            "no data folder of this plugin: the set-up lives in the folder Claude Code gives an installed "
            "plugin; start one Claude Code session with the plugin enabled, or give --data DIR "
            "(an install.sh install uses <plugin>/.venv instead: run install.sh)"
        )
    status = penv.observe(plugin, data)
    if status.current_ready and status.current_key == status.key:
        return _done(args, data, "ready", f"already set up: {penv.env_python(data, status.current)}", 0.0)  # type: ignore[arg-type]  # ready: set
    started = time.monotonic()
    if penv.set_up_running(data):
        if not args.json:
            print(
                f"a set-up is running (started at a session start); waiting for it to finish "
                f"(log: {os.path.join(data, penv.LOG)})…",
                flush=True,
            )
        _wait_for_the_running_set_up(data)
        code = 0
    else:
        if not args.json:
            print(
                f"setting up the plugin's Python environment in {data} with {sys.executable} "
                f"(log: {os.path.join(data, penv.LOG)})…",
                flush=True,
            )
        code = penv.build(plugin, data, environ)
    took = time.monotonic() - started
    last = penv.read_json(os.path.join(data, penv.STATUS)) or {}
    if code == 0 and last.get("state") == "ready":
        current = penv.read_current(data)
        where = penv.env_python(data, current) if current else data
        return _done(args, data, "ready", f"ready in {took:.0f} s: {where}; the hooks use it from their next event", took)
    reason = last.get("reason") or "see the log"
    return fail(
        f"set-up failed after {took:.0f} s: {reason}; details: {os.path.join(data, penv.LOG)}; "
        "run `deliberation setup --retry` again once that is fixed"
    )


def _command(args: "argparse.Namespace", plugin: str, environ: "dict[str, str]") -> int:
    code, lines = command_path.install(plugin, environ, args.bin)
    if code != 0:
        return fail("; ".join(lines))
    if args.json:
        print(json.dumps({"state": "command", "message": "; ".join(lines)}))
    else:
        print("\n".join(lines))
    return 0


def _wait_for_the_running_set_up(data: str) -> None:
    """Block until the set-up that holds the lock releases it (it ends, or its process dies)."""
    fd = os.open(os.path.join(data, penv.LOCK), os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)


def _done(args: "argparse.Namespace", data: str, state: str, message: str, took: float) -> int:
    if args.json:
        print(json.dumps({"state": state, "data": data, "seconds": round(took, 1), "message": message}))
    else:
        print(message)
    return 0
