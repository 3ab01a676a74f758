"""`deliberation config` — the effective configuration and any problems in config.json. Settings
that wait for this user's approval (state/consent.py) show at their defaults, and are listed."""

from __future__ import annotations

import json

from deliberation.state import consent
from deliberation.state.config import Config, read_config_file
from deliberation.state.paths import Layout
from deliberation.text import consent as words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--defaults", action="store_true", help="print the defaults, ignoring config.json")


def run(args: argparse.Namespace) -> int:
    layout = Layout(args.project)
    cfg, problems = (Config(), []) if args.defaults else read_config_file(layout.config, layout.project)
    data = cfg.model_dump(mode="json")
    waiting = [] if args.defaults else consent.pending(layout)
    if waiting:
        data = consent.effective(data, Config().model_dump(mode="json"), waiting)
    if args.json:
        print(
            json.dumps(
                {
                    "config": data,
                    "problems": problems,
                    "awaiting_approval": [{"setting": i.name, "value": i.value, "why": words.why(i.name)} for i in waiting],
                },
                indent=1,
            )
        )
    else:
        print(json.dumps(data, indent=2))
        for p in problems:
            print(f"problem: {p}")
        for i in waiting:
            print(words.config_line(i.name, i.value, layout.project))
    return 1 if problems else 0
