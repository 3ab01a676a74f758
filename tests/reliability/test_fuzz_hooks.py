"""Property-based fuzzing of every hook (hypothesis): random and mutated payloads.

The bulk runs IN-PROCESS through `hook_runner.respond` — exactly what each hook script runs
between reading stdin and printing (`run()` is `respond()` plus the read and the print) — with
CLAUDE_PROJECT_DIR at a temp project holding a deliberation in progress, so payloads reach the
slow path (locks, models, gates) and not only the parser. A smaller deterministic sample goes
through the real hook scripts as subprocesses.

Inputs: payloads shaped like the real client's (tests/payloads builders) for the seeded
session and a fresh one, then mutated 0-4 times — a key dropped, a value of the wrong type or
null, a huge string, deep nesting, hostile ids, unknown keys — and sometimes mangled as bytes
(truncated, invalid UTF-8 spliced in); plus arbitrary JSON values.

Properties, for every case: `respond` never raises; stdout is empty or ONE JSON object with
only the protocol's keys, never a traceback, always encodable as UTF-8; every state file the
case changed validates against its published schema (JSONL files: the appended lines).
"""

from __future__ import annotations

import json
import os
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import payloads as P
from tests.conftest import run_hook
from tests.helpers.project import state_dir, write_config
from tests.helpers.reliability import inproc_hook, strict_json, summary, validate_file, validate_state

SID = "f022f022-0000-4000-8000-000000000010"
FRESH = "f022f022-0000-4000-8000-000000000099"
EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"]
CASES_PER_EVENT = 230
RAW_CASES = 260
TOP_KEYS = {"decision", "reason", "hookSpecificOutput", "systemMessage"}
SPECIFIC_KEYS = {"hookEventName", "permissionDecision", "permissionDecisionReason", "additionalContext"}
STATS = {
    "cases": 0,
    "empty": 0,
    "warning": 0,
    "block/deny/ask": 0,
    "context": 0,
    "state files validated": 0,
    "subprocess cases": 0,
}
WARNINGS: "dict[str, int]" = {}
QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
PERSONAS = [
    "security-analyst",
    "performance-engineer",
    "cost-analyst",
    "synthesis-lead",
    "red-team",
    "evidence-chase",
    "general-purpose",
    "P:security-analyst",
    "Explore",
]
AGENT_IDS = ["a0001seededagent01", "a0002seededagent02", "a0003seededagent03", "aXnew000000000001"]
TOOL_IDS = ["toolu_s1", "toolu_s2", "toolu_s3", "toolu_new"]


# -- the project under fuzz -------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory):
    proj = tmp_path_factory.mktemp("fuzz") / "project"
    proj.mkdir()
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAUDE_PROJECT_DIR", str(proj))
    seed(proj)
    tracker = Tracker(proj)
    assert validate_state(proj).problems == []
    yield proj, tracker
    mp.undo()
    if STATS["cases"]:  # the module's figures, said once after its tests (each asserted its own)
        summary(
            f"fuzz: {STATS['cases']} in-process cases over {len(EVENTS)} hook events + "
            f"{STATS['subprocess cases']} through the real scripts → exceptions 0, tracebacks on stdout 0, "
            f"answers: empty {STATS['empty']}, one-line warnings {STATS['warning']}, "
            f"block/deny/ask {STATS['block/deny/ask']}, context/other {STATS['context']}; "
            f"state-file changes validated {STATS['state files validated']}, invalid 0; warnings by kind "
            f"{dict(sorted(WARNINGS.items(), key=lambda kv: -kv[1]))}"
        )


def seed(proj) -> None:
    """A deliberation in RESEARCH: two reports recorded, a third agent running (background)."""
    write_config(proj, {"depth": {"posture": "off"}, "lock_timeout_s": 2})
    s = P.Session(inproc_hook, SID)
    s.prompt(QUESTION)
    for i, persona in enumerate(("security-analyst", "performance-engineer"), 1):
        tuid, aid = TOOL_IDS[i - 1], AGENT_IDS[i - 1]
        inproc_hook("PreToolUse", P.pre_agent(SID, tuid, persona, f"Research: {QUESTION}", False))
        inproc_hook("SubagentStart", P.subagent_start(SID, aid, persona))
        inproc_hook("SubagentStop", P.subagent_stop(SID, aid, persona, report(persona)))
    inproc_hook("PreToolUse", P.pre_agent(SID, TOOL_IDS[2], "cost-analyst", f"Research: {QUESTION}", True))
    inproc_hook("SubagentStart", P.subagent_start(SID, AGENT_IDS[2], "cost-analyst"))


def report(persona: str, phase: str = "research") -> str:
    if phase == "ranking":
        return P.ranking_report({"A": (8, 7, 7, 6, 6), "B": (6, 5, 6, 7, 8)}, "approve", "A", f"{persona} view")
    return P.research_report(persona, [f"{persona}: dual-write has a cost"], [("A", "dual-write"), ("B", "big bang")])


class Tracker:
    """Validates what changed since the last look: whole JSON files, appended JSONL lines."""

    def __init__(self, project) -> None:
        self.root = state_dir(project)
        self.seen: dict = {}
        self.look()

    def look(self) -> "list[str]":
        from deliberation.state import schemas

        problems = []
        for dirpath, _dirs, names in os.walk(self.root):
            for name in names:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, self.root).replace(os.sep, "/")
                st_ = os.stat(path)
                key = (st_.st_mtime_ns, st_.st_size)
                old = self.seen.get(rel)
                if old == key:
                    continue
                self.seen[rel] = key
                if ".tmp-" in name:
                    problems.append(f"{rel}: temp file left behind")
                    continue
                found = schemas.schema_for_path(rel)
                if found is None:
                    continue
                schema, jsonl = found
                STATS["state files validated"] += 1
                if jsonl:
                    problems += self._lines(path, rel, schema, old[1] if old and old[1] <= st_.st_size else 0)
                else:
                    probs, _ = validate_file(path, schema, False)
                    problems += [f"{rel}: {p}" for p in probs]
        return problems

    def _lines(self, path: str, rel: str, schema: str, offset: int) -> "list[str]":
        from deliberation.state import schemas
        from tests.helpers.reliability import _validator

        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
        out = []
        if data and not data.endswith(b"\n"):
            out.append(f"{rel}: unterminated last line")
        for line in data.splitlines():
            try:
                doc = strict_json(line)
            except ValueError as exc:
                out.append(f"{rel}: line does not parse ({exc}): {line[:80]!r}")
                continue
            out += [f"{rel}: {p}" for p in schemas.explain(_validator(schema), doc)]
        return out


# -- payload strategies ------------------------------------------------------------------------


def sid_strategy():
    return st.sampled_from([SID, SID, FRESH])


@st.composite
def base_payload(draw, event: str) -> dict:
    sid = draw(sid_strategy())
    persona = draw(st.sampled_from(PERSONAS))
    aid = draw(st.sampled_from(AGENT_IDS))
    tuid = draw(st.sampled_from(TOOL_IDS))
    phase = draw(st.sampled_from(["research", "ranking"]))
    text = draw(
        st.sampled_from(
            [report(persona, phase), "no report at all", '```json\n{"phase": 1}\n```', report(persona) + "\n" + report(persona)]
        )
    )
    if event == "UserPromptSubmit":
        return draw(
            st.sampled_from(
                [
                    P.prompt(sid, QUESTION),
                    P.prompt(sid, "fix the typo in README"),
                    P.prompt(sid, "a lone surrogate \ud800 and a BOM \ufeff"),
                    P.task_notification(sid, aid, tuid, text),
                ]
            )
        )
    if event == "PreToolUse":
        bg = draw(st.sampled_from([True, False, None]))
        return draw(
            st.sampled_from(
                [
                    P.pre_agent(sid, tuid, persona, f"Research: {QUESTION}", bg),
                    P.pre_agent(sid, tuid, persona, "go", bg, parent=(aid, persona)),
                    P.pre_tool(sid, "Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}),
                    P.pre_tool(sid, "Bash", {"command": "ls"}),
                ]
            )
        )
    if event == "PostToolUse":
        return draw(
            st.sampled_from(
                [P.post_agent_completed(sid, tuid, aid, persona, "R", text), P.post_agent_async(sid, tuid, aid, persona, "R")]
            )
        )
    if event == "SubagentStart":
        return P.subagent_start(sid, aid, persona)
    if event == "SubagentStop":
        return P.subagent_stop(sid, aid, persona, text, active=draw(st.booleans()))
    if event == "Stop":
        return P.stop(
            sid,
            active=draw(st.booleans()),
            message=draw(st.sampled_from(["Done.", "Done \udfff."])),
            background_tasks=draw(st.sampled_from([[], [{"id": aid, "status": "running"}]])),
        )
    return {**P.base(sid, event), "source": "startup", "reason": "other"}


JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40)
)
JSON_ANY = st.recursive(
    JSON_LEAF, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=10), c, max_size=4)), max_leaves=12
)
HOSTILE_IDS = [
    "../../../etc/passwd",
    "/tmp/x",
    "..",
    "",
    " ",
    "a/b",
    "a\\b",
    "x" * 300,
    "sess\x00ion",
    "\u202eevil",
    "d-../../x",
    "CON",
    "🙂",
    "\ud800",
]
HUGE = [10_000, 100_000, 400_000]


def paths(obj, prefix=()) -> "list[tuple]":
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(prefix + (k,))
            out += paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append(prefix + (i,))
            out += paths(v, prefix + (i,))
    return out


def container(obj, path):
    for p in path[:-1]:
        obj = obj[p]
    return obj


def deep_marker(depth: int) -> str:
    """A placeholder string that `encode` replaces by `depth` levels of nested arrays/objects
    (built as text: json.dumps itself would hit the recursion limit)."""
    return f"__DEEP_{depth}__"


def encode(payload) -> bytes:
    text = json.dumps(payload)
    for depth in (20, 200, 300, 900, 3000):
        marker = json.dumps(deep_marker(depth))
        if marker in text:
            opener = "".join('{"n":' if i % 2 else "[" for i in range(depth))
            closer = "".join("}" if i % 2 else "]" for i in reversed(range(depth)))
            text = text.replace(marker, opener + "0" + closer)
    return text.encode()


@st.composite
def mutated(draw, event: str) -> bytes:
    """The encoded payload (bytes keep hypothesis' reports short and flat)."""
    return encode(draw(mutated_dict(event)))


@st.composite
def mutated_dict(draw, event: str) -> dict:
    payload = json.loads(json.dumps(draw(base_payload(event))))
    for _ in range(draw(st.integers(0, 4))):
        ps = paths(payload)
        op = draw(st.sampled_from(["drop", "retype", "null", "huge", "deep", "id", "unknown", "strings"]))
        if op == "unknown" or not ps:
            payload[draw(st.text(max_size=12))] = draw(JSON_ANY)
            continue
        path = draw(st.sampled_from(ps))
        box, key = container(payload, path), path[-1]
        if op == "drop":
            if isinstance(box, dict):
                del box[key]
            else:
                box.pop(key)
        elif op == "retype":
            box[key] = draw(JSON_ANY)
        elif op == "null":
            box[key] = None
        elif op == "huge":
            box[key] = draw(st.sampled_from("xé🙂\u0000")) * draw(st.sampled_from(HUGE))
        elif op == "deep":
            box[key] = deep_marker(draw(st.sampled_from([20, 200, 300, 900, 3000])))
        elif op == "id":
            box[key] = draw(st.sampled_from(HOSTILE_IDS))
        else:  # strings: unicode trouble in a string value
            box[key] = draw(st.text(max_size=30)) + draw(st.sampled_from(["\ud800", "\udfff\ud800", "\u2028\x00", "\ufeff"]))
    return payload


@st.composite
def raw_bytes(draw) -> "tuple[str, bytes]":
    event = draw(st.sampled_from(EVENTS))
    kind = draw(st.sampled_from(["truncate", "splice", "latin1", "any-json", "random-bytes", "wrong-event"]))
    data = draw(mutated(event))
    if kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == "splice":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00", b"\xe2\x82"])) + data[at:]
    elif kind == "latin1":  # raw (non-escaped) characters, surrogates as CESU bytes: invalid UTF-8
        try:
            data = json.dumps(json.loads(data), ensure_ascii=False).encode("utf-8", "surrogatepass")
        except RecursionError:
            pass
    elif kind == "any-json":
        data = encode(draw(JSON_ANY))
    elif kind == "random-bytes":
        data = draw(st.binary(max_size=300))
    else:
        data = draw(mutated(draw(st.sampled_from([e for e in EVENTS if e != event]))))
    return event, data


# -- the properties ----------------------------------------------------------------------------


def check_answer(event: str, out: str) -> None:
    assert isinstance(out, str)
    assert "Traceback (most recent call last)" not in out
    out.encode("utf-8")  # what run() prints must encode
    STATS["cases"] += 1
    if out == "":
        STATS["empty"] += 1
        return
    doc = json.loads(out)
    assert isinstance(doc, dict) and doc and set(doc) <= TOP_KEYS, doc
    specific = doc.get("hookSpecificOutput", {})
    assert isinstance(specific, dict) and set(specific) <= SPECIFIC_KEYS, specific
    if specific:
        assert specific["hookEventName"] == event
    if "decision" in doc:
        assert doc["decision"] == "block" and event in ("PostToolUse", "SubagentStop", "Stop", "UserPromptSubmit")
        assert isinstance(doc.get("reason"), str) and doc["reason"]
    if specific.get("permissionDecision"):
        assert event == "PreToolUse" and specific["permissionDecision"] in ("deny", "ask", "allow")
    if doc.get("decision") or specific.get("permissionDecision"):
        STATS["block/deny/ask"] += 1
    elif doc.get("systemMessage", "").startswith("deliberation plugin:"):
        STATS["warning"] += 1
        kind = doc["systemMessage"][len("deliberation plugin: ") :].split(":", 1)[0].split(" ", 1)[0]
        WARNINGS[kind] = WARNINGS.get(kind, 0) + 1
        assert "\n" not in doc["systemMessage"], doc  # a failure is ONE line
    else:
        STATS["context"] += 1


def run_case(tracker: Tracker, event: str, data: bytes) -> None:
    from deliberation.runtime import hook_runner

    out = hook_runner.respond(event, data, 1_760_000_000.0 + STATS["cases"])
    check_answer(event, out)
    problems = tracker.look()
    assert problems == [], problems[:3]


FUZZ = settings(
    max_examples=CASES_PER_EVENT,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def assert_whole(proj, before: int, wanted: int) -> None:
    """This test ran its `wanted` cases and left every state file valid, no temp file behind."""
    assert STATS["cases"] - before >= wanted
    v = validate_state(proj)
    assert v.problems == [] and v.temp_files == [], v


@pytest.mark.parametrize("event", EVENTS)
def test_fuzz_mutated_payloads_in_process(fuzz_project, event):
    proj, tracker = fuzz_project
    before = STATS["cases"]

    @FUZZ
    @given(payload=mutated(event))
    def prop(payload):
        run_case(tracker, event, payload)

    prop()
    assert_whole(proj, before, CASES_PER_EVENT)  # 8 events × 230 + the mangled bytes' 260 ≥ 2000 in all


def test_fuzz_mangled_bytes_in_process(fuzz_project):
    proj, tracker = fuzz_project
    before = STATS["cases"]

    @settings(FUZZ, max_examples=RAW_CASES)
    @given(case=raw_bytes())
    def prop(case):
        event, data = case
        run_case(tracker, event, data)

    prop()
    assert_whole(proj, before, RAW_CASES)


def test_fuzz_sample_through_the_real_hook_scripts(project):
    """60 cases drawn the same way, each through hooks/<event>.py as Claude Code runs it."""
    proj = project
    seed(proj)
    cases = []
    strategy = raw_bytes()
    rng = random.Random(60)

    @settings(max_examples=100, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def gather(case):
        cases.append(case)

    gather()
    rng.shuffle(cases)
    cases = [(e, d) for e, d in cases if e != "SessionEnd"][:60]  # SessionEnd has no script

    def one(case):
        event, data = case
        return event, run_hook(event, data, proj)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, cases))
    for event, res in results:
        assert res.returncode == 0, (event, res.stderr[-500:])
        assert res.stderr == "", (event, res.stderr[-500:])
        assert "Traceback" not in res.stdout
        if res.stdout.strip():
            doc = json.loads(res.stdout)
            assert set(doc) <= TOP_KEYS
    v = validate_state(proj)
    assert v.problems == [] and v.temp_files == [] and v.torn_tails == [], v
    STATS["subprocess cases"] = len(results)
    assert len(results) >= 50
