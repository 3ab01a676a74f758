"""The shipped subagent definitions (agents/*.md): one per persona/role slug, parseable front
matter, no spawning tools, and a report example that the plugin itself accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from deliberation import personas, report
from deliberation.config import DEFAULT_DIMENSIONS

AGENTS = Path(__file__).resolve().parent.parent.parent / "agents"
FLOOR = ("Tier 1 is material, not the answer; agreeing again scores 0.",
         "The red team's words are material too: check them.")
SPAWNING_TOOLS = {"Agent", "Task"}
ROLE_PHASE = "deliberation"


def parse_front_matter(text: str) -> "tuple[dict, str]":
    """A tiny parser for the `key: value` front matter Claude Code reads (no yaml dependency).

    Raises ValueError on anything that is not a flat block of plain `key: value` lines, or on a
    value a YAML parser would read differently (": " or " #" inside it, a leading indicator).
    """
    lines = text.split("\n")
    if lines[0] != "---":
        raise ValueError("no front matter: the file must start with '---'")
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise ValueError("front matter is not closed by '---'") from None
    meta: dict = {}
    for n, line in enumerate(lines[1:end], 2):
        key, sep, value = line.partition(": ")
        if not sep or not key.isidentifier() or key in meta:
            raise ValueError(f"line {n}: not a new `key: value` line: {line!r}")
        value = value.strip()
        if not value or ": " in value or " #" in value or value[0] in "-?:,[]{}#&*!|>'\"%@`":
            raise ValueError(f"line {n}: value is not a plain YAML scalar: {value!r}")
        meta[key] = value
    return meta, "\n".join(lines[end + 1:])


def _agent_files():
    return sorted(AGENTS.glob("*.md"))


def _text(slug: str) -> str:
    return (AGENTS / f"{slug}.md").read_text(encoding="utf-8")


def test_every_slug_has_a_file_and_there_are_no_strays():
    slugs = {p.stem for p in _agent_files()}
    assert slugs == set(personas.ALL)
    assert len(personas.RESEARCH_PERSONAS) == 10 and len(personas.ROLES) == 6


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_front_matter(slug):
    meta, body = parse_front_matter(_text(slug))
    assert set(meta) == {"name", "description", "tools", "model"}
    assert meta["name"] == slug
    assert meta["model"] == "inherit"
    tools = {t.strip() for t in meta["tools"].split(",")}
    assert tools == {"Read", "Grep", "Glob"}
    assert not tools & SPAWNING_TOOLS
    assert personas.title(slug) in meta["description"]
    assert 60 <= len(_text(slug).splitlines()) <= 120


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_report_block_is_the_last_thing_and_validates(slug):
    text = _text(slug)
    assert text.rstrip().endswith("```")
    rep, ignored = report.extract_report(text, max_bytes=1 << 20)
    assert ignored == []
    if slug in personas.RESEARCH_PERSONAS:
        assert rep.phase == "ranking"
        names = [d["name"] for d in DEFAULT_DIMENSIONS]
        assert rep.scores and all(sorted(s) == sorted(names) for s in rep.scores.values())
        assert rep.preferred_approach in rep.scores
        if rep.verdict == "reject" or rep.dissent:
            assert rep.dissent and all(c.reason for c in rep.dissent)
        assert "research" in text and '"phase": "research"' in text
    else:
        assert rep.phase == ROLE_PHASE


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_isolation_and_no_spawning_are_stated(slug):
    text = _text(slug)
    assert "may not spawn agents" in text
    if slug in personas.RESEARCH_PERSONAS:
        assert "never ask for, search for, or use another agent's findings" in text
        assert "Score EVERY" in text and "dissent" in text


@pytest.mark.parametrize("slug", personas.LENSES)
def test_lenses_carry_the_floor_verbatim_and_report_hot_spots(slug):
    text = _text(slug)
    for sentence in FLOOR:
        assert sentence in text
    rep, _ = report.extract_report(text, max_bytes=1 << 20)
    assert rep.hot_spots
    assert rep.refutations and all(r.target in rep.hot_spots and r.evidence for r in rep.refutations)
    assert "consensus" in text and "FRESH" in text


def test_role_specific_report_fields():
    def rep(slug):
        return report.extract_report(_text(slug), max_bytes=1 << 20)[0]

    assert rep(personas.DEBATE).conflicts
    synthesis = rep(personas.SYNTHESIS)
    assert len(synthesis.approaches) >= 2 and synthesis.preferred_approach
    red = rep(personas.RED_TEAM)
    assert red.refutations and red.missed_angles and all(r.evidence for r in red.refutations)
    assert "AGAINST" in _text("devils-advocate") and "FOR" in _text("product-strategist")


def test_parser_rejects_what_yaml_would_misread():
    with pytest.raises(ValueError):
        parse_front_matter("---\nname: a\ndescription: Persona: x\n---\n")
    with pytest.raises(ValueError):
        parse_front_matter("---\nname: a\n")
    with pytest.raises(ValueError):
        parse_front_matter("no front matter")
    meta, body = parse_front_matter("---\nname: a\ntools: Read, Grep\n---\nbody")
    assert meta == {"name": "a", "tools": "Read, Grep"} and body == "body"
