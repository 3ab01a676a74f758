"""Old, new, odd and corrupt state files: never misread, quarantined and reported, session goes on.

- an OLDER `schema_version` (this plugin knows version 1 only, so 0 has no migration): the file
  is refused — moved aside to `NAME.corrupt-<stamp>` byte for byte, the answer names the file
  and the version — and the session continues with that file started afresh;
- a NEWER `schema_version`: refused with "upgrade the plugin", the file is left untouched (a
  newer plugin still needs it), every hook answers with that warning and nothing blocks;
- a `schema_version` that only looks like 1 (`true`, `"1"`, null, missing): refused, never
  read as version 1;
- a corrupt file (truncated, binary, empty, a JSON array, valid JSON of the wrong shape) of
  each kind: quarantined, reported in the hook's answer, and the deliberation goes on.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import payloads as P
from tests.helpers.project import state_dir, write_config
from tests.helpers.reliability import inproc_hook, summary, validate_state
from tests.helpers.factories import write_state

SID = "5c4e0a00-0000-4000-8000-000000000010"
DID = f"d-{SID[:8]}-1"
QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
COUNTS: dict = {"quarantined": 0, "refused newer": 0, "reported": 0}


@pytest.fixture(scope="module", autouse=True)
def counts():
    """The module's figures, said once after its tests (each asserted its own file's fate)."""
    yield COUNTS
    if COUNTS["quarantined"] or COUNTS["refused newer"]:
        summary(
            f"schema/corrupt: {COUNTS['quarantined']} refused or corrupt files quarantined and "
            f"{COUNTS['reported']} reported in the hook's answer; {COUNTS['refused newer']} newer-version "
            "files refused untouched; misread files 0, blocked sessions 0"
        )


def seed(project) -> P.Session:
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(inproc_hook, SID)
    s.prompt(QUESTION)
    out = s.foreground(
        "security-analyst",
        f"Research: {QUESTION}",
        P.research_report("security-analyst", ["Dual-write doubles the credential surface"]),
    )
    assert out["post"].decision is None
    return s


def files(project) -> dict:
    root = state_dir(project)
    return {
        "session": root / "sessions" / SID / "session.json",
        "lineage": root / "sessions" / SID / "lineage.json",
        "deliberation": root / "deliberations" / f"{DID}.json",
    }


def quarantined(path) -> "list":
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


def next_research(s: P.Session, persona: str = "performance-engineer") -> dict:
    return s.foreground(persona, f"Research: {QUESTION}", P.research_report(persona, [f"{persona} claim one"]))


def all_messages(out: dict) -> str:
    return "\n".join(r.system_message or "" for k, r in out.items() if k != "agent_id")


@pytest.mark.parametrize("kind", ["session", "lineage", "deliberation"])
def test_older_schema_version_is_refused_by_name_and_the_session_goes_on(project, kind):
    s = seed(project)
    path = files(project)[kind]
    doc = {k: v for k, v in json.loads(path.read_text()).items() if k != "mac"}
    doc["schema_version"] = 0
    write_state(path, json.dumps(doc))  # written by an older plugin of this user: sealed with the same key
    raw = path.read_bytes()
    out = next_research(s)
    msg = all_messages(out)
    moved = quarantined(path)
    assert len(moved) == 1 and moved[0].read_bytes() == raw  # kept byte for byte for a person
    assert f"{path.relative_to(project)}" in msg and "schema_version 0 cannot be migrated" in msg, msg
    assert moved[0].name in msg
    for key in ("pre", "start", "stop", "post"):
        assert out[key].decision is None, (key, out[key].json)
    if kind == "deliberation":
        # the active deliberation was refused: the next persona opens a new one, said loudly
        assert "has no state file" in msg and not path.exists()
    else:  # started afresh: none of the refused content was read into it
        assert json.loads(path.read_text())["schema_version"] == 1
    d = json.loads(sorted((state_dir(project) / "deliberations").glob("d-*.json"))[-1].read_text())
    assert "performance-engineer" in [a["persona"] for a in d["agents"] if a["status"] == "reported"]
    assert validate_state(project).problems == []
    COUNTS["quarantined"] += 1
    COUNTS["reported"] += 1


@pytest.mark.parametrize("kind", ["session", "deliberation"])
def test_newer_schema_version_is_refused_untouched_and_nothing_blocks(project, kind):
    seed(project)
    path = files(project)[kind]
    doc = {k: v for k, v in json.loads(path.read_text()).items() if k != "mac"}
    doc["schema_version"] = 2
    doc["a_field_from_the_future"] = {"x": 1}
    write_state(path, json.dumps(doc))  # written by a newer plugin of this user: sealed with the same key
    raw = path.read_bytes()
    answers = [
        inproc_hook("PreToolUse", P.pre_agent(SID, "toolu_n1", "cost-analyst", "Research", False)),
        inproc_hook("Stop", P.stop(SID)),
        inproc_hook("UserPromptSubmit", P.prompt(SID, "continue")),
    ]
    if kind == "deliberation":  # a prompt does not read the deliberation: it answers as usual
        assert answers.pop().decision is None
    for res in answers:
        assert res.decision is None, res.json
        msg = res.system_message or ""
        assert "SchemaVersionError" in msg and "schema_version 2, newer than this plugin's 1" in msg, msg
        assert "upgrade the plugin" in msg
    assert path.read_bytes() == raw and quarantined(path) == []
    COUNTS["refused newer"] += 1


@pytest.mark.parametrize("value", [True, "1", None, "missing", 1.5])
def test_a_version_that_only_looks_like_1_is_never_read_as_1(project, value):
    seed(project)
    path = files(project)["session"]
    doc = {k: v for k, v in json.loads(path.read_text()).items() if k != "mac"}
    if value == "missing":
        del doc["schema_version"]
    else:
        doc["schema_version"] = value
    doc["last_prompt"] = "a prompt the odd file claims"
    write_state(path, json.dumps(doc))  # sealed: the version, not the seal, must refuse it
    res = inproc_hook("UserPromptSubmit", P.prompt(SID, "continue with the plan"))
    assert res.decision is None
    moved = quarantined(path)
    assert len(moved) == 1, f"schema_version {value!r} was read as version 1"
    assert "is not supported" in res.system_message or "cannot be migrated" in res.system_message, res.system_message
    # the session starts afresh: its default state is not written (nothing to keep), and never the claim
    assert not path.exists() or json.loads(path.read_text())["last_prompt"] != "a prompt the odd file claims"
    COUNTS["quarantined"] += 1
    COUNTS["reported"] += 1


CORRUPTIONS = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "binary": lambda raw: b"\x00\xff\xfe garbage \x80\x81",
    "empty": lambda raw: b"",
    "JSON array": lambda raw: b"[1, 2, 3]",
    "wrong shape": lambda raw: json.dumps({"schema_version": 1, "session_id": 42, "agents": "many", "spawns": {"x": 1}}).encode(),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("kind", ["session", "lineage", "deliberation"])
def test_corrupt_file_is_quarantined_reported_and_the_session_goes_on(project, kind, corruption):
    s = seed(project)
    path = files(project)[kind]
    bad = CORRUPTIONS[corruption](path.read_bytes())
    path.write_bytes(bad)
    out = next_research(s)
    msg = all_messages(out)
    moved = quarantined(path)
    assert len(moved) == 1 and moved[0].read_bytes() == bad
    assert "corrupt state file" in msg and str(path.relative_to(project)) in msg, msg
    for key in ("pre", "start", "stop", "post"):
        assert out[key].decision is None, (key, out[key].json)
    d = json.loads(sorted((state_dir(project) / "deliberations").glob("d-*.json"))[-1].read_text())
    assert "performance-engineer" in [a["persona"] for a in d["agents"] if a["status"] == "reported"]
    # and it keeps going: Stop answers (blocks for the gates, or not) without another warning
    stop = s.stop()
    assert "corrupt" not in (stop.system_message or "")
    v = validate_state(project)
    assert v.problems == [] and len(v.quarantined) == 1, v
    COUNTS["quarantined"] += 1
    COUNTS["reported"] += 1


@pytest.mark.parametrize("corruption", ["truncated", "wrong shape"])
def test_corrupt_escalations_index_is_quarantined_and_reported_not_silently_ignored(project, corruption):
    """escalations.json gates risky tools while a person must decide; a corrupt one must not
    silently read as 'nothing open'."""
    root = state_dir(project)
    root.mkdir(parents=True)
    good = json.dumps(
        {
            "schema_version": 1,
            "open": [
                {
                    "deliberation_id": DID,
                    "session_id": SID,
                    "route": "human-review",
                    "reason": "unanimous pass on a reversal-prone class",
                    "opened_at": 1.0,
                }
            ],
        }
    ).encode()
    bad = CORRUPTIONS[corruption](good)
    (root / "escalations.json").write_bytes(bad)
    res = inproc_hook("PreToolUse", P.pre_tool(SID, "Edit", {"file_path": "x.py", "old_string": "a", "new_string": "b"}))
    assert res.decision is None  # fail-open: the session is not wedged
    msg = res.system_message or ""
    assert "corrupt state file" in msg and "escalations.json" in msg, res.json
    moved = quarantined(root / "escalations.json")
    assert len(moved) == 1 and moved[0].read_bytes() == bad
    COUNTS["quarantined"] += 1
    COUNTS["reported"] += 1


def test_corrupt_config_is_reported_and_defaults_apply(project):
    write_config(project, {"depth": {"posture": "off"}})
    (state_dir(project) / "config.json").write_text('{"gates": {"stop_block_limit": 3,,,')
    res = inproc_hook("PreToolUse", P.pre_agent(SID, "toolu_c1", "security-analyst", "Research", False))
    assert res.decision is None
    assert "deliberation config:" in (res.system_message or ""), res.json
    assert (state_dir(project) / "config.json").exists()  # the user's file is theirs: not moved


def test_doctor_lists_every_quarantined_file(project):
    from deliberation.cli.doctor import check_state
    from deliberation.state.paths import Layout

    s = seed(project)
    for kind in ("session", "lineage"):
        files(project)[kind].write_bytes(b"{broken")
    next_research(s)
    problems = [f.message for f in check_state(Layout()) if f.status == "problem"]
    assert len(problems) == 2 and all("quarantined" in p for p in problems), problems
