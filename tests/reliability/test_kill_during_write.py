"""SIGKILL in the middle of state writes, hundreds of times at random points.

Two harnesses, both real processes killed with SIGKILL (forked from the test process, so a
kill costs milliseconds instead of an interpreter start):

A. store level — a writer loops `Store.update` over a large deliberation file (~230 KB), each
   pass writing version n+1 and acknowledging n+1 on a pipe only after the write returned.
   After each kill the file must be byte-for-byte version `acked` (old) or `acked + 1` (new),
   parse, and validate against state_schema/deliberation.schema.json.
B. hook level — a scripted deliberation (prompt, 3 research agents with large reports,
   synthesis, 3 ranking agents, Stop) through `hook_runner.respond`, the code path of every
   hook script. Each event runs once uninterrupted (giving the old and new state), then is
   replayed from the old state and killed at random delays within its measured duration.
   Every JSON state file must be the old or the new version; an event log the old lines plus
   complete new lines (a writer killed mid-append may leave an unterminated fragment, which
   the next append drops — counted); every line and file must validate.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import time

from tests.helpers import payloads as P
from tests.helpers.project import state_dir, write_config
from tests.helpers.reliability import restore, snapshot, summary, validate_file, validate_state

SID = "9a1d0c2e-4b1f-4e61-9d0a-000000000010"
DID = "d-kill-1"


# -- harness A: the store ---------------------------------------------------------------------


def big_deliberation(agents: int = 12, findings: int = 10):
    recs = []
    for a in range(agents):
        rep = {
            "summary": f"persona {a} summary " + "s" * 400,
            "findings": [
                {"id": f"F{i}", "claim": f"claim {a}-{i} " + "c" * 500, "evidence": f"docs/{a}/{i}.md " + "e" * 200}
                for i in range(findings)
            ],
        }
        recs.append(P.agent_record(f"persona-{a}", "research", rep, key=f"a{a:03d}"))
    return P.make_deliberation(recs, phase="RESEARCH", did=DID, session_id=SID)


def bump(delib, n: int) -> None:
    """Version n: every field that changes between versions is a function of n alone (sizes too)."""
    delib.question = f"version {n}"
    delib.updated_at = float(n)
    delib.warnings = ["w" * (137 * (n % 11))]


def version_bytes(base, n: int) -> bytes:
    from deliberation.state.store import dumps

    d = base.model_copy(deep=True)
    bump(d, n)
    return dumps(d.model_dump(mode="json"))


def _writer_child(path: str, wfd: int) -> None:
    """Runs in the forked child: write versions forever, ack each after its write returned."""
    code = 3
    try:
        from deliberation.state.paths import Layout
        from deliberation.state.models import Deliberation
        from deliberation.state.store import Store

        store = Store(Layout())
        while True:

            def step(d):
                n = int(d.updated_at) + 1
                bump(d, n)
                return n

            n = store.update(path, Deliberation, lambda: None, step)
            os.write(wfd, b"%d\n" % n)
    except BaseException:  # noqa: BLE001 - the parent sees the exit code
        code = 4
    finally:
        os._exit(code)


def _read_acks(rfd: int, timeout: float) -> "tuple[list[int], bool]":
    """Acks available now (and until EOF once the child is dead); (acks, eof)."""
    buf = b""
    eof = False
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([rfd], [], [], max(0.0, left))
        if not ready:
            break
        chunk = os.read(rfd, 65536)
        if not chunk:
            eof = True
            break
        buf += chunk
        if timeout == 0:
            continue
    return [int(x) for x in buf.split()], eof


def test_sigkill_during_store_writes_leaves_old_or_new_version(project):
    from deliberation.state.paths import Layout

    kills = 200
    rng = random.Random(20240610)
    base = big_deliberation()
    layout = Layout()
    path = layout.deliberation(DID)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    from deliberation.state import seal

    def version_file(n: int) -> bytes:  # what the store writes: the version, sealed (state/seal.py)
        return seal.seal_file(layout, path, version_bytes(base, n))

    with open(path, "wb") as fh:
        fh.write(version_file(0))
    size = os.path.getsize(path)
    outcome = {"old": 0, "new": 0, "corrupt": 0}
    mid_write = 0
    temp_seen: set = set()
    written = 0
    for _ in range(kills):
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            _writer_child(path, wfd)
        os.close(wfd)
        try:
            first, eof = _read_acks_until_one(rfd)
            assert first and not eof, "the writer child died before its first write"
            time.sleep(rng.uniform(0.0, 0.025))
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
            rest, _ = _read_acks(rfd, 5.0)
        finally:
            os.close(rfd)
        acks = first + rest
        acked = acks[-1]
        written += len(acks)
        data = open(path, "rb").read()
        try:
            n = int(json.loads(data)["updated_at"])
        except (ValueError, KeyError):
            outcome["corrupt"] += 1
            continue
        if n == acked and data == version_file(n):
            outcome["old"] += 1
        elif n == acked + 1 and data == version_file(n):
            outcome["new"] += 1
        else:
            outcome["corrupt"] += 1
        problems, _ = validate_file(path, "deliberation", False)
        assert problems == [], problems[:3]
        temps = {f for f in os.listdir(os.path.dirname(path)) if ".tmp-" in f}
        if temps - temp_seen:
            mid_write += 1
        temp_seen |= temps
    summary(
        f"kill/store: {kills} SIGKILLs of a writer looping over a {size // 1024} KB deliberation "
        f"file ({written} acknowledged writes): old version {outcome['old']}, new version "
        f"{outcome['new']}, corrupt {outcome['corrupt']}; {mid_write} kills landed inside a write "
        f"(temp file left behind, never read as state)"
    )
    assert outcome["corrupt"] == 0, outcome
    assert outcome["old"] + outcome["new"] == kills
    # the kills really did land inside writes, and on both sides of the rename
    assert mid_write >= kills // 10, mid_write
    assert outcome["new"] >= 1 and outcome["old"] >= 1, outcome
    # leftover temp files are not state: the validator, the store and doctor ignore them
    v = validate_state(project)
    assert v.problems == [] and v.checked == 1, v


def _read_acks_until_one(rfd: int) -> "tuple[list[int], bool]":
    buf = b""
    deadline = time.monotonic() + 20
    while b"\n" not in buf and time.monotonic() < deadline:
        ready, _, _ = select.select([rfd], [], [], 0.5)
        if ready:
            chunk = os.read(rfd, 65536)
            if not chunk:
                return [int(x) for x in buf.split()], True
            buf += chunk
    complete, _, partial = buf.rpartition(b"\n")
    assert not partial, "acks are whole lines"
    return [int(x) for x in complete.split()], False


# -- harness B: the hook code path ------------------------------------------------------------


QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a window")]
RANKS = {
    "security-analyst": {"A": (9, 8, 8, 7, 6), "B": (7, 4, 7, 8, 8)},
    "performance-engineer": {"A": (8, 8, 8, 6, 7), "B": (7, 5, 7, 9, 8)},
    "cost-analyst": {"A": (9, 9, 8, 8, 5), "B": (6, 4, 6, 7, 9)},
}


def long_claims(persona: str, n: int = 18) -> "list[str]":
    return [f"{persona} finding {i}: " + ("measured detail " * 90)[:1400] for i in range(n)]


def script(sid: str) -> "list[tuple[str, dict]]":
    """The events of a whole foreground deliberation, as the client would send them."""
    events: list = [("UserPromptSubmit", P.prompt(sid, QUESTION))]
    n = 0

    def agent(agent_type: str, prompt_text: str, message: str) -> None:
        nonlocal n
        n += 1
        tuid, aid = f"toolu_k{n:02d}", f"a{n:04d}00000000kill"
        events.extend(
            [
                ("PreToolUse", P.pre_agent(sid, tuid, agent_type, prompt_text, background=False)),
                ("SubagentStart", P.subagent_start(sid, aid, agent_type)),
                ("SubagentStop", P.subagent_stop(sid, aid, agent_type, message)),
                ("PostToolUse", P.post_agent_completed(sid, tuid, aid, agent_type, prompt_text, message)),
            ]
        )

    research = []
    for persona in ("security-analyst", "performance-engineer", "cost-analyst"):
        research.append(P.research_report(persona, long_claims(persona), APPROACHES))
        agent(persona, f"Research from your perspective: {QUESTION}", research[-1])
    agent("synthesis-lead", "Merge the findings into alternatives\n" + P.findings_block(research), P.synthesis_report(APPROACHES))
    for persona, scores in RANKS.items():
        agent(
            persona,
            "Rank approaches A and B on the five dimensions.",
            P.ranking_report(scores, "approve", "A", f"{persona}: own reasons about A"),
        )
    events.append(("Stop", P.stop(sid, message=P.prd_message(["security-analyst:F1", "cost-analyst:F1"]))))
    return events


def _run_child(event: str, payload: dict, now: float) -> int:
    from deliberation.runtime import hook_runner

    data = json.dumps(payload).encode()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            hook_runner.respond(event, data, now)
        except BaseException:  # noqa: BLE001 - the parent sees the exit code
            code = 5
        os._exit(code)
    return pid


def classify(before: dict, after: dict, now_files: dict) -> "tuple[str, list[str], int]":
    """('old'|'new'|'mixed', problems, torn tails) of the state after a kill."""
    problems = []
    torn = 0
    sides = set()
    for rel in sorted(set(before) | set(after) | set(now_files)):
        cur = now_files.get(rel)
        old, new = before.get(rel), after.get(rel)
        if rel.endswith(".jsonl"):
            base = old or b""
            if cur is None:
                if old is not None:
                    problems.append(f"{rel}: disappeared")
                continue
            if not cur.startswith(base):
                problems.append(f"{rel}: earlier lines changed")
                continue
            extra = cur[len(base) :]
            if extra and not extra.endswith(b"\n"):
                torn += 1
                extra = extra[: extra.rfind(b"\n") + 1]
            if extra:
                sides.add("new")
            continue
        if rel.startswith("cache/") and cur in (old, new):
            continue  # the config cache is rebuilt from config.json at will: no side of the event
        if rel.endswith("/prompt.json") and cur is not None and new is not None and cur != new:
            cur, new = _sans_run(cur), _sans_run(new)  # a turn's prompt names its hook run (event id, clock)
        if cur == old:
            sides.add("old") if old != new else None
        elif cur == new:
            sides.add("new")
        else:
            problems.append(f"{rel}: neither the old nor the new version ({len(cur or b'')} bytes)")
    side = "mixed" if sides == {"old", "new"} else ("new" if sides == {"new"} else "old")
    return side, problems, torn


def _sans_run(raw: bytes) -> bytes:
    """A pending prompt without what differs from one hook run to the next (its event id, its
    clock, and so its seal): the rest must be exactly the old or the new version. Unparsable
    stays as it is."""
    try:
        doc = json.loads(raw)
        doc.pop("mac", None)
        for key in ("eid", "at"):
            doc["record"].pop(key, None)
    except (ValueError, KeyError, TypeError, AttributeError):
        return raw
    return json.dumps(doc, sort_keys=True).encode()


def assert_next_append_repairs(project) -> None:
    from deliberation.state.store import append_jsonl

    for path in sorted(state_dir(project).rglob("*.jsonl")):
        if path.read_bytes().endswith(b"\n"):
            continue
        append_jsonl(str(path), {"schema_version": 1, "at": 0.0, "event": "Stop", "payload": {}})
        data = path.read_bytes()
        assert data.endswith(b"\n")
        for line in data.splitlines():
            json.loads(line)


JOURNAL = f"sessions/{SID}/commit.journal"


def finish_from_journal(project) -> None:
    """What the session's next hook does first: replay a killed transaction's journal."""
    from deliberation.state.paths import Layout
    from deliberation.state.store import SessionTx, Store

    with SessionTx(Store(Layout(str(project))), SID):
        pass


def test_sigkill_during_hooks_of_a_whole_deliberation(project):
    from deliberation.runtime import hook_runner

    write_config(project, {"depth": {"posture": "off"}})
    rng = random.Random(77)
    kills_per_event = 4
    counts = {"old": 0, "new": 0, "committed, finished by the next transaction": 0, "finished before the kill": 0}
    torn_total = 0
    kills = 0
    now = 1_760_000_000.0
    events = script(SID)
    for i, (event, payload) in enumerate(events):
        now += 1.0
        before = snapshot(project)
        t0 = time.perf_counter()
        out = hook_runner.respond(event, json.dumps(payload).encode(), now)
        took = time.perf_counter() - t0
        after = snapshot(project)
        assert "deliberation plugin:" not in out, (event, out)  # the clean run raises no warning
        # how long the same event takes in a forked child (copy-on-write makes it slower than
        # in the parent): the kills are spread over that span
        restore(project, before)
        t0 = time.perf_counter()
        _, status = os.waitpid(_run_child(event, payload, now), 0)
        took = max(took, time.perf_counter() - t0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        for _ in range(kills_per_event):
            restore(project, before)
            pid = _run_child(event, payload, now)
            time.sleep(rng.uniform(0.0, took * 1.1))
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            if os.WIFEXITED(status):
                assert os.WEXITSTATUS(status) == 0
                counts["finished before the kill"] += 1
            kills += 1
            cur = snapshot(project)
            pending = cur.pop(JOURNAL, None) is not None
            side, problems, torn = classify(before, after, cur)
            assert problems == [], (event, problems)
            changed = {rel for rel in cur if cur[rel] != before.get(rel)}
            v = validate_state(project, only=changed | ({JOURNAL} if pending else set()))
            assert v.problems == [], (event, v.problems[:3])
            torn_total += torn
            if torn:  # the next append drops the fragment
                assert_next_append_repairs(project)
            if pending:  # killed past its commit point: the next transaction finishes it
                finish_from_journal(project)
                done = snapshot(project)
                assert JOURNAL not in done
                side, problems, _ = classify(before, after, done)
                assert problems == [] and side == "new", (event, side, problems)
                counts["committed, finished by the next transaction"] += 1
            elif os.WIFSIGNALED(status):
                assert side != "mixed", event  # without a journal: all old or all new, never between
                counts[side] += 1
        restore(project, after)
    delib = json.loads((state_dir(project) / "deliberations" / f"d-{SID[:8]}-1.json").read_text())
    assert delib["phase"] == "COMPLETE" and delib["decision"] == "A"
    v = validate_state(project)
    assert v.problems == [] and v.torn_tails == [], v
    summary(
        f"kill/hooks: {kills} SIGKILLs across the {len(events)} hook events of a whole deliberation "
        f"(random delay within each event's run): state left old {counts['old']}, new {counts['new']}, "
        f"committed and finished from its journal by the next transaction "
        f"{counts['committed, finished by the next transaction']}, old and new files mixed 0, finished "
        f"before the kill {counts['finished before the kill']}; corrupt files 0; torn event-log tails {torn_total}"
    )
    assert kills >= 100
    # most kills interrupt a running hook (which side of the renames they land on depends on the
    # machine's speed: the writer-loop harness above is the one that pins both sides down)
    interrupted = counts["old"] + counts["new"] + counts["committed, finished by the next transaction"]
    assert interrupted >= kills // 4, counts


# -- harness C: the event log (JSONL appends) -------------------------------------------------


def _appender_child(path: str, wfd: int, start: int) -> None:
    code = 3
    try:
        from deliberation.state.store import append_jsonl

        n = start
        while True:
            n += 1
            append_jsonl(
                path,
                {
                    "schema_version": 1,
                    "at": float(n),
                    "event": "PostToolUse",
                    "payload": {"n": n, "blob": "r" * (256 * 1024 + 37 * (n % 13))},
                },
            )
            os.write(wfd, b"%d\n" % n)
    except BaseException:  # noqa: BLE001 - the parent sees the exit code
        code = 4
    finally:
        os._exit(code)


def _lines(data: bytes) -> "tuple[list[int], bool]":
    """Record numbers of the complete lines, and whether an unterminated fragment follows."""
    complete, _, fragment = data.rpartition(b"\n")
    ns = [json.loads(line)["payload"]["n"] for line in complete.split(b"\n")] if complete else []
    return ns, bool(fragment)


def test_sigkill_during_event_log_appends_leaves_only_whole_records(project):
    kills = 60
    rng = random.Random(5)
    path = str(state_dir(project) / "sessions" / SID / "events.jsonl")
    os.makedirs(os.path.dirname(path), mode=0o700)
    torn = 0
    acked_total = 0
    last = 0
    for k in range(kills):
        if k % 10 == 0 and os.path.exists(path):
            os.unlink(path)  # keep the file small; `last` carries on
            committed = []
        else:
            committed = _lines(open(path, "rb").read())[0] if os.path.exists(path) else []
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            _appender_child(path, wfd, last)
        os.close(wfd)
        try:
            time.sleep(rng.uniform(0.0, 0.02))
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            acks, _ = _read_acks(rfd, 5.0)
        finally:
            os.close(rfd)
        assert os.WIFSIGNALED(status), status
        acked_total += len(acks)
        acked = acks[-1] if acks else last
        data = open(path, "rb").read() if os.path.exists(path) else b""
        ns, fragment = _lines(data)
        torn += fragment
        # the earlier records are intact (a previous fragment was dropped, not built upon),
        # every acknowledged record is there, and nothing else but possibly the one in flight
        assert ns[: len(committed)] == committed
        assert ns == list(range(ns[0], ns[0] + len(ns))) if ns else True
        assert (ns[-1] if ns else last) in (acked, acked + 1), (ns[-1:], acked)
        complete = data[: data.rfind(b"\n") + 1]
        for line in complete.splitlines():
            assert json.loads(line)["schema_version"] == 1
        last = ns[-1] if ns else last
    from deliberation.state.store import append_jsonl

    append_jsonl(path, {"schema_version": 1, "at": 0.0, "event": "Stop", "payload": {"n": last + 1}})
    v = validate_state(project)
    assert v.problems == [] and v.torn_tails == [], v
    summary(
        f"kill/event-log: {kills} SIGKILLs of a writer appending 256 KB event lines "
        f"({acked_total} acknowledged appends): {torn} kills split a line; every fragment was "
        "dropped by the next append, 0 corrupt lines"
    )
    assert torn >= 5, torn  # the kills did split writes (the case this harness exists for)
