"""Hook latency: each hook script per event, whole process, as a ratio to the bare interpreter.

    python bench/hook_latency.py [--runs N] [--python PATH]

Every round runs `python -c pass` and then each scenario once, interleaved, each scenario on a
fresh copy of its prepared state. Printed per scenario: median wall time, the p25–p75 spread,
median ÷ the bare interpreter's median, median CPU time, peak RSS — and the target:
fast paths ≤ 2.5×, lock-and-write paths ≤ 8×, the heavy path ≤ 12×, every process ≤ 60 MiB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass

import benchkit
from benchkit import Series, Target, ms, table, verdict

FAST, WRITE, HEAVY, FLOOR = "fast", "lock+write", "heavy", "reference"
LIMITS = {FAST: 2.5, WRITE: 8.0, HEAVY: 12.0}
PEAK_MIB = 60.0


@dataclass
class Scenario:
    name: str
    event: str
    group: str
    template: str
    payload: bytes
    expect: str = ""  # a substring the answer must contain (proves the intended path ran)
    code: str = ""  # a reference row: `python -c code` with lib/ on the path instead of a hook
    cold: bool = False  # run where no warm worker is up (the hook works in its own process)
    env: "dict[str, str] | None" = None  # added to the hook's environment


# What a slow-path hook cannot avoid while the state models are pydantic models: importing
# pydantic, then building the models (state, report, config) — no state read, no hook work.
REFERENCES = (
    ("reference: import pydantic (BaseModel)", "from pydantic import BaseModel"),
    ("reference: import the pydantic models", "import deliberation.state.models, deliberation.state.config"),
)


def build_scenarios(base: str) -> "list[Scenario]":
    """Prepare every scenario's state under `base` (one project directory per template).

    Each fast path is measured twice: with no warm worker up (the usual case outside a
    deliberation: the hook tries the worker's socket, finds nobody, answers in-process) and
    with one up (during a deliberation every hook goes to it). The slow paths run with the
    worker up; one reference row shows a slow path with none (the first hook of a burst)."""
    import states

    def project(name: str) -> str:
        path = os.path.join(base, name)
        os.makedirs(path)
        return path

    routine_dir = project("routine")
    fast = states.routine(routine_dir)
    spawn_dir, report_dir, conclude_dir, rank_dir, cold_report_dir = (
        project(n) for n in ("spawn", "report", "conclude", "rank", "report-cold")
    )
    fast_rows = [
        ("UserPromptSubmit, routine prompt", "UserPromptSubmit", fast["prompt"]),
        ("PreToolUse Edit, nothing escalated", "PreToolUse", fast["edit"]),
        ("PreToolUse Bash, nothing escalated", "PreToolUse", fast["bash"]),
        ("PreToolUse Read, main agent", "PreToolUse", fast["read"]),
        ("PreToolUse Grep, research agent over the root (refused)", "PreToolUse", fast["grep_agent"]),
        ("Stop, no active deliberation", "Stop", fast["stop"]),
        ("SessionStart, self-rating, no prune due", "SessionStart", fast["start"]),
    ]
    off = {"DELIBERATION": "off"}
    return [
        *(Scenario(f"{name} — no worker up", event, FAST, routine_dir, payload, cold=True) for name, event, payload in fast_rows),
        Scenario(
            "UserPromptSubmit, checks off (DELIBERATION=off) — no worker up",
            "UserPromptSubmit",
            FAST,
            routine_dir,
            fast["risky"],
            cold=True,
            env=off,
        ),
        Scenario(
            "PreToolUse Agent, checks off (DELIBERATION=off) — no worker up",
            "PreToolUse",
            FAST,
            routine_dir,
            fast["agent"],
            cold=True,
            env=off,
        ),
        *(Scenario(f"{name} — worker up", event, FAST, routine_dir, payload) for name, event, payload in fast_rows),
        Scenario("PreToolUse Agent, spawn a persona", "PreToolUse", WRITE, spawn_dir, states.spawn(spawn_dir)),
        Scenario("SubagentStop, record a report", "SubagentStop", WRITE, report_dir, states.report(report_dir)),
        Scenario(
            "PostToolUse, last ranking of 10x5",
            "PostToolUse",
            HEAVY,
            rank_dir,
            states.last_ranking(rank_dir),
            expect="consensus gate passed",
        ),
        Scenario(
            "Stop, conclude 10x5 (gates, route)", "Stop", HEAVY, conclude_dir, states.conclude(conclude_dir), expect="COMPLETE"
        ),
        Scenario(
            "reference: SubagentStop, no worker (in-process)",
            "SubagentStop",
            FLOOR,
            cold_report_dir,
            states.report(cold_report_dir),
            cold=True,
        ),
    ] + [Scenario(name, "", FLOOR, routine_dir, b"", code=code) for name, code in REFERENCES]


def argv_env(python: str, sc: Scenario, project: str, cold_python: str) -> "tuple[list[str], dict[str, str]]":
    if sc.code:
        return [python, "-c", f"import gc; gc.disable(); {sc.code}"], {**benchkit.clean_env(project), "PYTHONPATH": benchkit.LIB}
    env = {**benchkit.clean_env(project), **(sc.env or {})}
    if sc.cold:  # the same interpreter by another path: another worker address, nobody listening
        if sc.group != FAST:
            env["DELIBERATION_WORKER"] = "0"  # a slow path would start a worker: this row must not
        return benchkit.hook_argv(cold_python, sc.event), env
    return benchkit.hook_argv(python, sc.event), env


def cold_interpreter(python: str, base: str) -> str:
    """`python` under another path (a symlink): the warm worker's address includes the
    interpreter's path, so hooks run by it find no worker — as before any deliberation."""
    folder = os.path.join(base, "no-worker")
    os.makedirs(folder, exist_ok=True)
    link = os.path.join(folder, "python")
    if not os.path.lexists(link):
        os.symlink(os.path.realpath(python), link)
    return link


def check_answer(sc: Scenario, stdout: bytes) -> None:
    """A scenario that fell onto an error path measures the wrong thing: stop there."""
    text = stdout.decode("utf-8", "replace")
    if "deliberation plugin:" in text or (sc.expect and sc.expect not in text):
        raise RuntimeError(f"scenario {sc.name!r} did not take its intended path; answer: {text[:400]}")


def measure(
    python: str, scenarios: "list[Scenario]", runs: int, work: str, warmup: int = 1, memory_runs: int = 2
) -> "tuple[Series, dict[str, Series]]":
    """`runs` interleaved rounds of bare + every scenario (after `warmup` unrecorded rounds),
    then `memory_runs` rounds through the memory launcher (peak RSS)."""
    bare = Series("bare interpreter (python -c pass)")
    series = {sc.name: Series(sc.name) for sc in scenarios}
    cold = cold_interpreter(python, work)
    for i in range(warmup + runs):
        rec = i >= warmup
        sample = benchkit.bare(python)
        if rec:
            bare.samples.append(sample)
        for j, sc in enumerate(scenarios):
            project = os.path.join(work, f"s{j}")
            benchkit.restore(sc.template, project)
            argv, env = argv_env(python, sc, project, cold)
            sample = benchkit.run_process(argv, sc.payload, env=env, cwd=project)
            if sample.returncode != 0:
                raise RuntimeError(f"scenario {sc.name!r}: hook exited {sample.returncode}")
            if i == 0:
                check_answer(sc, sample.stdout)
            if rec:
                series[sc.name].samples.append(sample)
    for _ in range(memory_runs):
        bare.peak_kib.append(benchkit.peak_rss_kib(benchkit.bare_argv(python), env=benchkit.clean_env(None)))
        for j, sc in enumerate(scenarios):
            project = os.path.join(work, f"s{j}")
            benchkit.restore(sc.template, project)
            argv, env = argv_env(python, sc, project, cold)
            series[sc.name].peak_kib.append(benchkit.peak_rss_kib(argv, sc.payload, env=env, cwd=project))
    return bare, series


def render(bare: Series, series: "dict[str, Series]", scenarios: "list[Scenario]") -> "tuple[str, list[Target]]":
    base = bare.median()
    lo, hi = bare.quartiles()
    base_cpu = bare.cpu_median()
    rows = [[bare.name, "-", ms(base), f"{ms(lo)}–{ms(hi)}", "1.00", ms(base_cpu), "1.00", f"{bare.peak_mib():.1f}", "", ""]]
    targets: list[Target] = []
    for sc in scenarios:
        s = series[sc.name]
        ratio = s.median() / base
        lo, hi = s.quartiles()
        limit = LIMITS.get(sc.group)
        ok = limit is None or ratio <= limit
        rows.append(
            [
                sc.name,
                sc.group,
                ms(s.median()),
                f"{ms(lo)}–{ms(hi)}",
                f"{ratio:.2f}",
                ms(s.cpu_median()),
                f"{s.cpu_median() / base_cpu:.2f}",
                f"{s.peak_mib():.1f}",
                f"≤{limit:g}×" if limit else "",
                verdict(ok) if limit else "",
            ]
        )
        if limit is not None:
            targets.append(Target(f"latency: {sc.name}", f"{ratio:.2f}× bare", f"≤ {limit:g}×", ok))
    peak = max(series[sc.name].peak_mib() for sc in scenarios if not sc.code)
    targets.append(Target("peak memory of a hook process", f"{peak:.1f} MiB", f"≤ {PEAK_MIB:g} MiB", peak <= PEAK_MIB))
    text = table(["scenario", "path", "median ms", "p25–p75 ms", "×bare", "cpu ms", "cpu ×bare", "peak MiB", "target", ""], rows)
    text += (
        "\n  ×bare: median wall time ÷ the bare interpreter's (the target); cpu ×bare: the same for CPU "
        "time (user+sys), steadier on a busy machine"
    )
    return text, targets


def run(python: str, runs: int, out=sys.stdout, warmup: int = 1, memory_runs: int = 2) -> "list[Target]":
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        os.makedirs(os.path.join(tmp, "templates"))
        scenarios = build_scenarios(os.path.join(tmp, "templates"))
        bare, series = measure(python, scenarios, runs, tmp, warmup, memory_runs)
    text, targets = render(bare, series, scenarios)
    print(f"\nHook latency — {runs} interleaved runs per row, whole process, {python}", file=out)
    print(text, file=out)
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
