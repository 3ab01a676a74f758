"""How well the trigger picks the decisions that matter, on the labelled samples of tests/data/trigger/.

    python bench/trigger_quality.py                 # every figure
    python bench/trigger_quality.py --misses tuning # also list the tuning half's misses

Printed: per half of labelled.jsonl, recall (risky prompts that deliberate), the routine
prompts that deliberate (false-positive rate), precision; the share of an ordinary day that
deliberates; the mid-task net on tool_calls.jsonl (notes on routine calls, risky calls caught).
Misses are listed for the tuning half only: the held-out half is scored, never read for tuning.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass

import benchkit

DATA = os.path.join(benchkit.ROOT, "tests", "data", "trigger")


def load(name: str) -> "list[dict]":
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@dataclass
class Figures:
    """Risky = positive. `fired` holds the rows that deliberated."""

    risky: int
    routine: int
    true_pos: int
    false_pos: int
    misses: "list[tuple[float, dict]]"
    false_alarms: "list[tuple[float, dict]]"

    @property
    def recall(self) -> float:
        return self.true_pos / self.risky if self.risky else 1.0

    @property
    def fp_rate(self) -> float:
        return self.false_pos / self.routine if self.routine else 0.0

    @property
    def precision(self) -> float:
        fired = self.true_pos + self.false_pos
        return self.true_pos / fired if fired else 1.0

    @property
    def fired_rate(self) -> float:
        return (self.true_pos + self.false_pos) / (self.risky + self.routine)


def prompt_figures(rows: "list[dict]", cfg: "dict | None" = None) -> Figures:
    """The trigger (confidence.evaluate with `cfg`, default config when None) over labelled prompts."""
    from deliberation.core import confidence

    f = Figures(0, 0, 0, 0, [], [])
    for r in rows:
        e = confidence.evaluate(r["prompt"], cfg)
        risky = r["label"] == "risky"
        if risky:
            f.risky += 1
            f.true_pos += e["triggered"]
            if not e["triggered"]:
                f.misses.append((e["confidence"], r))
        else:
            f.routine += 1
            f.false_pos += e["triggered"]
            if e["triggered"]:
                f.false_alarms.append((e["confidence"], r))
    return f


def tool_figures(rows: "list[dict]") -> Figures:
    """The mid-task net (tool_net.check) over labelled tool calls, none with a deliberation on record."""
    from deliberation.core import tool_net

    f = Figures(0, 0, 0, 0, [], [])
    for r in rows:
        hit = tool_net.check(r["tool_name"], r["tool_input"], risky_prompt=r["after_risky_prompt"]) is not None
        if r["label"] == "risky":
            f.risky += 1
            f.true_pos += hit
            if not hit:
                f.misses.append((0.0, r))
        else:
            f.routine += 1
            f.false_pos += hit
            if hit:
                f.false_alarms.append((0.0, r))
    return f


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def report(out=sys.stdout, misses: "str | None" = None) -> "dict[str, Figures]":
    labelled = load("labelled.jsonl")
    result: "dict[str, Figures]" = {}
    rows = []
    for half in ("tuning", "heldout"):
        f = result[half] = prompt_figures([r for r in labelled if r["half"] == half])
        rows.append(
            [half, f"{f.true_pos}/{f.risky} = {pct(f.recall)}", f"{f.false_pos}/{f.routine} = {pct(f.fp_rate)}", pct(f.precision)]
        )
    print("\nTrigger on labelled.jsonl (risky decision = positive)", file=out)
    print(benchkit.table(["half", "recall (risky that deliberate)", "routine that deliberate", "precision"], rows), file=out)
    day = load("mixed_day.jsonl")
    f = result["mixed_day"] = prompt_figures(day)
    print(
        f"\nOrdinary day (mixed_day.jsonl, {len(day)} prompts, {f.risky} labelled risky): "
        f"{f.true_pos + f.false_pos} deliberate = {pct(f.fired_rate)} "
        f"(recall {f.true_pos}/{f.risky}, routine {f.false_pos}/{f.routine})",
        file=out,
    )
    try:
        t = result["tool_calls"] = tool_figures(load("tool_calls.jsonl"))
        print(
            f"\nMid-task net (tool_calls.jsonl): notes on routine calls {t.false_pos}/{t.routine} = {pct(t.fp_rate)}; "
            f"risky calls caught {t.true_pos}/{t.risky} = {pct(t.recall)}",
            file=out,
        )
    except ImportError:
        print("\nMid-task net: not built", file=out)
    if misses:
        f = result[misses]
        print(f"\n{misses}: risky prompts that do not deliberate", file=out)
        for conf, r in sorted(f.misses, key=lambda x: -x[0]):
            print(f"  {conf:.2f}  [{r.get('area', '')}] {r['prompt'][:150]}", file=out)
        print(f"{misses}: routine prompts that deliberate", file=out)
        for conf, r in sorted(f.false_alarms, key=lambda x: x[0]):
            print(f"  {conf:.2f}  [{r.get('area', '')}] {r['prompt'][:150]}", file=out)
    return result


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--misses",
        choices=("tuning", "mixed_day", "tool_calls"),
        help="list the misses and false alarms of this sample (never of the held-out half)",
    )
    args = ap.parse_args(argv)
    benchkit.setup_paths()
    report(misses=args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
