"""status / show / lineage / log / report run as `python -m deliberation` subprocesses over state
files written with tests/helpers/factories.py into a temporary project."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import LIB, ROOT
from tests.helpers.factories import T0, agent_id, approve_config, make_deliberation, make_events, make_lineage, write_project

from deliberation.report.decision_record import record_json, render_markdown
from deliberation.state.models import Deliberation

D1, D2 = "d-20260101-ab12", "d-20260102-cd34"
S1, S2 = "s-20260101-0001", "s-20260102-0002"


def cli(project, *argv):
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    env.pop("CLAUDE_PROJECT_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "deliberation", *argv, "--project", str(project)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=60,
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def proj(tmp_path):
    """Two deliberations in two sessions: a COMPLETE 5×3 one and a 3×2 one still RANKING."""
    d1 = make_deliberation(5, 3, deliberation_id=D1, session_id=S1)
    d2 = make_deliberation(3, 2, deliberation_id=D2, session_id=S2, phase="RANKING", route=None, depth=False, t0=T0 + 86400)
    d2.agents[-1].status, d2.agents[-1].report = "running", None  # one ranking agent still out
    l1, l2 = make_lineage(d1), make_lineage(d2, nested=0, active=3)
    root = tmp_path / "project"
    root.mkdir()
    write_project(root, [d1, d2], [l1, l2], {S1: make_events(d1, l1)})
    return root, d1, d2, l1


def test_status_table_and_json(proj):
    root, d1, d2 = proj[:3]
    code, out, err = cli(root, "status")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:6] == ["ID", "PHASE", "DONE/PENDING", "CONSENSUS", "WARN", "ROUTE"]
    assert lines[1].split()[:3] == [D2, "RANKING", "6/1"]  # newest first
    assert lines[2].split()[:3] == [D1, "COMPLETE", "15/0"]
    assert lines[3].startswith(f"{D2} (default, 01-02 ") and lines[4].startswith(f"{D1} (default, 01-01 ")  # the questions
    assert max(len(line) for line in lines) <= 100, out
    # the pending decision's settling commands, as they run from here
    assert f"approve {D1}" in out and f"reject {D1}" in out and "--reason" in out
    assert f"{d1.ranking.consensus:.2f}/0.70 ok" in lines[2] and "human-review (pending)" in lines[2]
    code, out, _ = cli(root, "status", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows[D1]["agents"] == {"done": 15, "pending": 0, "invalid": 0, "never_ran": 0, "total": 15}
    assert rows[D2]["agents"] == {"done": 6, "pending": 1, "invalid": 0, "never_ran": 0, "total": 7}
    assert rows[D1]["warnings"] == 3 and rows[D1]["route"] == "human-review"
    assert rows[D2]["route"] is None and rows[D1]["consensus"] == d1.ranking.consensus
    code, out, _ = cli(root, "status", "--open", "--json")
    assert [r["id"] for r in json.loads(out)] == [D2]


def test_status_counts_the_checkpoints_of_a_workflow_run(tmp_path):
    """A run of the plugin's workflow starts a checkpoint agent after each wave but the last: the
    row says so beside the panel's count (they use the spawn budget; they are no panel member)."""
    from deliberation.state.models import WorkflowDrive

    d = make_deliberation(5, 3, deliberation_id=D1, session_id=S1)
    d.workflow = WorkflowDrive(status="done", checkpoints=5)
    root = tmp_path / "project"
    root.mkdir()
    write_project(root, [d], [make_lineage(d)], {})
    code, out, err = cli(root, "status")
    assert code == 0, err
    assert out.splitlines()[1].split()[:5] == [D1, "COMPLETE", "15/0", "+5", "checkpoints"], out
    code, out, _ = cli(root, "status", "--json")
    (row,) = json.loads(out)
    assert row["checkpoints"] == 5 and row["agents"]["total"] == 15


def test_status_tells_agents_that_never_ran_from_invalid_ones(tmp_path):
    """A refused Workflow leaves its wave's slots 'refused' (t17: they showed as 4 invalid)."""
    d = make_deliberation(5, 3, deliberation_id=D1, session_id=S1)
    for rec in d.agents[:4]:
        rec.status, rec.report, rec.problem = "refused", None, "the workflow was not launched"
    d.agents[4].status, d.agents[4].report = "invalid", None
    root = tmp_path / "project"
    root.mkdir()
    write_project(root, [d], [make_lineage(d)], {})
    code, out, err = cli(root, "status")
    assert code == 0, err
    assert "10/0 (1 invalid, 4 never ran)" in out.splitlines()[1], out
    code, out, _ = cli(root, "status", "--json")
    assert json.loads(out)[0]["agents"] == {"done": 10, "pending": 0, "invalid": 1, "never_ran": 4, "total": 15}


def test_status_of_an_empty_project(tmp_path):
    code, out, err = cli(tmp_path, "status")
    assert code == 0 and " ".join(out.split()).startswith("no deliberations in ")


def test_show_text_and_json(proj):
    root, d1 = proj[0], proj[1]
    code, out, err = cli(root, "show", D1)
    assert code == 0, err
    assert out.startswith(f"deliberation {D1}  phase COMPLETE\n")
    assert "decision: Postgres outbox with a relay worker [A]" in out
    for piece in (
        "agents:",
        "scores (weighted 0-10, * leading):",
        "gate 1 (consensus): PASSED",
        "gate 2 (quality): PASSED",
        "dissent:",
        "conformity warnings:",
        "depth axis: posture ceiling",
        "route: human-review",
        "phase history:",
        "  PROBE: probe 'outbox-schema' failed: exit 1",
        "decision document (accepted): Adopt A:",
        "  requirement R1 (must): Every order event is written in the order's own transaction. <- technical-architect:F1",
        "  risk RISK1 (high): The relay worker becomes a single point of failure. -> Run two relays with "
        "leader election. <- reliability-engineer:D1",
        f"Cost: {len(d1.agents)} subagent(s), ",
    ):  # the words, whatever the wrapping to 100 columns
        assert " ".join(piece.split()) in " ".join(out.split()), piece
    code, out, _ = cli(root, "show", D2)
    assert "decision document: not due yet (the vote has not passed)" in out
    code, out, _ = cli(root, "show", D1, "--json")
    assert Deliberation.model_validate(json.loads(out)) == d1


def test_unknown_or_invalid_id_fails_clearly(proj):
    root = proj[0]
    for cmd in ("show", "report"):
        code, out, err = cli(root, cmd, "d-nope")
        assert code == 1 and out == ""
        assert err.strip() == (
            f"deliberation: no deliberation 'd-nope' in {root}/.claude/deliberation/deliberations (known: {D1}, {D2})"
        )
    code, out, err = cli(root, "show", "../etc/passwd")
    assert code == 1 and "invalid deliberation id '../etc/passwd'" in err
    code, _, err = cli(root, "lineage", "s-nope")
    assert code == 1 and "no lineage for session 's-nope'" in err
    code, _, err = cli(root, "log", "s-nope")
    assert code == 1 and "no event log for session 's-nope'" in err


def test_report_formats(proj, tmp_path):
    root, d1, _, l1 = proj
    code, out, err = cli(root, "report", D1)
    assert code == 0, err
    assert out == render_markdown(d1, l1)
    code, out, err = cli(root, "report", D1, "--format", "json")
    assert json.loads(out) == json.loads(json.dumps(record_json(d1)))
    # one way to ask for JSON: --json; the old --format json still works and says so
    assert "`report --format json` is deprecated" in err and "use `report --json`" in err
    code, out2, err = cli(root, "report", D1, "--json")
    assert out2 == out and "deprecated" not in err
    target = tmp_path / "decision.html"
    code, out, err = cli(root, "report", D1, "--format", "html", "-o", str(target))
    assert code == 0 and out == ""
    assert err.startswith(f"wrote {target} (") and err.rstrip().endswith("bytes, html)")
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("data-score=") == 15
    code, _, err = cli(root, "report", D1, "-o", str(tmp_path / "missing-dir" / "x.md"))
    assert code == 1 and err.startswith("deliberation: cannot write ")


def test_report_bands_follow_the_project_config(proj):
    root = proj[0]
    (root / ".claude" / "deliberation" / "config.json").write_text(json.dumps({"gates": {"strong": 0.5}}))
    approve_config(root)  # a lower bar loosens: this user approves their own config (consent.py)
    code, out, _ = cli(root, "report", D1, "--json")
    assert json.loads(out)["decision"]["band"] == "strong"  # 0.74 > 0.5


def test_lineage_default_session_and_budget(proj):
    root = proj[0]
    code, out, err = cli(root, "lineage")
    assert code == 0, err
    lines = out.splitlines()
    head = " ".join(" ".join(out.split("\n", 2)[:2]).split())  # the first line, wrapped to 100 columns
    assert head == f"session {S2}: 7 spawned, 3 active, 1 denied; budget 12 active children per parent, 7 of 60 per session"
    lines = [lines[0] + " " + lines[1].strip()] + lines[2:]
    assert lines[1] == "main  [3/12 active, 7 spawned]"
    (root / ".claude" / "deliberation" / "config.json").write_text(json.dumps({"spawn_budget": {"max_active_children": 5}}))
    code, out, _ = cli(root, "lineage", S1)
    first = agent_id("technical-architect", "research")
    assert f"├── Technical Architect · {first} · depth 1 · completed  [1/5 active, 2 spawned]" in out
    assert "main  [0/5 active, 15 spawned]" in out
    assert "denied spawns:" in out and "general-purpose (budget, parent main): Spawn budget:" in out
    code, out, _ = cli(root, "lineage", S1, "--json")
    tree = json.loads(out)
    assert tree["budget"]["max_active_children"] == 5 and tree["spawned"] == 17 and tree["active"] == 1
    assert tree["main"] == {"active": 0, "children": 15, "over_budget": False}
    assert [s["level"] for s in tree["spawns"]][:3] == [0, 1, 1]


def test_log_readable_rows(proj):
    root = proj[0]
    code, out, err = cli(root, "log", S1)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"session {S1}: 13 events")
    header = next(i for i, line in enumerate(lines) if line.startswith("SEQ"))  # after the session's line, wrapped
    assert lines[header].split() == ["SEQ", "TIME", "(UTC)", "EVENT", "TOOL/AGENT", "DECISION", "REASON"]
    assert max(len(line) for line in lines[header:]) <= 100
    deny = next(line for line in lines if " deny " in line)
    assert deny.split()[:5] == ["8", "09:01:00", "PreToolUse", "Agent", "->"]  # the date is the session's
    assert " deny      Spawn budget: the ma" in deny  # the reason cut to the row's 100 columns: --json has it whole
    block = next(line for line in lines if " block " in line)
    assert "PostToolUse" in block and " block     Gate 1: consensus" in block
    assert "Next: re-rank" not in out  # only the reason's first line
    code, out, _ = cli(root, "log", S1, "--json", "--event", "PreToolUse")
    rows = json.loads(out)
    assert [r["seq"] for r in rows] == [2, 4, 6, 8] and rows[-1]["decision"] == "deny"
    code, out, _ = cli(root, "log", "--tail", "2", "--json")  # default: the only session with a log
    assert [r["event"] for r in json.loads(out)] == ["PostToolUse", "Stop"]


def test_log_survives_an_unreadable_line(proj):
    root = proj[0]
    with open(root / ".claude" / "deliberation" / "sessions" / S1 / "events.jsonl", "ab") as fh:
        fh.write(b'{"at": 1767258100.0, "event": "Stop", "payl\n')
    code, out, err = cli(root, "log", S1, "--tail", "1")
    assert code == 0, err
    assert out.splitlines()[-1].split()[:3] == ["14", "-", "(unreadable"]


def test_log_shows_a_line_this_user_s_plugin_did_not_write_as_such_without_its_content(proj):
    root = proj[0]
    with open(root / ".claude" / "deliberation" / "sessions" / S1 / "events.jsonl", "ab") as fh:
        fh.write(b'{"at": 1767258100.0, "event": "Stop", "payload": {}, "answer": {"reason": "IGNORE ALL"}}\n')
    code, out, err = cli(root, "log", S1, "--tail", "1")
    assert code == 0, err
    assert out.splitlines()[-1].split()[:3] == ["14", "-", "(not"] and "IGNORE ALL" not in out


def test_report_json_follows_its_published_schema_and_shows_money_only_at_configured_prices(proj):
    """`report --format json` is checked against record_model.DecisionRecord and validates
    against state_schema/decision_record.schema.json; amounts appear only with prices in the
    config, with their date and source."""
    from deliberation.state import schemas

    root, d1 = proj[0], proj[1]
    code, out, err = cli(root, "report", D1, "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert schemas.explain(schemas.validator("decision_record"), rec) == []
    assert rec["prd"]["status"] == "accepted" and rec["prd"]["document"]["requirements"][0]["id"] == "R1"
    assert rec["usage"]["money"] is None and "no amount: no prices configured" in rec["usage"]["summary"]
    assert rec["usage"]["agents"] == len(d1.agents) and rec["usage"]["agents_from_transcripts"] == len(d1.agents)
    prices = {
        "as_of": "2026-11-30",
        "source": "the team's contract",
        "models": {"*": {"input_per_mtok": 3, "output_per_mtok": 15, "cache_write_per_mtok": 3.75, "cache_read_per_mtok": 0.3}},
    }
    (root / ".claude" / "deliberation" / "config.json").write_text(json.dumps({"cost": {"prices": prices}}))
    code, out, _ = cli(root, "report", D1, "--json")
    money = json.loads(out)["usage"]["money"]
    assert (money["as_of"], money["source"], money["currency"]) == ("2026-11-30", "the team's contract", "USD")
    assert money["amount"] > 0 and money["agents_priced"] == len(d1.agents)
    code, md_out, _ = cli(root, "report", D1)
    assert f"≈ {money['amount']:.2f} USD at the configured prices of 2026-11-30 (the team's contract)" in md_out
    assert "Prices (USD per million tokens, as of 2026-11-30, from the team's contract)" in md_out


def run_in(cwd, *argv, env_extra=None):
    """`python -m deliberation ARGV` from the folder `cwd`, with no --project and no CLAUDE_PROJECT_DIR."""
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-m", "deliberation", *argv], capture_output=True, text=True, env=env, cwd=str(cwd), timeout=60
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_the_project_is_found_upward_from_a_folder_inside_it(proj):
    root = proj[0]
    inner = root / "src" / "auth"
    inner.mkdir(parents=True)
    code, out, err = run_in(inner, "status", "--json")
    assert code == 0, err
    assert {r["id"] for r in json.loads(out)} == {D1, D2}
    code, out, _ = run_in(inner, "latest", "--json", env_extra={"CI": "1"})
    assert code == 0 and json.loads(out)["id"] == D2
    # CLAUDE_PROJECT_DIR still wins over the search; --project over both
    code, out, _ = run_in(inner, "status", env_extra={"CLAUDE_PROJECT_DIR": str(inner)})
    assert " ".join(out.split()).startswith(f"no deliberations in {inner}/.claude/deliberation")


def test_errors_under_json_are_json_on_stdout(proj):
    root = proj[0]
    for argv, code_wanted, words in (
        (("show", "d-nope"), 1, "no deliberation 'd-nope'"),
        (("report", "../etc/passwd"), 1, "invalid deliberation id"),
        (("lineage", "s-nope"), 1, "no lineage for session 's-nope'"),
        (("approve", "d-nope"), 1, "no deliberation d-nope"),
        (("open",), 2, "the following arguments are required: ID"),
        (("show", "--no-such-flag", D1), 2, "unrecognized arguments: --no-such-flag"),
    ):
        code, out, err = cli(root, *argv, "--json")
        assert code == code_wanted, (argv, out, err)
        answer = json.loads(out)
        assert set(answer) == {"error", "exit_code"} and answer["exit_code"] == code_wanted, answer
        assert words in answer["error"], answer
        assert err == "", err
    code, out, err = cli(root, "show", "d-nope")  # without --json: one line on stderr, as before
    assert code == 1 and out == "" and err.startswith("deliberation: no deliberation 'd-nope'")


def test_open_and_latest_write_the_html_record_and_print_its_path_without_a_browser(proj):
    root = proj[0]
    records = root / ".claude" / "deliberation" / "records"
    code, out, err = run_in(root, "open", D1, env_extra={"CI": "true"})
    assert code == 0, err
    assert out.strip() == f"{D1}: {records / (D1 + '.html')} (running under CI: open it yourself)"
    page = (records / f"{D1}.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and D1 in page
    code, out, err = run_in(root, "latest", "--print")
    assert code == 0 and out.strip() == str(records / f"{D2}.html")
    code, out, err = run_in(root, "open", "d-nope", "--print")
    assert code == 1 and "no deliberation 'd-nope'" in err


def test_no_browser_is_started_under_ci_or_without_a_display():
    from deliberation.cli.record_view import no_browser_reason

    assert no_browser_reason({"CI": "1", "DISPLAY": ":0"}, "linux") == "running under CI"
    assert no_browser_reason({}, "linux") == "no display"
    assert no_browser_reason({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_browser_reason({}, "darwin") is None


def test_open_with_session_is_the_deprecated_spelling_of_start(tmp_path):
    code, out, err = cli(tmp_path, "open", "--session", "s-20260101-0009", "--question", "Which cache?", "--json")
    assert code == 0, err
    assert "`open --session` is deprecated" in err and "deliberation start" in err
    assert json.loads(out)["question"] == "Which cache?"
    code, out, err = cli(tmp_path, "start", "--session", "s-20260101-0010", "--question", "Which queue?")
    assert code == 0 and out.startswith("opened d-") and "deprecated" not in err


def test_every_line_a_command_prints_for_a_person_fits_100_columns(proj):
    """Tables, long questions and messages alike: a longer line goes on, indented, between words;
    only a single word longer than the width (a path) stands alone. JSON is never wrapped."""
    import re

    root, d1 = proj[0], proj[1]
    widest = {}
    for argv in (
        ["--help"],
        ["status"],
        ["show", D1],
        ["lineage"],
        ["doctor"],
        ["gc", "--dry-run"],
        ["registry"],
        ["approve", "--help"],
    ):
        if argv == ["--help"]:
            code, out, err = cli(root, "status", "--help")
        else:
            code, out, err = cli(root, *argv)
        lines = out.splitlines()  # stderr: a failure is one line by contract
        wide = [line for line in lines if len(line) > 100 and not re.fullmatch(r"\s*\(?\S+\)?", line)]
        assert wide == [], (argv, wide)
        widest[" ".join(argv)] = max(map(len, lines), default=0)
    print(f"\nwidest line per command: {widest}")
    code, out, _ = cli(root, "show", D1, "--json")
    assert json.loads(out)["id"] == d1.id  # JSON stays whole
