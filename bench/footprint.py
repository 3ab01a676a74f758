"""What the plugin leaves in a project: bytes written by N sessions of plain work; what pruning costs.

    python bench/footprint.py [--sessions 20] [--python PATH] [--keep DIR] [--prune 100,1000]

Each session runs the hook scripts as the client does (a process per event, the command of
settings.example.json, no warm worker) in one temporary project: SessionStart, then three
turns — a prompt, a Bash and an Edit call, the turn's Stop — and in the second turn a helper
subagent (an `Explore` agent: PreToolUse, SubagentStart, SubagentStop, PostToolUse). No
deliberation: plain work. Printed: the files under `.claude/deliberation/` and their bytes,
whether any prompt, tool input or final message of the sessions is among them, and how long a
SessionStart takes with that state in place.

With --prune: for each count N, a project with N session folders past the age limit (each a
lineage and a 2 KB log); the SessionStart hook process is timed when the hourly prune is due
(it removes what its time budget allows) and when it is not (one stat), with the prune's own
time from its stamp, and the number of session starts that clear all N.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid

import benchkit

PROMPTS = (
    "Please rename the helper parse_row to parse_record across the csv module and update its callers. "
    "Keep the public alias for one release and mention it in the changelog.",
    "Look through the tests of the csv module and tell me which ones still use the old fixture names.",
    "Thanks. Run the test suite once more and summarise anything that fails.",
)
EDIT_BODY = "def parse_record(row):\n    return [cell.strip() for cell in row.split(',')]\n" * 24
FINAL = "I renamed parse_row to parse_record in 4 files, kept the alias, and the suite passes (212 tests)."
HELPER_REPORT = "The old fixture names appear in tests/test_csv.py (3 uses) and tests/test_io.py (1 use)."
MARKERS = (
    "parse_row to parse_record",
    "old fixture names",
    "Run the test suite",
    "def parse_record",
    "212 tests",
    "tests/test_io.py",
)


def _median(xs: list) -> float:
    return sorted(xs)[len(xs) // 2]


def base(sid: str, event: str, **extra) -> dict:
    d = {
        "session_id": sid,
        "transcript_path": f"/home/dev/.claude/projects/p/{sid}.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": event,
    }
    d.update(extra)
    return d


def session_events(sid: str) -> "list[tuple[str, dict]]":
    """The hook events of one session of plain work, in the client's order."""
    events = [("SessionStart", base(sid, "SessionStart", source="startup"))]
    for turn, text in enumerate(PROMPTS):
        events.append(("UserPromptSubmit", base(sid, "UserPromptSubmit", prompt=text)))
        events.append(
            (
                "PreToolUse",
                base(
                    sid,
                    "PreToolUse",
                    tool_name="Bash",
                    tool_use_id=f"toolu_b{turn}",
                    tool_input={"command": "python -m pytest -q tests/test_csv.py"},
                ),
            )
        )
        events.append(
            (
                "PreToolUse",
                base(
                    sid,
                    "PreToolUse",
                    tool_name="Edit",
                    tool_use_id=f"toolu_e{turn}",
                    tool_input={"file_path": "/home/dev/project/csvmod.py", "old_string": EDIT_BODY, "new_string": EDIT_BODY},
                ),
            )
        )
        if turn == 1:
            tool_input = {"description": "find fixture uses", "prompt": PROMPTS[1], "subagent_type": "Explore"}
            agent = f"a{sid[:6]}"
            events += [
                ("PreToolUse", base(sid, "PreToolUse", tool_name="Agent", tool_use_id="toolu_ag", tool_input=tool_input)),
                ("SubagentStart", base(sid, "SubagentStart", agent_id=agent, agent_type="Explore")),
                (
                    "SubagentStop",
                    base(
                        sid,
                        "SubagentStop",
                        agent_id=agent,
                        agent_type="Explore",
                        stop_hook_active=False,
                        last_assistant_message=HELPER_REPORT,
                        agent_transcript_path=f"/home/dev/.claude/projects/p/{sid}/a.jsonl",
                    ),
                ),
                (
                    "PostToolUse",
                    base(
                        sid,
                        "PostToolUse",
                        tool_name="Agent",
                        tool_use_id="toolu_ag",
                        tool_input=tool_input,
                        tool_response={
                            "status": "completed",
                            "agentId": agent,
                            "content": [{"type": "text", "text": HELPER_REPORT}],
                        },
                    ),
                ),
            ]
        events.append(("Stop", base(sid, "Stop", stop_hook_active=False, last_assistant_message=FINAL)))
    return events


def footprint(root: str) -> "tuple[int, int, list[str]]":
    """(files, bytes, files holding a session's text) under the state dir."""
    files, size, leaks = 0, 0, []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            files += 1
            size += os.path.getsize(path)
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
            if any(m in text for m in MARKERS):
                leaks.append(os.path.relpath(path, root))
    return files, size, leaks


def run(python: str, sessions: int, keep: "str | None", out=sys.stdout) -> dict:
    work = keep or tempfile.mkdtemp(prefix="bench-footprint-")
    project = os.path.join(work, "project")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(project)
    env = {**benchkit.clean_env(project), "DELIBERATION_WORKER": "0"}
    try:
        hooks = 0
        for _ in range(sessions):
            sid = str(uuid.uuid4())
            for event, payload in session_events(sid):
                sample = benchkit.run_process(
                    benchkit.hook_argv(python, event), json.dumps(payload).encode(), env=env, cwd=project
                )
                if sample.returncode != 0 or b"deliberation plugin:" in sample.stdout:
                    raise RuntimeError(f"{event} failed: {sample.stdout[:300]!r}")
                hooks += 1
        state = os.path.join(project, ".claude", "deliberation")
        files, size, leaks = footprint(state)
        starts = []
        for _ in range(5):
            payload = json.dumps(base(str(uuid.uuid4()), "SessionStart", source="startup")).encode()
            t0 = time.perf_counter()
            benchkit.run_process(benchkit.hook_argv(python, "SessionStart"), payload, env=env, cwd=project)
            starts.append(time.perf_counter() - t0)
        result = {
            "sessions": sessions,
            "hooks": hooks,
            "files": files,
            "bytes": size,
            "leaks": leaks,
            "session_start_ms": sorted(starts)[len(starts) // 2] * 1000,
        }
        print(f"\nFootprint — {sessions} sessions of plain work ({hooks} hook processes), {python}", file=out)
        print(f"  {files} files, {size} bytes under .claude/deliberation/", file=out)
        print(
            f"  files holding a prompt, tool input or final message: {len(leaks)}"
            + (f" (e.g. {', '.join(sorted(leaks)[:3])})" if leaks else ""),
            file=out,
        )
        print(f"  SessionStart with this state: {result['session_start_ms']:.1f} ms (median of 5)", file=out)
        return result
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def prune_cost(python: str, counts: "list[int]", runs: int = 5, out=sys.stdout) -> "list[dict]":
    """SessionStart (whole hook process) with a prune due over N old session folders, vs not due."""
    rows = []
    env_base = benchkit.clean_env(None)
    for n in counts:
        due_ms, prune_ms, idle_ms, removed, clear = [], [], [], [], []
        for _ in range(runs):
            work = tempfile.mkdtemp(prefix="bench-prune-")
            try:
                project = os.path.join(work, "project")
                sessions = os.path.join(project, ".claude", "deliberation", "sessions")
                old = time.time() - 60 * 86400
                for i in range(n):
                    folder = os.path.join(sessions, str(uuid.UUID(int=i + 1)))
                    os.makedirs(folder)
                    for name, size in (("lineage.json", 700), ("events.jsonl", 2048)):
                        path = os.path.join(folder, name)
                        with open(path, "wb") as fh:
                            fh.write(b"x" * size)
                        os.utime(path, (old, old))
                env = {**env_base, "CLAUDE_PROJECT_DIR": project, "DELIBERATION_WORKER": "0"}
                argv = benchkit.hook_argv(python, "SessionStart")
                payload = json.dumps(base(str(uuid.uuid4()), "SessionStart", source="startup")).encode()
                t0 = time.perf_counter()
                benchkit.run_process(argv, payload, env=env, cwd=project)
                due_ms.append((time.perf_counter() - t0) * 1000)
                stamp_path = os.path.join(project, ".claude", "deliberation", "cache", "retention.json")
                with open(stamp_path) as fh:
                    stamp = json.load(fh)
                prune_ms.append(stamp["seconds"] * 1000)
                removed.append(stamp["removed"])
                starts = 1
                while stamp.get("left"):  # each session start goes on where the last one stopped
                    benchkit.run_process(
                        argv, json.dumps(base(str(uuid.uuid4()), "SessionStart", source="startup")).encode(), env=env, cwd=project
                    )
                    with open(stamp_path) as fh:
                        stamp = json.load(fh)
                    starts += 1
                assert not os.listdir(sessions) or len(os.listdir(sessions)) <= 1, os.listdir(sessions)[:3]
                clear.append(starts)
                t0 = time.perf_counter()
                benchkit.run_process(argv, payload, env=env, cwd=project)
                idle_ms.append((time.perf_counter() - t0) * 1000)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        row = {
            "folders": n,
            "session_start_due_ms": _median(due_ms),
            "prune_ms": _median(prune_ms),
            "removed_first": _median(removed),
            "session_starts_to_clear": _median(clear),
            "session_start_not_due_ms": _median(idle_ms),
        }
        rows.append(row)
        print(
            f"  {n} old session folders: the first session start prunes {row['removed_first']} in "
            f"{row['prune_ms']:.1f} ms (the hook {row['session_start_due_ms']:.1f} ms), all gone after "
            f"{row['session_starts_to_clear']} session starts; a session start with nothing due "
            f"{row['session_start_not_due_ms']:.1f} ms (median of {runs})",
            file=out,
        )
    return rows


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--python", default=benchkit.default_python())
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and leave the project there")
    ap.add_argument("--prune", metavar="N,N", help="also time the session start's prune over N old session folders")
    args = ap.parse_args(argv)
    run(args.python, args.sessions, args.keep)
    if args.prune:
        print("\nPruning at session start", file=sys.stdout)
        prune_cost(args.python, [int(x) for x in args.prune.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
