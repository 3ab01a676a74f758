"""agents/<slug>.md of every research persona is generated (text/agent_files.py) from one
template and the persona's own part, as state_schema/ is from the models: these tests fail when
a generated file drifts, and the other agent files are the hand-written non-persona agents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deliberation import catalogue
from deliberation.core import personas
from deliberation.text import agent_files
from deliberation.text import dimensions as dimension_words

ROOT = Path(__file__).resolve().parents[2]


def test_every_persona_agent_file_is_generated():
    assert agent_files.drift(str(ROOT)) == [], "regenerate: python -m deliberation.text.agent_files"


def test_every_part_is_a_persona_and_every_persona_has_a_part():
    parts = {p.removesuffix(".md") for p in os.listdir(agent_files.PARTS) if p.endswith(".md")}
    assert parts == {p.slug for p in catalogue.PERSONAS}


def test_the_hand_written_agent_files_are_no_personas():
    """A roles', lens', checkpoint's or any other non-persona agent's file is written by hand; a
    file that presents itself as a persona must be the catalogue's and generated."""
    generated = {Path(rel).name for rel in agent_files.render_all()}
    for path in sorted((ROOT / "agents").glob("*.md")):
        if path.name in generated:
            continue
        head = path.read_text(encoding="utf-8").split("---", 2)[1]
        assert "Deliberation persona" not in head, path.name
        assert personas.kind_of(path.stem) != "persona", path.name


def test_a_part_names_its_sections():
    with pytest.raises(ValueError, match="missing"):
        agent_files.parse_part("<!-- description -->\nx\n")
    with pytest.raises(ValueError, match="unknown"):
        agent_files.parse_part("".join(f"<!-- {s} -->\nx\n" for s in agent_files.SECTIONS) + "<!-- other -->\ny\n")


def test_the_shared_paragraphs_and_the_dimensions_are_said_once():
    """The template holds the persona paragraphs; no part repeats them, and the dimensions'
    wording comes from text/dimensions.py (a dimension added to the catalogue reaches every file)."""
    template = Path(agent_files.TEMPLATE).read_text(encoding="utf-8")
    assert "## Isolation (context layers)" in template and "{{dimensions}}" in template
    for p in catalogue.PERSONAS:
        part = (Path(agent_files.PARTS) / f"{p.slug}.md").read_text(encoding="utf-8")
        assert "Isolation" not in part and "Report format" not in part, p.slug
        scores = agent_files.parse_part(part)["scores"]
        assert not any(d.name in scores for d in catalogue.DIMENSIONS), p.slug


def test_a_dimension_the_part_does_not_score_scores_the_default(monkeypatch):
    extra = catalogue.Dimension("licences", 0.1, "licence terms", scale="10 = no obligations")
    monkeypatch.setattr(catalogue, "DIMENSIONS", (*catalogue.DIMENSIONS, extra))
    text = agent_files.render_all()[os.path.join("agents", "security-analyst.md")]
    assert f"each on all {dimension_words.count()} dimensions" in text and ", licences (10 = no obligations)." in text
    assert '"licences": 5}' in text
