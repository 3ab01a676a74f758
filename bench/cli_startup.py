"""How long `deliberation --help` and `deliberation --version` take, next to a bare interpreter.

    python bench/cli_startup.py [--runs N] [--python PATH]

Each round runs `python -c pass` and `deliberation --help`, `--version`, `status --help` exactly
as bin/deliberation starts them (`python -c ENTRY`, lib/ on PYTHONPATH; `python -m` is shown for
reference: runpy alone loads importlib.util, contextlib and collections), interleaved, so a noisy machine moves every
row together. Prints the median wall time, the ratio to the bare interpreter and CPU time; the
target is --help and --version ≤ 1.5× the bare start. What they load is tested in
tests/unit/test_cli_startup.py; this script only measures.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchkit
from benchkit import Series, Target, ms, table

TARGET = 1.5
# what bin/deliberation execs: `python -E -c ENTRY <plugin>/lib ARGS`
ENTRY = "import sys; sys.path[0] = sys.argv.pop(1); from deliberation.cli import main; sys.exit(main(sys.argv[1:]))"
LAUNCH = ["-E", "-c", ENTRY, benchkit.LIB]
ROWS = (
    ("bare interpreter (python -c pass)", ["-c", "pass"], None),
    ("deliberation --help", [*LAUNCH, "--help"], TARGET),
    ("deliberation --version", [*LAUNCH, "--version"], TARGET),
    ("reference: python -m deliberation --version", ["-m", "deliberation", "--version"], None),
    ("reference: deliberation status --help", [*LAUNCH, "status", "--help"], None),
)


def run(python: str, runs: int, out=sys.stdout) -> "list[Target]":
    env = {**benchkit.clean_env(None), "PYTHONPATH": benchkit.LIB}
    series = [Series(name) for name, _, _ in ROWS]
    for _ in range(runs + 1):  # the first round warms the file cache and is dropped
        for s, (_, args, _) in zip(series, ROWS):
            sample = benchkit.run_process([python, *args], env=env)
            if sample.returncode not in (0, 2):
                raise RuntimeError(f"{s.name} exited {sample.returncode}")
            s.samples.append(sample)
    for s in series:
        del s.samples[0]
    bare = series[0]
    rows, targets = [], []
    for s, (_, _, target) in zip(series, ROWS):
        ratio = s.median() / bare.median()
        p25, p75 = s.quartiles()
        rows.append(
            [
                s.name,
                ms(s.median()),
                f"{ms(p25)}–{ms(p75)}",
                f"{ratio:.2f}",
                ms(s.cpu_median()),
                f"≤{target}×" if target else "",
                benchkit.verdict(ratio <= target) if target else "",
            ]
        )
        if target:
            targets.append(Target(f"cli: {s.name}", f"{ratio:.2f}× bare", f"≤{target}×", ratio <= target))
    print(f"\nCLI start — {runs} interleaved runs per row, whole process, {python}", file=out)
    print(table(["command", "median ms", "p25–p75 ms", "×bare", "cpu ms", "target", ""], rows), file=out)
    return targets


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--python", default=benchkit.default_python())
    args = ap.parse_args(argv)
    run(args.python, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
