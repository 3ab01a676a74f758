"""Scaling: in-process gate evaluation by panel size, and hook latency by event-log length.

    python bench/scaling.py [--repeats N] [--runs N] [--python PATH]

1. Gate evaluation in this process (no imports, no I/O) for 10, 50 and 100 ranking agents ×
   20 approaches, with as many research reports and a red-team pass: the vote
   (`engine.evaluate_vote`: ranking, conformity detectors, Gate 1), Gate 2
   (`quality_gate.evaluate`) and hot-spot detection (`hot_spots.find_hot_spots`). Target
  : 100 × 20 within 50 ms.
2. The same hooks against a session whose event log holds a handful of events and one that
   holds 5,000 more (interleaved, whole process). Target: the same latency — the long log's
   median within 15% of the short one's (hooks never read the whole log).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import benchkit
from benchkit import Series, Target, ms, table, verdict

SIZES = (10, 50, 100)
N_APPROACHES = 20
LIMIT_S = 0.050
LOG_EVENTS = 5000
SAME_LATENCY = 1.15


# ---------------------------------------------------------------------------------------------
# 1. in-process gate evaluation


def panel(n_agents: int, n_approaches: int = N_APPROACHES, seed: int = 11):
    """A deliberation in RANKING: n research reports, a red-team pass, n ranking reports of
    n_approaches each (personas cycle through the ten; texts vary so detectors must compare)."""
    import random

    from deliberation.core.personas import RED_TEAM, RESEARCH_PERSONAS
    from deliberation.state.agent_report import AgentReport
    from deliberation.state.models import AgentRecord, Deliberation

    rng = random.Random(seed)
    personas = list(RESEARCH_PERSONAS)
    ids = [f"A{i + 1}" for i in range(n_approaches)]
    dims = ("correctness", "risk", "maintainability", "performance", "cost")
    d = Deliberation(
        id="d-scale-1",
        session_id="s-scale",
        question="How should order events reach the bus?",
        phase="RANKING",
        initial_confidence=0.45,
        threshold=0.70,
    )

    def record(i: int, stage: str, kind: str, persona: str, report: dict) -> AgentRecord:
        key = f"a{stage[:2]}{i:04d}"
        return AgentRecord(
            key=key,
            agent_id=key,
            persona=persona,
            kind=kind,
            stage=stage,
            status="reported",
            spawned_at=1.0 + i,
            reported_at=2.0 + i,
            report=AgentReport.model_validate({"phase": stage, **report}),
        )

    for i in range(n_agents):
        p = personas[i % len(personas)]
        d.agents.append(
            record(
                i,
                "research",
                "persona",
                p,
                {
                    "summary": f"{p} view #{i}",
                    "findings": [
                        {
                            "id": "F1",
                            "claim": f"{p} finding {i}: the relay loses events after {rng.randint(2, 90)} retries",
                            "evidence": f"src/relay_{i}.py:{rng.randint(1, 400)}",
                            "severity": "high",
                        },
                        {
                            "id": "F2",
                            "claim": f"{p} finding {i}: partition {rng.randint(1, 64)} reorders events",
                            "evidence": f"docs/ops-{i}.md",
                            "severity": "medium",
                        },
                    ],
                    "approaches": [{"id": a, "title": f"Approach {a} as seen by {p}"} for a in ids[: 2 + i % 3]],
                    "confidence": 0.5,
                },
            )
        )
    d.agents.append(
        record(
            n_agents,
            "deliberation",
            "red-team",
            RED_TEAM,
            {
                "summary": "red team",
                "refutations": [
                    {
                        "target": f"{personas[j % len(personas)]}:F1",
                        "verdict": "refuted",
                        "claim": f"retries are bounded at {j + 3}",
                        "evidence": f"config/relay.yaml line {j + 10}",
                    }
                    for j in range(min(5, n_agents))
                ],
                "missed_angles": ["ordering across partitions", "poison messages"],
            },
        )
    )
    for i in range(n_agents):
        p = personas[i % len(personas)]
        scores = {
            a: {dm: round(min(10.0, max(0.0, (8.0 if a == "A1" else 5.0) + rng.uniform(-2, 2))), 1) for dm in dims} for a in ids
        }
        reject = i % 7 == 3
        d.agents.append(
            record(
                1000 + i,
                "ranking",
                "persona",
                p,
                {
                    "scores": scores,
                    "verdict": "reject" if reject else "approve",
                    "preferred_approach": "A1",
                    "rationale": f"{p} #{i}: {rng.choice(['latency', 'cost', 'safety', 'operability'])} dominates "
                    f"because of {rng.randint(1, 999)} observed incidents",
                    "dissent": [
                        {
                            "target": "A1",
                            "concern": f"{p} #{i} worries about relay lag of {rng.randint(1, 60)} s",
                            "reason": f"measured in load test {rng.randint(1, 50)}",
                        }
                    ]
                    if reject or i % 5 == 0
                    else [],
                    "confidence": round(rng.uniform(0.5, 0.9), 2),
                },
            )
        )
    return d


def evaluate_once(delib, cfg) -> "dict[str, float]":
    """Seconds spent in each part of one gate evaluation."""
    from deliberation.core import engine, quality_gate
    from deliberation.core.depth import hot_spots

    t0 = time.perf_counter()
    engine.evaluate_vote(delib, cfg, 1000.0)
    t1 = time.perf_counter()
    quality_gate.evaluate(delib, cfg, 1000.0)
    t2 = time.perf_counter()
    hot_spots.find_hot_spots(delib)
    t3 = time.perf_counter()
    return {"vote": t1 - t0, "gate2": t2 - t1, "hot": t3 - t2, "total": t3 - t0}


def _median_runs(delib, cfg, repeats: int, collect: bool) -> "dict[str, float]":
    """Median seconds per part; `collect` False runs with the cyclic GC off, as a hook process does
    (hook_runner.run disables it for its short life)."""
    import gc

    was = gc.isenabled()
    (gc.enable if collect else gc.disable)()
    try:
        runs = [evaluate_once(delib, cfg) for _ in range(repeats)]
    finally:
        (gc.enable if was else gc.disable)()
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def gate_scaling(repeats: int, sizes=SIZES) -> "tuple[list[list[str]], dict[int, float], dict[int, int]]":
    """Rows of the table; totals (as in a hook: GC off) and conformity warnings per panel size."""
    from deliberation.state.config import Config

    cfg = Config()
    rows, totals, warnings = [], {}, {}
    for n in sizes:
        delib = panel(n)
        evaluate_once(delib, cfg)  # warm: lazily imported modules, first-use model builds
        hook = _median_runs(delib, cfg, repeats, collect=False)
        lib = _median_runs(delib, cfg, repeats, collect=True)
        totals[n] = hook["total"]
        warnings[n] = len(delib.conformity)
        rows.append(
            [
                f"{n} agents × {N_APPROACHES}",
                ms(hook["vote"]),
                ms(hook["gate2"]),
                ms(hook["hot"]),
                ms(hook["total"]),
                ms(lib["total"]),
                str(len(delib.conformity)),
                f"{delib.ranking.consensus:.2f}" if delib.ranking else "-",
            ]
        )
    return rows, totals, warnings


# ---------------------------------------------------------------------------------------------
# 2. event-log length


def log_scenarios(base: str, events: int = LOG_EVENTS) -> "list[tuple[str, str, str, str, bytes]]":
    """(name, event, short-log template, long-log template, payload) for each measured hook."""
    import states

    out = []
    for name, event, build in (
        ("UserPromptSubmit, routine prompt", "UserPromptSubmit", lambda p: states.routine(p)["prompt"]),
        ("PreToolUse Agent, first spawn", "PreToolUse", states.first_spawn),
        ("SubagentStop, record a report", "SubagentStop", states.report),
    ):
        short, long = os.path.join(base, f"{event}-short"), os.path.join(base, f"{event}-long")
        os.makedirs(short)
        payload = build(short)
        benchkit.restore(short, long)
        states.pad_events(long, states.SID, events)
        out.append((name, event, short, long, payload))
    return out


def log_scaling(python: str, runs: int, events: int = LOG_EVENTS) -> "tuple[list[list[str]], list[Target]]":
    import states

    rows, targets = [], []
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        os.makedirs(os.path.join(tmp, "t"))
        scen = log_scenarios(os.path.join(tmp, "t"), events)
        counts = {name: (states.event_count(s, states.SID), states.event_count(l, states.SID)) for name, _, s, l, _ in scen}
        series = {(name, which): Series(f"{name} {which}") for name, *_ in scen for which in ("short", "long")}
        work = os.path.join(tmp, "w")
        for i in range(runs + 1):
            for name, event, short, long, payload in scen:
                for which, template in (("short", short), ("long", long)):
                    benchkit.restore(template, work)
                    sample = benchkit.run_hook(python, event, payload, work)
                    if i:
                        series[(name, which)].samples.append(sample)
    for name, *_ in scen:
        a, b = series[(name, "short")], series[(name, "long")]
        ratio = b.median() / a.median()
        ok = ratio <= SAME_LATENCY
        n_short, n_long = counts[name]
        rows.append([name, f"{n_short}", ms(a.median()), f"{n_long}", ms(b.median()), f"{ratio:.2f}", verdict(ok)])
        targets.append(Target(f"event log: {name}, {n_long} vs {n_short} events", f"{ratio:.2f}×", f"≤ {SAME_LATENCY:g}×", ok))
    return rows, targets


def run(python: str, repeats: int = 15, runs: int = 15, out=sys.stdout, sizes=SIZES, events: int = LOG_EVENTS) -> "list[Target]":
    benchkit.setup_paths()
    rows, totals, _ = gate_scaling(repeats, sizes)
    print(f"\nScaling — in-process gate evaluation (median of {repeats}; ms)", file=out)
    print(
        table(["panel", "vote+Gate 1", "Gate 2", "hot spots", "total", "total, GC on", "conformity warnings", "consensus"], rows),
        file=out,
    )
    print("  (columns 2-5 as in a hook process, cyclic GC off; 'GC on' as a library call in a long-lived process)", file=out)
    biggest = max(totals)
    ok = totals[biggest] <= LIMIT_S
    print(f"  target: {biggest} × {N_APPROACHES} within {ms(LIMIT_S)} ms — {ms(totals[biggest])} ms {verdict(ok)}", file=out)
    targets = [
        Target(f"scaling: gate evaluation {biggest} × {N_APPROACHES}", f"{ms(totals[biggest])} ms", f"≤ {ms(LIMIT_S)} ms", ok)
    ]
    log_rows, log_targets = log_scaling(python, runs, events)
    print(f"\nScaling — hook latency by event-log length ({runs} interleaved runs; whole process, ms), {python}", file=out)
    print(table(["hook", "events", "median", "events", "median", "long ÷ short", ""], log_rows), file=out)
    return targets + log_targets


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--python", default=benchkit.default_python())
    args = ap.parse_args(argv)
    run(args.python, args.repeats, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
