"""docs/CATALOGUES.md: the tables of the three catalogues (ranking dimensions, task types,
research personas), generated from `deliberation.catalogue` and drift-tested
(tests/unit/test_catalogue.py). Regenerate after a change of the catalogue:

    python -m deliberation.text.catalogue_doc          # rewrite docs/CATALOGUES.md
    python -m deliberation.text.catalogue_doc --check  # say whether it drifted, write nothing
"""

from __future__ import annotations

import argparse
import os
import sys

from deliberation import catalogue, plugin_root

PATH = os.path.join("docs", "CATALOGUES.md")

INTRO = """# Catalogues

Generated from `lib/deliberation/catalogue.py` by `python -m deliberation.text.catalogue_doc`;
tests/unit/test_catalogue.py fails when this file drifts from it, and when a module of `lib/`
other than the catalogue spells a member out. Every protocol line, prompt, report example, report
schema, CLI choice, agent file and test helper that lists a member is derived from the catalogue.

## Adding a member

- **A ranking dimension**: one `Dimension(...)` in `catalogue.DIMENSIONS` (name, weight, scale note,
  what it asks), then `python -m deliberation.text.catalogue_doc`, `python -m deliberation.text.agent_files`,
  `python -m deliberation.state.schemas` and `python -m tests.helpers.golden`. A project can configure its
  own set instead (`ranking.dimensions` in config.json: name, weight, description); a description that
  opens with a scale note ("10 = safest: …") gives the dimension that note. The configured set reaches
  the protocol, the ranking prompts, the report examples and every check of a ranking report.
- **A task type**: one `TaskType(...)` in `catalogue.TASK_TYPES`, in the place of its bar (the order is
  the precedence: strictest first), with its keywords and its panel; then regenerate as above.
- **A persona**: one `Persona(...)` in `catalogue.PERSONAS` and its own part,
  `lib/deliberation/text/agent_parts/<slug>.md`; `python -m deliberation.text.agent_files` writes
  `agents/<slug>.md`.

## Reclassification

The task type is part of a decision's class (`security/auth`), the key of the reversal registry
(`reversals.json`). A change of the task types or of their keywords can class a past decision's
question differently: the registry's entries under the old class no longer match the new class.
`deliberation registry` says so, one line per labelled decision its question would now be filed
elsewhere (`core/reversals.reclassified`); relabel the decision (`deliberation reverse ID` or
`confirm ID`) to file it under its new class.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    lines = [INTRO, "## Ranking dimensions", "", "| dimension | weight | scale | what it asks |", "|---|---|---|---|"]
    for d in catalogue.DIMENSIONS:
        lines.append(f"| `{d.name}` | {d.weight:.2f} | {_cell(d.scale) or '10 = best'} | {_cell(d.about)} |")
    lines += [
        "",
        "## Task types",
        "",
        "Strictest first: the order is the precedence when a question matches several types. A type whose bar "
        f"lies below `{catalogue.DEFAULT_TASK_TYPE}`'s applies only to a question that names nothing at stake.",
        "",
        "| task type | consensus bar | weak leader to a person | depth | suggested panel | keywords |",
        "|---|---|---|---|---|---|",
    ]
    for t in catalogue.TASK_TYPES:
        review = "yes" if t.review else "no"
        keywords = f"{len(t.keywords)} (`{t.keywords[0]}`, …)" if t.keywords else "— (no other type matched)"
        lines.append(
            f"| `{t.name}` | {t.threshold:.2f} | {review} | {t.depth or 'default'} | {', '.join(t.panel)} | {keywords} |"
        )
    for name, phrases in catalogue.OTHER_SENSES.items():
        lines += ["", f"Not a `{name}` keyword inside: {', '.join(f'`{p}`' for p in phrases)} (another sense of its words)."]
    lines += [
        "",
        f"The minimum viable deliberation: {catalogue.MINIMUM_PANEL[0]} (FOR) and {catalogue.MINIMUM_PANEL[1]} (AGAINST).",
        "",
        "## Research personas",
        "",
        "| persona | title | evaluation priority | conflicts with |",
        "|---|---|---|---|",
    ]
    for p in catalogue.PERSONAS:
        lines.append(f"| `{p.slug}` | {p.title} | {_cell(p.priority)} | {', '.join(p.conflicts) or '—'} |")
    return "\n".join(lines) + "\n"


def drift(root: str = "") -> bool:
    path = os.path.join(root or plugin_root(), PATH)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read() != render()
    except OSError:
        return True


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deliberation.text.catalogue_doc")
    parser.add_argument("--check", action="store_true", help="report drift, write nothing")
    args = parser.parse_args(argv)
    if args.check:
        stale = drift()
        print(f"{PATH}: {'drifted' if stale else 'up to date'}")
        return 1 if stale else 0
    with open(os.path.join(plugin_root(), PATH), "w", encoding="utf-8") as fh:
        fh.write(render())
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
