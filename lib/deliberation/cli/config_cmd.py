"""`deliberation config` — the effective configuration and any problems in config.json."""

from __future__ import annotations

import json
from deliberation.state.config import Config, read_config_file
from deliberation.state.paths import Layout


def add_arguments(parser, name: str) -> None:
    parser.add_argument("--defaults", action="store_true", help="print the defaults, ignoring config.json")


def run(args) -> int:
    cfg, problems = (Config(), []) if args.defaults else read_config_file(Layout(args.project).config)
    data = cfg.model_dump(mode="json")
    if args.json:
        print(json.dumps({"config": data, "problems": problems}, indent=1))
    else:
        print(json.dumps(data, indent=2))
        for p in problems:
            print(f"problem: {p}")
    return 1 if problems else 0
