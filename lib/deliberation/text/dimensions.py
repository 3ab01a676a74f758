"""How the ranking dimensions are worded — in the protocol, the ranking prompt and the agent
files — from the configured set (config `ranking.dimensions`: each a name and a description)
or, by default, the catalogue's. A dimension's scale note ("10 = lowest risk") is the part of
its description before the first ':' when the description opens with "10 ="
(`catalogue.scale_note`), so a configured description reaches every text that names its
dimension. Stdlib only: a triggering prompt loads it.
"""

from __future__ import annotations

from deliberation import catalogue


def of(dimensions: "list | None" = None) -> "list[tuple[str, str]]":
    """(name, scale note) of each dimension: `dimensions` are config dicts or models (name,
    description) — the configured set — names, or None for the catalogue's."""
    if not dimensions:
        return [(d.name, d.scale) for d in catalogue.DIMENSIONS]
    out = []
    for d in dimensions:
        if isinstance(d, str):  # a name alone: its scale note is the catalogue's, if it is one of its
            known = catalogue.dimension(d)
            out.append((d, known.scale if known else ""))
            continue
        name = d.get("name") if isinstance(d, dict) else getattr(d, "name", None)
        about = d.get("description") if isinstance(d, dict) else getattr(d, "description", "")
        if isinstance(name, str) and name:
            out.append((name, catalogue.scale_note(about if isinstance(about, str) else "")))
    return out


def listed(dimensions: "list | None" = None, terse: bool = False) -> str:
    """The dimensions with their scale notes: "correctness, risk (10 = lowest risk), …, cost (10 =
    cheapest)"; `terse` (the protocol's line) drops a note's repeat of its dimension's name:
    "risk (10 = lowest)"."""
    out = []
    for name, note in of(dimensions):
        if terse:
            note = note.replace(f" {name}", "")
        out.append(f"{name} ({note})" if note else name)
    return ", ".join(out)


def names(dimensions: "list | None" = None) -> str:
    """ "correctness, risk, maintainability, performance, cost"."""
    return ", ".join(name for name, _ in of(dimensions))


def scales(dimensions: "list | None" = None) -> str:
    """ " (risk: 10 = lowest risk; cost: 10 = cheapest)" — each scale note, or "" when none has one."""
    notes = [f"{name}: {note}" for name, note in of(dimensions) if note]
    return f" ({'; '.join(notes)})" if notes else ""


def weights(dimensions: "list | None" = None) -> str:
    """ "correctness 0.30, risk 0.25, …": each dimension's share of the weighted score, heaviest
    first (config dicts or models with a weight; names take the catalogue's)."""
    pairs = []
    for d in dimensions or catalogue.DIMENSIONS:
        name: object
        weight: object
        if isinstance(d, str):
            known = catalogue.dimension(d)
            name, weight = d, known.weight if known else 0.0
        else:
            name = d.get("name") if isinstance(d, dict) else getattr(d, "name", None)
            weight = d.get("weight") if isinstance(d, dict) else getattr(d, "weight", None)
        if isinstance(name, str) and isinstance(weight, (int, float)) and weight > 0:
            pairs.append((name, float(weight)))
    total = sum(w for _, w in pairs) or 1.0
    return ", ".join(f"{n} {w / total:.2f}" for n, w in sorted(pairs, key=lambda x: (-x[1], x[0])))


def count(dimensions: "list | None" = None) -> str:
    """ "five": how many dimensions, in words up to twelve."""
    n = len(of(dimensions))
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
    return words[n] if n < len(words) else str(n)
