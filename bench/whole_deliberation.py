"""A whole scripted deliberation through the real Claude Code client, with and without the plugin:
`python bench/whole_deliberation.py [--rounds N]` (bench/README.md and docs/PERFORMANCE.md).

The end-to-end suite's 8-subagent foreground deliberation runs against the Messages-API stand-in
(tests/e2e/fake_api.py), interleaved after one warm-up round each: with the plugin installed,
with only the persona agent files, and with no-op hooks on the same events (the floor of any
command hook). Printed: each median wall time, the plugin's added time, the hook commands one
deliberation ran, one interpreter start as the hooks start it, and added time ÷ (hook commands ×
interpreter start). Without the client this part is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchkit
from benchkit import Target, table

REPO = Path(__file__).resolve().parent.parent
RATIO_TARGET = 1.3


class Variant:
    """One project (its own HOME and TMPDIR) the deliberation runs in, again and again."""

    def __init__(self, base: Path, name: str) -> None:
        self.path, self.home, self.tmp = base / name / "project", base / name / "home", base / name / "tmp"
        for folder in (self.path, self.home, self.tmp):
            folder.mkdir(parents=True)
        self.walls: "list[float]" = []

    def reset_state(self) -> None:
        """Each round starts from the same state: no deliberation of an earlier round."""
        shutil.rmtree(self.path / ".claude" / "deliberation" / "sessions", ignore_errors=True)
        shutil.rmtree(self.path / ".claude" / "deliberation" / "deliberations", ignore_errors=True)
        shutil.rmtree(self.path / ".claude" / "deliberation" / "records", ignore_errors=True)


def with_agents_only(variant: Variant) -> None:
    agents = variant.path / ".claude" / "agents"
    agents.mkdir(parents=True)
    for md in (REPO / "agents").glob("*.md"):
        shutil.copy(md, agents / md.name)


def replace_hooks(variant: Variant, command) -> None:
    """Keep the plugin's hook matchers, with `command(event)` as every hook's command."""
    settings = variant.path / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    for event, groups in data["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                hook["command"] = command(event)
    settings.write_text(json.dumps(data))


NO_OP = "import sys; sys.stdin.buffer.read()"


def run(rounds: int = 5, out=sys.stdout) -> "list[Target]":
    if (claude := benchkit.client_or_skip("Whole deliberation through the real client", out)) is None:
        return []
    fake_api, harness, sg = benchkit.e2e_modules("fake_api", "harness", "scenarios_gates")
    api = fake_api.FakeApi().start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-whole-") as tmp:
            base = Path(tmp)
            venv = harness.hook_python_prefix(base / "hooks-venv")
            plugin, bare_project, no_op, counting = (Variant(base, n) for n in ("plugin", "no-plugin", "no-op", "counting"))
            python = str(venv / "bin" / "python")
            for variant in (plugin, no_op, counting):
                harness.install_into_project(variant.path, venv)
            with_agents_only(bare_project)
            counter = base / "hook-commands.txt"
            replace_hooks(counting, lambda event: f"cat >/dev/null; echo {event} >> '{counter}'")
            replace_hooks(no_op, lambda event: f"{python} -I -S -c '{NO_OP}'")

            def once(variant: Variant, record: bool) -> None:
                variant.reset_state()
                scenario = sg.StagedDeliberation(sg.standard_reports(), sg.WITH_RED_TEAM)
                result = harness.run_claude_once(
                    claude, api, variant.path, variant.home, variant.tmp, sg.PROMPT, scenario, timeout=120
                )
                # with the plugin the concluding answer also carries the decision document it asks for
                if result.returncode != 0 or not result.text.startswith(scenario.final_text):
                    raise RuntimeError(f"the scripted deliberation did not complete:\n{result.describe()}")
                if record:
                    variant.walls.append(result.duration_s)

            for variant in (plugin, bare_project, no_op):  # warm-up: page cache, the worker
                once(variant, record=False)
            for _ in range(rounds):
                once(plugin, record=True)
                once(bare_project, record=True)
                once(no_op, record=True)
            once(counting, record=False)
            events = counter.read_text().split()
            start = statistics.median(benchkit.run_process([python, "-I", "-S", "-c", "pass"], b"").wall_s for _ in range(31))
    finally:
        api.stop()
    with_p, without = statistics.median(plugin.walls), statistics.median(bare_project.walls)
    floor = statistics.median(no_op.walls)
    added = with_p - without
    per_event = {name: events.count(name) for name in sorted(set(events))}
    ratio = added / (len(events) * start) if events else float("nan")
    floor_ratio = (floor - without) / (len(events) * start) if events else float("nan")
    version = subprocess.run([str(claude), "--version"], capture_output=True, text=True).stdout.split()[:1]
    print(
        f"\nWhole deliberation through the real client (Claude Code {' '.join(version)}), "
        f"{rounds} interleaved rounds after one warm-up; 8 foreground subagents, scripted model",
        file=out,
    )
    print(
        table(
            ["variant", "median s", "runs (s)"],
            [
                ["without the plugin (agent files only)", f"{without:.3f}", " ".join(f"{w:.2f}" for w in bare_project.walls)],
                [
                    "the plugin's hooks as no-op interpreters (start, read stdin, exit)",
                    f"{floor:.3f}",
                    " ".join(f"{w:.2f}" for w in no_op.walls),
                ],
                ["with the plugin (install.sh)", f"{with_p:.3f}", " ".join(f"{w:.2f}" for w in plugin.walls)],
            ],
        ),
        file=out,
    )
    print(
        f"added by the plugin: {added:.3f} s ({added / without:+.0%}); hook commands run: {len(events)} "
        f"({', '.join(f'{k} {v}' for k, v in per_event.items())}); one interpreter start "
        f"(python -I -S -c pass): {start * 1000:.1f} ms",
        file=out,
    )
    print(
        f"added ÷ (hook commands × interpreter start) = {added:.3f} / ({len(events)} × {start:.4f}) = "
        f"{ratio:.2f} (target ≤ {RATIO_TARGET}); the same for no-op hooks, the floor of any command hook: "
        f"{floor_ratio:.2f}; the plugin beyond that floor: {with_p - floor:+.3f} s "
        f"({(with_p - floor) / len(events) * 1000 if events else 0:+.1f} ms per hook command)",
        file=out,
    )
    return [
        Target(
            "whole deliberation: added time ÷ (hook commands × interpreter start)",
            f"{ratio:.2f}",
            f"≤ {RATIO_TARGET}",
            ratio <= RATIO_TARGET,
        )
    ]


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    benchkit.setup_paths()
    run(args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
