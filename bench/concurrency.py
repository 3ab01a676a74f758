"""Concurrency: N SubagentStop hooks of one deliberation fired at once (default 32).

    python bench/concurrency.py [--agents 32] [--rounds 3] [--python PATH]

All N background research agents report at the same moment, as when a panel finishes
together. Checked: every hook exits 0 without an error message, and all N reports are
recorded in the deliberation (the session lock loses no update). Printed: the total wall
time of the burst against N × the median time of one such hook run alone, and the same
measure for N processes that only start the interpreter and read stdin — the floor of any
command hook on this machine. The target: the burst within 1.1× that floor (on two CPUs a
hook costs about one interpreter start, so a share of N × one below the floor's is out of
reach; an older target of "≤ 40% of N × one" assumed more cores).
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

FLOOR_LIMIT = 1.1  # the burst's share ÷ the bare interpreter's share, at most


READ_STDIN = "import sys; sys.stdin.buffer.read()"


def burst(
    python: str, payloads: "list[bytes]", project: str, argv: "list[str] | None" = None
) -> "tuple[float, list[bytes], list[int]]":
    """Start one SubagentStop hook per payload at once; (total wall s, stdouts, return codes).

    Nothing else of ours runs meanwhile, so the caller can read the burst's CPU time as the
    change of RUSAGE_CHILDREN around it."""
    argv = argv or benchkit.hook_argv(python, "SubagentStop")
    env = benchkit.clean_env(project)
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=project)
        for _ in payloads
    ]
    for proc, data in zip(procs, payloads):
        proc.stdin.write(data)  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
        proc.stdin.close()  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
    outs = [proc.stdout.read() for proc in procs]  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
    codes = [proc.wait() for proc in procs]
    total = time.perf_counter() - t0
    for proc in procs:
        proc.stdout.close()  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
    return total, outs, codes


def single(python: str, template: str, payloads: "list[bytes]", work: str, runs: int, start: int = 0) -> "list[float]":
    """One hook alone on the same prepared state, `runs` times (different agents in turn)."""
    walls = []
    for i in range(start, start + runs):
        benchkit.restore(template, work)
        walls.append(benchkit.run_hook(python, "SubagentStop", payloads[i % len(payloads)], work).wall_s)
    return walls


def bare_share(python: str, payloads: "list[bytes]", work: str, rounds: int, single_runs: int) -> float:
    """The same measure for a process that only starts the interpreter the way the hooks do
    and reads its stdin: what the machine allows before any hook code runs."""
    argv = [python, "-I", "-S", "-c", READ_STDIN]
    one = statistics.median(
        benchkit.run_process(argv, payloads[0], env=benchkit.clean_env(work), cwd=work).wall_s for _ in range(single_runs)
    )
    total = statistics.median(burst(python, payloads, work, argv)[0] for _ in range(rounds))
    return total / (len(payloads) * one)


def worker_peak_mib(python: str) -> "float | None":
    """Peak resident memory of the warm worker serving `python`'s hooks (VmHWM), if one is up."""
    path = subprocess.run(
        [
            python,
            "-I",
            "-S",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from deliberation.wire import worker_protocol; print(worker_protocol.socket_path())",
            benchkit.LIB,
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    pids = subprocess.run(["pgrep", "-f", f"warm_worker.*{path}"], capture_output=True, text=True).stdout.split() if path else []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


def run(python: str, agents: int = 32, rounds: int = 7, single_runs: int = 3, out=sys.stdout) -> "list[Target]":
    """`rounds` × (`single_runs` hooks alone, then one burst), interleaved so that a drift of
    the machine moves both sides of the ratio; medians over all of them."""
    import states

    with tempfile.TemporaryDirectory(prefix="bench-concurrency-") as tmp:
        template = os.path.join(tmp, "template")
        os.makedirs(template)
        payloads = states.concurrent_reports(template, agents)
        work = os.path.join(tmp, "work")
        single(python, template, payloads, work, 2)  # starts the warm worker, warms the page cache
        alone: list[float] = []
        totals, cpus, recorded, problems = [], [], [], []
        for r in range(rounds):
            alone += single(python, template, payloads, work, single_runs, start=r * single_runs)
            benchkit.restore(template, work)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            total, outs, codes = burst(python, payloads, work)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            totals.append(total)
            recorded.append(states.recorded_reports(work))
            problems += [o.decode("utf-8", "replace")[:200] for o in outs if b"deliberation plugin:" in o]
            problems += [f"exit {c}" for c in codes if c != 0]
        bare = bare_share(python, payloads, work, rounds, rounds * single_runs)
        worker_mib = worker_peak_mib(python)
    one = statistics.median(alone)
    total = statistics.median(totals)
    share = total / (agents * one)
    cpu = statistics.median(cpus)
    cores = os.cpu_count() or 1
    floor = cpu / cores / (agents * one)
    all_recorded = all(r == agents for r in recorded) and not problems
    rows = [
        [f"one SubagentStop alone (median of {len(alone)} runs, ms)", ms(one)],
        [f"{agents} at once, total wall (median of {rounds} bursts, ms)", ms(total)],
        [f"{agents} × one alone (ms)", ms(agents * one)],
        ["burst ÷ (N × one)", f"{share:.0%}"],
        [f"CPU time of the burst (s) / {cores} CPUs", f"{cpu:.2f} / {cores}"],
        ["floor on this machine: burst CPU ÷ CPUs ÷ (N × one)", f"{floor:.0%}"],
        ["reports recorded per burst", ", ".join(f"{r}/{agents}" for r in recorded)],
        ["reference: bare interpreter (-I -S, reads stdin), same measure", f"{bare:.0%}"],
        ["warm worker's peak memory (MiB)", f"{worker_mib:.1f}" if worker_mib else "no worker found"],
    ]
    print(f"\nConcurrency — {agents} SubagentStop hooks of one deliberation at once, {python}", file=out)
    print(table(["figure", "value"], rows), file=out)
    for p in problems[:5]:
        print(f"  problem: {p}", file=out)
    vs_floor = share / bare if bare else float("inf")
    print(
        f"  target: burst ≤ {FLOOR_LIMIT}× the bare interpreter's share ({share:.0%} ÷ {bare:.0%} = "
        f"{vs_floor:.2f}×) — {verdict(vs_floor <= FLOOR_LIMIT)}; all reports recorded — "
        f"{verdict(all_recorded)}",
        file=out,
    )
    return [
        Target(
            f"concurrency: {agents} SubagentStops, all recorded", ", ".join(map(str, recorded)), f"{agents} each", all_recorded
        ),
        Target(
            f"concurrency: burst vs {agents} bare interpreters", f"{vs_floor:.2f}×", f"≤ {FLOOR_LIMIT}×", vs_floor <= FLOOR_LIMIT
        ),
    ]


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--python", default=benchkit.default_python())
    args = ap.parse_args(argv)
    run(args.python, args.agents, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
