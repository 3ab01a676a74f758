"""The known-reversal registry: the recurrence arm's memory (`reversals.json`).

A person marks a past decision reversed (`deliberation reverse ID --reason ...`): its decision
class gains a reversal (count, first/last date, the linked decision and the reason) and becomes
**reversal-prone**. `deliberation confirm ID` labels a decision correct. A decision carries at
most one label; relabelling moves it (a confirmed decision later reversed stops counting as a
confirmation). The file is project-wide and safe to commit, so a team shares it.

Class matching (`matching_entries`): a decision class matches a registry entry with the same
name, or an entry named after its task type — an entry `security` covers `security/auth` and
`security/crypto`; an entry `security/auth` does not cover `security`.

- a class **has history** when some matching entry exists (reversed or confirmed decisions);
  without history the recurrence arm is blind and routing falls back to D (cold start);
- a class is **reversal-prone** when the matching entries hold at least one reversal.

Pure functions over `ReversalRegistry` (they mutate the model passed in, as `Store.update`
expects); the file is read and written by `Store.reversals` and `Store.update_reversals`.
"""

from __future__ import annotations

from typing import Callable, Literal

from deliberation.core.decision_class import task_type_of
from deliberation.state.models import ReversalClass, ReversalRegistry

Label = Literal["reversed", "confirmed"]


def matching_entries(registry: ReversalRegistry, cls: str) -> "list[ReversalClass]":
    """Entries that cover `cls`: the exact class first, then its task type."""
    names = [cls] if task_type_of(cls) == cls else [cls, task_type_of(cls)]
    return [registry.classes[n] for n in names if n in registry.classes]


def has_history(registry: ReversalRegistry, cls: str) -> bool:
    return bool(matching_entries(registry, cls))


def reversal_count(registry: ReversalRegistry, cls: str) -> int:
    return sum(e.reversals for e in matching_entries(registry, cls))


def is_reversal_prone(registry: ReversalRegistry, cls: str) -> bool:
    return reversal_count(registry, cls) > 0


def label_of(registry: ReversalRegistry, delib_id: str) -> "tuple[Label, str] | None":
    """(label, class it was filed under) for a labelled decision, else None."""
    for name, entry in registry.classes.items():
        if delib_id in entry.decisions:
            return "reversed", name
        if delib_id in entry.confirmed:
            return "confirmed", name
    return None


def _entry(registry: ReversalRegistry, cls: str) -> ReversalClass:
    if cls not in registry.classes:
        registry.classes[cls] = ReversalClass(decision_class=cls)
    return registry.classes[cls]


def _unlabel(registry: ReversalRegistry, delib_id: str) -> None:
    """Remove an earlier label of `delib_id` (relabelling), keeping counts and dates honest."""
    for entry in registry.classes.values():
        if delib_id in entry.decisions:
            i = entry.decisions.index(delib_id)
            del entry.decisions[i]
            if i < len(entry.reasons):
                del entry.reasons[i]
            entry.reversals = max(0, entry.reversals - 1)
            if entry.reversals == 0:
                entry.first_reversed_at = entry.last_reversed_at = None
        if delib_id in entry.confirmed:
            entry.confirmed.remove(delib_id)
            entry.confirmations = max(0, entry.confirmations - 1)


def mark_reversed(registry: ReversalRegistry, delib_id: str, decision_class: str, reason: str, at: float) -> bool:
    """Label `delib_id` reversed under `decision_class`. False if it already was (no change)."""
    if label_of(registry, delib_id) == ("reversed", decision_class):
        return False
    _unlabel(registry, delib_id)
    entry = _entry(registry, decision_class)
    entry.reversals += 1
    entry.decisions.append(delib_id)
    entry.reasons.append(reason)
    entry.first_reversed_at = at if entry.first_reversed_at is None else min(entry.first_reversed_at, at)
    entry.last_reversed_at = at if entry.last_reversed_at is None else max(entry.last_reversed_at, at)
    return True


def mark_confirmed(registry: ReversalRegistry, delib_id: str, decision_class: str) -> bool:
    """Label `delib_id` correct under `decision_class`. False if it already was (no change)."""
    if label_of(registry, delib_id) == ("confirmed", decision_class):
        return False
    _unlabel(registry, delib_id)
    entry = _entry(registry, decision_class)
    entry.confirmations += 1
    entry.confirmed.append(delib_id)
    return True


def listing(registry: ReversalRegistry) -> "list[ReversalClass]":
    """Entries for display: reversal-prone first (most reversals), then by name."""
    return sorted(registry.classes.values(), key=lambda e: (-e.reversals, e.decision_class))


def reclassified(registry: ReversalRegistry, class_now: "Callable[[str], str | None]") -> "list[tuple[str, str, str]]":
    """Each labelled decision that today's catalogue would file under another class:
    (its class in the registry, the decision, its class now). `class_now(decision id)` classes
    the decision's question again (None when the decision is not at hand). The task type is part
    of the class, so a change of the task types or of their keywords moves a question to another
    class, whose entries its labels do not reach (docs/CATALOGUES.md, "Reclassification")."""
    out = []
    for entry in listing(registry):
        for delib_id in [*entry.decisions, *entry.confirmed]:
            now = class_now(delib_id)
            if now is not None and now != entry.decision_class and not _covers(entry.decision_class, now):
                out.append((entry.decision_class, delib_id, now))
    return out


def _covers(entry_class: str, cls: str) -> bool:
    """An entry named after a task type covers each class of that type (matching_entries)."""
    return entry_class == task_type_of(cls)
