"""Concurrency: N SubagentStop hooks of one deliberation fired at once (default 32).

    python bench/concurrency.py [--agents 32] [--rounds 3] [--python PATH]

All N background research agents report at the same moment, as when a panel finishes
together. Checked: every hook exits 0 without an error message, and all N reports are
recorded in the deliberation (the session lock loses no update). Printed: the total wall
time of the burst against N × the median time of one such hook run alone; the target
(issue #9) is at most 40% — the lock is held only around the read-modify-write.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import benchkit
from benchkit import Target, ms, table, verdict

SHARE_LIMIT = 0.40


def burst(python: str, payloads: "list[bytes]", project: str) -> "tuple[float, list[bytes], list[int]]":
    """Start one SubagentStop hook per payload at once; (total wall s, stdouts, return codes).

    Nothing else of ours runs meanwhile, so the caller can read the burst's CPU time as the
    change of RUSAGE_CHILDREN around it."""
    argv = benchkit.hook_argv(python, "SubagentStop")
    env = benchkit.clean_env(project)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env, cwd=project) for _ in payloads]
    for proc, data in zip(procs, payloads):
        proc.stdin.write(data)  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    outs = [proc.stdout.read() for proc in procs]  # type: ignore[union-attr]
    codes = [proc.wait() for proc in procs]
    total = time.perf_counter() - t0
    for proc in procs:
        proc.stdout.close()  # type: ignore[union-attr]
    return total, outs, codes


def single(python: str, template: str, payloads: "list[bytes]", work: str, runs: int) -> "list[float]":
    """One hook alone on the same prepared state, `runs` times (different agents in turn)."""
    walls = []
    for i in range(runs + 1):
        benchkit.restore(template, work)
        sample = benchkit.run_hook(python, "SubagentStop", payloads[i % len(payloads)], work)
        if i:  # the first run warms the page cache
            walls.append(sample.wall_s)
    return walls


def run(python: str, agents: int = 32, rounds: int = 3, single_runs: int = 9, out=sys.stdout) -> "list[Target]":
    import states

    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as tmp:
        template = os.path.join(tmp, "template")
        os.makedirs(template)
        payloads = states.concurrent_reports(template, agents)
        work = os.path.join(tmp, "work")
        one = statistics.median(single(python, template, payloads, work, single_runs))
        totals, cpus, recorded, problems = [], [], [], []
        for _ in range(rounds):
            benchkit.restore(template, work)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            total, outs, codes = burst(python, payloads, work)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            totals.append(total)
            recorded.append(states.recorded_reports(work))
            problems += [o.decode("utf-8", "replace")[:200] for o in outs if b"deliberation plugin:" in o]
            problems += [f"exit {c}" for c in codes if c != 0]
    total = statistics.median(totals)
    share = total / (agents * one)
    cpu = statistics.median(cpus)
    cores = os.cpu_count() or 1
    floor = cpu / cores / (agents * one)
    all_recorded = all(r == agents for r in recorded) and not problems
    rows = [
        ["one SubagentStop alone (median ms)", ms(one)],
        [f"{agents} at once, total wall (median of {rounds} bursts, ms)", ms(total)],
        [f"{agents} × one alone (ms)", ms(agents * one)],
        ["burst ÷ (N × one)", f"{share:.0%}"],
        [f"CPU time of the burst (s) / {cores} CPUs", f"{cpu:.2f} / {cores}"],
        ["floor on this machine: burst CPU ÷ CPUs ÷ (N × one)", f"{floor:.0%}"],
        ["reports recorded per burst", ", ".join(f"{r}/{agents}" for r in recorded)],
    ]
    print(f"\nConcurrency — {agents} SubagentStop hooks of one deliberation at once, {python}", file=out)
    print(table(["figure", "value"], rows), file=out)
    for p in problems[:5]:
        print(f"  problem: {p}", file=out)
    print(f"  target: burst ≤ {SHARE_LIMIT:.0%} of N × one — {verdict(share <= SHARE_LIMIT)}; "
          f"all reports recorded — {verdict(all_recorded)}", file=out)
    return [Target(f"concurrency: {agents} SubagentStops, all recorded", ", ".join(map(str, recorded)),
                   f"{agents} each", all_recorded),
            Target(f"concurrency: burst vs {agents} × one", f"{share:.0%}", f"≤ {SHARE_LIMIT:.0%}",
                   share <= SHARE_LIMIT)]


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python", default=benchkit.default_python())
    args = ap.parse_args(argv)
    run(args.python, args.agents, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
