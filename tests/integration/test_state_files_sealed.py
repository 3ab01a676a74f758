"""Every file a real session leaves in the state folder is of a known kind (seal.SEALED, SHARED,
UNREAD), and every SEALED one — each line of a .jsonl — carries this user's seal: a deliberation
run to its decision record, the hourly prune, the off switch, the config cache, all through the
hook scripts. tests/unit/test_seal_coverage.py holds the other half: each file read back is
sealed or shared."""

from __future__ import annotations

import fnmatch
import os
import time

from deliberation.state import seal
from deliberation.state.paths import Layout
from tests.helpers import payloads as P
from tests.helpers.factories import write_state
from tests.helpers.flows import RESEARCH_CLAIMS as RESEARCH, deliberate
from tests.helpers.project import write_config


def test_every_file_a_session_leaves_is_of_a_known_kind_and_each_runtime_one_is_sealed(project, hook):
    layout = Layout(str(project))
    write_config(project, {"depth": {"posture": "off"}})
    old = "0ld00000-0000-4000-8000-000000000001"
    write_state(layout.lineage(old), {"schema_version": 1, "session_id": old, "spawns": []})
    then = time.time() - 40 * 24 * 3600
    os.utime(layout.lineage(old), (then, then))  # the session start's prune has something to do
    s = P.Session(hook)
    s.prompt("hi")  # the slow path validates the new config.json (the prune waits for that)
    hook("SessionStart", {**P.base(s.sid, "SessionStart"), "source": "startup"})
    deliberate(s)
    s.stop(message=P.prd_message([f"{p}:F1" for p in RESEARCH]))
    off = P.Session(hook)
    assert "checks are off" in (off.prompt("/deliberation-off").system_message or "")

    seen, unsealed = {}, []
    for folder, _dirs, names in os.walk(layout.root):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), layout.root).replace(os.sep, "/")
            if name.endswith(".lock"):
                continue
            kinds = [
                k
                for k, table in (("sealed", seal.SEALED), ("shared", seal.SHARED), ("unread", seal.UNREAD))
                if any(fnmatch.fnmatchcase(rel, p) for p in table)
            ]
            assert len(kinds) == 1, f"{rel}: of kinds {kinds}"
            seen[rel] = kinds[0]
            if kinds[0] != "sealed":
                continue
            raw = open(os.path.join(folder, name), "rb").read()
            parts = [ln for ln in raw.split(b"\n") if ln.strip()] if rel.endswith(".jsonl") else [raw]
            if not all(seal.unseal(seal.key_for(layout), rel, part) is not None for part in parts):
                unsealed.append(rel)
    assert unsealed == [], f"runtime files written without this user's seal: {unsealed}"
    patterns = {p for rel in seen for p in seal.SEALED if fnmatch.fnmatchcase(rel, p)}
    assert {
        "sessions/*/switch.json",
        "cache/retention.json",
        "cache/config.resolved.json",
        "sessions/*/events.jsonl",
        "sessions/*/session.json",
        "deliberations/*.json",
    } <= patterns, sorted(seen)
    assert any(fnmatch.fnmatchcase(rel, "records/*.md") for rel in seen), sorted(seen)
