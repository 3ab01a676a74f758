"""What the hook scripts keep in a project (docs/STORAGE.md): a session of plain work leaves
nothing but the lineage its spawn budget needs, and no text; a deliberation's log keeps what
replay needs; large payload fields are cut at the cap."""

from __future__ import annotations

import json
import uuid

from tests.helpers import payloads as P
from tests.helpers.flows import GATES_QUESTION as QUESTION
from tests.helpers.flows import gate_research as research
from tests.helpers.flows import start

SECRET = "rotate the hunter2 credentials on the staging box"


def state(project):
    return project / ".claude" / "deliberation"


def every_file(project) -> "dict[str, str]":
    root = state(project)
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*") if p.is_file()}


def test_a_turn_of_plain_work_leaves_nothing_of_the_session(project, hook):
    sid = str(uuid.uuid4())
    assert hook("SessionStart", {**P.base(sid, "SessionStart"), "source": "startup"}).returncode == 0
    assert hook("UserPromptSubmit", P.prompt(sid, "hi, " + SECRET)).json in (None, {})
    kept = json.loads((state(project) / "sessions" / sid / "prompt.json").read_text())
    assert kept["record"]["payload"]["prompt"] == "hi, " + SECRET  # while the turn runs, for a deliberation it may open
    hook("PreToolUse", P.pre_tool(sid, "Bash", {"command": "cat secrets.txt"}))
    hook("PreToolUse", P.pre_tool(sid, "Edit", {"file_path": "a.py", "old_string": SECRET, "new_string": "x"}))
    hook("Stop", P.stop(sid, message="Rotated " + SECRET))
    assert not (state(project) / "sessions" / sid).exists()
    assert all(SECRET not in text for text in every_file(project).values())
    assert set(every_file(project)) <= {".gitignore"}


def test_a_helper_subagent_keeps_its_lineage_and_ids_only(project, hook):
    sid = str(uuid.uuid4())
    hook("UserPromptSubmit", P.prompt(sid, SECRET))
    hook("PreToolUse", P.pre_agent(sid, "toolu_h1", "Explore", "Find where " + SECRET))
    hook("SubagentStart", P.subagent_start(sid, "a1", "Explore"))
    hook("SubagentStop", P.subagent_stop(sid, "a1", "Explore", "Found " + SECRET))
    hook("PostToolUse", P.post_agent_completed(sid, "toolu_h1", "a1", "Explore", "Find where " + SECRET, "Found " + SECRET))
    hook("Stop", P.stop(sid, message=SECRET))
    files = every_file(project)
    assert all(SECRET not in text for text in files.values()), [k for k, v in files.items() if SECRET in v]
    lineage = json.loads(files[f"sessions/{sid}/lineage.json"])
    assert [(s["subagent_type"], s["status"]) for s in lineage["spawns"]] == [("Explore", "completed")]
    events = [json.loads(line) for line in files[f"sessions/{sid}/events.jsonl"].splitlines()]
    assert [e["event"] for e in events] == ["PreToolUse", "SubagentStart", "SubagentStop", "PostToolUse"]
    assert all(e["ids_only"] for e in events)
    assert f"sessions/{sid}/prompt.json" not in files and f"sessions/{sid}/session.json" not in files


def test_a_deliberation_log_starts_with_its_prompt_once(project, hook):
    s = start(project, hook)
    research(s)
    log = [json.loads(line) for line in (state(project) / "sessions" / s.sid / "events.jsonl").read_text().splitlines()]
    prompts = [e for e in log if e["event"] == "UserPromptSubmit"]
    whole = [e for e in prompts if not e.get("ids_only")]
    assert len(whole) == 1 and whole[0]["payload"]["prompt"] == QUESTION and "confidence" in whole[0]["trigger"]
    assert log.index(whole[0]) < next(i for i, e in enumerate(log) if e["event"] == "PreToolUse")
    assert not (state(project) / "sessions" / s.sid / "prompt.json").exists()
    delib = json.loads(next((state(project) / "deliberations").glob("*.json")).read_text())
    assert delib["question"] == QUESTION


def test_an_8_mb_prompt_is_kept_cut_at_the_field_cap(project, hook):
    from deliberation.defaults import LOG_FIELD_CAP_CHARS

    sid = str(uuid.uuid4())
    big = "Should we shard the orders database? " + "x" * 8_000_000
    out = hook("UserPromptSubmit", P.prompt(sid, big))
    path = state(project) / "sessions" / sid / "prompt.json"
    answered = len((out.context or "").encode())  # the protocol, when the prompt triggers, is logged as the answer
    assert path.stat().st_size < LOG_FIELD_CAP_CHARS + answered + 4096
    record = json.loads(path.read_text())["record"]
    assert record["truncated"] == {"prompt": len(big)}
    assert record["payload"]["prompt"] == big[:LOG_FIELD_CAP_CHARS]
