"""approve / reject / reverse / confirm / registry / history / eval through the CLI dispatcher on a
temporary project, with routes computed by adjudication.apply_route (real probes)."""

import json
import os
import sys

import pytest

from deliberation import cli
from deliberation.app.adjudication import apply_route, escalation_message, open_index, review_answer
from deliberation.state.config import read_config_file
from deliberation.state.paths import Layout
from deliberation.state.agent_report import AgentReport, Finding
from deliberation.state.models import AgentRecord, Deliberation
from deliberation.state.store import SessionTx, Store

MINE = ("approve", "reject", "reverse", "confirm", "registry", "eval", "history")


@pytest.fixture
def run_cli(project, monkeypatch, capsys):
    """deliberation <argv> through the real dispatcher (only this issue's commands registered)."""
    monkeypatch.setattr(cli, "COMMANDS", {k: v for k, v in cli.COMMANDS.items() if k in MINE})

    def go(*argv):
        code = cli.main([*argv, "--project", str(project)])
        out, err = capsys.readouterr()
        return code, out, err

    return go


def write_config(project, escalation):
    layout = Layout(str(project))
    os.makedirs(layout.root, exist_ok=True)
    with open(layout.config, "w") as fh:
        json.dump({"escalation": escalation}, fh)
    cfg, problems = read_config_file(layout.config)
    assert problems == []
    return cfg


def make_delib(store, delib_id, verdicts, question="Move the login flow to OAuth with JWT?", conf=0.95):
    agents = []
    for i, v in enumerate(verdicts):
        rep = AgentReport(
            phase="ranking",
            verdict=v,
            confidence=conf,
            summary="login via OAuth",
            findings=[Finding(id="F1", claim="token expiry", evidence="src/auth/session.py:40")],
        )
        agents.append(
            AgentRecord(
                key=f"a{i}",
                persona="security-analyst",
                kind="persona",
                stage="ranking",
                status="reported",
                spawned_at=0.0,
                report=rep,
            )
        )
    return Deliberation(
        id=delib_id, session_id="s1", task_type="security", question=question, agents=agents, decision="Adopt OAuth (approach A)"
    )


def route_and_save(store, delib, cfg):
    with SessionTx(store, delib.session_id) as tx:
        tx.add_deliberation(delib)
        apply_route(tx, delib, cfg.escalation)
    return delib.route


def test_review_round_trip(project, run_cli):
    store = Store(Layout(str(project)))
    cfg = write_config(
        project,
        {
            "probes": [
                {
                    "name": "auth-tests",
                    "command": [sys.executable, "-c", "raise SystemExit(1)"],
                    "classes": ["security/*"],
                    "inputs": ["src/auth/"],
                }
            ]
        },
    )

    # a past decision of the class was reversed: the class becomes reversal-prone
    code, out, _ = run_cli("reverse", "d-old", "--class", "security/auth", "--reason", "token leak", "--who", "bob")
    assert code == 0 and "reversal-prone" in out

    delib = make_delib(store, "d1", ["approve", "approve", "approve"])
    route = route_and_save(store, delib, cfg)
    assert route.decision_class == "security/auth"
    assert (route.route, [r.rule for r in route.rules], route.review) == (
        "human-review",
        ["T2", "PROBE"],
        "pending",
    )  # policy D+T2+PROBE: T1 is not run
    assert (route.policy, route.decided_by, route.judges_confidence) == ("D+T2+PROBE", "T2, PROBE", 0.95)
    assert route.probes[0].exit_code == 1
    assert route.probes[0].causal_warning.startswith("probe shares an upstream with the claim")
    assert "src/auth ~ src/auth/session.py" in route.probes[0].causal_warning
    assert "HUMAN REVIEW NEEDED" in escalation_message(delib) and "T2:" in escalation_message(delib)

    # PreToolUse while escalated: ask on risky tools only
    index = open_index(store)
    decision, reason = review_answer(index, "Edit", cfg.escalation.risky_tools)
    assert decision == "ask"
    assert "T2:" in reason and "PROBE:" in reason and "Adopt OAuth" in reason
    assert "by policy D+T2+PROBE" in reason
    assert "`deliberation approve d1`" in reason and "`deliberation reject d1`" in reason
    assert review_answer(index, "Read", cfg.escalation.risky_tools) == (None, "")

    code, out, err = run_cli("approve", "d1", "--reason", "reviewed the token handling", "--who", "alice")
    assert code == 0, err
    assert "approved by alice" in out
    assert not os.path.exists(store.layout.escalations)  # the fast path sees nothing open
    assert review_answer(open_index(store), "Edit", cfg.escalation.risky_tools) == (None, "")
    saved = store.load(store.layout.deliberation("d1"), Deliberation)
    assert saved.route.review == "approved"
    with open(store.layout.adjudications) as fh:
        log = [json.loads(line) for line in fh]
    assert [(e["deliberation_id"], e["action"], e["who"]) for e in log] == [
        ("d-old", "reverse", "bob"),
        ("d1", "approve", "alice"),
    ]
    assert log[1]["reason"] == "reviewed the token handling" and log[1]["at"] > 0

    # a settled route is kept when the route is computed again
    assert route_and_save(store, saved, cfg).review == "approved"

    code, _, err = run_cli("approve", "d1")
    assert code == 1 and "already approved" in err
    code, _, err = run_cli("reject", "nope")
    assert code == 1 and "no deliberation nope" in err
    code, _, err = run_cli("approve", "../etc")
    assert code == 1 and "invalid deliberation_id" in err


def test_strict_policy_runs_t1_and_the_record_names_it(project, run_cli):
    store = Store(Layout(str(project)))
    cfg = write_config(project, {"policy": "T1+D+T2+PROBE"})
    run_cli("reverse", "d-old", "--class", "security/auth", "--reason", "token leak", "--who", "bob")
    delib = make_delib(store, "d1", ["approve", "approve"], conf=0.7)  # below T2's 0.9
    route = route_and_save(store, delib, cfg)
    assert (route.route, [r.rule for r in route.rules], route.policy, route.decided_by) == (
        "human-review",
        ["T1"],
        "T1+D+T2+PROBE",
        "T1",
    )
    from deliberation.report.decision_record import render_markdown

    body = render_markdown(delib)
    assert "Policy **T1+D+T2+PROBE**; route decided by **T1**; judges' confidence 0.70" in body
    # the same decision under the default policy passes, and the record says what was left out
    default = write_config(project, {})
    d2 = make_delib(store, "d2", ["approve", "approve"], conf=0.7)
    route = route_and_save(store, d2, default)
    assert (route.route, [r.rule for r in route.rules]) == ("auto-execute", [])
    assert "T1 (escalate every accepted decision of a reversed class) is not in policy D+T2+PROBE" in render_markdown(d2)


def test_hard_reject_denies_and_reject_closes_only_that_entry(project, run_cli, monkeypatch):
    store = Store(Layout(str(project)))
    cfg = write_config(
        project,
        {
            "probe_failure": "reject",
            "probes": [{"name": "fails", "command": [sys.executable, "-c", "raise SystemExit(2)"], "classes": ["security"]}],
        },
    )
    route_and_save(store, make_delib(store, "d2", ["approve", "approve"]), cfg)
    split = make_delib(store, "d3", ["approve", "reject"], question="Rename the helper module")
    cfg_no_probe = write_config(project, {})
    r3 = route_and_save(store, split, cfg_no_probe)
    assert (r3.route, [r.rule for r in r3.rules]) == ("human-review", ["D", "COLD_START"])
    assert store.load(store.layout.deliberation("d2"), Deliberation).route.route == "hard-reject"

    decision, reason = review_answer(open_index(store), "Bash", cfg.escalation.risky_tools)
    assert decision == "deny" and "d2" in reason and "d3" not in reason

    monkeypatch.setenv("USER", "carol")
    code, out, err = run_cli("reject", "d2", "--json")
    assert code == 0, err
    assert json.loads(out) == {
        "id": "d2",
        "action": "reject",
        "who": "carol",
        "reason": "",
        "review": "rejected",
        "route": "hard-reject",
        "decision_class": "security/auth",
    }
    index = open_index(store)
    assert [e.deliberation_id for e in index.open] == ["d3"]
    assert review_answer(index, "Bash", cfg.escalation.risky_tools)[0] == "ask"

    # a unanimous decision with no flag is auto-executed: nothing to approve
    auto = make_delib(store, "d4", ["approve", "approve"], question="Rename the helper module")
    assert route_and_save(store, auto, cfg_no_probe).route == "auto-execute"
    code, _, err = run_cli("approve", "d4")
    assert code == 1 and "not escalated" in err


def test_labels_registry_history_export_and_eval(project, run_cli, tmp_path):
    store = Store(Layout(str(project)))
    cfg = write_config(project, {})
    route_and_save(store, make_delib(store, "d5", ["approve", "approve", "approve"]), cfg)
    route_and_save(store, make_delib(store, "d6", ["approve", "reject"], conf=0.6), cfg)
    route_and_save(store, make_delib(store, "d7", ["approve", "approve"]), cfg)  # unlabelled

    assert run_cli("reverse", "d5", "--reason", "session fixation found")[0] == 0
    code, out, _ = run_cli("confirm", "d6")
    assert code == 0 and "d6 confirmed in class security/auth" in out
    code, out, _ = run_cli("confirm", "d6")
    assert code == 0 and "nothing changed" in out
    code, _, err = run_cli("reverse", "d9", "--reason", "x")
    assert code == 1 and "--class" in err

    code, out, _ = run_cli("registry")
    assert code == 0 and "security/auth" in out and "session fixation found" in out
    code, out, _ = run_cli("registry", "--json")
    entry = json.loads(out)["classes"]["security/auth"]
    assert (entry["reversals"], entry["confirmations"], entry["decisions"], entry["confirmed"]) == (1, 1, ["d5"], ["d6"])

    export = tmp_path / "history.jsonl"
    code, out, err = run_cli("history", "--export", str(export))
    assert code == 0, err
    rows = [json.loads(line) for line in export.read_text().splitlines()]
    assert rows == [
        {
            "id": "d5",
            "class": "security/auth",
            "decision": "pass",
            "bad": True,
            "votes": ["pass", "pass", "pass"],
            "confidence": 0.95,
            "probe": None,
        },
        {
            "id": "d6",
            "class": "security/auth",
            "decision": "fail",
            "bad": False,
            "votes": ["pass", "fail"],
            "confidence": 0.6,
            "probe": None,
        },
    ]

    code, out, err = run_cli("eval", str(export), "--registry", store.layout.reversals, "--json")
    assert code == 0, err
    pol = {p["policy"]: p for p in json.loads(out)["policies"]}
    assert (pol["T2"]["misses"], pol["T2"]["misses_escalated"], pol["D"]["misses_escalated"]) == (1, 1, 0)


def test_eval_table_and_malformed_lines(project, run_cli, tmp_path, capsys):
    hist = tmp_path / "h.jsonl"
    good = [
        {
            "id": f"m{i}",
            "class": "DF1",
            "decision": "pass",
            "bad": True,
            "votes": ["pass", "pass"] if i < 2 else ["pass", "fail"],
            "confidence": None,
            "probe": None,
        }
        for i in range(3)
    ]
    hist.write_text("\n".join(json.dumps(r) for r in good) + "\n{oops\n")
    code, out, err = run_cli("eval", str(hist), "--reversal-classes", "DF*")
    assert code == 1 and "line 4" in err and "--skip-invalid" in err and out == ""
    code, out, err = run_cli("eval", str(hist), "--reversal-classes", "DF*", "--skip-invalid")
    assert code == 0, err
    with capsys.disabled():
        print("\n" + out)
    assert "D+T2" in out and "66.7% (2/3)" in out and "1 malformed line(s) skipped" in out
    assert "skipped line 4: not JSON" in out
    code, out, _ = run_cli("eval", str(hist), "--skip-invalid", "--holdout", "DF1", "--reversal-classes", "DF*")
    assert code == 0 and "note: no registry" not in out and "T2: caught 0 of 3 hold-out misses" in out
    code, _, err = run_cli("eval", str(tmp_path / "missing.jsonl"))
    assert code == 1 and "cannot read" in err
