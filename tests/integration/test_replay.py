"""`deliberation replay`: a session's own event log reproduces its decisions exactly."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from tests.conftest import LIB
from tests.helpers.flows import HIGH, start
from tests.helpers.flows import gate_rank as rank
from tests.helpers.flows import gate_research as research


def run_cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    return subprocess.run(
        [sys.executable, "-m", "deliberation", *args], capture_output=True, text=True, env=env, cwd=str(cwd), timeout=300
    )


def session_log(project):
    logs = list((project / ".claude" / "deliberation" / "sessions").glob("*/events.jsonl"))
    assert len(logs) == 1
    return logs[0]


def record_session(project, hook):
    s = start(project, hook)
    research(s)
    low = dict(HIGH)
    low["performance-engineer"] = ({"A": (5, 5, 5, 5, 5), "B": (6, 6, 6, 6, 6)}, "approve", "B", [])
    rank(s, low)  # Gate 1 blocks (dissent undocumented, consensus low)
    s.stop()  # blocked by the gates
    s.stop(active=True)
    return session_log(project)


def test_replaying_a_session_log_reproduces_every_decision(project, hook, tmp_path):
    log = record_session(project, hook)
    config = project / ".claude" / "deliberation" / "config.json"
    res = run_cli("replay", str(log), "--config", str(config), "--check", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    decisions = [r for r in out["results"] if r["got"].get("decision")]
    assert out["differ"] == 0 and out["events"] == 19  # 1 prompt, 8 research, 8 ranking, 2 stops
    assert {r["got"]["decision"] for r in decisions} == {"block"}  # the gate blocks were reproduced
    text = run_cli("replay", str(log), "--config", str(config), cwd=tmp_path)
    assert text.returncode == 0 and "0 decision(s) differ" in text.stdout


def test_replay_check_fails_when_the_log_was_tampered_with(project, hook, tmp_path):
    log = record_session(project, hook)
    lines = log.read_text().splitlines()
    tampered = []
    for line in lines:
        rec = json.loads(line)
        msg = rec["payload"].get("last_assistant_message", "")
        if rec["event"] == "SubagentStop" and '"phase": "ranking"' in msg:
            rec["payload"]["last_assistant_message"] = msg.replace('"preferred_approach": "B"', '"preferred_approach": "A"')
        tampered.append(json.dumps(rec))
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("\n".join(tampered) + "\n")
    config = project / ".claude" / "deliberation" / "config.json"
    res = run_cli("replay", str(bad), "--config", str(config), "--check", "--json", cwd=tmp_path)
    assert res.returncode == 1
    assert json.loads(res.stdout)["differ"] >= 1


def test_progress_shows_only_on_a_terminal():
    from deliberation.cli.replay import progress_printer

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    show_tty, show_pipe = progress_printer(100, tty), progress_printer(100, pipe)
    for i in range(1, 101):
        show_tty(i)
        show_pipe(i)
    assert "replaying 100/100 events" in tty.getvalue() and tty.getvalue().count("\r") == 4
    assert pipe.getvalue() == ""
