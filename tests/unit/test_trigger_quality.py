"""How well the trigger and the mid-task net pick the decisions that matter, on the labelled
samples of tests/data/trigger/ (README there: how they were written and labelled).

The figures are the ones docs/TRIGGER.md reports; a test checks the page says them. Bounds
are the product's targets (held-out: ≥ 80 % of risky prompts deliberate, ≤ 5 % of routine
ones; an ordinary day about 10 %) or, where a target is not met, the figure as measured — so
a change that makes the trigger worse fails here and a better one updates the page.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import trigger_quality as tq  # noqa: E402  # bench/ is put on sys.path just above

DOC = ROOT / "docs" / "TRIGGER.md"


@pytest.fixture(scope="module")
def figures():
    import io

    return tq.report(out=io.StringIO())


def test_the_labelled_set_is_large_split_by_hash_and_well_formed():
    rows = tq.load("labelled.jsonl")
    assert len(rows) >= 200
    assert len({r["prompt"] for r in rows}) == len(rows)
    for r in rows:
        assert set(r) <= {"prompt", "label", "area", "why", "half", "pinned"} and r["prompt"].strip() and r["why"].strip()
        assert r["label"] in ("risky", "routine")
        by_hash = "tuning" if hashlib.sha256(r["prompt"].encode()).digest()[0] % 2 == 0 else "heldout"
        assert r["half"] == ("tuning" if r.get("pinned") else by_hash), r["prompt"]
    halves = Counter((r["half"], r["label"]) for r in rows)
    assert min(halves.values()) >= 100, halves
    assert sum(bool(r.get("pinned")) for r in rows) == 20  # the pinned decision prompts, tuning only


def test_held_out_half(figures):
    held = figures["heldout"]
    assert held.fp_rate <= 0.05, held.false_alarms
    assert held.risky == 195 and held.true_pos >= 160  # 82.1 %, measured once after the last change (target ≥ 80 %)
    assert held.precision >= 0.95


def test_tuning_half(figures):
    tuning = figures["tuning"]
    assert tuning.recall >= 0.96 and tuning.fp_rate <= 0.01


def test_an_ordinary_day_deliberates_about_one_prompt_in_ten(figures):
    day = figures["mixed_day"]
    assert 0.07 <= day.fired_rate <= 0.13, day.fired_rate
    assert day.recall >= 0.9 and day.fp_rate <= 0.03


def test_the_net_leaves_routine_tool_calls_alone(figures):
    net = figures["tool_calls"]
    assert net.routine >= 200
    assert net.false_pos == 0, [r["tool_input"] for _, r in net.false_alarms]
    assert net.recall == 1.0, [r["tool_input"] for _, r in net.misses]


def test_the_pinned_decision_prompts_all_deliberate():
    from deliberation.core import confidence

    pinned = [r for r in tq.load("labelled.jsonl") if r.get("pinned")]
    assert [r["prompt"] for r in pinned if not confidence.evaluate(r["prompt"])["triggered"]] == []


def _fraction(f) -> str:
    return f"{f.true_pos}/{f.risky}"


def test_docs_report_the_figures_as_measured(figures):
    text = DOC.read_text(encoding="utf-8")
    for half in ("tuning", "heldout"):
        f = figures[half]
        row = re.search(rf"^\| {half} \|(.*)$", text, re.M)
        assert row, f"no {half} row in docs/TRIGGER.md"
        cells = row.group(1)
        assert f"{f.true_pos}/{f.risky}" in cells and f"{f.false_pos}/{f.routine}" in cells, (half, cells)
        assert f"{100 * f.precision:.1f} %" in cells, (half, cells)
    day = figures["mixed_day"]
    assert f"{day.true_pos + day.false_pos} of {day.risky + day.routine}" in text
    net = figures["tool_calls"]
    assert f"{net.false_pos}/{net.routine}" in text and f"{net.true_pos}/{net.risky}" in text
