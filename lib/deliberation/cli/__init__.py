"""`deliberation` — inspect and steer the plugin's state from a terminal.

One module per command; this dispatcher imports only the command that runs. Every command
accepts `--project DIR` and `--json`; failures exit non-zero with one clear line.
"""

import sys

from deliberation import __version__

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import NoReturn
    import argparse

# What loads with this module is what `deliberation --help` and `--version` cost: this module and
# sys. argparse, the command's module, the models and the store load once a command runs
# (tests/unit/test_cli_startup.py checks the import set; bench/cli_startup.py prints the time).
JSON_ERRORS = False  # set by main() when the command line asks for --json


def fail(message: str, code: int = 1) -> int:
    """The one way a command fails: one line on stderr — or, under --json, one JSON object
    `{"error": …, "exit_code": …}` on stdout, where the command's JSON would have been."""
    if JSON_ERRORS:
        import json

        sys.stdout.write(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False) + "\n")
    else:
        print(f"deliberation: {message}", file=sys.stderr)
    return code


def warn(message: str) -> None:
    """A warning beside a command's output: always stderr (it never spoils the JSON on stdout)."""
    print(message, file=sys.stderr)


# command → (module, one-line help)
COMMANDS: "dict[str, tuple[str, str]]" = {
    "status": ("status", "deliberations in this project: phase, agents, consensus, route"),
    "latest": ("record_view", "the newest deliberation's record, in your browser (or its path)"),
    "open": ("record_view", "one deliberation's record, in your browser (or its path)"),
    "show": ("show", "everything about one deliberation"),
    "lineage": ("lineage", "the spawn tree of a session with budgets used"),
    "log": ("log", "a session's event log, readable"),
    "report": ("report", "the decision record as md, html or json"),
    "replay": ("replay", "run recorded hook events through the library and print each decision"),
    "doctor": ("doctor", "check install, settings, config and every state file"),
    "setup": ("setup_cmd", "set up the plugin's Python environment now (--retry after a failure)"),
    "start": ("open_cmd", "start a deliberation explicitly (what /deliberate does from a prompt)"),
    "approve": ("adjudicate", "approve an escalated decision (human review)"),
    "reject": ("adjudicate", "reject an escalated decision (human review)"),
    "reverse": ("registry", "mark a past decision reversed; its class becomes reversal-prone"),
    "confirm": ("registry", "label a past decision as correct"),
    "registry": ("registry", "list decision classes and their reversal history"),
    "eval": ("eval_cmd", "evaluate routing policies on a labelled decision history"),
    "history": ("history", "export the project's labelled decisions"),
    "config": ("config_cmd", "show the effective configuration and its problems"),
    "trust": ("trust", "approve the settings of config.json that run commands or widen what runs"),
    "gc": ("gc", "prune old session folders and logs now (--dry-run: only show); what is kept and its size"),
}

DESCRIPTION = "inspect and steer the plugin's state from a terminal"
PROJECT_HELP = (
    "project directory (default: $CLAUDE_PROJECT_DIR, else the nearest folder up from here "
    "that holds .claude/deliberation/, else the nearest git repository, else .)"
)

EPILOG = """examples:
  deliberation status
  deliberation latest
  deliberation show d-949c07c6-1 --json
  deliberation report d-949c07c6-1 --format html -o decision.html
  deliberation approve d-949c07c6-1                  (adopt a decision awaiting review)
  deliberation reject d-949c07c6-1                   (set it aside)
      either takes --reason "…" (optional), kept with the decision
  deliberation doctor --project DIR
  deliberation trust
  deliberation gc --dry-run

Every command takes --project DIR and --json (errors then come as {"error": ..., "exit_code": ...}
on stdout). `deliberation COMMAND --help` lists the command's own options.
"""


def top_help() -> str:
    """`deliberation --help`, written out without argparse (which alone costs more than the
    interpreter's start): the commands and their one-line help."""
    width = max(len(n) for n in COMMANDS)
    lines = [
        "usage: deliberation [--version] COMMAND [--project DIR] [--json] ...",
        "",
        f"deliberation: {DESCRIPTION}",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {help_text}" for name, (_, help_text) in COMMANDS.items()]
    lines += [
        "",
        "options:",
        "  -h, --help  show this help and exit",
        "  --version   show the version and exit",
        "",
        EPILOG.rstrip(),
    ]
    return "\n".join(lines) + "\n"


def build_parser(only: "str | None" = None) -> "argparse.ArgumentParser":
    """The parser of every command; with `only`, the arguments of that command alone are added
    (its module is the only one imported; the others are listed with their help line)."""
    import argparse
    import importlib

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> "NoReturn":  # a usage error under --json is JSON too
            if JSON_ERRORS:
                raise SystemExit(fail(f"{self.prog}: {message}", 2))
            super().error(message)

    parser = Parser(
        prog="deliberation", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"deliberation {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--project", metavar="DIR", help=PROJECT_HELP)
        p.add_argument("--json", action="store_true", help="machine-readable output (errors too)")
        if only is None or name == only:
            mod = importlib.import_module(f"deliberation.cli.{module}")
            mod.add_arguments(p, name)
            p.set_defaults(_module=mod)
    return parser


def command_of(argv: "list[str]") -> "str | None":
    """The command named on the command line (the first word that is no option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def resolve_project(explicit: "str | None") -> str:
    """--project as given; else $CLAUDE_PROJECT_DIR; else the project found upward from here."""
    import os

    from deliberation.state.paths import find_project

    if explicit:
        return os.path.abspath(explicit)
    env = os.environ.get("CLAUDE_PROJECT_DIR")
    return os.path.abspath(env) if env else find_project(os.getcwd())


def main(argv: "list[str] | None" = None) -> int:
    global JSON_ERRORS
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv in ([], ["-h"], ["--help"]):
        sys.stdout.write(top_help())
        return 0 if argv else 2
    if argv == ["--version"]:
        sys.stdout.write(f"deliberation {__version__}\n")
        return 0
    JSON_ERRORS = "--json" in argv
    named = command_of(argv)
    if named == "open" and "--session" in argv:
        # `open` used to start a deliberation; that is `start` now, and `open ID` shows a record
        print(
            "deliberation: `open --session` is deprecated and will be removed: use `deliberation start --session ...`",
            file=sys.stderr,
        )
        argv[argv.index("open")] = named = "start"
    parser = build_parser(named if named in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    args.project = resolve_project(args.project)
    real = (sys.stdout, sys.stderr)
    from deliberation.cli.width import UNWRAPPED, Within  # every line for a person within 100 columns

    if not JSON_ERRORS and args.command not in UNWRAPPED and not getattr(args, "export", None):
        sys.stdout = Within(sys.stdout)  # stderr is not wrapped: a failure stays one line
    try:
        return _run(args)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (BrokenPipeError, ValueError):
                import os  # the reader went away (`| head`): no second complaint at exit

                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        sys.stdout, sys.stderr = real


def _run(args: "argparse.Namespace") -> int:
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - one handler: a sentence for people, the traceback in the log
        from deliberation.runtime.error_handler import describe, known, log_error
        from deliberation.state.paths import Layout

        if known(exc):
            return fail(describe(exc), 1)
        path = log_error(Layout(args.project).errors_log, f"cli {args.command}", exc)
        where = f" (details in {path})" if path else ""
        return fail(f"internal error: {describe(exc)}{where}", 3)
