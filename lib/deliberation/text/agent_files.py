"""agents/<slug>.md of each research persona: one template (agent_parts/persona.md.in) filled
with the catalogue's entry (slug, title, priority), the ranking dimensions (text/dimensions.py),
the report's research example (state/agent_report.py) and the persona's own part
(agent_parts/<slug>.md: what it hunts, its focus, its pattern library, its ranking example).
The shared persona paragraphs live once, in the template; tests/unit/test_agent_files.py fails
when a generated file drifts. Regenerate after a change of the template, a part or the catalogue:

    python -m deliberation.text.agent_files          # rewrite agents/<slug>.md of every persona
    python -m deliberation.text.agent_files --check  # say which drifted, write nothing

The other agent files (the deliberation roles, the tier-2 lenses, the workflow's checkpoint and
any agent that is not a persona) are written by hand: each says something of its own, and none
carries the persona paragraphs.

A part is the persona's sections, each opened by a line `<!-- name -->`: description (what the
agent list adds after the title, the priority and the phases; usually empty: every main-agent
request carries every agent's description, so it says only what the priority does not), intro, focus, assume, patterns, research (the
sentence that ends the research paragraph), ranking (an optional paragraph after the ranking
rules), scores (one line per approach of the ranking example, `A: 7 3 6 8 7` on the catalogue's
dimensions in order; a dimension beyond them scores 5) and example (the example's fields after
its scores, as JSON object members).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from deliberation import catalogue, plugin_root
from deliberation.state.agent_report import example as report_example, fenced
from deliberation.text import dimensions as dimension_words

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = os.path.join(HERE, "agent_parts")
TEMPLATE = os.path.join(PARTS, "persona.md.in")
SECTIONS = ("description", "intro", "focus", "assume", "patterns", "research", "ranking", "scores", "example")
_MARK = re.compile(r"^<!-- ([a-z_]+) -->\n", re.M)
_FIELD = re.compile(r"\{\{([a-z_]+)\}\}")
UNSCORED = 5  # a dimension the part's scores do not reach (one added after it was written)


def parse_part(text: str) -> "dict[str, str]":
    """A part's sections by name (each without its last newline)."""
    marks = list(_MARK.finditer(text))
    out = {}
    for m, nxt in zip(marks, [*marks[1:], None]):
        out[m.group(1)] = text[m.end() : nxt.start() if nxt else len(text)].removesuffix("\n")
    unknown = set(out) - set(SECTIONS)
    missing = set(SECTIONS) - set(out) - {"ranking"}
    if unknown or missing:
        raise ValueError(f"part sections: unknown {sorted(unknown)}, missing {sorted(missing)}")
    return out


def _scores(lines: str) -> "dict[str, dict[str, int]]":
    names = [d.name for d in catalogue.DIMENSIONS]
    out = {}
    for line in lines.splitlines():
        approach, _, values = line.partition(":")
        given = [int(v) for v in values.split()]
        out[approach.strip()] = {n: given[i] if i < len(given) else UNSCORED for i, n in enumerate(names)}
    return out


def ranking_example(part: "dict[str, str]") -> str:
    """The part's ranking example as a compact fenced JSON block (the research example's form,
    state/agent_report.example): its scores on the catalogue's dimensions, then the fields of its
    `example` section."""
    data = {"phase": "ranking", "summary": "", "scores": _scores(part["scores"]), **json.loads("{" + part["example"] + "}")}
    return fenced(data, compact=True)


def render(persona: catalogue.Persona, part: "dict[str, str]", template: str) -> str:
    ranking = part.get("ranking", "")
    fields = {
        "slug": persona.slug,
        "title": persona.title,
        "priority": persona.priority,
        "description": f"; {part['description']}" if part["description"] else "",
        "intro": part["intro"] + "\n",
        "focus": part["focus"],
        "assume": part["assume"],
        "patterns": part["patterns"],
        "research": part["research"],
        "ranking": ranking + "\n" if ranking else "",
        "dimension_count": dimension_words.count(),
        "dimensions": dimension_words.listed(),
        "research_example": report_example("research", compact=True),
        "ranking_example": ranking_example(part),
    }
    return _FIELD.sub(lambda m: fields[m.group(1)], template)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def render_all() -> "dict[str, str]":
    """agents/<slug>.md → its text, for every persona of the catalogue."""
    template = _read(TEMPLATE)
    return {
        os.path.join("agents", f"{p.slug}.md"): render(p, parse_part(_read(os.path.join(PARTS, f"{p.slug}.md"))), template)
        for p in catalogue.PERSONAS
    }


def drift(root: str = "") -> "list[str]":
    """The persona agent files that differ from what the template and parts give."""
    root = root or plugin_root()
    stale = []
    for rel, text in render_all().items():
        try:
            same = _read(os.path.join(root, rel)) == text
        except OSError:
            same = False
        if not same:
            stale.append(rel)
    return stale


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deliberation.text.agent_files")
    parser.add_argument("--check", action="store_true", help="report drift, write nothing")
    args = parser.parse_args(argv)
    if args.check:
        stale = drift()
        print("\n".join(f"{rel}: drifted" for rel in stale) or "agents/: up to date")
        return 1 if stale else 0
    for rel, text in render_all().items():
        with open(os.path.join(plugin_root(), rel), "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
