"""`deliberation trust`: approve the committed settings of this project that are not known to
tighten — config.json's, and its .claude/settings.json `env` switching the plugin off
(state/consent.py classifies every setting and says why) — exactly as they are now.

    deliberation trust              show what waits; on a terminal, ask, then approve
    deliberation trust --yes        approve without asking (a script of yours, in a terminal)
    deliberation trust --revoke     forget this project's approvals: the settings wait again

The approval is stored in this user's own folder (state/user_data.py), never in the project, per
project and per setting as a hash of the value: a changed value waits again. It is refused inside
Claude Code (CLAUDECODE is set in every command Claude Code runs): a command the model can run
must not approve what the repository asks for — run it in a terminal of your own.
"""

from __future__ import annotations

import json
import os
import sys

from deliberation.names import quoted
from deliberation.state import consent
from deliberation.state.paths import Layout
from deliberation.text import consent as words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--yes", action="store_true", help="approve without asking")
    parser.add_argument("--revoke", action="store_true", help="forget this project's approvals")


def _inside_claude_code() -> bool:
    return bool(os.environ.get("CLAUDECODE"))


def run(args: argparse.Namespace) -> int:
    layout = Layout(args.project)
    if args.revoke:
        had = consent.revoke(layout)
        print(
            f"deliberation trust: {'approvals forgotten' if had else 'nothing was approved'} for {layout.project}; "
            "its command-running and widening settings keep their defaults until approved again"
        )
        return 0
    items = consent.requested_all(layout)
    waiting = consent.pending(layout)
    if args.json and not args.yes:
        print(
            json.dumps(
                {
                    "project": layout.project,
                    "requested": [i.name for i in items],
                    "pending": [{"setting": i.name, "value": i.value, "why": words.why(i.name)} for i in waiting],
                },
                indent=1,
                ensure_ascii=False,
            )
        )
        return 1 if waiting else 0
    if not waiting:
        print(
            f"deliberation trust: nothing in {quoted(layout.project)} waits for approval"
            + (f" ({len(items)} setting(s) approved)" if items else "")
        )
        return 0
    print(f"{quoted(layout.project)} asks for {len(waiting)} setting(s) that take effect only with your approval:")
    for item in waiting:
        print(words.trust_item(item.name, item.value))
    if _inside_claude_code():
        print(
            "deliberation trust: refused inside Claude Code — a command the model can run must not approve what "
            f"a repository asks for. Run it in a terminal outside Claude Code: {words.command(layout.project)}",
            file=sys.stderr,
        )
        return 2
    if not args.yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            print("deliberation trust: nothing approved — run it in a terminal to be asked, or add --yes", file=sys.stderr)
            return 1
        answer = input("Approve exactly these values for this project? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("deliberation trust: nothing approved")
            return 1
    approved = consent.approve(layout)
    print(
        f"deliberation trust: approved {', '.join(i.name for i in approved)} for {layout.project} "
        "(a changed value waits again; `deliberation trust --revoke` takes it back)"
    )
    return 0
