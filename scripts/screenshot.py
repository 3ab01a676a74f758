"""Retake docs/report-screenshot.png, the README's picture, from the bundled demo's own record:
replay the demo into a temporary folder, then let headless Chromium draw the HTML decision
record it wrote (1280 x 1500 px, the top of the page: the outcome, the contents, the gates).

    python3 scripts/screenshot.py [OUT.png]      (needs chromium on PATH; run from the repository)
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "lib"))

from deliberation.cli import demo  # noqa: E402 - lib/ goes on sys.path first, above

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--no-first-run",
    "--no-default-browser-check",
]


def main(argv: "list[str]") -> int:
    out = os.path.abspath(argv[0] if argv else os.path.join(REPO, "docs", "report-screenshot.png"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium is not on PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="deliberation-shot-") as tmp:
        keep = os.path.join(tmp, "demo")
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                code = demo.main(["--keep", keep, "--json"])
            finally:
                sys.stdout = stdout
        if code != 0:
            print(f"the demo failed (exit {code}): run ./install.sh --demo to see why", file=sys.stderr)
            return 1
        [record] = glob.glob(os.path.join(keep, "project", ".claude", "deliberation", "records", "*.html"))
        proc = subprocess.run(
            [
                chromium,
                *FLAGS,
                f"--user-data-dir={os.path.join(tmp, 'profile')}",
                "--window-size=1280,1500",
                f"--screenshot={out}",
                "file://" + record,
            ],
            capture_output=True,
            timeout=120,
        )
        if proc.returncode != 0 or not os.path.exists(out):
            print(proc.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
            return 1
    print(f"{out}: the demo's record {os.path.basename(record)}, 1280x1500")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
