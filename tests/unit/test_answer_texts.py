"""What the model and the person read, against the golden files in tests/data/answers/.

One file per answer kind and case (tests/helpers/golden.py lists them and says how to
regenerate them): its input is an outcome as the rules build it, its sections are the words
the text layer renders it to. A change of wording is one module of lib/deliberation/text/ and a
reviewed diff of these files."""

from __future__ import annotations

import pytest

from tests.helpers import golden

FILES = sorted(golden.ROOT.rglob("*.txt"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(golden.ROOT))[:-4] for p in FILES])
def test_each_golden_answer_renders_to_its_file(path):
    name, data, sections = golden.parse(path.read_text(encoding="utf-8"))
    assert golden.render(name, data) == sections


def test_the_golden_files_are_the_listed_cases_with_their_inputs():
    """Every case has its file, no file is left of a removed case, and each file's input is what
    the case builds now (a rule whose outcome changed shows up here, not silently)."""
    stored = {str(p.relative_to(golden.ROOT))[:-4]: golden.parse(p.read_text(encoding="utf-8"))[:2] for p in FILES}
    assert {case: (name, data) for case, (name, data) in golden.cases().items()} == stored


def test_every_text_function_has_a_golden_case():
    import inspect

    from deliberation import text
    from deliberation.text import (
        budget,
        conformity,
        cost,
        depth,
        document,
        drafting,
        evaluation,
        gates,
        messages,
        notes,
        phases,
        progress,
        prompts,
        protocol,
        prune,
        refusals,
        reports,
        review,
        route,
        script,
        stop,
        trigger,
        workflow,
    )

    covered = {name for name, _data in golden.cases().values()}
    public = {
        f"{m.__name__.rsplit('.', 1)[1]}.{n}"
        for m in (
            budget,
            conformity,
            cost,
            depth,
            document,
            drafting,
            evaluation,
            gates,
            messages,
            notes,
            phases,
            progress,
            prompts,
            protocol,
            prune,
            refusals,
            reports,
            review,
            route,
            script,
            stop,
            trigger,
            workflow,
        )
        for n, f in vars(m).items()
        if inspect.isfunction(f) and f.__module__ == m.__name__ and not n.startswith("_") and n not in _PARTS
    }
    assert text.__name__ and public - covered == set()


# words that are parts of other answers, covered by the cases of the answers they are part of
_PARTS = {
    "who",
    "consensus_next_step",
    "quality_next_step",
    "passed_text",
    "conformity_note",
    "said",
    "completed_summary",
    "slots_left",
    "passed_running",
    "passed_total",
    "quoted",
    "contested_lines",
    "ways_forward",
    "clip",
    "spawn_phrase",
    "rule_why",
    "render_table",
}  # render_table: an Evaluation object, checked in test_evaluation
