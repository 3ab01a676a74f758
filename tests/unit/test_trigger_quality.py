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
    assert held.risky == 195 and held.true_pos >= 165  # 84.6 % with the acts (82.1 % before; target ≥ 80 %)
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


# ---- the blind set's tuning half (tests/data/trigger/blind_tuning_*.jsonl, README there): written by
# someone who never saw the scorer; its held-out half is kept by the lead and scored there only

BLIND_PROMPTS = ROOT / "tests" / "data" / "trigger" / "blind_tuning_prompts.jsonl"
BLIND_COMMANDS = ROOT / "tests" / "data" / "trigger" / "blind_tuning_commands.jsonl"
LANGS = ("de", "es", "fr", "ja", "pl", "pt", "ru", "vi", "zh")


@pytest.fixture(scope="module")
def blind():
    import io

    return tq.set_report(str(BLIND_PROMPTS), str(BLIND_COMMANDS), out=io.StringIO())


def test_the_blind_tuning_set_is_well_formed():
    prompts = tq.load_file(str(BLIND_PROMPTS))
    assert len(prompts) == 130 and len({r["prompt"] for r in prompts}) == 130
    for r in prompts:
        assert set(r) == {"prompt", "label", "lang", "why"} and r["label"] in ("risky", "routine"), r
    assert {r["lang"] for r in prompts} == {"en", *LANGS}
    commands = tq.load_file(str(BLIND_COMMANDS))
    assert len(commands) == 65 and {r["label"] for r in commands} == {"irreversible", "routine"}


def test_the_blind_tuning_set_as_measured(blind):
    p, c = blind.prompts, blind.commands
    assert (p.true_pos, p.risky) == (72, 72) and (p.false_pos, p.routine) == (0, 58)  # before: 21/72 and 0/58
    for lang in LANGS:
        g = blind.languages[lang]
        assert g.true_pos == g.risky == 3 and g.false_pos == 0, lang  # before: 1 of 27 in all nine
    assert (c.true_pos, c.risky) == (27, 27) and (c.false_pos, c.routine) == (0, 38)  # before: none held (the net noted after)


def test_docs_report_the_blind_tuning_figures(blind):
    text = DOC.read_text(encoding="utf-8")
    p, c = blind.prompts, blind.commands
    for figure in (
        f"{p.true_pos}/{p.risky}",
        f"{p.false_pos}/{p.routine}",
        f"{c.true_pos}/{c.risky}",
        f"{c.false_pos}/{c.routine}",
    ):
        assert figure in text, figure


# ---- the second blind tuning half (blind2_tuning_*.jsonl): written by someone who never saw the
# scorer, after the first round; measured as is first (the first round's true held-out figure), then
# tuned on — by the cause of each miss, not its words. Its held-out halves stay with the lead.

BLIND2_PROMPTS = ROOT / "tests" / "data" / "trigger" / "blind2_tuning_prompts.jsonl"
BLIND2_COMMANDS = ROOT / "tests" / "data" / "trigger" / "blind2_tuning_commands.jsonl"


@pytest.fixture(scope="module")
def blind2():
    import io

    return tq.set_report(str(BLIND2_PROMPTS), str(BLIND2_COMMANDS), out=io.StringIO())


def test_the_second_blind_tuning_set_is_well_formed():
    prompts = tq.load_file(str(BLIND2_PROMPTS))
    assert len(prompts) == 129 and len({r["prompt"] for r in prompts}) == 129
    for r in prompts:
        assert set(r) == {"prompt", "label", "lang", "why"} and r["label"] in ("risky", "routine"), r
    assert Counter((r["lang"], r["label"]) for r in prompts)[("en", "risky")] == 40
    assert all(Counter((r["lang"], r["label"]) for r in prompts)[(lang, "risky")] == 4 for lang in LANGS)
    commands = tq.load_file(str(BLIND2_COMMANDS))
    assert len(commands) == 45 and sum(r["label"] == "routine" for r in commands) == 25


def test_the_second_blind_tuning_set_as_measured(blind2):
    p, c = blind2.prompts, blind2.commands
    # before (the first round, unseen): 47/76 risky, 2/53 routine; 2–4 of 4 per language; commands 16/20 and 1/25
    assert (p.true_pos, p.risky) == (76, 76) and (p.false_pos, p.routine) == (1, 53)
    for lang in LANGS:
        g = blind2.languages[lang]
        assert g.true_pos == g.risky == 4 and g.false_pos == 0, lang
    assert (c.true_pos, c.risky) == (20, 20) and (c.false_pos, c.routine) == (0, 25)


# ---- our own paraphrases (paraphrase_*.jsonl, README there): the categories of the misses, in new
# words, in six rounds; each round was scored once before any change made for it


@pytest.fixture(scope="module")
def paraphrases():
    import io

    root = ROOT / "tests" / "data" / "trigger"
    return tq.set_report(str(root / "paraphrase_prompts.jsonl"), str(root / "paraphrase_commands.jsonl"), out=io.StringIO())


def test_the_paraphrases_as_measured(paraphrases):
    p, c = paraphrases.prompts, paraphrases.commands
    assert (p.risky, p.routine) == (284, 173) and p.true_pos >= 283 and p.false_pos <= 1
    for lang in LANGS:
        g = paraphrases.languages[lang]
        assert g.true_pos >= g.risky - 1 and g.false_pos == 0, lang
    assert (c.true_pos, c.risky) == (16, 16) and (c.false_pos, c.routine) == (0, 12)


def test_docs_report_the_second_blind_and_paraphrase_figures(blind2, paraphrases):
    text = DOC.read_text(encoding="utf-8")
    for figure in (
        f"{blind2.prompts.true_pos}/{blind2.prompts.risky}",
        f"{blind2.prompts.false_pos}/{blind2.prompts.routine}",
        f"{blind2.commands.true_pos}/{blind2.commands.risky}",
        f"{blind2.commands.false_pos}/{blind2.commands.routine}",
        f"{paraphrases.prompts.true_pos}/{paraphrases.prompts.risky}",
        f"{paraphrases.prompts.false_pos}/{paraphrases.prompts.routine}",
    ):
        assert figure in text, figure
