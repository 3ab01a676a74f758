#!/usr/bin/env python3
"""Set the plugin's version: `python3 scripts/set_version.py 0.2.0`.

The version lives in two files that must agree, and this writes both:
  .claude-plugin/plugin.json    "version" — what Claude Code installs, updates and tags by
  lib/deliberation/__init__.py  __version__ — what the package reports; pyproject.toml reads it
The marketplace entry (.claude-plugin/marketplace.json) carries no version: plugin.json's is the
one the client uses. CHANGELOG.md: the "## Unreleased" heading, if there is one, becomes
"## X.Y.Z - <today>"; otherwise a heading for the version must already be there.
tests/unit/test_version.py fails when any of them disagree. Then tag the release with
`claude plugin tag` (it checks plugin.json against the marketplace entry).
"""

from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
INIT_VERSION = re.compile(r'(?m)^__version__ = "[^"]*"$')


def set_version(root: Path, version: str, today: "datetime.date | None" = None) -> "list[str]":
    """Write `version` into the files that carry it; the files changed (relative paths). Every
    file is checked before any is written."""
    if not SEMVER.match(version):
        raise ValueError(f"{version!r} is not a semantic version (X.Y.Z)")
    writes = {}
    manifest = ".claude-plugin/plugin.json"
    data = json.loads((root / manifest).read_text(encoding="utf-8"))
    if data.get("version") != version:
        data["version"] = version
        writes[manifest] = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    init = "lib/deliberation/__init__.py"
    text = (root / init).read_text(encoding="utf-8")
    if not INIT_VERSION.search(text):
        raise ValueError(f"{init} has no __version__ line")
    new = INIT_VERSION.sub(f'__version__ = "{version}"', text, count=1)
    if new != text:
        writes[init] = new
    log = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    if not re.search(rf"(?m)^## \[?{re.escape(version)}\]?(?:\s|$)", log):
        day = (today or datetime.date.today()).isoformat()
        new_log, n = re.subn(r"(?m)^## \[?Unreleased\]?[ \t]*$", f"## {version} - {day}", log, count=1)
        if not n:
            raise ValueError(
                f"CHANGELOG.md has neither a '## Unreleased' heading nor one for {version}: write what changed first"
            )
        writes["CHANGELOG.md"] = new_log
    for rel, content in writes.items():
        (root / rel).write_text(content, encoding="utf-8")
    return list(writes)


def main(argv: "list[str]") -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        changed = set_version(ROOT, argv[0])
    except (OSError, ValueError) as exc:
        print(f"set_version: {exc}", file=sys.stderr)
        return 1
    print("\n".join(changed) if changed else f"already at {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
