"""The benchmark scripts (bench/) run on tiny settings and print their tables.

No wall-clock assertion here: timings belong to `python bench/run.py`. What is checked is that
every scenario takes its intended path (the scripts raise otherwise), that the tables and the
targets come out, and the facts that do not depend on speed: every concurrent report is
recorded, the state builders produce the shapes the benchmark claims to measure.
"""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import benchkit  # noqa: E402 - bench/ is put on sys.path above

PYTHON = sys.executable  # the interpreter running the tests has the dependencies


def test_table_aligns_columns():
    text = benchkit.table(["name", "ms"], [["a", "1.0"], ["longer", "12.5"]])
    assert text.splitlines() == ["name      ms", "------  ----", "a        1.0", "longer  12.5"]


def test_quartiles_of_known_values():
    assert benchkit.quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 4.0)
    assert benchkit.quartiles([3.0, 1.0]) == (1.0, 3.0)


def test_peak_memory_is_the_child_not_the_parent():
    big = benchkit.peak_rss_kib([PYTHON, "-c", "b = bytearray(64 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"])
    small = benchkit.peak_rss_kib([PYTHON, "-c", "pass"])
    assert big - small >= 60 * 1024  # the 64 MiB the child touched, seen in its own maxrss
    assert small < 40 * 1024


def test_states_build_what_they_claim(tmp_path):
    import states

    project = str(tmp_path / "p")
    os.makedirs(project)
    payloads = states.concurrent_reports(project, 3)
    assert len(payloads) == 3
    assert [json.loads(p)["hook_event_name"] for p in payloads] == ["SubagentStop"] * 3
    assert states.recorded_reports(project) == 0
    states.pad_events(project, states.SID, 50)
    assert states.event_count(project, states.SID) >= 50 + 3


@pytest.mark.slow
def test_hook_latency_prints_every_scenario(capsys):
    import hook_latency

    out = io.StringIO()
    targets = hook_latency.run(PYTHON, 1, out=out, warmup=0, memory_runs=1)
    text = out.getvalue()
    print(text)
    for name in (
        "bare interpreter",
        "UserPromptSubmit, routine prompt",
        "PreToolUse Edit",
        "PreToolUse Bash",
        "Stop, no active deliberation",
        "spawn a persona",
        "record a report",
        "last ranking of 10x5",
        "conclude 10x5",
        "SessionStart, self-rating, no prune due",
        "checks off (DELIBERATION=off)",
    ):
        assert name in text
    assert len(targets) == 21  # 7 fast paths × (no worker, worker up) + 2 with the checks off + 4 slow + peak memory
    assert "no worker up" in text and "worker up" in text
    assert "reference: import the pydantic models" in text and "no worker (in-process)" in text
    assert all(t.figure and t.target for t in targets)


def test_concurrency_records_every_report():
    import concurrency

    out = io.StringIO()
    targets = concurrency.run(PYTHON, agents=4, rounds=1, single_runs=1, out=out)
    print(out.getvalue())
    recorded = targets[0]
    assert recorded.figure == "4" and recorded.ok  # every report of the burst is in the deliberation
    assert "burst ÷ (N × one)" in out.getvalue()


def test_scaling_prints_both_tables():
    import scaling

    out = io.StringIO()
    targets = scaling.run(PYTHON, repeats=1, runs=1, out=out, sizes=(3, 6), events=50)
    text = out.getvalue()
    print(text)
    assert "3 agents × 20" in text and "6 agents × 20" in text
    assert "long ÷ short" in text
    assert [t.name.split(":")[0] for t in targets] == ["scaling", "event log", "event log", "event log"]


def test_gate_evaluation_panel_is_deterministic():
    import scaling

    benchkit.setup_paths()
    from deliberation.state.config import Config

    a, b = scaling.panel(12, 5), scaling.panel(12, 5)
    cfg = Config()
    scaling.evaluate_once(a, cfg)
    scaling.evaluate_once(b, cfg)
    assert a.ranking.model_dump() == b.ranking.model_dump()
    assert a.ranking.agents == 12 and len(a.ranking.approaches) == 5
    assert a.ranking.leading == "A1"


@pytest.mark.parametrize("quick", [True, False])
def test_run_settings(quick):
    import run

    cfg = run.settings(quick)
    assert cfg["agents"] == 32
    assert cfg["runs"] >= 5


@pytest.mark.slow
def test_whole_deliberation_compares_with_and_without_the_plugin():
    import whole_deliberation

    out = io.StringIO()
    targets = whole_deliberation.run(1, out=out)
    text = out.getvalue()
    print(text)
    if not targets:  # no client on this machine: the part says so (CI installs one)
        assert "skipped" in text and os.environ.get("CI", "").lower() not in ("1", "true", "yes")
        return
    assert "without the plugin" in text and "with the plugin (install.sh)" in text
    assert "hook commands run: " in text and "added ÷ (hook commands × interpreter start)" in text
    # the deliberation's hook commands, counted: one per event the plugin registers for
    counted = text.split("hook commands run: ")[1].split(" ")[0]
    assert int(counted) >= 30
    assert len(targets) == 1 and targets[0].target == "≤ 1.3"


def test_deliberation_cost_prints_both_paths_and_the_single_agent():
    import deliberation_cost

    out = io.StringIO()
    targets = deliberation_cost.run(out=out)
    text = out.getvalue()
    print(text)
    if not targets:  # no client on this machine: the part says so (CI installs one)
        assert "skipped" in text and os.environ.get("CI", "").lower() not in ("1", "true", "yes")
        return
    lines = text.splitlines()
    workflow = next(line for line in lines if line.startswith("workflow "))
    protocol = next(line for line in lines if line.startswith("protocol "))
    assert workflow.split()[1] == "3" and int(protocol.split()[1]) > 3  # the main agent's requests
    assert any(line.startswith("one agent answering alone") for line in lines)
    assert "workflow — the decision record's cost line: Cost: 9 subagent(s)" in text
    assert "the main agent's share" in text
    assert [t.target for t in targets] == ["≤ 4", "≤ 25%", "≤ 5×"]


def test_cli_startup_prints_its_rows():
    import cli_startup

    out = io.StringIO()
    targets = cli_startup.run(PYTHON, 1, out=out)
    text = out.getvalue()
    print(text)
    assert "bare interpreter" in text and "deliberation --help" in text and "deliberation --version" in text
    assert [t.name for t in targets] == ["cli: deliberation --help", "cli: deliberation --version"]


@pytest.mark.slow
def test_hostile_costs_prints_every_attack(capsys):
    import hostile_costs

    assert hostile_costs.main(["--timeout", "60"]) == 0
    out = capsys.readouterr().out
    assert "2 GiB errors.log: SessionStart" in out and "errors.log after: 46 bytes" in out
    assert "PreToolUse Bash" in out and "(held for the person)" in out
    for case in ("escalations.json -> /dev/null", "state folder -> outside", ".claude -> another project"):
        assert f"{case}: protocol 3/3, force-push held or noted 3/3, written through the link: nothing" in out, out
