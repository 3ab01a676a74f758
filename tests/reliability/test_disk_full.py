"""Disk full / write errors in the middle of a hook's writes, injected for real in a subprocess.

Three injections, each against a deliberation in progress (two research reports recorded, a
third agent about to report a large report):
- RLIMIT_FSIZE below the size of the next deliberation file, SIGXFSZ ignored: the kernel
  refuses the write with EFBIG ("File too large") part-way through the temp file;
- `os.write` patched in the hook process to write up to a byte budget and then raise ENOSPC,
  at many budgets, so the failure lands in each file the hook writes (session, lineage,
  deliberation, event log, error log);
- a real tmpfs mounted over the state directory in a private mount namespace and filled up
  (only where mount namespaces are allowed; skipped otherwise, with the reason).
Always: the hook exits 0, no temp file and no partial line is left, every file is its old
version or a valid new one, nothing stored before is lost. A failure before the transaction's
commit point (its journal) is a fail-open warning, and once space is back the same report is
recorded by the next event (PostToolUse after SubagentStop); a failure after it keeps the
hook's own answer with a note, and the next event completes the files from the journal.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import shlex
import signal
import subprocess
import sys

import pytest

from tests.helpers import payloads as P
from tests.conftest import LIB, hook_argv, run_hook
from tests.helpers.project import state_dir, write_config
from tests.helpers.reliability import inproc_hook, snapshot, summary, validate_state

SID = "d15cf011-0000-4000-8000-000000000010"
QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a window")]
THIRD = ("toolu_df3", "a0003000000000df3", "cost-analyst")


def big_report(persona: str) -> str:
    claims = [f"{persona} finding {i}: " + ("measured cost detail " * 80)[:1500] for i in range(20)]
    return P.research_report(persona, claims, APPROACHES)


def seed(project) -> "tuple[dict, dict]":
    """Two research reports recorded, the third agent running; returns its SubagentStop and
    PostToolUse payloads (the report arrives in both, as with the real client)."""
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(inproc_hook, SID)
    s.prompt(QUESTION)
    for persona in ("security-analyst", "performance-engineer"):
        out = s.foreground(persona, f"Research: {QUESTION}", big_report(persona))
        assert out["stop"].decision is None
    tuid, aid, persona = THIRD
    text = big_report(persona)
    assert inproc_hook("PreToolUse", P.pre_agent(SID, tuid, persona, f"Research: {QUESTION}", False)).decision is None
    inproc_hook("SubagentStart", P.subagent_start(SID, aid, persona))
    return (
        P.subagent_stop(SID, aid, persona, text),
        P.post_agent_completed(SID, tuid, aid, persona, f"Research: {QUESTION}", text),
    )


def delib_path(project):
    return state_dir(project) / "deliberations" / f"d-{SID[:8]}-1.json"


def reports_recorded(project) -> "list[str]":
    d = json.loads(delib_path(project).read_text())
    return [a["persona"] for a in d["agents"] if a["status"] == "reported"]


def assert_nothing_lost(project, before: dict, label: str) -> "list[str]":
    """Old or valid new versions only; no temp file, no partial line; returns the changed files."""
    v = validate_state(project)
    assert v.problems == [] and v.temp_files == [] and v.torn_tails == [], (label, v)
    now = snapshot(project)
    changed = []
    for rel, old in before.items():
        assert rel in now, (label, f"{rel} was lost")
        if rel.endswith(".jsonl"):
            assert now[rel].startswith(old), (label, f"{rel}: earlier lines changed")
        if now[rel] != old:
            changed.append(rel)
    return changed


def assert_fail_open(res, *fragments) -> str:
    assert res.returncode == 0, res.stderr
    assert res.decision is None, res.json
    msg = res.system_message or ""
    assert msg.startswith("deliberation plugin: ") and "continuing without deliberation checks" in msg, msg
    for f in fragments:
        assert f in msg, msg
    return msg


def limit_fsize(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return pre


def run_limited(event: str, payload: dict, project, limit: int):
    """The real hook script with a file-size limit (SIGXFSZ ignored → EFBIG on the write)."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    proc = subprocess.run(
        hook_argv(event),
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=str(project),
        timeout=60,
        preexec_fn=limit_fsize(limit),
    )
    from tests.conftest import HookResult

    return HookResult(subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()), event)


def test_file_size_limit_mid_write_fails_open_and_loses_nothing(project):
    stop_payload, post_payload = seed(project)
    size_before = delib_path(project).stat().st_size
    before = snapshot(project)
    # the new deliberation file is ~30 KB larger: the temp file hits the limit part-way
    res = run_limited("SubagentStop", stop_payload, project, size_before + 4096)
    msg = assert_fail_open(res, "File too large")
    changed = assert_nothing_lost(project, before, "EFBIG")
    assert "deliberations/d-d15cf011-1.json" not in changed  # the old version stands
    assert reports_recorded(project) == ["security-analyst", "performance-engineer"]
    # space is back: the same report arrives in PostToolUse and is recorded, nothing was lost
    after = inproc_hook("PostToolUse", post_payload)
    assert after.decision is None and "deliberation plugin:" not in (after.system_message or "")
    assert reports_recorded(project) == ["security-analyst", "performance-engineer", "cost-analyst"]
    assert validate_state(project).problems == []
    summary(
        f"disk-full/EFBIG: limit {size_before + 4096} B < new deliberation file → hook exit 0, "
        f"warning {msg[:70]!r}…, files changed {len(changed)} (all valid), temp files 0, the report "
        "was recorded by the next event"
    )


ENOSPC_CHILD = r"""
import errno, os, posix, sys
sys.path.insert(0, {lib!r})
budget = [int(sys.argv[1])]
total = [0]
real_write = os.write
def write(fd, data):
    if budget[0] <= 0:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    data = bytes(data)[:budget[0]]
    n = real_write(fd, data)
    budget[0] -= n
    total[0] += n
    return n
os.write = write
real_exit = posix._exit
def _exit(code):  # the hook ends with posix._exit: report the byte count on the way out
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as fh:
            fh.write(str(total[0]))
    real_exit(code)
posix._exit = _exit
from deliberation.runtime.hook_client import main
main(sys.argv[2])
"""


def run_enospc(event: str, payload: dict, project, budget: int, report: "str | None" = None):
    """The hook in a process whose os.write fills the disk after `budget` bytes (`report`: a
    file that receives how many bytes went through os.write)."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    argv = [sys.executable, "-c", ENOSPC_CHILD.format(lib=str(LIB)), str(budget), event] + ([report] if report else [])
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=str(project), timeout=60)
    from tests.conftest import HookResult

    return HookResult(subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()), event)


def test_enospc_at_every_point_of_a_hook_fails_open_and_loses_nothing(project, tmp_path):
    stop_payload, post_payload = seed(project)
    pristine = tmp_path / "pristine"
    shutil.copytree(state_dir(project), pristine)
    before = snapshot(project)
    # bytes the unconstrained hook writes through os.write: measured, then cut at many points
    report = str(tmp_path / "written")
    assert run_enospc("SubagentStop", stop_payload, project, 10**9, report).decision is None
    total = int(open(report).read())
    # (the last budget leaves room: timestamps make the byte count vary by a few bytes per run)
    budgets = [int(total * f) for f in (0, 0.005, 0.3, 0.6, 0.8, 0.9, 0.97, 0.99)] + [total * 2]
    outcomes = {
        "fail-open warning (before the commit point)": 0,
        "committed, files completed by the next hook": 0,
        "completed (budget not reached)": 0,
    }
    where = set()
    journal = state_dir(project) / "sessions" / SID / "commit.journal"
    for budget in budgets:
        shutil.rmtree(state_dir(project))
        shutil.copytree(pristine, state_dir(project))
        res = run_enospc("SubagentStop", stop_payload, project, budget)
        assert res.returncode == 0 and res.stderr == "", res.stderr
        assert res.decision is None or "deliberation plugin:" not in (res.system_message or "")
        msg = res.system_message or ""
        if "No space left on device" in msg and "continuing without deliberation checks" in msg:
            assert_fail_open(res, "OSError")
            outcomes["fail-open warning (before the commit point)"] += 1
            changed = assert_nothing_lost(project, before, f"ENOSPC@{budget}")
            where.add(",".join(sorted(changed)) or "nothing")
            assert not journal.exists(), (budget, msg, journal.read_text()[:300])
            # the session goes on: the report is recorded by PostToolUse once space is back
            nxt = inproc_hook("PostToolUse", post_payload)
            assert nxt.decision is None, nxt.json
            assert "cost-analyst" in reports_recorded(project)
        elif "No space left on device" in msg:
            # past the commit point: the hook's own answer, and a note that the next hook completes it
            assert res.decision is None and "commit journal" in msg, msg
            outcomes["committed, files completed by the next hook"] += 1
            assert journal.exists()
            changed = assert_nothing_lost(project, before, f"ENOSPC@{budget} after commit")
            where.add(",".join(sorted(changed)) or "nothing")
            nxt = inproc_hook("PostToolUse", post_payload)  # space is back: the journal is replayed first
            assert nxt.decision is None and "deliberation plugin:" not in (nxt.system_message or ""), nxt.json
            assert not journal.exists()
            assert reports_recorded(project) == ["security-analyst", "performance-engineer", "cost-analyst"]
            log = (state_dir(project) / "sessions" / SID / "events.jsonl").read_text().splitlines()
            assert sum(json.loads(line)["event"] == "SubagentStop" for line in log) == 3  # logged once
        else:
            assert res.json is None or res.decision is None
            outcomes["completed (budget not reached)"] += 1
            assert_nothing_lost(project, before, f"budget {budget}")
            assert not journal.exists()
        assert validate_state(project).problems == []
    summary(
        f"disk-full/ENOSPC: the hook writes {total} B; disk full after {len(budgets)} budgets from 0 to "
        f"{total * 2} B → {outcomes}; partial files 0, temp files 0; "
        f"distinct sets of files already renamed when the disk filled: {len(where)}"
    )
    assert outcomes["fail-open warning (before the commit point)"] >= 3, outcomes
    assert outcomes["committed, files completed by the next hook"] >= 1, outcomes
    assert outcomes["completed (budget not reached)"] >= 1, outcomes


def _can_mount_tmpfs() -> "str | None":
    if not shutil.which("unshare"):
        return "no unshare binary"
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d && rmdir $d",
        ],
        capture_output=True,
        text=True,
    )
    return None if probe.returncode == 0 else f"mount namespaces not allowed here: {probe.stderr.strip()[:120]}"


def test_real_full_tmpfs_under_the_state_dir(project, tmp_path):
    why = _can_mount_tmpfs()
    if why:
        pytest.skip(why)
    stop_payload, post_payload = seed(project)
    before = snapshot(project)
    keep = tmp_path / "keep"
    out = tmp_path / "out"
    shutil.copytree(state_dir(project), keep)
    used = sum(p.stat().st_size for p in keep.rglob("*") if p.is_file())
    size_kb = used // 1024 + 48  # tmpfs rounds to pages; the filler takes all but a few KB
    st = state_dir(project)
    payload_file = tmp_path / "payload.json"
    payload_file.write_text(json.dumps(stop_payload))
    script = (
        f"set -e; mount -t tmpfs -o size={size_kb}k,mode=0700 tmpfs '{st}'; cp -a '{keep}/.' '{st}/'; "
        f"dd if=/dev/zero of='{st}/filler' bs=1k count=100000 2>/dev/null || true; "
        f"df -k '{st}' | tail -1 >&2; "
        f"CLAUDE_PROJECT_DIR='{project}' {shlex.join(hook_argv('SubagentStop'))} < '{payload_file}' "
        f"> '{tmp_path}/stdout'; echo rc=$? >&2; rm -f '{st}/filler'; cp -a '{st}/.' '{out}/'"
    )
    out.mkdir()
    proc = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=str(project),
        timeout=60,
    )
    assert "rc=0" in proc.stderr, proc.stderr
    answer = json.loads((tmp_path / "stdout").read_text())
    assert "decision" not in answer
    assert "No space left on device" in answer["systemMessage"], answer
    # what the full disk held afterwards replaces the state dir; every file old or valid new
    shutil.rmtree(st)
    shutil.copytree(out, st)
    assert not (st / "filler").exists()
    changed = assert_nothing_lost(project, before, "tmpfs")
    assert reports_recorded(project) == ["security-analyst", "performance-engineer"]
    nxt = inproc_hook("PostToolUse", post_payload)
    assert nxt.decision is None
    assert reports_recorded(project)[-1] == "cost-analyst"
    summary(
        f"disk-full/tmpfs: a real {size_kb} KB tmpfs filled up → hook exit 0, "
        f"{answer['systemMessage'][:60]!r}…, files changed {len(changed)} (valid), temp files 0"
    )


def test_disk_full_on_the_fast_path_write(project):
    """A routine prompt (no deliberation) whose only write is the turn's prompt.json."""
    sid = "f0f0f0f0-0000-4000-8000-000000000001"
    assert run_hook("UserPromptSubmit", P.prompt(sid, "rename the helper"), project).returncode == 0
    before = snapshot(project)
    assert any(rel.endswith("/prompt.json") for rel in before)
    res = run_enospc("UserPromptSubmit", P.prompt(sid, "and the other helper too"), project, 10)
    assert_fail_open(res, "No space left on device")
    assert_nothing_lost(project, before, "fast path")
    after = snapshot(project)
    assert after.pop("errors.log", b"") == b""  # the traceback could not be written either
    assert after == before  # the old prompt stays whole and no temp file is left
