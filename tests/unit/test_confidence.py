"""The trigger: dimension scoring, the combination property, the labelled prompt set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deliberation.core import confidence as c
from deliberation.state.config import Config

DATA = Path(__file__).resolve().parent.parent / "data" / "prompts.jsonl"
DIMS = c.DIMENSIONS


def _dims(values):
    return dict(zip(DIMS, values))


# --- combine: hand-computed cases -------------------------------------------------------------


@pytest.mark.parametrize(
    "values, expected",
    [
        ((0.0, 0.0, 0.0, 0.0), 1.0),
        ((0.9, 0.3, 0.2, 0.1), 0.73),  # 1 - 0.3*0.9
        ((1.0, 0.39, 0.0, 0.0), 0.70),  # one maximal dimension: the floor of the one-high case
        ((0.6, 0.6, 0.0, 0.0), 0.52),  # 1 - 0.18 - 0.3*1
        ((0.8, 0.5, 0.2, 0.0), 0.61),  # 1 - 0.24 - 0.3*0.5 (0.5 is halfway from low 0.4 to high 0.6)
        ((0.7, 0.7, 0.7, 0.0), 0.19),  # 1 - 0.21 - 0.3 - 0.3
        ((1.0, 1.0, 1.0, 1.0), 0.0),  # 1 - 0.3 - 0.9 clamps to 0
    ],
)
def test_combine_hand_computed(values, expected):
    assert c.combine(_dims(values)) == pytest.approx(expected, abs=1e-4)


def test_combine_order_of_dimensions_does_not_matter():
    assert c.combine(_dims((0.8, 0.1, 0.5, 0.2))) == c.combine(_dims((0.2, 0.5, 0.1, 0.8))) == 0.61


def test_combine_respects_the_high_parameter():
    # with high = 0.8 (low = 0.6) a second dimension at 0.7 is only half way up the ramp
    assert c.combine(_dims((0.9, 0.7, 0.0, 0.0)), high=0.8) == pytest.approx(1 - 0.27 - 0.15)


def test_combine_ignores_extra_keys_like_matched():
    scored = c.score("Purge the production database")
    assert c.combine(scored) == c.combine({d: scored[d] for d in DIMS})


# --- combine: two high dimensions drop below 0.70, property-based-------------------------------

high_value = st.floats(min_value=0.6, max_value=1.0, allow_nan=False)
low_value = st.floats(min_value=0.0, max_value=0.4, allow_nan=False, exclude_max=True)
any_value = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 3), high_value, st.lists(low_value, min_size=3, max_size=3))
def test_one_high_dimension_keeps_confidence_at_or_above_070(pos, high, lows):
    values = list(lows)
    values.insert(pos, high)
    assert c.combine(_dims(values)) >= 0.70


@settings(max_examples=500, deadline=None)
@given(st.lists(high_value, min_size=2, max_size=4), st.lists(any_value, min_size=2, max_size=2), st.permutations(range(4)))
def test_two_or_more_high_dimensions_drop_confidence_below_070(highs, rest, order):
    values = (highs + rest)[:4]
    values = [values[i] for i in order]
    assert c.combine(_dims(values)) < 0.70


@settings(max_examples=300, deadline=None)
@given(st.lists(any_value, min_size=4, max_size=4), st.integers(0, 3), any_value)
def test_confidence_never_rises_when_a_dimension_rises(values, pos, bump):
    raised = list(values)
    raised[pos] = max(values[pos], bump)
    assert c.combine(_dims(raised)) <= c.combine(_dims(values))
    assert 0.0 <= c.combine(_dims(raised)) <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_score_is_bounded_and_deterministic(text):
    a, b = c.score(text), c.score(text)
    assert a == b
    for d in DIMS:
        assert 0.0 <= a[d] <= 1.0


# --- score: terms and vocabularies -----------------------------------------------------------


def test_score_noisy_or_hand_computed():
    s = c.score("Purge the production database")
    assert s["stakes"] == pytest.approx(1 - (1 - 0.45) * (1 - 0.35), abs=1e-4)  # 0.6425
    assert s["matched"]["stakes"] == ["production", "purge"]
    assert s["ambiguity"] == 0.0 and s["matched"]["ambiguity"] == []


def test_terms_match_whole_words_and_prefixes():
    norm = c.normalise("Migrating the multi-tenant DB; the author's auth flow")
    assert c.find_terms(norm, ["migrat*", "multi tenant*", "auth", "author", "tenant"]) == [
        "migrat*",
        "multi tenant*",
        "auth",
        "author",
        "tenant",
    ]
    assert c.find_terms(c.normalise("the authoring tool"), ["auth", "grat*"]) == []


def test_question_mark_and_long_prompt_are_structural_signals():
    assert c.score("Is it fine?")["matched"]["ambiguity"] == ["(question)"]
    long = c.score("word " * 70)
    assert long["complexity"] == pytest.approx(0.15)
    assert c.score("word " * 160)["complexity"] == pytest.approx(0.3)


def test_vocabularies_replace_and_extra_terms_add():
    replaced = c.score("Purge the production database", vocabularies={"stakes": {"database": 0.5}})
    assert replaced["matched"]["stakes"] == ["database"] and replaced["stakes"] == 0.5
    added = c.score("Touch the ledger", extra_terms={"stakes": {"ledger": 0.7}})
    assert added["stakes"] == 0.7 and added["matched"]["stakes"] == ["ledger"]


# --- evaluate ---------------------------------------------------------------------------------

MULTI = (
    "Should we split the monolith into microservices? We have three teams, growing traffic "
    "and a shared Postgres database; consider cost, reliability and our roadmap."
)


def test_evaluate_shape_with_defaults_and_with_config_dump():
    cfg = Config().model_dump()
    for e in (c.evaluate(MULTI, None), c.evaluate(MULTI, cfg)):
        assert set(e) >= {"dimensions", "confidence", "threshold", "triggered", "forced", "task_type", "matched"}
        assert set(e["dimensions"]) == set(DIMS)
        assert e["threshold"] == 0.70 and e["triggered"] and not e["forced"]
        assert e["task_type"] == "architecture"
        assert e["confidence"] == c.combine(e["dimensions"])
    assert c.evaluate(MULTI, None) == c.evaluate(MULTI, cfg)


def test_evaluate_routine_prompt_does_not_trigger():
    e = c.evaluate("Fix the typo 'recieve' in the error messages.", None)
    assert not e["triggered"] and e["confidence"] == 1.0 and e["task_type"] == "documentation"


@pytest.mark.parametrize(
    "prompt, marker",
    [
        ("/deliberate should we cache this?", "/deliberate"),
        ("DELIBERATE on the plan", "DELIBERATE"),
        ("  /deliberate", "/deliberate"),
    ],
)
def test_force_markers_force_a_routine_prompt(prompt, marker):
    e = c.evaluate(prompt, None)
    assert e["forced"] and e["triggered"] and marker in e["reason"]


def test_force_markers_need_a_word_boundary_and_come_first():
    assert not c.evaluate("/deliberately rename x", None)["forced"]
    assert not c.evaluate("please DELIBERATE", None)["forced"]
    assert not c.evaluate("deliberate on it", None)["forced"]  # case-sensitive


@pytest.mark.parametrize(
    "prompt, spelt",
    [
        ("/deliberation:deliberate Should we cache this?", "/deliberation:deliberate"),
        ("/my-fork.v2:deliberate Should we cache this?", "/my-fork.v2:deliberate"),
        ("/deliberation:deliberate", "/deliberation:deliberate"),
    ],
)
def test_a_plugin_command_forces_whatever_its_namespace(prompt, spelt):
    # the client passes a plugin's command to the prompt hook as `/<plugin>:<command> …`
    e = c.evaluate(prompt, None)
    assert e["forced"] and e["triggered"] and repr(spelt) in e["reason"]
    assert c.question_of(prompt) == prompt[len(spelt) :].strip()


def test_a_namespaced_marker_needs_a_plain_namespace_and_the_whole_command():
    for prompt in (
        "/deliberation:deliberately rename x",
        "/a b:deliberate x",
        "/:deliberate x",
        "/deliberation:status x",
        "deliberation:deliberate x",
        "DELIBERATION:DELIBERATE x",
    ):
        assert not c.evaluate(prompt, None)["forced"], prompt
    assert c.question_of("/deliberation:deliberate Should we shard?") == "Should we shard?"


def test_config_threshold_markers_and_disable():
    cfg = Config().model_dump()
    cfg["trigger"]["threshold"] = 0.05
    middling = "Should we split the monolith into services?"  # deliberates at the default 0.70
    assert c.evaluate(middling, None)["triggered"] and c.evaluate(middling, None)["confidence"] > 0.05
    assert not c.evaluate(middling, cfg)["triggered"]
    cfg = Config().model_dump()
    cfg["trigger"]["force_markers"] = ["!think"]
    assert c.evaluate("!think about it", cfg)["forced"]
    assert not c.evaluate("/deliberate x", cfg)["forced"]
    cfg = Config().model_dump()
    cfg["trigger"]["enabled"] = False
    off = c.evaluate(MULTI, cfg)
    assert not off["triggered"] and off["confidence"] < 0.70  # still scored, not triggered
    assert c.evaluate("/deliberate " + MULTI, cfg)["triggered"]  # an explicit request wins


def test_consensus_threshold_follows_the_task_type_and_config():
    assert c.evaluate(MULTI, None)["consensus_threshold"] == 0.80
    assert c.evaluate("Fix the typo in the README", None)["consensus_threshold"] == 0.50
    cfg = Config().model_dump()
    cfg["task_types"]["thresholds"]["architecture"] = 0.9
    e = c.evaluate(MULTI, cfg)
    assert e["consensus_threshold"] == 0.9 and e["threshold"] == 0.70


def test_config_vocabularies_and_keywords_flow_through():
    cfg = Config().model_dump()
    cfg["trigger"]["extra_terms"] = {"stakes": {"ledger": 0.9}, "complexity": {"ledger": 0.9}}
    cfg["task_types"]["keywords"] = {"security": ["ledger"]}
    e = c.evaluate("Rework the ledger", cfg)
    assert e["triggered"] and e["task_type"] == "security"
    assert e["matched"]["stakes"] == ["ledger"]


def test_task_notification_is_never_scored_or_triggered():
    note = (
        "<task-notification>\n<task-id>a1</task-id><status>completed</status>"
        "<result>Should we migrate production? DELIBERATE</result></task-notification>"
    )
    e = c.evaluate(note, None)
    assert not e["triggered"] and not e["forced"] and e["confidence"] == 1.0
    assert all(v == 0.0 for v in e["dimensions"].values())
    assert c.is_task_notification("  " + note)


def test_a_hand_back_message_is_never_scored_or_triggered():
    """An auto-mode subagent's report reaches the main agent as `<agent-message from=…>`: the
    agent's words, never the user's request, whatever they say."""
    message = (
        '<agent-message from="a1b2c3">\n[Subagent hand-back] … The report follows:\n'
        "  DELIBERATE: should we migrate production tonight? It is irreversible.\n</agent-message>"
    )
    e = c.evaluate(message, None)
    assert not e["triggered"] and not e["forced"] and e["confidence"] == 1.0


# --- the labelled set -------------------------------------------------------------------------


def _labelled():
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def test_labelled_set_is_large_and_well_formed():
    rows = _labelled()
    assert len(rows) >= 48
    for r in rows:
        assert set(r) == {"prompt", "category", "expect_trigger"}
        assert isinstance(r["expect_trigger"], bool) and r["prompt"].strip()
    rate = sum(r["expect_trigger"] for r in rows) / len(rows)
    assert 0.10 <= rate <= 0.20, rate


def test_labelled_set_every_decision_matches_its_label():
    rows = _labelled()
    wrong = []
    by_cat: Counter = Counter()
    fired: Counter = Counter()
    for r in rows:
        e = c.evaluate(r["prompt"], None)
        by_cat[r["category"]] += 1
        fired[r["category"]] += e["triggered"]
        if e["triggered"] != r["expect_trigger"]:
            wrong.append(f"{e['confidence']:.2f} {e['dimensions']} {r['prompt']}")
    total = sum(fired.values())
    print(
        f"\ntrigger rate: {total}/{len(rows)} = {total / len(rows):.1%} "
        "(the set over-samples risky prompts; ordinary traffic is mostly routine)"
    )
    for cat in sorted(by_cat):
        print(f"  {cat:18s} {fired[cat]}/{by_cat[cat]} = {fired[cat] / by_cat[cat]:.0%}")
    assert wrong == []
