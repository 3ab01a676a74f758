"""How well the trigger picks the decisions that matter, on the labelled samples of tests/data/trigger/.

    python bench/trigger_quality.py                 # every figure
    python bench/trigger_quality.py --misses tuning # also list the tuning half's misses
    python bench/trigger_quality.py --prompts P.jsonl --commands C.jsonl [--misses-of-set]
                                                    # a set in the blind format, scored alone

Printed: per half of labelled.jsonl, recall (risky prompts that start a deliberation or a hold),
the routine prompts that do (false-positive rate), precision; the share of an ordinary day that
does; the mid-task net on tool_calls.jsonl (routine calls noted or held, risky calls caught, and
what the default `hold` holds before the call runs). Misses are listed for the tuning half only:
the held-out half is scored, never read for tuning.

`--prompts` reads `{"prompt", "label", "lang", "why"}` lines (label `risky` or `routine`),
`--commands` reads `{"command", "label", "why"}` lines (label `routine`, anything else is an
irreversible step): risky prompts caught and routine flagged, overall and per language, and the
commands the default net holds before they run.
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
    held_routine: int = 0  # routine calls held before they ran
    holds: int = 0  # prompts that got a hold rather than a deliberation; calls held before they ran

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
    """The trigger (trigger.score_prompt with `cfg`, default config when None) over labelled prompts:
    a prompt fires when it starts a deliberation or a hold (an irreversible act the user decided)."""
    from deliberation.core import trigger

    f = Figures(0, 0, 0, 0, [], [])
    for r in rows:
        result, _context = trigger.score_prompt(r["prompt"], cfg)
        fired = bool(result["triggered"] or result.get("held"))
        f.holds += bool(result.get("held"))
        risky = r["label"] == "risky"
        if risky:
            f.risky += 1
            f.true_pos += fired
            if not fired:
                f.misses.append((result["confidence"], r))
        else:
            f.routine += 1
            f.false_pos += fired
            if fired:
                f.false_alarms.append((result["confidence"], r))
    return f


def tool_figures(rows: "list[dict]", mode: str = "hold") -> Figures:
    """The mid-task net (tool_net.check) over labelled tool calls, none with a deliberation on
    record; `holds` counts the calls `mode` holds before they run."""
    from deliberation.core import tool_net

    f = Figures(0, 0, 0, 0, [], [])
    for r in rows:
        call = tool_net.check(r["tool_name"], r["tool_input"], risky_prompt=r["after_risky_prompt"])
        hit = call is not None
        f.holds += hit and r["label"] == "risky" and tool_net.holds(mode, call.kind)
        f.held_routine += hit and r["label"] != "risky" and tool_net.holds(mode, call.kind)
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
    heads = ["half", "recall (risky: deliberation or hold)", "routine: deliberation or hold", "precision"]
    print(benchkit.table(heads, rows), file=out)
    day = load("mixed_day.jsonl")
    f = result["mixed_day"] = prompt_figures(day)
    print(
        f"\nOrdinary day (mixed_day.jsonl, {len(day)} prompts, {f.risky} labelled risky): "
        f"{f.true_pos + f.false_pos} deliberate or hold = {pct(f.fired_rate)} "
        f"(recall {f.true_pos}/{f.risky}, routine {f.false_pos}/{f.routine})",
        file=out,
    )
    try:
        t = result["tool_calls"] = tool_figures(load("tool_calls.jsonl"))
        print(
            f"\nMid-task net (tool_calls.jsonl): routine calls noted or held {t.false_pos}/{t.routine} = {pct(t.fp_rate)}, "
            f"held before they ran {t.held_routine}/{t.routine}; risky calls caught {t.true_pos}/{t.risky} = {pct(t.recall)}, "
            f"held before they ran (default `hold`: irreversible steps; edits get the note) {t.holds}/{t.risky}",
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


def load_file(path: str) -> "list[dict]":
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@dataclass
class SetFigures:
    """A set in the blind format: the prompts' figures, per language, and the commands'."""

    prompts: "Figures | None"
    languages: "dict[str, Figures]"
    commands: "Figures | None"


def command_figures(rows: "list[dict]", mode: str = "hold") -> Figures:
    """Bash commands labelled `routine` or not: `true_pos`/`false_pos` count the calls `mode` holds
    before they run (the main agent's call, no deliberation on record)."""
    from deliberation.core import tool_net

    f = Figures(0, 0, 0, 0, [], [])
    for r in rows:
        call = tool_net.check("Bash", {"command": r["command"]})
        held = call is not None and tool_net.holds(mode, call.kind)
        if r["label"] != "routine":
            f.risky += 1
            f.true_pos += held
            if not held:
                f.misses.append((0.0, r))
        else:
            f.routine += 1
            f.false_pos += held
            if held:
                f.false_alarms.append((0.0, r))
    return f


def set_report(prompts: "str | None", commands: "str | None", out=sys.stdout, misses: bool = False) -> SetFigures:
    """The figures of a set in the blind format (module docstring)."""
    result = SetFigures(None, {}, None)
    if prompts:
        rows = load_file(prompts)
        f = result.prompts = prompt_figures(rows)
        print(f"\nPrompts ({os.path.basename(prompts)}, {len(rows)}):", file=out)
        print(
            f"  risky prompts that start a deliberation or a hold: {f.true_pos}/{f.risky} = {pct(f.recall)} "
            f"(holds among all prompts: {f.holds})",
            file=out,
        )
        print(f"  routine prompts flagged: {f.false_pos}/{f.routine} = {pct(f.fp_rate)}", file=out)
        table = []
        for lang in sorted({r.get("lang") or "?" for r in rows}):
            g = result.languages[lang] = prompt_figures([r for r in rows if (r.get("lang") or "?") == lang])
            table.append([lang, f"{g.true_pos}/{g.risky}", f"{g.false_pos}/{g.routine}"])
        print(benchkit.table(["lang", "risky caught", "routine flagged"], table), file=out)
        if misses:
            for conf, r in f.misses:
                print(f"  miss  {conf:.2f} [{r.get('lang', '')}] {r['prompt'][:150]}", file=out)
            for conf, r in f.false_alarms:
                print(f"  alarm {conf:.2f} [{r.get('lang', '')}] {r['prompt'][:150]}", file=out)
    if commands:
        rows = load_file(commands)
        c = result.commands = command_figures(rows)
        print(f"\nCommands ({os.path.basename(commands)}, {len(rows)}), held before they run by the default net:", file=out)
        print(f"  irreversible held: {c.true_pos}/{c.risky} = {pct(c.recall)}", file=out)
        print(f"  routine held: {c.false_pos}/{c.routine} = {pct(c.fp_rate)}", file=out)
        if misses:
            for _, r in c.misses:
                print(f"  miss  {r['command'][:150]}", file=out)
            for _, r in c.false_alarms:
                print(f"  alarm {r['command'][:150]}", file=out)
    return result


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--misses",
        choices=("tuning", "mixed_day", "tool_calls"),
        help="list the misses and false alarms of this sample (never of the held-out half)",
    )
    ap.add_argument("--prompts", help="a prompts file in the blind format (prompt, label, lang, why)")
    ap.add_argument("--commands", help="a commands file in the blind format (command, label, why)")
    ap.add_argument("--misses-of-set", action="store_true", help="list the misses of --prompts/--commands (a tuning set only)")
    args = ap.parse_args(argv)
    benchkit.setup_paths()
    if args.prompts or args.commands:
        set_report(args.prompts, args.commands, misses=args.misses_of_set)
        return 0
    report(misses=args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
