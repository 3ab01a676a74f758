"""A vote that fails on agreement, through the real hook scripts: both ways forward.

(a) one revision round — a synthesis-lead revises the approaches, the personas rank them afresh,
    the vote passes and the deliberation completes with its document; a second round is refused.
(b) the decision handed to the user — the main agent stops after the ways were offered: the stop
    is accepted (never held), the deliberation is COMPLETE with outcome no-consensus, route
    human-review (NO_CONSENSUS), its record written, and `deliberation approve` settles it.
"""

from __future__ import annotations

import json
import os
import re

from deliberation import cli
from tests.helpers import payloads as P
from tests.helpers.flows import GATES_QUESTION, HIGH, failed_checks, start
from tests.helpers.flows import gate_rank as rank
from tests.helpers.flows import gate_research as research
from tests.helpers.project import load_delib
from tests.helpers.project import validate_schemas as validate_state

WHY_A = [{"target": "A", "concern": "A doubles the write path", "reason": "bench/write.txt"}]
SPLIT = {
    "security-analyst": ({"A": (8, 8, 8, 8, 8), "B": (6, 6, 6, 6, 6)}, "approve", "A", []),
    "performance-engineer": ({"A": (6, 6, 6, 6, 6), "B": (8, 8, 8, 8, 8)}, "approve", "B", WHY_A),
}
CITES = ["security-analyst:F1", "performance-engineer:F1"]


def split_vote(project, hook):
    s = start(project, hook)
    research(s)
    post = rank(s, SPLIT)[-1]["post"]
    return s, post


def test_a_split_vote_names_what_is_contested_and_both_ways(project, hook):
    _s, post = split_vote(project, hook)
    text = post.context
    assert "consensus gate FAILED" in text and "What is contested:" in text
    assert "the split: A preferred by 1 ranker; B preferred by 1 ranker" in text
    assert 'performance-engineer prefers B over A by 2.0 points — "A doubles the write path"' in text
    assert "(a) one revision round" in text and "spawn ONE `synthesis-lead`" in text
    assert "(b) hand the decision to the user" in text
    assert "re-rank with the contested points" not in text  # a bare re-rank is not a way forward
    d = load_delib(project)
    assert d["ways"]["revision"] == "available" and d["ways"]["offered_at"] is not None
    # the person sees it too, not only the model's hidden context
    assert post.system_message == (
        f"⚠ Deliberation {d['id']}: consensus gate FAILED (consensus 0.45 < 0.70 for default) — the panel did not "
        "agree: Claude takes the one revision round, or hands the decision to you."
    )


def test_way_b_the_stop_hands_the_decision_to_the_user(project, hook, monkeypatch, capsys):
    s, _post = split_vote(project, hook)
    res = s.stop(message="The panel did not agree: A (Postgres) or B (Redis). Which do you prefer?")
    assert res.decision is None, res.reason  # accepted, not held
    assert "NO CONSENSUS" in res.system_message and "deliberation approve" in res.system_message
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["outcome"] == "no-consensus" and d["decision"] is None
    assert d["stop_blocks"] == 0 and d["failure_reasons"] == []
    route = d["route"]
    assert route["route"] == "human-review" and route["decided_by"] == "NO_CONSENSUS"
    assert route["review"] == "pending" and route["rules"][0]["rule"] == "NO_CONSENSUS"
    body = open(d["record_path"], encoding="utf-8").read()
    assert "No consensus — the decision was handed to the user." in body
    escalations = json.load(open(os.path.join(project, ".claude", "deliberation", "escalations.json")))
    (entry,) = escalations["open"]
    assert entry["deliberation_id"] == d["id"] and "no consensus" in entry["reason"]
    assert s.stop().decision is None  # the session is free again
    validate_state(project)
    # the person settles it: approve adopts the leading approach
    code = cli.main(["approve", d["id"], "--project", str(project)])
    capsys.readouterr()
    assert code == 0
    d = load_delib(project)
    assert d["route"]["review"] == "approved" and d["decision"] == d["ranking"]["leading"]


def test_way_a_one_revision_round_then_a_fresh_blind_ranking(project, hook):
    s, _post = split_vote(project, hook)
    revised = [("A", "Postgres sessions with a write-behind buffer"), ("B", "Redis sessions with AOF persistence")]
    out = s.foreground(
        "synthesis-lead",
        "Phase: deliberation. Revise each approach against the contested points (A doubles the write path).\n" + s.findings(),
        P.synthesis_report(revised),
    )
    assert out["pre"].decision is None, out["pre"].reason
    assert "revision round: the revised approaches stand" in (out["post"].context or "")
    d = load_delib(project)
    assert d["ways"]["revision"] == "reranking" and d["ranking"] is None
    assert [a["superseded"] for a in d["agents"] if a["stage"] == "ranking"] == [True, True]
    # a second revision round is refused: linear, never a loop
    again = s.hook("PreToolUse", P.pre_agent(s.sid, "toolu_again", "synthesis-lead", "Revise again.\n" + s.findings(), False))
    assert again.decision == "deny" and "the one revision round" in again.reason
    # the fresh, blind ranking of the revised approaches agrees
    post = rank(s, HIGH)[-1]["post"]
    assert "consensus gate FAILED" not in (post.context or "")
    d = load_delib(project)
    assert d["ways"]["revision"] == "used" and d["gate1"]["passed"], failed_checks(d["gate1"])
    res = s.stop(message=P.prd_message(CITES, "adopted"))
    d = load_delib(project)
    assert res.decision is None and d["phase"] == "COMPLETE" and d["outcome"] == "adopted", (res.reason, d["gate2"])
    assert d["record"]["ways"]["before"]["consensus"] < d["threshold"]
    validate_state(project)


def test_the_user_asks_for_the_revision_round_after_the_hand_over(project, hook):
    """A real model (2.1.332, interactive) asked the user which way to take and ended its turn —
    the hand-over; the user answered "Do the revision round." The round must still run on the same
    deliberation, not open a new one whose research is empty."""
    s, _post = split_vote(project, hook)
    res = s.stop(message="The panel split: A or B. Revision round, or do you want to decide?")
    assert "Or ask Claude for the revision round it has not used" in res.system_message
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["route"]["review"] == "pending"
    escalations = os.path.join(project, ".claude", "deliberation", "escalations.json")
    assert os.path.exists(escalations)
    assert s.prompt("Do the revision round.").decision is None
    revised = [("A", "Postgres sessions with a write-behind buffer"), ("B", "Redis sessions with AOF persistence")]
    out = s.foreground(
        "synthesis-lead",
        "Phase: deliberation. Revise each approach against the contested points (A doubles the write path).\n" + s.findings(),
        P.synthesis_report(revised),
    )
    assert out["pre"].decision is None, out["pre"].reason
    again = load_delib(project)
    assert again["id"] == d["id"] and again["phase"] == "RANKING" and again["ways"]["revision"] == "reranking"
    assert again["route"] is None and again["ways"]["handed_over_at"] is None
    assert (
        len(json.load(open(os.path.join(project, ".claude", "deliberation", "sessions", s.sid, "session.json")))["deliberations"])
        == 1
    )
    post = rank(s, HIGH)[-1]["post"]
    assert "consensus gate FAILED" not in (post.context or "")
    res = s.stop(message=P.prd_message(CITES, "adopted"))
    d = load_delib(project)
    assert res.decision is None and d["phase"] == "COMPLETE" and d["outcome"] == "adopted", (res.reason, d["gate2"])
    assert d["route"]["review"] == "not_needed", d["route"]
    assert not os.path.exists(escalations)  # the hand-over's entry went with it: risky tools run again
    validate_state(project)


def test_a_settled_hand_over_stays_settled(project, hook, capsys):
    s, _post = split_vote(project, hook)
    s.stop(message="The panel split: A or B — your call.")
    d = load_delib(project)
    assert cli.main(["reject", d["id"], "--project", str(project)]) == 0
    capsys.readouterr()
    out = s.foreground("synthesis-lead", "Phase: deliberation. Revise each approach.\n" + s.findings(), "no report")
    assert out["pre"].decision == "deny"  # a new deliberation, with no research: the person settled the old one
    assert load_delib(project, d["id"])["route"]["review"] == "rejected"


REF = re.compile(r"\b([a-z][a-z-]+:F\d+)\b")


def literal_revision_prompt(s, told: str) -> str:
    """The revision synthesis prompt of a model that follows way (a) to the letter from the
    answer alone: its "Phase: …" opening and the question, the claim and evidence of each research
    finding the answer names (from the reports it was given), the approaches and the contested
    points as the answer words them. Where the answer names no finding, the contested points stand
    in for them — what the model sent in three real-model trials, refused each time."""
    way = told[told.index("(a) one revision round") : told.index("(b) ")]
    named = set(REF.findall(way))
    carried = []
    for persona, message in s.messages:  # the research reports the main agent was given
        m = re.search(r"```json\s*(\{.*\})\s*```", message, re.S)
        data = json.loads(m.group(1)) if m else {}
        if data.get("phase") == "research":
            carried += [
                f"- {persona}:{f['id']}: {f['claim']} (evidence: {f['evidence']})"
                for f in data.get("findings") or []
                if f"{persona}:{f['id']}" in named
            ]
    contested = told[told.index("What is contested:") : told.index("Two ways forward")]
    phase = re.search(r'prompt starting "(Phase: [a-z-]+)"', way).group(1)
    return "\n".join(
        [phase, f"Question: {GATES_QUESTION}", *carried, contested, "Revise each approach against these points; keep the ids."]
    )


def test_way_a_as_worded_is_accepted_the_first_time(project, hook):
    """An obedient model that builds the revision synthesis prompt from way (a) alone is not
    refused: the answer names every research finding the prompt must carry."""
    s, post = split_vote(project, hook)
    told = post.context
    revised = [("A", "Postgres sessions with a write-behind buffer"), ("B", "Redis sessions with AOF persistence")]
    out = s.foreground("synthesis-lead", literal_revision_prompt(s, told), P.synthesis_report(revised))
    assert out["pre"].decision is None, out["pre"].reason
    assert "revision round: the revised approaches stand" in (out["post"].context or "")
    way = told[told.index("(a) one revision round") : told.index("(b) ")]
    assert set(REF.findall(way)) == {"security-analyst:F1", "performance-engineer:F1"}, way
    assert "claim and evidence of EVERY research finding" in way and "is refused" in way, way


def test_after_the_revision_round_only_the_hand_over_remains(project, hook):
    s, _post = split_vote(project, hook)
    s.foreground(
        "synthesis-lead",
        "Phase: deliberation. Revise each approach.\n" + s.findings(),
        P.synthesis_report([("A", "Postgres sessions"), ("B", "Redis sessions")]),
    )
    post = rank(s, SPLIT)[-1]["post"]
    assert "The one revision round of this deliberation is used" in post.context
    assert "(a) one revision round" not in post.context
    res = s.stop(message="Still split: A or B — your call.")
    d = load_delib(project)
    assert res.decision is None and d["outcome"] == "no-consensus" and d["route"]["route"] == "human-review"
    assert "NO CONSENSUS after its revision round" in res.system_message


def test_failed_writes_its_record(project, hook):
    s = start(project, hook)
    research(s)
    blocks = [s.stop(active=i > 0) for i in range(4)]
    assert [b.decision for b in blocks] == ["block", "block", "block", None]
    d = load_delib(project)
    assert d["phase"] == "FAILED" and d["record_path"] and os.path.exists(d["record_path"])
