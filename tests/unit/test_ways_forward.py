"""ways_forward: which failures are about agreement, the one revision round, the hand-over."""

from __future__ import annotations

from deliberation.core import consensus_gate, engine, ways_forward
from deliberation.core.ranking import rank
from deliberation.state.models import Check, GateResult
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
WHY = [{"target": "A", "concern": "A doubles the write path", "reason": "bench/write.txt"}]


def result(*failed, gate="consensus"):
    names = (
        ("phase", "agents_completed", "consensus", "dissent_documented")
        if gate == "consensus"
        else (
            "method_diversity",
            "contradiction_transparency",
            "complexity_handling",
            "consensus_confidence",
            "improvement_evidence",
        )
    )
    return GateResult(
        gate=gate, passed=not failed, at=0.0, checks=[Check(name=n, passed=n not in failed, figure=f"{n} figure") for n in names]
    )


def split(phase="RANKING"):
    agents = [
        P.agent_record(
            "security-analyst",
            "research",
            {
                "findings": [{"id": "F1", "claim": "c", "evidence": "e"}],
                "approaches": [{"id": "A", "title": "outbox"}, {"id": "B", "title": "dual write"}],
                "verdict": "abstain",
                "confidence": 0.5,
            },
            key="r-sa",
        )
    ]
    agents += [
        P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (8,) * 5, "B": (6,) * 5}, preferred="A"), key="k-sa"),
        P.agent_record(
            "performance-engineer",
            "ranking",
            P.ranking_json({"A": (6,) * 5, "B": (8,) * 5}, preferred="B", dissent=WHY),
            key="k-pe",
        ),
    ]
    d = P.make_deliberation(agents, phase=phase, task_type="architecture")
    d.ranking = rank(d.agents, W)
    d.gate1 = consensus_gate.evaluate(d, 2, 1.0)
    return d


def test_only_failures_about_agreement_have_the_two_ways():
    assert ways_forward.on_agreement(result("consensus"))
    assert ways_forward.on_agreement(result("consensus_confidence", "improvement_evidence", gate="quality"))
    # a process that could not run is fixed first: too few reports, an undocumented dissent
    assert not ways_forward.on_agreement(result("agents_completed", "consensus"))
    assert not ways_forward.on_agreement(result("dissent_documented"))
    assert not ways_forward.on_agreement(result("method_diversity", "consensus_confidence", gate="quality"))
    assert not ways_forward.on_agreement(result()) and not ways_forward.on_agreement(None)


def test_a_split_vote_is_offered_both_ways_naming_what_is_contested():
    d = split()
    msg = ways_forward.failed_message(d, d.gate1, 5.0)
    assert msg.ways is not None and d.ways is not None and d.ways.offered_at == 5.0
    w = msg.ways
    assert w.leader == d.ranking.leading and w.revision == "available"
    assert {s.approach: s.rankers for s in w.split} == {"A": 1, "B": 1}
    (dis,) = w.dissent
    assert (dis.persona, dis.preferred, dis.concern) == ("performance-engineer", "B", "A doubles the write path")
    assert d.ways.before["leader"] == d.ranking.leading and d.ways.before["consensus"] == d.ranking.consensus
    # a second failure keeps the first offer's time and vote
    ways_forward.failed_message(d, d.gate1, 9.0)
    assert d.ways.offered_at == 5.0


def test_a_process_failure_is_not_offered_the_ways():
    d = split()
    msg = ways_forward.failed_message(d, result("agents_completed"), 5.0)
    assert msg.ways is None and d.ways is None


def test_the_revision_round_is_linear_and_taken_once():
    d = split()
    assert not ways_forward.revision_allowed(d)  # nothing offered yet
    ways_forward.failed_message(d, d.gate1, 5.0)
    assert ways_forward.revision_allowed(d)
    ways_forward.start_revision(d, 6.0)
    assert d.ways.revision == "revising" and not ways_forward.revision_allowed(d)
    d.agents.append(
        P.agent_record(
            "synthesis-lead",
            "deliberation",
            {
                "approaches": [{"id": "A", "title": "outbox, two relays"}, {"id": "B", "title": "dual write, flagged"}],
                "confidence": 0.6,
            },
            key="syn",
            kind="synthesis",
        )
    )
    d.agents[-1].spawned_at = 6.0
    assert ways_forward.apply_revision(d, 7.0)
    assert d.ways.revision == "reranking" and d.ways.reviser == "syn" and d.ranking is None and d.gate1 is None
    assert all(a.superseded for a in d.agents if a.stage == "ranking")
    assert d.ways.before["revised_approaches"] == {"A": "outbox, two relays", "B": "dual write, flagged"}
    assert not ways_forward.apply_revision(d, 8.0)  # applied once
    d.agents.append(
        P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (8,) * 5, "B": (6,) * 5}, preferred="A"), key="k2")
    )
    ways_forward.after_rerank(d)
    assert d.ways.revision == "used" and ways_forward.revision_used(d) and not ways_forward.revision_allowed(d)


def test_from_prd_generation_the_revision_reopens_the_vote():
    d = split()
    d.phase = "PRD_GENERATION"
    d.outcome, d.decision = "adopted", "A"
    ways_forward.failed_message(d, result("improvement_evidence", gate="quality"), 5.0)
    ways_forward.start_revision(d, 6.0)
    assert d.phase == "RANKING" and d.outcome is None and d.decision is None


def test_a_stop_after_the_offer_hands_the_decision_over():
    d = split()
    assert not ways_forward.hands_over(d)  # not offered yet: the stop is the offer
    ways_forward.failed_message(d, d.gate1, 5.0)
    assert ways_forward.hands_over(d)
    ways_forward.hand_over(d, 6.0)
    assert d.outcome == "no-consensus" and d.decision is None and d.ways.handed_over_at == 6.0
    assert not ways_forward.hands_over(d)  # once
    r = ways_forward.route("architecture/schema-migration", d, "D+T2+PROBE")
    assert r.route == "human-review" and r.decided_by == "NO_CONSENSUS" and r.review == "pending"
    assert r.rules[0].detail.startswith("no consensus (consensus: ") and "handed to the user" in r.rules[0].detail
    engine.finalize(d, 7.0)
    assert d.phase == "COMPLETE" and "handed to the user" in d.phase_history[-1].why


def test_a_revision_left_unranked_at_a_stop_is_a_hand_over():
    d = split()
    ways_forward.failed_message(d, d.gate1, 5.0)
    d.ways.revision = "reranking"
    for a in d.agents:
        if a.stage == "ranking":
            a.superseded = True
    d.gate1 = consensus_gate.evaluate(d, 2, 8.0)  # 0 ranking reports: a process failure now
    assert not ways_forward.on_agreement(d.gate1) and ways_forward.hands_over(d)


def test_the_record_html_and_show_state_the_hand_over():
    from deliberation.cli import show
    from deliberation.report import decision_record, html_report
    from deliberation.state import record_model

    d = split()
    ways_forward.failed_message(d, d.gate1, 5.0)
    ways_forward.hand_over(d, 6.0)
    d.route = ways_forward.route("architecture/schema-migration", d, "D+T2+PROBE")
    engine.finalize(d, 7.0)
    rec = decision_record.record_json(d)
    record_model.publish(rec)  # the record's schema holds the outcome and the ways
    assert rec["decision"]["outcome"] == "no-consensus" and rec["decision"]["adopted"] is None
    assert rec["ways"]["handed_over_at"] == 6.0
    md = decision_record.render_markdown(d)
    assert "No consensus — the decision was handed to the user." in md and f"deliberation approve {d.id}" in md
    assert "No consensus — handed to the user" in html_report.render_html(d)
    assert "decision: none — no consensus, handed to the user (human review)" in show.render_text(d)


def test_the_ways_fit_one_hook_answer_however_many_dissent():
    """Bounded: 4 dissenters shown (the rest counted), 3 divergences, each text clipped — a large
    split panel's answer stays far below the size at which the client replaces it by a preview."""
    from deliberation.text.render import render

    long = "x" * 2000
    agents = [
        P.agent_record(
            f"persona-{i}",
            "ranking",
            P.ranking_json(
                {"A": (8 - i % 2 * 2,) * 5, "B": (6 + i % 2 * 2,) * 5, "C": (i % 7,) * 5},
                preferred="B" if i % 2 else "A",
                dissent=[{"target": "A", "concern": long, "reason": long}] * 3,
            ),
            key=f"k-{i}",
            kind="persona",
        )
        for i in range(12)
    ]
    d = P.make_deliberation(agents, task_type="security")
    d.ranking = rank(d.agents, W)
    d.gate1 = consensus_gate.evaluate(d, 2, 1.0)
    msg = ways_forward.failed_message(d, d.gate1, 2.0)
    text = render(msg)
    assert msg.ways is not None and len(msg.ways.dissent) == 4 and msg.ways.more_dissent == 2
    assert len(text) < 6000, len(text)


def test_the_revision_way_names_every_research_finding_its_prompt_must_carry():
    """Way (a) says which findings the revision synthesis prompt must carry (claim and evidence,
    refused without them) — the refusal is not the first place a model learns it — and a panel of
    5 personas × 10 findings with 12 long dissents still fits one hook answer."""
    from deliberation.text.render import render

    long = "x" * 2000
    names = (
        "security-analyst",
        "performance-engineer",
        "maintainability-reviewer",
        "reliability-engineer",
        "technical-architect",
    )
    agents = [
        P.agent_record(
            n,
            "research",
            {
                "findings": [{"id": f"F{k}", "claim": f"claim {k} of {n}", "evidence": "e"} for k in range(1, 11)],
                "approaches": [{"id": "A", "title": "outbox"}, {"id": "B", "title": "dual write"}],
                "verdict": "abstain",
                "confidence": 0.5,
            },
            key=f"r-{n}",
        )
        for n in names
    ]
    agents += [
        P.agent_record(
            f"persona-{i}",
            "ranking",
            P.ranking_json(
                {"A": (8 - i % 2 * 2,) * 5, "B": (6 + i % 2 * 2,) * 5},
                preferred="B" if i % 2 else "A",
                dissent=[{"target": "A", "concern": long, "reason": long}] * 3,
            ),
            key=f"k-{i}",
            kind="persona",
        )
        for i in range(12)
    ]
    d = P.make_deliberation(agents, task_type="security")
    d.ranking = rank(d.agents, W)
    d.gate1 = consensus_gate.evaluate(d, 2, 1.0)
    text = render(ways_forward.failed_message(d, d.gate1, 2.0))
    way = text[text.index("(a) one revision round") : text.index("(b) ")]
    refs = [f"{n}:F{k}" for n in names for k in range(1, 11)]
    assert f"the claim and evidence of EVERY research finding ({', '.join(refs)};" in way, way
    assert "a prompt that lacks any of them is refused" in way
    assert len(text) < 6000, len(text)
    # without research findings there is nothing to carry, and nothing is named
    bare = render(ways_forward.failed_message(split_without_research(), result("consensus"), 1.0))
    assert "EVERY research finding" not in bare and "spawn ONE `synthesis-lead`" in bare


def split_without_research():
    d = split()
    d.agents = [a for a in d.agents if a.stage != "research"]
    return d
