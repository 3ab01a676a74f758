"""What a hostile repository's files cost a hook, measured on a checkout of the plugin (docs/SECURITY.md,
"Attacks tried"): pass `--root` an older checkout to get the "before" figures of the same attacks.

- a 2 GiB (sparse) `errors.log`: the session start's wall time and peak RSS, errors.log's size after;
- `escalation.risky_tools: "(?:.*){500}Q"` while a decision awaits a person: PreToolUse Bash's wall
  time next to a Read's (a hook that passes `--timeout` is reported as such);
- an unusable state folder (`escalations.json -> /dev/null`, the state folder linked outside,
  `.claude` linked to another project): how many of 3 prompts got the protocol and of 3 force-pushes
  the mid-task net's hold or note, and what was written through the link.

    python bench/hostile_costs.py                     # this checkout
    python bench/hostile_costs.py --root /tmp/old     # another (git archive <commit> | tar -x -C /tmp/old)

Each hook runs as a fresh process with the command install.sh writes (`python -I -S hooks/<event>.py`),
without a warm worker. A measurement, not a test: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

SID = "5a7bc000-0000-4000-8000-000000000001"
SCRIPTS = {"SessionStart": "session_start.py", "UserPromptSubmit": "user_prompt_submit.py", "PreToolUse": "pre_tool_use.py"}


def hook(root: str, project: str, event: str, payload: dict, timeout: float) -> "tuple[float, int, str]":
    """(wall seconds, peak RSS KiB, stdout) of one hook process ('TIMEOUT' when it did not answer)."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": project, "DELIBERATION_WORKER": "0"}
    data = json.dumps(
        {"session_id": SID, "transcript_path": "/tmp/x", "cwd": project, "hook_event_name": event, **payload}
    ).encode()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", os.path.join(root, "hooks", SCRIPTS[event])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=project,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(data)
    proc.stdin.close()
    deadline = started + timeout
    while True:  # os.wait4 gives the child's own peak RSS; a hook's answer fits the pipe's buffer
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            proc.returncode = -9
            return time.monotonic() - started, 0, "TIMEOUT"
        time.sleep(0.005)
    took = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return took, usage.ru_maxrss, proc.stdout.read().decode("utf-8", "replace")


def project(tmp: str) -> "tuple[str, str]":
    path = os.path.join(tempfile.mkdtemp(dir=tmp), "project")
    state = os.path.join(path, ".claude", "deliberation")
    os.makedirs(state)
    return path, state


def approve_and_cache(root: str, path: str) -> None:
    """This user's approval of the config as written, and the validated config the session start
    reads (with the checkout's own code)."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from deliberation.state import consent; "
        "from deliberation.state.config import project_config; from deliberation.state.paths import Layout; "
        "lay = Layout(sys.argv[2]); consent.approve(lay); project_config(lay)"
    )
    subprocess.run(
        [sys.executable, "-c", code, os.path.join(root, "lib"), path], check=True, env={**os.environ, "CLAUDE_PROJECT_DIR": path}
    )


def errors_log(root: str, tmp: str, timeout: float) -> str:
    path, state = project(tmp)
    with open(os.path.join(state, "config.json"), "w") as fh:
        fh.write("{}")
    approve_and_cache(root, path)
    entry = b"\n--- 2026-12-01T00:00:00Z pid=1 hook Stop\nboom\n"
    log = os.path.join(state, "errors.log")
    with open(log, "wb") as fh:
        fh.truncate(2 << 30)
        fh.seek((2 << 30) - len(entry))
        fh.write(entry)
    took, rss, out = hook(root, path, "SessionStart", {"source": "startup"}, timeout)
    return (
        f"2 GiB errors.log: SessionStart {took:.2f} s, peak RSS {rss / 1024:.0f} MiB, errors.log after: {os.path.getsize(log)} bytes"
        + (" (TIMEOUT)" if out == "TIMEOUT" else "")
    )


def risky_tools(root: str, tmp: str, timeout: float) -> str:
    path, state = project(tmp)
    with open(os.path.join(state, "config.json"), "w") as fh:
        json.dump({"escalation": {"risky_tools": "(?:.*){500}Q"}}, fh)
    approve_and_cache(root, path)  # approved: the worst case (validation still refuses it)
    seal = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); from deliberation.state import seal; "
        "from deliberation.state.paths import Layout; from deliberation.state.store import dumps; "
        "lay = Layout(sys.argv[2]); p = lay.escalations; open(p, 'wb').write(seal.seal_file(lay, p, dumps(json.loads(sys.argv[3]))))"
    )
    index = {
        "schema_version": 1,
        "open": [{"deliberation_id": "d-1", "session_id": SID, "route": "human-review", "opened_at": 0, "reason": "T2"}],
    }
    subprocess.run(
        [sys.executable, "-c", seal, os.path.join(root, "lib"), path, json.dumps(index)],
        check=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": path},
    )
    bash, _rss, out = hook(
        root, path, "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}, timeout
    )
    read, _rss, _out = hook(
        root, path, "PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "x"}, "tool_use_id": "t2"}, timeout
    )
    said = "did not answer within the timeout" if out == "TIMEOUT" else ("held for the person" if '"ask"' in out else "not held")
    return f"risky_tools (?:.*){{500}}Q, a decision awaiting a person: PreToolUse Bash {bash:.2f} s ({said}), a Read {read:.2f} s"


def unusable(root: str, tmp: str, timeout: float) -> "list[str]":
    lines = []
    for case in ("escalations.json -> /dev/null", "state folder -> outside", ".claude -> another project"):
        base = tempfile.mkdtemp(dir=tmp)
        path = os.path.join(base, "project")
        state = os.path.join(path, ".claude", "deliberation")
        other = os.path.join(base, "other")
        if case.startswith("escalations"):
            os.makedirs(state)
            os.symlink("/dev/null", os.path.join(state, "escalations.json"))
        elif case.startswith("state"):
            os.makedirs(os.path.dirname(state))
            os.makedirs(other)
            os.symlink(other, state)
        else:
            os.makedirs(os.path.join(other, ".claude", "deliberation"))
            os.makedirs(path)
            os.symlink(os.path.join(other, ".claude"), os.path.join(path, ".claude"))
        hook(root, path, "SessionStart", {"source": "startup"}, timeout)
        prompt = "DELIBERATE: Should we drop the legacy auth tokens table in production tonight?"
        protocols = sum(
            '"additionalContext": "DELIBERATION PROTOCOL'
            in hook(root, path, "UserPromptSubmit", {"prompt": f"{prompt} ({i})"}, timeout)[2]
            for i in range(3)
        )
        push = {"tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}}
        notes = sum(  # held before it runs (the default since #39) or noted: either way the net answered
            any(
                k in out
                for out in [hook(root, path, "PreToolUse", {**push, "tool_use_id": f"t{i}"}, timeout)[2]]
                for k in ('"permissionDecision": "ask"', '"additionalContext"')
            )
            for i in range(3)
        )
        written = sorted(os.path.relpath(os.path.join(d, f), other) for d, _dirs, files in os.walk(other) for f in files)
        lines.append(
            f"{case}: protocol {protocols}/3, force-push held or noted {notes}/3, written through the link: {written or 'nothing'}"
        )
    return lines


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), help="the plugin checkout")
    ap.add_argument("--timeout", type=float, default=70.0, help="seconds a hook may take before it counts as not answering")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    os.environ.setdefault("DELIBERATION_USER_DATA", tempfile.mkdtemp(prefix="deliberation-bench-"))
    with tempfile.TemporaryDirectory() as tmp:
        print(f"checkout: {root}")
        print(errors_log(root, tmp, args.timeout))
        print(risky_tools(root, tmp, args.timeout))
        for line in unusable(root, tmp, args.timeout):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
