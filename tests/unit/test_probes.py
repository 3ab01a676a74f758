import os
import re
import sys
import time

import pytest
from pydantic import ValidationError

from deliberation.state.config import EscalationConfig, ProbeConfig, validate_config
from deliberation.app.probes import (
    CAUSAL_WARNING,
    causal_overlap,
    cited_evidence,
    cited_paths,
    matching_probes,
    probe_env,
    run_probe,
    run_probes,
    validate_probe,
    validate_probes,
)
from deliberation.state.agent_report import AgentReport, Finding
from deliberation.state.models import AgentRecord, Deliberation
from tests.helpers.children import wait_until

PY = sys.executable


def probe(code, **kw):
    return ProbeConfig(name=kw.pop("name", "p"), command=[PY, "-c", code], **kw)


def test_passing_probe(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n")
    run = run_probe(probe("import os, sys; sys.exit(0 if os.path.exists('data.csv') else 3)"), str(tmp_path))
    assert (run.passed, run.exit_code, run.timed_out, run.error) == (True, 0, False, "")
    assert run.duration_s >= 0


def test_failing_probe_reports_exit_code(tmp_path):
    run = run_probe(probe("import sys; sys.exit(3)"), str(tmp_path))
    assert (run.passed, run.exit_code, run.timed_out) == (False, 3, False)


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "grandchild.pid"
    # the probe starts a grandchild that would outlive a plain kill of the probe
    code = (
        "import subprocess, sys, time; "
        "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(marker)!r}, 'w').write(str(c.pid)); time.sleep(60)"
    )
    t0 = time.monotonic()
    run = run_probe(probe(code, timeout_s=1.0), str(tmp_path))
    elapsed = time.monotonic() - t0
    print(f"\nprobe timeout 1.0s: returned after {elapsed:.2f}s")
    assert (run.passed, run.exit_code, run.timed_out) == (False, None, True)
    assert "process group killed" in run.error
    assert elapsed < 30  # the probe sleeps 60 s: only a kill at the timeout returns before that
    gpid = int(marker.read_text())

    def gone() -> bool:  # the grandchild is gone (or a zombie reaped by init)
        try:
            os.kill(gpid, 0)
            with open(f"/proc/{gpid}/stat") as fh:
                return fh.read().split()[2] == "Z"
        except (ProcessLookupError, FileNotFoundError):
            return True

    wait_until(gone, 5, f"grandchild {gpid} to die (it survived the probe's timeout)")


def test_probe_gets_no_deliberation_text_and_no_inherited_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("DELIBERATION_QUESTION", "secret reasoning")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    monkeypatch.setenv("LANG", "C.UTF-8")
    code = (
        "import os, sys; d = sys.stdin.read(); "
        "sys.exit(0 if d == '' and 'DELIBERATION_QUESTION' not in os.environ "
        "and 'ANTHROPIC_API_KEY' not in os.environ and os.environ.get('LANG') == 'C.UTF-8' "
        "and len(sys.argv) == 1 else 5)"
    )
    run = run_probe(probe(code), str(tmp_path), ["src/auth.py:10 the claim"])
    assert run.passed, run
    env = probe_env()
    assert "DELIBERATION_QUESTION" not in env and "ANTHROPIC_API_KEY" not in env
    assert set(env) <= {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TERM"}, (
        env
    )


def test_a_probe_path_has_no_relative_entry_and_ignores_a_project_supplied_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "./tools:bin:/usr/bin")
    assert probe_env(str(tmp_path))["PATH"] == "/usr/bin"
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"env": {"PATH": "./tools:bin:/usr/bin"}}')
    assert "./tools" not in probe_env(str(tmp_path))["PATH"] and "/bin" in probe_env(str(tmp_path))["PATH"]


def test_missing_command_fails_with_a_reason(tmp_path):
    run = run_probe(ProbeConfig(name="gone", command=["/nonexistent/probe-bin"]), str(tmp_path))
    assert (run.passed, run.exit_code) == (False, None)
    assert "could not start" in run.error


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["pytest", "-k", "{question}"], "placeholder '{question}'"),
        (["check.sh", "--claim={claim}"], "placeholder '{claim}'"),
        (["check.sh", "{{ report }}"], "placeholder '{{ report }}'"),
        (["sh", "-c", "echo $DELIBERATION_REPORT"], "DELIBERATION_* variable"),
        (["sh", "-c", "echo ${DELIBERATION_Q}"], "DELIBERATION_* variable"),
        (["cat", ".claude/deliberation/deliberations/d1.json"], "plugin's state"),
        (["/usr/bin/claude", "-p", "is this right?"], "LLM prompt"),
    ],
)
def test_validation_rejects_templating_and_dependent_probes(argv, needle):
    with pytest.raises(ValidationError, match=re.escape(needle)):
        ProbeConfig(name="bad", command=argv)
    problems = validate_probe(ProbeConfig.model_construct(name="bad", command=argv, inputs=[]))
    assert len(problems) == 1 and needle in problems[0] and problems[0].startswith("probe 'bad': ")


def test_config_load_drops_a_templating_probe_with_a_clear_error():
    cfg, problems = validate_config(
        {
            "escalation": {
                "probes": [
                    {"name": "ok", "command": ["pytest", "-q"]},
                    {"name": "leaky", "command": ["check", "--claim", "{claim}"]},
                ]
            }
        }
    )
    assert [p.name for p in cfg.escalation.probes] == ["ok"]
    # the loader reports the refusal first, then drops the probe whose command it removed
    assert all(p.startswith("config key 'escalation.probes.1") for p in problems)
    assert problems[0].startswith("config key 'escalation.probes.1.command'")
    assert "placeholder '{claim}'" in problems[0] and "using the default" in problems[0]


def test_validation_accepts_plain_commands_and_runtime_refuses_bad_ones(tmp_path):
    assert validate_probe(ProbeConfig(name="ok", command=[PY, "-c", "d = dict(a=1)"])) == []
    assert validate_probe(ProbeConfig(name="ok", command=["pytest", "tests/", "-q"], inputs=["data/"])) == []
    bad = ProbeConfig.model_construct(
        name="bad", command=[PY, "-c", "print('{question}')"], inputs=[".claude/deliberation/x"], classes=["*"], timeout_s=5
    )
    assert len(validate_probe(bad)) == 2
    run = run_probe(bad, str(tmp_path))
    assert (run.passed, run.exit_code) == (False, None) and run.error.startswith("refused: ")
    assert validate_probe(ProbeConfig(name="st", command=["x"], inputs=[".claude/deliberation/d.json"]))


def test_validate_probes_names_duplicates():
    cfg, problems = validate_config(
        {
            "escalation": {
                "probes": [
                    {"name": "a", "command": ["true"]},
                    {"name": "a", "command": ["x"], "inputs": [".claude/deliberation"]},
                ]
            }
        }
    )
    assert problems == []
    found = validate_probes(cfg.escalation)
    assert len(found) == 2 and "configured twice" in found[0] and "plugin's state" in found[1]


def test_matching_probes_by_class_or_task_type():
    ps = [
        ProbeConfig(name="all", command=["true"]),
        ProbeConfig(name="sec", command=["true"], classes=["security"]),
        ProbeConfig(name="mig", command=["true"], classes=["*/schema-migration"]),
    ]
    assert [p.name for p in matching_probes(ps, "security/auth")] == ["all", "sec"]
    assert [p.name for p in matching_probes(ps, "architecture/schema-migration")] == ["all", "mig"]
    assert [p.name for p in matching_probes(ps, "default")] == ["all"]


def test_cited_paths_normalisation():
    assert cited_paths(["src/db.py:120-130, see ./data/export.csv:12", "README.md#L4 (3.10) e.g. 42"]) == [
        "src/db.py",
        "data/export.csv",
        "README.md",
    ]


def test_causal_overlap_names_the_shared_paths():
    evidence = ["counted rows in data/export/users.csv:3", "schema at db/schema.sql"]
    assert causal_overlap(["data/export/users.csv"], evidence) == f"{CAUSAL_WARNING} (shared: data/export/users.csv)"
    assert causal_overlap(["./data/export/"], evidence) == f"{CAUSAL_WARNING} (shared: data/export ~ data/export/users.csv)"
    assert causal_overlap(["db/*.sql", "raw/sensor.bin"], evidence) == f"{CAUSAL_WARNING} (shared: db/*.sql ~ db/schema.sql)"
    assert causal_overlap(["raw/sensor.bin"], evidence) == ""
    assert causal_overlap([], evidence) == ""


def _delib():
    rep = AgentReport(
        phase="research", findings=[Finding(id="F1", claim="c", evidence="data/export.csv:3"), Finding(id="F2", claim="d")]
    )
    old = AgentReport(phase="research", findings=[Finding(id="F1", claim="c", evidence="old/thing.csv")])
    return Deliberation(
        id="d1",
        session_id="s1",
        task_type="architecture",
        agents=[
            AgentRecord(key="a", persona="x", kind="persona", stage="research", spawned_at=0, report=rep),
            AgentRecord(key="b", persona="y", kind="persona", stage="research", spawned_at=0, report=old, superseded=True),
        ],
    )


def test_run_probes_for_a_class_with_the_causal_warning(tmp_path):
    cfg = EscalationConfig(
        probes=[
            ProbeConfig(name="recount", command=[PY, "-c", "pass"], classes=["architecture/*"], inputs=["data/export.csv"]),
            ProbeConfig(name="schema", command=[PY, "-c", "raise SystemExit(1)"], classes=["architecture"], inputs=["schema/"]),
            ProbeConfig(name="other", command=[PY, "-c", "pass"], classes=["security"]),
        ]
    )
    evidence = cited_evidence(_delib())
    assert evidence == ["data/export.csv:3"]
    runs = run_probes(cfg, "architecture/data-pipeline", str(tmp_path), evidence)
    assert [(r.name, r.passed, r.exit_code) for r in runs] == [("recount", True, 0), ("schema", False, 1)]
    assert runs[0].causal_warning == f"{CAUSAL_WARNING} (shared: data/export.csv)"
    assert runs[1].causal_warning == ""


def test_probe_budget_bounds_all_probes_together(tmp_path):
    slow = [ProbeConfig(name=f"slow{i}", command=[PY, "-c", "import time; time.sleep(30)"], timeout_s=30) for i in range(3)]
    cfg = EscalationConfig(probes=slow, probe_budget_s=1.0)
    t0 = time.monotonic()
    runs = run_probes(cfg, "default", str(tmp_path))
    elapsed = time.monotonic() - t0
    print(f"\n3 probes of 30s under a 1s budget: {elapsed:.2f}s")
    assert elapsed < 20  # 3 probes of 30 s: only the budget's kill returns before that
    assert (runs[0].timed_out, runs[0].passed) == (True, False) and "timed out after 1.0s" in runs[0].error
    assert [r.error for r in runs[1:]] == ["not run: the probe budget of 1s was spent"] * 2
    assert all(not r.passed and r.exit_code is None for r in runs)
