"""resume: what a SendMessage to a deliberation agent may do, and what its resumed report does."""

from __future__ import annotations


from deliberation.core import resume
from tests.helpers import payloads as P

FINDING = {
    "id": "F1",
    "claim": "The nightly export double-counts refunds across two ledgers.",
    "evidence": "billing/export.py:88",
    "severity": "high",
}


def research_rec(persona, key, findings=(FINDING,)):
    return P.agent_record(
        persona,
        "research",
        {
            "findings": list(findings),
            "approaches": [{"id": "A", "title": "Fix the export"}, {"id": "B", "title": "Rebuild the ledger"}],
        },
        key=key,
    )


def delib_in(phase, agents):
    return P.make_deliberation(agents, phase=phase)


def test_a_research_agent_of_the_open_stage_may_revise_but_not_with_another_agents_findings():
    arch = research_rec("technical-architect", "ag-arch")
    cost = research_rec("cost-analyst", "ag-cost", findings=[{**FINDING, "claim": "Refund volume is small."}])
    d = delib_in("RESEARCH", [arch, cost])
    leak = resume.decide(
        d, cost, "The architect found: the nightly export double-counts refunds across two ledgers. Reconsider your estimate."
    )
    assert not leak.allowed and leak.rule == "isolation"
    assert leak.reason.startswith(
        "Context isolation: this message to research agent cost-analyst (agent ag-cost) "
        "carries 1 finding of other agents: technical-architect:F1"
    )
    assert "send it nothing of other agents' findings" in leak.reason
    # its own finding is not a leak
    own = resume.decide(
        d,
        arch,
        "Your finding (the nightly export double-counts refunds across two ledgers): add the evidence for the second ledger.",
    )
    assert own.allowed and own.rule == "revision"
    assert own.why == "a revision the plugin did not ask for (SendMessage resume)"


def test_a_resumed_agent_continues_in_its_own_stage_only():
    cost = research_rec("cost-analyst", "ag-cost")
    d = delib_in("RANKING", [cost])
    v = resume.decide(d, cost, "Please score the approaches.")
    assert not v.allowed and v.rule == "phase"
    assert v.reason == (
        f"cost-analyst (agent ag-cost) worked in the RESEARCH stage, and deliberation {d.id} is now "
        "in RANKING; a resumed agent continues in its own stage, which is over. Next: spawn it again "
        "with the Agent tool for ranking (a fresh agent given only the approaches)."
    )


def test_a_closed_deliberations_reports_are_final():
    cost = research_rec("cost-analyst", "ag-cost")
    for phase in ("COMPLETE", "FAILED"):
        v = resume.decide(delib_in(phase, [cost]), cost, "anything")
        assert not v.allowed and v.rule == "closed" and "a new deliberation opens" in v.reason


def ranking_delib(dissent_documented: bool):
    dissent = [{"concern": "Cost of the rebuild", "reason": "two quarters of work"}] if dissent_documented else []
    a = P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (9,) * 5, "B": (5,) * 5}), key="ag-sec")
    b = P.agent_record(
        "cost-analyst",
        "ranking",
        P.ranking_json({"A": (6,) * 5, "B": (8,) * 5}, verdict="reject", preferred="B", dissent=dissent),
        key="ag-cost",
    )
    d = delib_in("RANKING", [a, b])
    from deliberation.core import consensus_gate, ranking
    from deliberation.state.config import Config

    d.ranking = ranking.rank(d.agents, {x.name: x.weight for x in Config().ranking.dimensions})
    d.gate1 = consensus_gate.evaluate(d, 2, 0)
    return d, a, b


def test_a_dissenter_the_gate_named_may_be_resumed_and_its_report_replaces_the_old():
    d, sec, cost = ranking_delib(dissent_documented=False)
    assert not d.gate1.passed
    v = resume.decide(d, cost, "Document your dissent: concern and reason.")
    assert v.allowed and v.rule == "requested"
    assert v.why == "requested by the plugin: the consensus gate asked it to document its dissent (concern + reason)"
    old = cost.report
    resume.restart(d, cost, v.why, now=50.0)
    assert (cost.status, cost.report, cost.background, cost.notified, cost.resumes) == ("running", None, True, False, 1)
    assert cost.revisions[0].report is old and cost.revisions[0].why == v.why and cost.revisions[0].replaced_at == 50.0
    assert d.warnings == []  # asked for: nothing to warn about


def test_a_requested_message_to_a_ranker_carries_nothing_of_the_vote():
    """Ranking is blind for a resume as for a spawn: the dissent the gate asked for may be asked
    for, but not with the leader or the other rankers' scores or verdicts."""
    d, sec, cost = ranking_delib(dissent_documented=False)
    leader = resume.decide(d, cost, "Approach A is leading the vote. Document your dissent: concern and reason.")
    assert not leader.allowed and leader.rule == "blind_ranking"
    assert leader.reason.startswith(
        "Blind ranking: this message to ranker cost-analyst (agent ag-cost) carries which approach leads"
    )
    assert "Next: send it only what the plugin asked for" in leader.reason
    scores = resume.decide(d, cost, "security-analyst rated A 9/10. Document your dissent: concern and reason.")
    assert not scores.allowed and scores.rule == "blind_ranking"
    off = resume.decide(d, cost, "Approach A is leading the vote. Document your dissent.", blind_ranking=False)
    assert off.allowed and off.rule == "requested"
    clean = resume.decide(d, cost, "Document your dissent: a concern with its reason for every approach you would not adopt.")
    assert clean.allowed and clean.rule == "requested"


def test_a_rankers_vote_is_never_steered_unasked():
    d, sec, cost = ranking_delib(dissent_documented=True)
    for rec in (sec, cost):
        v = resume.decide(d, rec, "The others all approved A; reconsider.")
        assert not v.allowed and v.rule == "ranking_independence"
        assert v.reason.endswith("Next: to re-rank, spawn the ranking personas again with the Agent tool (fresh, blind votes).")
    running = P.agent_record("ux-advocate", "ranking", None, key="ag-ux", status="running")
    d.agents.append(running)
    v = resume.decide(d, running, "A is leading.")
    assert not v.allowed and "ux-advocate (agent ag-ux) is ranking;" in v.reason


def test_an_invalid_report_may_be_repaired_by_a_resume():
    rec = P.agent_record("red-team", "deliberation", None, key="ag-rt", status="invalid", kind="red-team")
    rec.problem = "no fenced JSON block"
    d = delib_in("DELIBERATION", [rec])
    v = resume.decide(d, rec, "Please end with the JSON report.")
    assert (
        v.allowed
        and v.rule == "requested"
        and v.why == ("requested by the plugin: its report was recorded invalid (no fenced JSON block)")
    )


def test_one_pass_roles_are_not_resumed_unasked():
    rt = P.agent_record("red-team", "deliberation", {"refutations": []}, key="ag-rt", kind="red-team")
    synth = P.agent_record(
        "synthesis-lead", "deliberation", {"approaches": [{"id": "A", "title": "x"}]}, key="ag-syn", kind="synthesis"
    )
    d = delib_in("DELIBERATION", [synth, rt])
    v = resume.decide(d, rt, "Look again.")
    assert not v.allowed and v.rule == "one_pass" and "the depth axis is linear" in v.reason
    v = resume.decide(d, synth, "Add an alternative.")
    assert not v.allowed and v.rule == "one_pass" and "the red team has reviewed that work" in v.reason
    d2 = delib_in("DELIBERATION", [synth])
    assert resume.decide(d2, synth, "Add an alternative.").rule == "revision"


def test_deliberation_agents_do_not_message_each_other_during_research_or_ranking():
    arch = research_rec("technical-architect", "ag-arch")
    cost = research_rec("cost-analyst", "ag-cost")
    v = resume.decide(delib_in("RESEARCH", [arch, cost]), cost, "hi", sender=arch)
    assert not v.allowed and v.rule == "independence"
    assert v.reason.startswith("technical-architect (agent ag-arch) may not message cost-analyst (agent ag-cost)")


def test_a_message_to_a_running_research_agent_is_checked_like_its_prompt():
    arch = research_rec("technical-architect", "ag-arch")
    cost = P.agent_record("cost-analyst", "research", None, key="ag-cost", status="running")
    d = delib_in("RESEARCH", [arch, cost])
    assert resume.decide(d, cost, "Focus on cloud spend.").rule == "running"
    assert not resume.decide(d, cost, "Note: the nightly export double-counts refunds across two ledgers.").allowed


def test_not_a_deliberation_agent_is_only_a_budget_question():
    assert resume.decide(None, None, "x").rule == "not_deliberation"


def test_an_unrequested_revision_is_kept_and_warned_about():
    arch = research_rec("technical-architect", "ag-arch")
    d = delib_in("RESEARCH", [arch])
    resume.restart(d, arch, "a revision the plugin did not ask for (SendMessage resume)", now=9.0)
    assert d.warnings == ["technical-architect (agent ag-arch): a revision the plugin did not ask for (SendMessage resume)"]
