"""The kind of an outcome travels with the hook's answer (hookio.Answer.kinds): logged, never
rendered, and what the demo dispatches its moments on — each a kind an outcome class declares."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from deliberation import text
from deliberation.cli import demo
from deliberation.core.engine import Step
from deliberation.text import gates, notes
from deliberation.wire import hookio


def declared_kinds() -> "set[str]":
    """Every `kind` an outcome class of lib/deliberation/text/ declares (its Literal's default)."""
    kinds: set[str] = set()
    for info in pkgutil.iter_modules(text.__path__):
        module = importlib.import_module(f"{text.__name__}.{info.name}")
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or "kind" not in getattr(cls, "__annotations__", {}):
                continue
            fields = getattr(cls, "model_fields", None)
            kind = fields["kind"].default if fields and "kind" in fields else getattr(cls, "kind", None)
            if isinstance(kind, str):
                kinds.add(kind)
    return kinds


def test_every_moment_of_the_demo_is_a_kind_an_outcome_class_declares():
    declared = declared_kinds()
    assert {"gate_failed", "vote_passed", "completed", "tier2_denied", "depth_instruction"} <= declared
    for label, story_kind, kinds in demo.MOMENTS:
        assert kinds, label
        for kind in kinds:
            assert kind in declared, f"{label}/{story_kind or '-'}: {kind!r} is no outcome class's kind"


def test_the_demo_finds_a_moment_by_kind_in_the_table_s_order():
    assert demo.moment_of(("stop_held",)) == ("", "")
    assert demo.moment_of(("gate_failed", "stop_held")) == ("GATE", "gate_failed")
    assert demo.moment_of(("tier2_denied",)) == ("DEPTH", "spawn_denied")
    assert demo.label_of(["completed"]) == "ROUTE"
    assert demo.kind_of(()) == ""


@pytest.mark.parametrize("event", hookio.EVENTS)
def test_kinds_are_never_rendered(event):
    plain = hookio.Answer("block", "R", "C", "S", stop_reason="stop")
    said = hookio.Answer("block", "R", "C", "S", stop_reason="stop", kinds=("gate_failed",))
    assert said.render(event) == plain.render(event)
    assert said.to_json(event) == plain.to_json(event)
    assert hookio.Answer(kinds=("said",)).is_empty()


def test_kinds_are_in_the_logged_summary_once_each():
    answer = hookio.Answer.block("R").saying("gate_failed", "", "stop_held", "gate_failed")
    assert answer.kinds == ("gate_failed", "stop_held")
    assert answer.summary() == {"decision": "block", "reason": "R", "kinds": ["gate_failed", "stop_held"]}
    assert "kinds" not in hookio.Answer("block", "R").summary()


def test_a_step_says_the_kinds_of_its_hold_and_news():
    step = Step(hold=gates.GateFailed.model_construct(deliberation="d-1"), news=notes.DepthSynthesis(text="t"))
    assert step.kinds == ("gate_failed", "depth_synthesis")
    assert Step().kinds == ()
