"""Each check of both gates failing through the real hook scripts, report send-back through the
hooks, and every state file validating against state_schema/ afterwards."""

from __future__ import annotations

import json
import os


from tests.helpers import payloads as P
from tests.helpers.flows import GATES_QUESTION as QUESTION
from tests.helpers.flows import HARD, HIGH, TWO, failed_checks, start
from tests.helpers.flows import gate_rank as rank
from tests.helpers.flows import gate_research as research
from tests.helpers.project import load_delib
from tests.helpers.project import validate_schemas as validate_state

# --- Gate 1 ------------------------------------------------------------------------------------


def test_gate1_phase_fails_when_stopping_after_research(project, hook):
    s = start(project, hook)
    research(s)
    res = s.stop()
    assert res.decision == "block"
    # the hold says what it is (not finished) and names the next step the plugin accepts
    assert "is not finished (phase RESEARCH): it concludes after the blind ranking" in res.reason
    assert "Next: spawn `synthesis-lead` and `debate-moderator`" in res.reason
    assert "phase" in failed_checks(load_delib(project)["gate1"])
    assert validate_state(project) >= 4


def test_gate1_agents_completed_fails_with_one_ranking_report(project, hook):
    s = start(project, hook)
    research(s)
    outs = rank(s, {"security-analyst": HIGH["security-analyst"]})
    post = outs[-1]["post"]
    # a Gate 1 failure at PostToolUse is said as context (docs/HOOK_ANSWERS.md), as a failure
    assert post.decision is None and "consensus gate FAILED" in post.context
    assert "agents_completed: 1 < 2" in post.context
    assert set(failed_checks(load_delib(project)["gate1"])) == {"agents_completed"}


def test_gate1_consensus_fails_below_threshold(project, hook):
    s = start(project, hook)
    research(s)
    # a split: one ranker prefers A, the other B (and says why) — no agreement on the decision
    why = [{"target": "A", "concern": "A doubles the write path", "reason": "bench/write.txt"}]
    low = {
        "security-analyst": ({"A": (8, 8, 8, 8, 8), "B": (6, 6, 6, 6, 6)}, "approve", "A", []),
        "performance-engineer": ({"A": (6, 6, 6, 6, 6), "B": (8, 8, 8, 8, 8)}, "approve", "B", why),
    }
    post = rank(s, low)[-1]["post"]
    assert "consensus gate FAILED" in post.context
    d = load_delib(project)
    assert set(failed_checks(d["gate1"])) == {"consensus"}
    figure = failed_checks(d["gate1"])["consensus"]
    assert figure == f"{d['ranking']['consensus']:.2f} < {d['threshold']:.2f} for {d['task_type']}"
    assert figure in post.context


def test_gate1_dissent_must_be_documented(project, hook):
    s = start(project, hook)
    research(s)
    table = dict(HIGH)
    # its scores put B narrowly ahead and it states no preference: a dissent by its scores, light
    # enough (0.1 point) that the consensus holds (1 / 1.3 = 0.77 >= 0.70), so the undocumented
    # dissent is what fails. (A dissent it *states* weighs at least 0.5: with two rankers that is
    # a split, and the consensus fails as well — test_gate1_consensus_fails_below_threshold.)
    table["performance-engineer"] = ({"A": (8, 8, 8, 8, 8), "B": (8, 8, 8, 8, 9)}, "approve", None, [])
    post = rank(s, table)[-1]["post"]
    assert "consensus gate FAILED" in post.context
    assert set(failed_checks(load_delib(project)["gate1"])) == {"dissent_documented"}
    assert "undocumented: performance-engineer" in post.context


# --- Gate 2 ------------------------------------------------------------------------------------

CITES = ["security-analyst:F1", "performance-engineer:F1"]


def conclude(s, project, outcome="adopted"):
    """The main agent's concluding answer, with its decision document (PRD)."""
    res = s.stop(message=P.prd_message(CITES, outcome))
    d = load_delib(project)
    return res, d


def test_gate2_method_diversity(project, hook):
    s = start(project, hook, {"deliberation": {"min_distinct_personas": 3}})
    research(s)
    rank(s, HIGH)
    res, d = conclude(s, project)
    assert res.decision == "block" and "quality gate FAILED" in res.reason
    assert failed_checks(d["gate2"]) == {"method_diversity": "2 distinct personas (need 3)"}


def test_gate2_contradiction_transparency(project, hook):
    s = start(project, hook)
    research(s, verdicts={"performance-engineer": "reject"})  # a research dissent without reasons
    rank(s, HIGH)
    res, d = conclude(s, project)
    assert res.decision == "block"
    assert failed_checks(d["gate2"]) == {"contradiction_transparency": "0 of 1 dissents documented"}


def test_gate2_complexity_handling(project, hook):
    s = start(project, hook)
    research(s, approaches=[("A", "Move sessions to Postgres")])
    one = {p: ({"A": v[0]["A"]}, *v[1:]) for p, v in HIGH.items()}
    rank(s, one)
    res, d = conclude(s, project)
    assert res.decision == "block"
    assert failed_checks(d["gate2"]) == {"complexity_handling": "1 alternatives (need 2)"}


def test_gate2_weak_consensus(project, hook):
    s = start(
        project, hook, {"task_types": {"thresholds": {t: 0.6 for t in ("security", "architecture", "default")}}}, prompt=HARD
    )  # triggers at confidence 0.00, so improvement holds
    research(s)
    # both prefer A, each by 0.2 points only: 0.4 / (0.4 + 0.2) = 0.67 — over the 0.6 bar, weak
    mid = {
        "security-analyst": ({"A": (7,) * 5, "B": (6.8,) * 5}, "approve", "A", []),
        "performance-engineer": ({"A": (7,) * 5, "B": (6.8,) * 5}, "approve", "A", []),
    }
    rank(s, mid)
    res, d = conclude(s, project)
    assert d["gate1"]["passed"], d["gate1"]
    assert res.decision == "block"
    assert set(failed_checks(d["gate2"])) == {"consensus_confidence"}
    assert failed_checks(d["gate2"])["consensus_confidence"].endswith("(weak)")


def test_gate2_improvement_evidence_fails_when_the_deliberation_broke_an_agreement(project, hook):
    s = start(project, hook, {"task_types": {"thresholds": {t: 0.6 for t in ("security", "architecture", "default")}}})
    four = ("security-analyst", "performance-engineer", "cost-analyst", "ux-advocate")
    held = {"security-analyst": "A", "performance-engineer": "A", "cost-analyst": "A", "ux-advocate": "A"}
    for i, persona in enumerate(four):  # each persona's position, stated alone
        s.foreground(
            persona,
            f"Research independently: {QUESTION}",
            P.fenced(
                {
                    "phase": "research",
                    "findings": [{"id": "F1", "claim": f"{persona} claim {i}", "evidence": f"src/s{i}.py:1"}],
                    "approaches": [{"id": a, "title": t} for a, t in TWO],
                    "verdict": "abstain",
                    "preferred_approach": held[persona],
                    "confidence": 0.5,
                    "rationale": f"{persona} view",
                }
            ),
        )
    why = [{"target": "A", "concern": "A doubles the write path", "reason": "bench/write.txt"}]
    table = {p: ({"A": (9,) * 5, "B": (6,) * 5}, "approve", "A", []) for p in four[:3]}
    table["ux-advocate"] = ({"A": (6,) * 5, "B": (8,) * 5}, "approve", "B", why)
    rank(s, table)  # 4 of 4 for A at research, 3 of 4 at ranking: consensus 3 / 4.2, moderate
    res, d = conclude(s, project)
    assert d["gate1"]["passed"], d["gate1"]
    assert res.decision == "block"
    assert failed_checks(d["gate2"]) == {"improvement_evidence": "share for the decision 0.75 < 1.00 at research (fell)"}
    assert "ux-advocate A→B" in res.reason  # the block says what was compared
    assert "Two ways forward — choose one" in res.reason  # a failure on agreement
    # the next stop hands the decision to the user: accepted, never held again
    res, d = conclude(s, project)
    assert res.decision is None and d["phase"] == "COMPLETE" and d["outcome"] == "no-consensus", res.reason


def test_forced_plain_question_with_a_passing_consensus_completes(project, hook):
    """`/deliberate` on a routine question scores ~0.9 on the trigger's word lists; the
    panel's consensus is on another scale and must not be held to it."""
    s = start(project, hook, prompt="/deliberate Rename the helper in utils.py")
    research(s)
    rank(s, HIGH)
    res, d = conclude(s, project)
    assert d["initial_confidence"] > d["ranking"]["consensus"] and d["trigger_forced"] is True
    assert res.decision is None and d["phase"] == "COMPLETE", (res.reason, d["gate2"])
    (imp,) = [c for c in d["gate2"]["checks"] if c["name"] == "improvement_evidence"]
    assert imp["passed"] and imp["figure"] == "unmeasured: no research position to compare (does not block)"
    assert f"the trigger's {d['initial_confidence']:.2f} (forced by the user)" in imp["detail"]
    assert d["record"]["improvement"]["status"] == "unmeasured"
    assert d["record"]["improvement"]["pairs"] == [
        {"persona": "performance-engineer", "before": None, "after": "A"},
        {"persona": "security-analyst", "before": None, "after": "A"},
    ]
    body = open(d["record_path"], encoding="utf-8").read()
    assert "unmeasured: no research position to compare (does not block)" in body


def test_stop_blocks_are_bounded_then_failed(project, hook):
    s = start(project, hook)
    research(s)
    blocks = [s.stop(active=i > 0) for i in range(4)]
    assert [b.decision for b in blocks] == ["block", "block", "block", None]
    assert "FAILED" in blocks[-1].system_message
    d = load_delib(project)
    assert d["phase"] == "FAILED" and d["failure_reasons"]
    # a FAILED deliberation has its record too, and it leads with why
    assert d["record_path"] and d["record"]["phase"] == "FAILED"
    body = open(d["record_path"], encoding="utf-8").read()
    outcome = body.split("\n## ", 2)[1]
    assert outcome.startswith("Outcome") and "**FAILED — no decision**" in outcome
    assert d["failure_reasons"][0].splitlines()[0][:60] in outcome.replace("\\", "")
    after = s.stop()
    assert after.decision is None  # the session is free again
    validate_state(project)


# --- reports sent back through SubagentStop ------------------------------------------------------


def test_invalid_report_fixed_on_retry(project, hook):
    s = start(project, hook)
    good = P.research_report("security-analyst", ["Sessions hold card tokens"], TWO)
    out = s.foreground("security-analyst", f"Research: {QUESTION}", "I think it is fine, no JSON.", retry_message=good)
    assert out["stop"].decision == "block"
    assert "no fenced JSON report" in out["stop"].reason and '"phase": "research"' in out["stop"].reason
    assert out["stop2"].decision is None
    rec = load_delib(project)["agents"][0]
    assert rec["status"] == "reported" and rec["send_backs"] == 1


def test_invalid_report_recorded_invalid_after_retry(project, hook):
    s = start(project, hook)
    out = s.foreground("security-analyst", f"Research: {QUESTION}", "still no json", retry_message="still no json")
    assert out["stop"].decision == "block"
    assert out["stop2"].decision is None  # no loop
    rec = load_delib(project)["agents"][0]
    assert rec["status"] == "invalid" and rec["send_backs"] == 1 and "no fenced JSON" in rec["problem"]
    assert any("recorded as invalid" in w for w in load_delib(project)["warnings"])
    validate_state(project)


# --- a unanimous reject ---------------------------------------------------------


def test_unanimous_reject_concludes_rejected_with_no_approach_adopted(project, hook):
    s = start(project, hook)
    research(s)
    why = [
        {"target": "A", "concern": "the cut-over loses in-flight sessions", "reason": "no dual-read window"},
        {"target": "B", "concern": "replication does not fix the PII finding", "reason": "sessions stay unencrypted"},
    ]
    reject = {p: ({"A": (8, 8, 8, 8, 8), "B": (7, 7, 7, 7, 7)}, "reject", "A", why) for p in HIGH}
    outs = rank(s, reject)
    post = outs[-1]["post"]
    assert post.decision is None
    assert "unanimously REJECTED every approach (2 of 2 voting agents reject) — rejected — no approach adopted" in post.context
    assert "Do not implement any of the approaches" in post.context
    assert "the cut-over loses in-flight sessions — no dual-read window" in post.context
    res, d = conclude(s, project, "rejected")
    assert res.decision is None and d["phase"] == "COMPLETE", (res.reason, d.get("gate2"))
    assert (d["outcome"], d["decision"]) == ("rejected", None)
    assert (d["route"]["route"], d["route"]["decided_by"], d["route"]["review"]) == (
        "auto-reject",
        "unanimous reject",
        "not_needed",
    )
    assert res.system_message.startswith(
        f"Deliberation {d['id']} COMPLETE: rejected — no approach adopted "
        "(unanimous reject, 2 of 2 voting agents); route auto-reject"
    )
    assert d["record"]["decision"]["outcome"] == "rejected"
    assert d["record"]["decision"]["text"] == "rejected — no approach adopted"
    body = open(d["record_path"], encoding="utf-8").read()
    assert "**Rejected — no approach adopted.**" in body and "Top-scored approach, not adopted" in body
    assert not os.path.exists(project / ".claude" / "deliberation" / "escalations.json")
    validate_state(project)


# --- blind ranking ------------------------------------------------------------


def test_a_ranking_prompt_carrying_the_vote_is_denied_like_a_leaking_research_prompt(project, hook):
    s = start(project, hook)
    research(s)
    first = s.foreground(
        "security-analyst",
        "Rank every approach on the five dimensions.",
        P.ranking_report(HIGH["security-analyst"][0], "approve", "A", "A fits", []),
    )
    assert first["pre"].decision is None
    leaky = "Rank every approach on the five dimensions. Leading: A. The security-analyst scored A 8.2 and approved it."
    out = s.foreground("performance-engineer", leaky, P.ranking_report(HIGH["performance-engineer"][0]))
    assert out["pre"].decision == "deny"
    reason = out["pre"].reason
    assert reason.startswith(
        'Blind ranking: this RANKING prompt carries which approach leads: "Leading: A"; '
        'scores: "The security-analyst scored A 8.2 and approved it"; other agents\' '
        'verdicts or preferences: "The security-analyst scored A 8.2 and approved it"'
    )
    assert "Approaches to rank (neutral order; it ranks nothing):" in reason
    lineage = json.loads((project / ".claude" / "deliberation" / "sessions" / s.sid / "lineage.json").read_text())
    assert [x["rule"] for x in lineage["denied"]] == ["blind-ranking"]
    d = load_delib(project)
    assert [a["persona"] for a in d["agents"] if a["stage"] == "ranking"] == ["security-analyst"]
    assert d["agents"][-1]["given"]["isolation"] == "blind ranking: clean"
    # the same spawn without the vote goes through
    again = s.foreground(
        "performance-engineer",
        "Rank every approach on the five dimensions.",
        P.ranking_report(HIGH["performance-engineer"][0], "approve", "A", "A fits me", []),
    )
    assert again["pre"].decision is None


def test_blind_ranking_can_be_switched_off(project, hook):
    s = start(project, hook, {"isolation": {"blind_ranking": False}})
    research(s)
    out = s.foreground(
        "security-analyst",
        "Leading: A. Rank every approach.",
        P.ranking_report(HIGH["security-analyst"][0], "approve", "A", "A fits", []),
    )
    assert out["pre"].decision is None
