"""The whole benchmark in one command: hook latency, concurrency, scaling, a whole deliberation, its cost.

    python bench/run.py            # full (about 31 runs per latency row; a few minutes)
    python bench/run.py --quick    # a rough look in well under a minute
    python bench/run.py --python /path/to/venv/bin/python

Prints the machine, each part's table and a summary with PASS/FAIL per target. Exits 0
whatever the figures: this is a measurement, not a test. The hooks run under `--python`
(default: the plugin's .venv/bin/python, what hooks/run.sh uses, else this interpreter);
states are prepared in this process, which therefore needs the plugin's dependencies — when
it lacks them, the benchmark re-runs itself under `--python`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchkit
from benchkit import table


def _has_dependencies() -> bool:
    try:
        import orjson  # noqa: F401 - imported to check it is installed
        import pydantic  # noqa: F401 - imported to check it is installed
    except ImportError:
        return False
    return True


def settings(quick: bool) -> dict:
    if quick:
        return {"runs": 5, "agents": 32, "rounds": 2, "single": 3, "repeats": 5, "log_runs": 3, "whole": 2}
    return {"runs": 31, "agents": 32, "rounds": 9, "single": 3, "repeats": 15, "log_runs": 15, "whole": 7}


def run_all(python: str, cfg: dict, out=sys.stdout) -> "list[benchkit.Target]":
    import cli_startup
    import concurrency
    import deliberation_cost
    import hook_latency
    import scaling
    import whole_deliberation

    benchkit.setup_paths()
    print(f"Machine: {benchkit.machine()}", file=out)
    print(f"Python under test: {python} ({benchkit.python_version(python)}); benchmark process: {sys.executable}", file=out)
    targets = hook_latency.run(python, cfg["runs"], out=out)
    targets += concurrency.run(python, cfg["agents"], cfg["rounds"], cfg["single"], out=out)
    targets += scaling.run(python, cfg["repeats"], cfg["log_runs"], out=out)
    targets += cli_startup.run(python, cfg["runs"], out=out)
    targets += whole_deliberation.run(cfg["whole"], out=out)
    targets += deliberation_cost.run(out=out)
    return targets


def summary(targets: "list[benchkit.Target]") -> str:
    rows = [[t.name, t.figure, t.target, benchkit.verdict(t.ok)] for t in targets]
    passed = sum(t.ok for t in targets)
    return table(["target", "measured", "target", ""], rows) + f"\n{passed} of {len(targets)} targets met"


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few runs: a rough look, not figures to quote")
    ap.add_argument("--python", default=benchkit.default_python(), help="the interpreter the hooks run under")
    args = ap.parse_args(argv)
    if not _has_dependencies():
        if os.path.realpath(args.python) == os.path.realpath(sys.executable):
            print("bench: this interpreter lacks pydantic/orjson; run install.sh or pass --python", file=sys.stderr)
            return 0
        os.execv(args.python, [args.python, os.path.abspath(__file__), *(argv if argv is not None else sys.argv[1:])])
    t0 = time.perf_counter()
    targets = run_all(args.python, settings(args.quick))
    print(f"\nSummary ({'quick' if args.quick else 'full'} run, {time.perf_counter() - t0:.0f} s)")
    print(summary(targets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
