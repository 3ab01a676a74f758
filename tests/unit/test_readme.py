"""The README a newcomer reads before enabling the plugin: within 100 columns, the cost said up
front (agents, requests and tokens against one agent, with the demo's own figure), what starts a
deliberation by itself and how to switch that off, the client versions tested, the five terms,
and the one form of the review commands."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_line_fits_100_columns():
    wide = [f"{n}: {line}" for n, line in enumerate(README.splitlines(), 1) if len(line) > 100]
    assert wide == [], wide


def test_before_you_enable_it_says_cost_triggers_versions_and_terms():
    before = re.sub(r"\s+", " ", section("Before you enable it"))
    for figure in ("20 subagents", "34–37", "4.1–5.0×", "0.75–1.17×", "6.6–7.2×", "13 subagents", "12.7×"):
        assert figure in before, figure
    # the real-model figures are the ones docs/EVIDENCE.md measured (E13: 4.97×, 4.09×, 4.21×; main 0.75–1.17×)
    evidence = (REPO / "docs" / "EVIDENCE.md").read_text(encoding="utf-8")
    for figure in ("4.97× (1.17×)", "4.09× (1.07×)", "4.21× (0.75×)"):
        assert figure in evidence, figure
    assert '{"trigger": {"enabled": false}}' in before and "/deliberation:off" in before
    assert "2.1.328" in before and "2.1.332" in before
    for term in ("*persona*", "*gate*", "*route*", "*human review*", "*depth pass*", "*lineage*"):
        assert term in before, term
    assert README.index("## Before you enable it") < README.index("## Install")


def test_one_form_of_the_review_commands():
    assert "deliberation approve ID" in README and "deliberation reject ID" in README
    assert 'Either takes `--reason "…"` (optional)' in README
    assert not re.search(r"deliberation (approve|reject) ID --reason", README)
