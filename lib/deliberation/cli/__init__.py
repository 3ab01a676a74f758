"""`deliberation` — inspect and steer the plugin's state from a terminal.

One module per command; this dispatcher imports only the command that runs. Every command
accepts `--project DIR` and `--json`; failures exit non-zero with one clear line.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from deliberation import __version__
from deliberation.runtime.error_handler import describe, known, log_error
from deliberation.state.paths import Layout

# command → (module, one-line help)
COMMANDS: "dict[str, tuple[str, str]]" = {
    "status": ("status", "deliberations in this project: phase, agents, consensus, route"),
    "show": ("show", "everything about one deliberation"),
    "lineage": ("lineage", "the spawn tree of a session with budgets used"),
    "log": ("log", "a session's event log, readable"),
    "report": ("report", "the decision record as md, html or json"),
    "replay": ("replay", "run recorded hook events through the library and print each decision"),
    "doctor": ("doctor", "check install, settings, config and every state file"),
    "open": ("open_cmd", "open a deliberation explicitly"),
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

EPILOG = """examples:
  deliberation status
  deliberation show d-20261129-ab12 --json
  deliberation report d-20261129-ab12 --format html -o decision.html
  deliberation lineage
  deliberation approve d-20261129-ab12 --reason "reviewed the migration plan"
  deliberation eval history.jsonl --reversal-classes 'security/*'
  deliberation doctor
  deliberation trust
  deliberation gc --dry-run
"""


def build_parser(only: "str | None" = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, the arguments of that command alone are added
    (its module is the only one imported; the others are listed with their help line)."""
    parser = argparse.ArgumentParser(
        prog="deliberation", description=(__doc__ or "").splitlines()[0],
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"deliberation {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--project", metavar="DIR", help="project directory (default: $CLAUDE_PROJECT_DIR or .)")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        if only is None or name == only:
            mod = importlib.import_module(f"deliberation.cli.{module}")
            mod.add_arguments(p, name)
            p.set_defaults(_module=mod)
    return parser


def command_of(argv: "list[str]") -> "str | None":
    """The command named on the command line (the first word that is no option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: "list[str] | None" = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    named = command_of(argv)
    parser = build_parser(named if named in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - one handler: a sentence for people, the traceback in the log
        if known(exc):
            print(f"deliberation: {describe(exc)}", file=sys.stderr)
            return 1
        path = log_error(Layout(getattr(args, "project", None)).errors_log, f"cli {args.command}", exc)
        where = f" (details in {path})" if path else ""
        print(f"deliberation: internal error: {describe(exc)}{where}", file=sys.stderr)
        return 3
