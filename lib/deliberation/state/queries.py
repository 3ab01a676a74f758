"""Read-only look-ups over the state folder: which deliberations and sessions exist, one
deliberation by id, the latest session — through `store.Store`, so a corrupt file is
quarantined and reported like anywhere else. Used by the CLI's views."""

from __future__ import annotations

import os
from typing import Any

from deliberation.state.ids import is_valid_id
from deliberation.state.models import Deliberation
from deliberation.state.models import Lineage, SessionState


def deliberation_ids(layout: Any) -> "list[str]":
    """Ids of the deliberation files present (quarantined, temp and lock files skipped)."""
    try:
        names = os.listdir(layout.deliberations_dir)
    except FileNotFoundError:
        return []
    return sorted(n[:-5] for n in names if n.endswith(".json") and is_valid_id(n[:-5]))


def load_deliberations(layout: Any, store: Any) -> list:
    out = []
    for did in deliberation_ids(layout):
        d = store.load(layout.deliberation(did), Deliberation)
        if d is not None:
            out.append(d)
    return out


def find_deliberation(layout: Any, store: Any, deliberation_id: str) -> "tuple[Deliberation | None, str]":
    """(deliberation, None) or (None, a sentence saying why not)."""
    if not is_valid_id(deliberation_id):
        return None, f"invalid deliberation id {deliberation_id!r}: ids contain only letters, digits, '-' and '_'"
    d = store.load(layout.deliberation(deliberation_id), Deliberation)
    if d is None:
        known = deliberation_ids(layout)
        hint = f" (known: {', '.join(known[-5:])})" if known else " (there are none yet)"
        return None, f"no deliberation {deliberation_id!r} in {layout.deliberations_dir}{hint}"
    return d, ""  # found: no problem to say


def session_ids(layout: Any) -> "list[str]":
    try:
        names = os.listdir(layout.sessions_dir)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if is_valid_id(n) and os.path.isdir(os.path.join(layout.sessions_dir, n)))


def latest_session(layout: Any, store: Any, need: str = "lineage") -> "str | None":
    """The most recent session that has a `need` file ('lineage' or 'events'): by the latest
    time recorded in its state, then by file modification time, then by id."""
    best: "tuple[float, float, str] | None" = None
    for sid in session_ids(layout):
        path = layout.lineage(sid) if need == "lineage" else layout.events(sid)
        if not os.path.exists(path):
            continue
        recorded = 0.0
        session = store.load(layout.session_state(sid), SessionState)
        if session is not None:
            recorded = max(session.updated_at, session.created_at)
        if need == "lineage":
            lin = store.load(path, Lineage)
            if lin is not None:
                recorded = max([recorded] + [s.requested_at for s in lin.spawns])
        key = (recorded, os.path.getmtime(path), sid)
        if best is None or key > best:
            best = key
    return best[2] if best else None
