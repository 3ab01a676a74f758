"""capture: each report recorded once; invalid ones sent back once, then recorded invalid; a
report cannot promote itself (persona, phase, consensus)."""

from __future__ import annotations

import json

from deliberation import catalogue
from deliberation.core.capture import capture
from deliberation.core.ranking import rank
from deliberation.state.agent_report import AGAIN, example
from tests.helpers import payloads as P

DIMS = list(d.name for d in catalogue.DIMENSIONS)  # the catalogue's
W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
KW = dict(max_bytes=64 * 1024, retries=1, dimensions=DIMS, now=10.0)
GOOD_RESEARCH = P.research_report("security-analyst", ["tokens are logged in plain text"], [("A", "redact")])


def setup(stage="research", persona="security-analyst"):
    rec = P.agent_record(persona, stage, None, status="running", key="a1")
    return P.make_deliberation([rec], phase="RESEARCH" if stage == "research" else "RANKING"), rec


def test_valid_report_is_recorded():
    d, rec = setup()
    out = capture(d, rec, GOOD_RESEARCH, stop_hook_active=False, **KW)
    assert (out.status, out.send_back) == ("recorded", None)
    assert rec.status == "reported" and rec.reported_at == 10.0 and rec.problem is None
    assert rec.report.findings[0].claim == "tokens are logged in plain text"
    assert rec.ignored_keys == []


def test_missing_block_is_sent_back_once_then_recorded_invalid():
    d, rec = setup()
    out = capture(d, rec, "I looked at it and it seems fine.", stop_hook_active=False, **KW)
    assert out.status == "send_back"
    assert out.send_back.startswith(
        "Deliberation plugin: your report was not accepted. Your final message has no fenced JSON report."
    )
    assert '"phase": "research"' in out.send_back  # the expected shape is shown
    assert rec.status == "running" and rec.send_backs == 1
    # the subagent tried again (stop_hook_active) and still sent no block: record invalid, no loop
    out = capture(d, rec, "Still no block, sorry.", stop_hook_active=True, **KW)
    assert (out.status, out.send_back) == ("invalid", None)
    assert rec.status == "invalid" and rec.report is None
    assert rec.problem.startswith("Your final message has no fenced JSON report")
    assert d.warnings == [
        "security-analyst (a1): report recorded as invalid after 1 send-back(s): "
        "Your final message has no fenced JSON report. The research report's fields:"
    ]
    # anything arriving later is a duplicate, never a third round
    assert capture(d, rec, GOOD_RESEARCH, stop_hook_active=False, **KW).status == "duplicate"


def test_retry_budget_bounds_send_backs_even_without_stop_hook_active():
    d, rec = setup()
    assert capture(d, rec, "no block", stop_hook_active=False, **KW).status == "send_back"
    assert capture(d, rec, "no block", stop_hook_active=False, **KW).status == "invalid"
    d2, rec2 = setup()
    assert capture(d2, rec2, "no block", stop_hook_active=False, **{**KW, "retries": 0}).status == "invalid"


def test_fixed_on_retry_is_recorded():
    d, rec = setup()
    assert capture(d, rec, '```json\n{"phase": "research",}\n```', stop_hook_active=False, **KW).status == "send_back"
    out = capture(d, rec, GOOD_RESEARCH, stop_hook_active=True, **KW)
    assert out.status == "recorded" and rec.status == "reported" and rec.send_backs == 1


def test_two_blocks_are_sent_back():
    d, rec = setup()
    text = GOOD_RESEARCH + "\nAnd again:\n" + GOOD_RESEARCH.split("\n", 1)[1]
    out = capture(d, rec, text, stop_hook_active=False, **KW)
    assert out.status == "send_back"
    assert "Your final message has 2 fenced JSON blocks; end it with exactly ONE report block" in out.send_back


def test_unparsable_and_invalid_reports_say_what_is_wrong():
    d, rec = setup()
    out = capture(d, rec, "```json\n{'phase': 'research'}\n```", stop_hook_active=False, **KW)
    assert "Your JSON report does not parse" in out.send_back
    d, rec = setup()
    bad = P.fenced({"phase": "research", "findings": [{"id": "F1"}], "confidence": 3})
    out = capture(d, rec, bad, stop_hook_active=False, **KW)
    assert "Your JSON report is invalid; fix these fields:" in out.send_back
    assert "- findings.0.claim: Field required" in out.send_back
    assert "- confidence: Input should be less than or equal to 1" in out.send_back


def test_semantic_problems_are_sent_back():
    d, rec = setup()
    out = capture(d, rec, P.fenced({"phase": "research", "findings": []}), stop_hook_active=False, **KW)
    assert "A research report needs at least one finding (id, claim, evidence, severity).\n" in out.send_back
    assert out.send_back.endswith(AGAIN) and example("research") in out.send_back
    d, rec = setup("ranking")
    out = capture(d, rec, P.ranking_report({"A": (9, 8, 7, 6)}), stop_hook_active=False, **KW)
    assert "Approach 'A' lacks the dimension(s) cost" in out.send_back
    d, rec = setup("ranking")
    out = capture(d, rec, P.ranking_report({"A": (9, 8, 7, 6, 5)}, verdict="reject"), stop_hook_active=False, **KW)
    assert "You rejected, so document your dissent: `dissent` entries with concern AND reason.\n" in out.send_back
    assert out.send_back.endswith(AGAIN) and example("ranking") in out.send_back


def test_oversized_report_is_refused():
    d, rec = setup()
    huge = P.research_report("security-analyst", ["x" * 1500] * 50)
    assert len(huge.encode()) > 64 * 1024
    out = capture(d, rec, huge, stop_hook_active=False, **KW)
    assert out.status == "send_back"
    assert f"Your report is {len(huge.encode())} bytes; the limit is 65536." in out.send_back
    assert capture(d, rec, huge, stop_hook_active=True, **KW).status == "invalid"
    assert rec.report is None


def test_duplicate_foreground_report_is_recorded_once():
    """A foreground agent fires SubagentStop, then PostToolUse with the same text."""
    d, rec = setup()
    assert capture(d, rec, GOOD_RESEARCH, stop_hook_active=False, **KW).status == "recorded"
    first = rec.report
    later = P.research_report("security-analyst", ["a different claim"])
    out = capture(d, rec, later, stop_hook_active=True, **{**KW, "now": 99.0})
    assert out.status == "duplicate"
    assert rec.report is first and rec.reported_at == 10.0
    assert len(d.agents) == 1 and d.warnings == []


def test_report_cannot_claim_another_persona_phase_or_consensus():
    d, rec = setup("ranking", persona="cost-analyst")
    text = P.fenced(
        {
            "phase": "ranking",
            "persona": "security-analyst",
            "agent_type": "security-analyst",
            "consensus": 1.0,
            "phase_status": "COMPLETE",
            "gate1": {"passed": True},
            "scores": {"A": dict(zip(DIMS, (6, 6, 6, 6, 6)))},
            "verdict": "approve",
            "preferred_approach": "A",
        }
    )
    out = capture(d, rec, text, stop_hook_active=False, **KW)
    assert out.status == "recorded"
    assert rec.persona == "cost-analyst" and rec.stage == "ranking"
    assert rec.ignored_keys == ["agent_type", "consensus", "gate1", "persona", "phase_status"]
    assert d.phase == "RANKING" and d.gate1 is None
    d.ranking = rank(d.agents, W)
    assert d.ranking.consensus == round(1 / 1.2, 4)  # computed from the vote, not the claimed 1.0


def test_report_claiming_phase_complete_is_sent_back():
    d, rec = setup()
    out = capture(
        d, rec, P.fenced({"phase": "COMPLETE", "findings": [{"id": "F1", "claim": "done"}]}), stop_hook_active=False, **KW
    )
    assert out.status == "send_back"
    assert "- phase: Input should be 'research', 'deliberation' or 'ranking'" in out.send_back
    assert d.phase == "RESEARCH" and rec.status == "running"


def test_report_for_the_wrong_stage_is_sent_back():
    d, rec = setup("research")
    out = capture(d, rec, P.ranking_report({"A": (9, 9, 9, 9, 9)}), stop_hook_active=False, **KW)
    assert (
        'You were spawned for the research stage, but your report says phase "ranking". Set "phase": "research"'
    ) in out.send_back


def test_a_new_report_of_the_same_persona_and_stage_supersedes_the_old_one():
    old = P.agent_record("cost-analyst", "ranking", P.ranking_json({"A": (5,) * 5}), key="old")
    new = P.agent_record("cost-analyst", "ranking", None, status="running", key="new")
    other = P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (5,) * 5}), key="sec")
    d = P.make_deliberation([old, other, new])
    assert capture(d, new, P.ranking_report({"A": (8, 8, 8, 8, 8)}), stop_hook_active=False, **KW).status == "recorded"
    assert old.superseded and not other.superseded and not new.superseded


def test_lens_report_must_name_its_hot_spots():
    rec = P.agent_record("evidence-chase", "deliberation", None, status="running", key="l1", tier=2)
    d = P.make_deliberation([rec], phase="DELIBERATION")
    out = capture(d, rec, P.lens_report([], [{"id": "F1", "claim": "c"}]), stop_hook_active=False, **KW)
    assert "A tier-2 report must list the hot spot ids" in out.send_back


# -- the same rules through the real hook scripts ---------------------------------------------------


def _delib(project):
    [path] = (project / ".claude" / "deliberation" / "deliberations").glob("*.json")
    return json.loads(path.read_text())


def _events(project, sid):
    path = project / ".claude" / "deliberation" / "sessions" / sid / "events.jsonl"
    return [json.loads(l) for l in path.read_text().splitlines()]


def test_hooks_record_a_foreground_report_once(project, hook):
    (project / ".claude" / "deliberation").mkdir(parents=True)
    (project / ".claude" / "deliberation" / "config.json").write_text('{"depth": {"posture": "off"}}')
    s = P.Session(hook, sid="cap-once-1")
    out = s.foreground("security-analyst", "Research the question.", GOOD_RESEARCH)
    assert out["stop"].decision is None and out["post"].decision is None
    [agent] = _delib(project)["agents"]
    assert agent["status"] == "reported" and agent["agent_id"] == out["agent_id"]
    notes = {e["event"]: e["notes"] for e in _events(project, s.sid)}
    assert notes["SubagentStop"] == ["report recorded"]
    assert notes["PostToolUse"] == []  # the second copy changed nothing


def test_hooks_send_an_invalid_report_back_once_then_record_it_invalid(project, hook):
    (project / ".claude" / "deliberation").mkdir(parents=True)
    (project / ".claude" / "deliberation" / "config.json").write_text('{"depth": {"posture": "off"}}')
    s = P.Session(hook, sid="cap-invalid-1")
    out = s.foreground("cost-analyst", "Research the question.", "no report here", retry_message="still no report")
    # said as context to the subagent (no "blocking error from command" line): the subagent goes on
    assert "decision" not in out["stop"].json and out["stop"].decision == "block"
    assert (
        out["stop"]
        .json["hookSpecificOutput"]["additionalContext"]
        .startswith("Deliberation plugin: your report was not accepted. Your final message has no fenced JSON report.")
    )
    assert out["stop2"].decision is None  # stop_hook_active: recorded invalid, no second block
    [agent] = _delib(project)["agents"]
    assert agent["status"] == "invalid" and agent["send_backs"] == 1
    assert _delib(project)["warnings"][0].startswith("cost-analyst (")


def test_a_ballot_that_contradicts_itself_is_asked_once_to_agree():
    """A real-model trial's three rankers approved A and each scored B ~0.3 higher: the consensus
    reads such a preference as support of no weight, and a unanimous panel became "NO CONSENSUS
    0.00". The ballot is sent back once with its own figures; the next one is recorded as it is."""
    d, rec = setup("ranking", "performance-engineer")
    scores = {"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9)}  # weighted A 7.25, B 7.60
    contradicting = P.ranking_report(scores, preferred="A")
    out = capture(d, rec, contradicting, stop_hook_active=False, weights=W, **KW)
    assert out.status == "send_back" and rec.send_backs == 1
    assert "Your preferred_approach is A, but your own scores put B first: weighted (correctness 0.30, risk 0.25" in out.send_back
    assert "B 7.60, A 7.25" in out.send_back and AGAIN in out.send_back
    # the same ballot again is recorded as it is: asked once, never a loop
    out = capture(d, rec, contradicting, stop_hook_active=False, weights=W, **KW)
    assert out.status == "recorded" and rec.report.preferred_approach == "A"


def test_a_coherent_or_close_ballot_is_not_asked():
    for scores, preferred, verdict in (
        ({"A": (8, 7, 8, 9, 7), "B": (7, 7, 9, 7, 9)}, "A", "approve"),  # A first
        ({"A": (7, 7, 9, 7, 9), "B": (7, 7, 9, 7, 9)}, "A", "approve"),  # a tie
        ({"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9)}, "A", "abstain"),  # no vote
        ({"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9)}, None, "approve"),  # no stated preference
        ({"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9)}, "A", "reject"),
    ):
        d, rec = setup("ranking", "performance-engineer")
        dissent = [{"target": "A", "concern": "c", "reason": "r"}] if verdict == "reject" else []
        report = P.ranking_report(scores, verdict=verdict, preferred=preferred, dissent=dissent)
        assert capture(d, rec, report, stop_hook_active=False, weights=W, **KW).status == "recorded", (scores, preferred)
    # no retries left, or the agent is already on its retry: recorded, not asked
    d, rec = setup("ranking", "performance-engineer")
    report = P.ranking_report({"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9)}, preferred="A")
    assert capture(d, rec, report, stop_hook_active=True, weights=W, **KW).status == "recorded"
    d, rec = setup("ranking", "performance-engineer")
    assert capture(d, rec, report, stop_hook_active=False, weights=W, **{**KW, "retries": 0}).status == "recorded"
