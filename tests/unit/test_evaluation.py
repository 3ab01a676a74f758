import json

import pytest

from deliberation.core.evaluation import HistoryError, evaluate, parse_history, parse_row, registry_predicate, split_globs
from deliberation.text.evaluation import pct, render_table
from deliberation.state.models import ReversalClass, ReversalRegistry


def row(i, cls, bad, votes=None, conf=None, decision="pass", probe=None):
    return json.dumps(
        {"id": f"r{i}", "class": cls, "decision": decision, "bad": bad, "votes": votes, "confidence": conf, "probe": probe}
    )


U = ["pass", "pass", "pass"]
S = ["pass", "pass", "fail"]


def run(lines, globs="", registry=None, holdout=(), skip=False):
    hist = parse_history(lines, skip_invalid=skip)
    return evaluate(hist, registry_predicate(registry, split_globs(globs), holdout), holdout)


def show(ev, title):
    print(f"\n{title}\n{render_table(ev)}")


def test_reference_table_a_94_high_confidence_misses():
    """94 high-confidence misses, 92 unanimous, all in reversal-prone classes."""
    lines = [row(i, f"DF{i % 4}", True, U, 0.95) for i in range(92)]
    lines += [row(92 + i, "DS1", True, S, 0.93) for i in range(2)]
    ev = run(lines, "DF*,DS*")
    show(ev, "reference (a): 94 misses, 92 unanimous")
    p = ev.by_policy()
    assert [k for k in p] == ["D", "T1", "T2", "D+T2"]  # no probe data → no probe policies
    assert (p["D"].misses_escalated, p["D"].misses, pct(p["D"].miss_capture_rate)) == (2, 94, "2.1%")
    assert (p["T2"].misses_escalated, pct(p["T2"].miss_capture_rate)) == (92, "97.9%")
    assert (p["D+T2"].misses_escalated, pct(p["D+T2"].miss_capture_rate)) == (94, "100.0%")
    assert pct(p["T1"].miss_capture_rate) == "100.0%"  # the oracle: every miss is in a listed class
    assert [p[k].misses_auto_passed for k in ("D", "T1", "T2", "D+T2")] == [92, 0, 2, 0]
    assert all(r.n == 94 and r.true_pass_escalation_rate is None for r in ev.results)
    # the reference table (docs/EVIDENCE.md, E8), row by row: capture %, still auto-passed %
    table = render_table(ev).splitlines()
    assert table[0].split() == ["policy", "n", "MISS", "capture", "MISS", "still", "auto-passed", "true", "passes", "escalated"]
    rows = {line.split()[0]: line for line in table[2:6]}
    assert "2.1% (2/94)" in rows["D"] and "97.9% (92/94)" in rows["D"]
    assert "97.9% (92/94)" in rows["T2"] and "2.1% (2/94)" in rows["T2"]
    assert "100.0% (94/94)" in rows["D+T2"] and "0.0% (0/94)" in rows["D+T2"]
    assert all("n/a (0/0)" in line for line in rows.values())  # no true passes in this table


def test_reference_table_b_six_misses_and_true_passes():
    """6 misses (4 unanimous, 2 split) in reversal-prone classes + unanimous true passes elsewhere."""
    lines = [
        row(1, "DF1", True, U),
        row(2, "DF2", True, U),
        row(3, "DF1", True, None, 0.95),
        row(4, "DS1", True, ["fail", "fail"], None),  # unanimous votes count, whatever the confidence
        row(5, "DF2", True, S, 0.97),
        row(6, "DS2", True, None, 0.6),
    ]
    lines += [row(10 + i, f"OK{i % 3}", False, U, 0.9) for i in range(12)]  # true passes
    lines += [row(30 + i, "DF1", False, S, decision="fail") for i in range(3)]  # rejected: not measured
    lines += [row(40, "DF1", True, None, None)]  # neither votes nor confidence → excluded
    ev = run(lines, "DF*,DS*")
    show(ev, "reference (b): 6 misses, 4 unanimous + 2 split")
    p = ev.by_policy()
    assert ev.excluded == ["r40"] and ev.rows == 22
    assert {k: pct(v.miss_capture_rate) for k, v in p.items()} == {"D": "33.3%", "T1": "100.0%", "T2": "66.7%", "D+T2": "100.0%"}
    assert {k: (v.true_passes_escalated, v.true_passes) for k, v in p.items()} == {
        "D": (0, 12),
        "T1": (0, 12),
        "T2": (0, 12),
        "D+T2": (0, 12),
    }
    assert all(v.n == 21 and v.misses == 6 for v in p.values())
    assert {k: pct(v.miss_auto_pass_rate) for k, v in p.items()} == {"D": "66.7%", "T1": "0.0%", "T2": "33.3%", "D+T2": "0.0%"}
    line = next(x for x in render_table(ev).splitlines() if x.startswith("D+T2 "))
    assert line.split("  ")[-1].strip() == "0.0% (0/12)"  # true passes escalated


def test_t2_needs_the_judges_confidence_when_a_row_gives_it():
    """Live T2 reads the judges' confidence (≥ 0.9); eval measures the same rule."""
    lines = [row(1, "DF1", True, U, 0.95), row(2, "DF1", True, U, 0.7), row(3, "DF1", True, U, None)]
    p = run(lines, "DF*").by_policy()
    assert (p["T2"].misses_escalated, p["T2"].misses) == (2, 3)
    assert p["T1"].misses_escalated == 3


def test_true_passes_escalated_on_registry_classes():
    lines = [row(1, "sec/auth", False, U), row(2, "sec/auth", False, S), row(3, "db", False, U), row(4, "sec/auth", True, U)]
    reg = ReversalRegistry(classes={"sec": ReversalClass(decision_class="sec", reversals=1)})
    p = run(lines, registry=reg).by_policy()
    # T1 covers sec/auth through its task-type entry: rows 1, 2 (true) and 4 (miss)
    assert (p["T1"].true_passes_escalated, p["T1"].true_passes) == (2, 3)
    assert (p["T2"].true_passes_escalated, p["D"].true_passes_escalated, p["D+T2"].true_passes_escalated) == (1, 1, 2)
    assert pct(p["D+T2"].true_pass_escalation_rate) == "66.7%"


def test_reference_c_holdout_recurrence_arm_blind_probe_catches():
    lines = [
        row(1, "DF1", True, U, probe="pass"),
        row(2, "DF1", True, U, probe="fail"),
        row(3, "DF3", True, U, probe="fail"),
        row(4, "DF3", True, U, probe="fail"),
        row(5, "DF3", True, U, probe="pass"),
        row(6, "OK", False, U, probe="pass"),
        row(7, "OK", False, U, probe="fail"),
    ]
    with_class = run(lines, "DF*").by_policy()
    assert with_class["T2"].misses_escalated == 5
    ev = run(lines, "DF*", holdout=["DF3"])
    show(ev, "reference (c): DF3 held out")
    p = ev.by_policy()
    assert list(p) == ["D", "T1", "T2", "D+T2", "PROBE", "D+T2+PROBE"]
    assert {k: (v.holdout_misses_escalated, v.holdout_misses) for k, v in p.items()} == {
        "D": (0, 3),
        "T1": (0, 3),
        "T2": (0, 3),
        "D+T2": (0, 3),
        "PROBE": (2, 3),
        "D+T2+PROBE": (2, 3),
    }
    assert (p["T2"].misses_escalated, p["PROBE"].misses_escalated, p["D+T2+PROBE"].misses_escalated) == (2, 3, 4)
    assert (p["PROBE"].true_passes_escalated, p["D+T2"].true_passes_escalated) == (1, 0)
    assert "hold-out DF3" in render_table(ev) and "PROBE: caught 2 of 3 hold-out misses" in render_table(ev)
    # the control line: the other classes' misses (DF1: rows 1, 2) and the true passes (rows 6, 7)
    assert {k: (v.control_misses_escalated, v.control_misses) for k, v in p.items()} == {
        "D": (0, 2),
        "T1": (2, 2),
        "T2": (2, 2),
        "D+T2": (2, 2),
        "PROBE": (1, 2),
        "D+T2+PROBE": (2, 2),
    }
    text = render_table(ev)
    assert "control (the other classes, registry as given):" in text
    assert "  D+T2: misses caught 100.0% (2/2), true passes escalated 0.0% (0/2)" in text
    assert "  PROBE: misses caught 50.0% (1/2), true passes escalated 50.0% (1/2)" in text


def test_holdout_removes_a_registry_file_class_too():
    reg = ReversalRegistry(classes={"DF3": ReversalClass(decision_class="DF3", reversals=4)})
    listed = registry_predicate(reg, [], ["DF3"])
    assert not listed("DF3")
    assert registry_predicate(reg)("DF3")
    assert not registry_predicate(ReversalRegistry(classes={"X": ReversalClass(decision_class="X", confirmations=2)}))("X")


@pytest.mark.parametrize(
    "text,why",
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "a JSON list, not an object"),
        ('{"id": "a", "class": "c", "decision": "pass"}', "missing key(s): bad"),
        ('{"id": "a", "class": "c", "decision": "maybe", "bad": false}', "'decision' must be"),
        ('{"id": "a", "class": "c", "decision": "pass", "bad": "no"}', "'bad' must be true or false"),
        ('{"id": "a", "class": "c", "decision": "pass", "bad": false, "votes": ["yes"]}', "'votes' must be"),
        ('{"id": "a", "class": "c", "decision": "pass", "bad": false, "confidence": 1.5}', "'confidence' must be"),
        ('{"id": "a", "class": "c", "decision": "pass", "bad": false, "probe": "ok"}', "'probe' must be"),
        ('{"id": "a", "class": "c", "decision": "pass", "bad": false, "extra": 1}', "unknown key(s): extra"),
        ('{"id": "", "class": "c", "decision": "pass", "bad": false}', "'id' must be"),
    ],
)
def test_malformed_rows(text, why):
    with pytest.raises(HistoryError) as exc:
        parse_row(text, 7)
    assert exc.value.line == 7 and str(exc.value).startswith("line 7: ") and why in str(exc.value)


def test_malformed_line_fails_the_run_unless_skipped():
    lines = [row(1, "A", True, U), "", "{broken", row(2, "A", False, U), '{"id": 3}']
    with pytest.raises(HistoryError) as exc:
        parse_history(lines)
    assert exc.value.line == 3  # blank line 2 is not malformed; numbering counts it
    hist = parse_history(lines, skip_invalid=True)
    assert [r.id for r in hist.rows] == ["r1", "r2"] and [e.line for e in hist.skipped] == [3, 5]
    ev = evaluate(hist, registry_predicate(None, ["A"]))
    assert len(ev.skipped) == 2 and "2 malformed line(s) skipped" in render_table(ev)
    assert ev.to_json()["skipped"] == 2


def test_json_shape():
    ev = run([row(1, "A", True, U), row(2, "B", False, S)], "A")
    out = ev.to_json()
    assert out["rows"] == 2 and out["evaluated"] == 2 and out["excluded"] == 0
    d = out["policies"][0]
    assert d == {
        "policy": "D",
        "n": 2,
        "misses": 1,
        "misses_escalated": 0,
        "miss_capture_rate": 0.0,
        "misses_auto_passed": 1,
        "miss_auto_pass_rate": 1.0,
        "true_passes": 1,
        "true_passes_escalated": 1,
        "true_pass_escalation_rate": 1.0,
        "holdout_misses": 0,
        "holdout_misses_escalated": 0,
        "control_misses": 1,
        "control_misses_escalated": 0,
        "control_capture_rate": 0.0,
    }
