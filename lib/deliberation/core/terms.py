"""Finding vocabulary terms in a prompt: the matching the trigger's dimensions (confidence.py)
and the task types (task_type.py) share.

A term matches whole words in the prompt's normalised text (lower case, one space between
words); a term ending in `*` matches any word that starts with it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Iterable

_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Lower-case words joined by single spaces, padded with one space at each end."""
    return " " + " ".join(_NON_WORD.split(text.lower())).strip() + " "


def _term_probe(term: str) -> str:
    """The substring that marks `term` in normalised text (see the module docstring)."""
    term = term.rstrip()
    prefix = term.endswith("*")
    words = term.rstrip("*")
    if not (
        words == words.lower() and words.replace(" ", "").isalnum() and "  " not in words and words == words.strip()
    ):  # most terms are written normalised already: no regex for them
        words = normalise(words).strip()
    return " " + words if prefix else " " + words + " "


_PROBES: "dict[str, str]" = {}  # term → probe: the vocabularies are matched on every prompt


def find_terms(norm_text: str, terms: "Iterable[str]") -> "list[str]":
    """The terms of `terms` (an iterable of term strings) present in `norm_text`, in order."""
    found = []
    probes = _PROBES
    for term in terms:
        probe = probes.get(term)
        if probe is None:
            probe = _term_probe(term) if isinstance(term, str) else ""
            probe = probes[term] = probe if probe.strip() else ""  # a term of no words matches nothing
        if probe and probe in norm_text:
            found.append(term)
    return found


def strip_terms(norm_text: str, terms: "Iterable[str]") -> str:
    """`norm_text` with every occurrence of `terms` (as find_terms matches them) cut out, so the
    words inside a phrase of another sense ("token bucket") match nothing else."""
    for term in terms:
        probe = _term_probe(term)
        if not probe.strip():
            continue
        pattern = re.escape(probe) + (r"[a-z0-9]* " if not probe.endswith(" ") else "")
        norm_text = re.sub(pattern, " ", norm_text)
    return norm_text
