"""Task type of a decision and its consensus threshold.

Owns the classification rule; the types, their keywords, their order and their thresholds are
the catalogue's (`deliberation.catalogue.TASK_TYPES`). Pure; stdlib only.

Precedence when a question matches several types: security > architecture > refactoring >
documentation, and `default` when none matches. The order follows the thresholds: a question
that touches several concerns is held to the strictest bar among them, because the cost of a
wrong decision is set by its riskiest part — "document the new auth flow" is a security
decision, not a documentation one. For the same reason the two lenient types, whose bars lie
below the default's, apply only to a question that names nothing at stake: one that also says
what can be lost or broken ("two users lost data", "breaks scripts of 300 users", "keep a
backup") is held to the default bar however much it mentions a README or a rename — a real
data-safety question ("…make the write atomic (temp file + rename) with a backup…") was
classed refactoring (0.65) by its "rename" and documentation (0.50) by its "see README".
Nor do they apply by a word inside a path: a question that points at its evidence ("see
docs/search-latency.md") is not about documentation — a real-model trial's search-latency
question was classed documentation (0.50, depth off, a ux-advocate on the panel) by that "docs".
The strict types still read paths: "src/auth/…" raises the bar, it never lowers it.
"""

from __future__ import annotations

import re

from deliberation import catalogue, defaults
from deliberation.core import vocabulary
from deliberation.core.terms import find_terms, normalise, strip_terms

DEFAULT = catalogue.DEFAULT_TASK_TYPE
TASK_TYPES = defaults.TASK_TYPES
DEFAULT_THRESHOLDS = defaults.CONFIG["task_types"]["thresholds"]
PRECEDENCE = tuple(t for t in TASK_TYPES if t != DEFAULT)  # the catalogue's order: strictest first
LENIENT = tuple(t for t in PRECEDENCE if DEFAULT_THRESHOLDS[t] < DEFAULT_THRESHOLDS[DEFAULT])  # bars below the default's

KEYWORDS = {t.name: list(t.keywords) for t in catalogue.TASK_TYPES if t.keywords}


def _matches(norm: str, task_type: str, terms: "list[str] | tuple[str, ...]") -> "list[str]":
    """The keywords of `task_type` in `norm`, once its phrases of another sense are cut out."""
    other = catalogue.OTHER_SENSES.get(task_type)
    return find_terms(strip_terms(norm, other) if other else norm, terms)


_PATH = re.compile(r"\S*[/\\]\S*")  # a token with a path separator: "docs/x.md", "./README", "src\\a.py"


def _texts(question: str) -> "tuple[str, str]":
    """The normalised question, and the same without its paths (what a lenient type reads)."""
    return normalise(question), normalise(_PATH.sub(" ", question))


def _read(task_type: str, norm: str, bare: str) -> str:
    return bare if task_type in LENIENT else norm


def classify(question: str, keywords: "dict | None" = None) -> str:
    """One of security / architecture / default / refactoring / documentation.

    `keywords` ({task_type: [terms]}) replaces the built-in keywords of the types it names.
    """
    norm, bare = _texts(question)
    table = {**KEYWORDS, **(keywords or {})}
    for task_type in PRECEDENCE:
        if _matches(_read(task_type, norm, bare), task_type, table.get(task_type) or ()):
            if task_type in LENIENT and at_stake(norm):
                return DEFAULT
            return task_type
    return DEFAULT


STAKES_FLOOR = 0.3
_STAKES = tuple(t for t, w in vocabulary.STAKES.items() if w >= STAKES_FLOOR) + (
    "breaking change*",
    "breaks",
    "breaking",
    "lost data",
    "lose data",
    "lost their",
)


def at_stake(norm: str) -> "list[str]":
    """The terms of a normalised question that say something can be lost or broken (the
    trigger's stakes words of weight ≥ STAKES_FLOOR, and the breaking-change words)."""
    return find_terms(norm, _STAKES)


def matched_keywords(question: str, keywords: "dict | None" = None) -> "dict[str, list[str]]":
    """Every type's matched keywords — to explain a classification."""
    norm, bare = _texts(question)
    table = {**KEYWORDS, **(keywords or {})}
    return {t: _matches(_read(t, norm, bare), t, table.get(t) or ()) for t in PRECEDENCE}


def threshold(task_type: str, thresholds: "dict | None" = None) -> float:
    """The consensus threshold of `task_type`; unknown types get the default type's."""
    table = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    return float(table.get(task_type, table[DEFAULT]))
