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
from deliberation.core import ways_forward
from deliberation.state.models import Deliberation
from deliberation.text import gates as gate_words
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


def ways_of(project) -> gate_words.Ways:
    """The ways-forward outcome of the newest deliberation, as the answer was worded from it."""
    return ways_forward.view(Deliberation.model_validate(load_delib(project)))


def test_a_split_vote_names_what_is_contested_and_both_ways(project, hook):
    _s, post = split_vote(project, hook)
    ways = ways_of(project)
    assert [(x.approach, x.rankers) for x in ways.split] == [("A", 1), ("B", 1)]
    assert [(x.persona, x.preferred, x.margin, x.concern) for x in ways.dissent] == [
        ("performance-engineer", "B", -2.0, "A doubles the write path")  # its margin for the leader
    ]
    assert ways.revision == "available" and ways.synthesis_type == "synthesis-lead"
    # the answer is the words of that outcome (their wording: the gate1 golden files)
    assert "\n".join(gate_words.contested_lines(ways)) in post.context
    assert gate_words.ways_forward(ways) in post.context
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


def revision_prompt(s, ways: gate_words.Ways) -> str:
    """The revision synthesis prompt of a model that follows way (a): its opening and the
    question, the claim and evidence of each research finding the outcome names (from the reports
    the main agent was given), and the contested points as the answer words them."""
    carried = []
    for persona, message in s.messages:  # the research reports the main agent was given
        m = re.search(r"```json\s*(\{.*\})\s*```", message, re.S)
        data = json.loads(m.group(1)) if m else {}
        if data.get("phase") == "research":
            carried += [
                f"- {persona}:{f['id']}: {f['claim']} (evidence: {f['evidence']})"
                for f in data.get("findings") or []
                if f"{persona}:{f['id']}" in ways.findings
            ]
    return "\n".join(
        [
            "Phase: deliberation",
            f"Question: {GATES_QUESTION}",
            *carried,
            *gate_words.contested_lines(ways),
            "Revise each approach against these points; keep the ids.",
        ]
    )


def test_way_a_as_worded_is_accepted_the_first_time(project, hook):
    """A model that builds the revision synthesis prompt from way (a) is not refused: the
    outcome names every research finding the prompt must carry, and the answer says them."""
    s, post = split_vote(project, hook)
    ways = ways_of(project)
    revised = [("A", "Postgres sessions with a write-behind buffer"), ("B", "Redis sessions with AOF persistence")]
    out = s.foreground("synthesis-lead", revision_prompt(s, ways), P.synthesis_report(revised))
    assert out["pre"].decision is None, out["pre"].reason
    assert "revision round: the revised approaches stand" in (out["post"].context or "")
    assert set(ways.findings) == {"security-analyst:F1", "performance-engineer:F1"}
    assert gate_words.ways_forward(ways) in post.context


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
