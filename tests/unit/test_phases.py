"""phases: every illegal transition is refused with a reason; stage rules; the 2-agent minimum."""

from __future__ import annotations

import itertools

import pytest

from deliberation.core import consensus_gate, phases
from tests.helpers.gates import gate2
from deliberation.core.phases import IllegalTransition, transition
from deliberation.core.ranking import rank
from tests.helpers import payloads as P

ALL = ("IDLE", "RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE", "FAILED")
LEGAL = {
    ("IDLE", "RESEARCH"),
    ("RESEARCH", "DELIBERATION"),
    ("DELIBERATION", "RANKING"),
    ("RANKING", "RANKING"),
    ("RANKING", "PRD_GENERATION"),
    ("PRD_GENERATION", "COMPLETE"),
    ("PRD_GENERATION", "RANKING"),  # a re-rank while the decision document is due
    ("RANKING", "COMPLETE"),
}  # the decision handed to the user after a vote without agreement
LEGAL |= {(p, "FAILED") for p in ALL if p not in ("COMPLETE", "FAILED")}
ILLEGAL = sorted(set(itertools.product(ALL, ALL)) - LEGAL)
W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}


def test_the_illegal_set_is_what_the_brief_implies():
    assert len(ILLEGAL) == 49 - len(LEGAL) == 49 - 13


@pytest.mark.parametrize("frm,to", ILLEGAL)
def test_every_illegal_transition_is_refused_with_a_reason(frm, to):
    d = P.make_deliberation(phase=frm)
    with pytest.raises(IllegalTransition) as err:
        transition(d, to, "test", now=1.0)
    msg = str(err.value)
    if to == "FAILED":
        assert msg == f"{frm} → FAILED: the deliberation is already closed"
    else:
        allowed = {
            "IDLE": "RESEARCH",
            "RESEARCH": "DELIBERATION",
            "DELIBERATION": "RANKING",
            "RANKING": "RANKING, PRD_GENERATION, COMPLETE",
            "PRD_GENERATION": "COMPLETE, RANKING",
            "COMPLETE": "nothing",
            "FAILED": "nothing",
        }[frm]
        assert msg == (f"{frm} → {to} is not a legal transition (from {frm} only {allowed}, or FAILED)")
    assert d.phase == frm and d.phase_history == []


@pytest.mark.parametrize("frm,to", sorted(LEGAL))
def test_every_legal_transition_is_recorded(frm, to):
    d = P.make_deliberation(phase=frm)
    transition(d, to, "because", now=2.0)
    assert d.phase == to
    if frm == to:  # a re-rank leaves no history line
        assert d.phase_history == []
    else:
        [change] = d.phase_history
        assert (change.from_phase, change.to_phase, change.at, change.why) == (frm, to, 2.0, "because")


def test_the_full_path_in_order():
    d = P.make_deliberation(phase="IDLE")
    for i, to in enumerate(("RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE")):
        transition(d, to, "next", float(i))
    assert [c.to_phase for c in d.phase_history] == ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]


def test_reached():
    assert phases.reached("RANKING", "RANKING") and phases.reached("COMPLETE", "RANKING")
    assert not phases.reached("DELIBERATION", "RANKING")
    assert not phases.reached("FAILED", "IDLE")


# -- what the records say / spawn stages ----------------------------------------------------------


def research(persona, approaches=(("A", "outbox"), ("B", "dual write")), status=None):
    if status in ("running", "spawned"):
        return P.agent_record(persona, "research", None, status=status, key=f"r-{persona}")
    return P.agent_record(
        persona,
        "research",
        {
            "findings": [{"id": "F1", "claim": f"{persona} finding", "evidence": "e"}],
            "approaches": [{"id": i, "title": t} for i, t in approaches],
        },
        key=f"r-{persona}",
    )


def test_research_shortfall_reasons():
    d = P.make_deliberation([research("security-analyst")], phase="RESEARCH")
    assert phases.research_shortfall(d, 2) == (
        "1 valid research report(s) recorded, at least 2 needed. Spawn 1 more research persona(s) with independent prompts"
    )
    d.agents.append(research("cost-analyst", status="running"))
    assert phases.research_shortfall(d, 2) == (
        "1 of 2 research reports are in; still running: cost-analyst (r-cost-analyst). Wait for them to finish"
    )
    d.agents[-1] = research("cost-analyst")
    assert phases.research_shortfall(d, 2) is None


def test_deliberation_roles_refused_before_research_is_done():
    d = P.make_deliberation([research("security-analyst")], phase="RESEARCH")
    for kind in ("debate", "synthesis", "red-team", "lens"):
        stage, refusal = phases.stage_for_spawn(d, kind, 2)
        assert stage == "deliberation"
        assert refusal.startswith("RESEARCH → DELIBERATION refused: 1 valid research report(s) recorded, at least 2 needed")
    d.agents.append(research("cost-analyst"))
    assert phases.stage_for_spawn(d, "synthesis", 2) == ("deliberation", None)


def test_ranking_refused_while_deliberation_agents_run_or_without_approaches():
    d = P.make_deliberation(
        [research("security-analyst", approaches=()), research("cost-analyst", approaches=())], phase="DELIBERATION"
    )
    stage, refusal = phases.stage_for_spawn(d, "persona", 2)
    assert stage == "ranking"
    assert refusal.startswith("DELIBERATION → RANKING refused: no approach has been proposed yet.")
    d.agents.append(P.agent_record("synthesis-lead", "deliberation", None, status="running", key="syn"))
    stage, refusal = phases.stage_for_spawn(d, "persona", 2)
    assert refusal == (
        "DELIBERATION → RANKING refused: deliberation agents still running: "
        "synthesis-lead (syn). Wait for their reports before ranking"
    )
    d.agents[-1] = P.agent_record(
        "synthesis-lead", "deliberation", {"approaches": [{"id": "A", "title": "outbox"}, {"id": "B", "title": "cdc"}]}
    )
    assert phases.stage_for_spawn(d, "persona", 2) == ("ranking", None)


def test_no_deliberating_after_ranking_started_and_nothing_after_close():
    d = P.make_deliberation(phase="RANKING")
    stage, refusal = phases.stage_for_spawn(d, "debate", 2)
    assert refusal.startswith("RANKING → DELIBERATION is not a legal transition: ranking has started.")
    assert phases.stage_for_spawn(d, "persona", 2) == ("ranking", None)
    for closed in ("COMPLETE", "FAILED"):
        d = P.make_deliberation(phase=closed)
        stage, refusal = phases.stage_for_spawn(d, "persona", 2)
        assert refusal == f"the deliberation is {closed}: open a new one for a new question"


def test_while_the_document_is_due_a_persona_spawn_re_ranks_and_roles_are_refused():
    d = P.make_deliberation(phase="PRD_GENERATION")
    assert phases.stage_for_spawn(d, "persona", 2) == ("ranking", None)
    stage, refusal = phases.stage_for_spawn(d, "synthesis", 2)
    assert refusal.startswith("PRD_GENERATION → DELIBERATION is not a legal transition: ranking has started.")


def test_personas_research_in_idle_and_research():
    for phase in ("IDLE", "RESEARCH"):
        assert phases.stage_for_spawn(P.make_deliberation(phase=phase), "persona", 2) == ("research", None)


def test_approaches_prefer_synthesis_and_dedupe_titles():
    d = P.make_deliberation(
        [
            research("security-analyst", approaches=(("A", "Outbox"), ("B", "Dual write"))),
            research("cost-analyst", approaches=(("A", "outbox "), ("A", "CDC"))),
        ],
        phase="DELIBERATION",
    )
    assert phases.approaches(d) == {"A": "Outbox", "B": "Dual write", "cost-analyst:A": "CDC"}
    d.agents.append(
        P.agent_record(
            "synthesis-lead", "deliberation", {"approaches": [{"id": "X", "title": "merged"}, {"id": "Y", "title": "other"}]}
        )
    )
    assert phases.approaches(d) == {"X": "merged", "Y": "other"}


def test_current_excludes_superseded_invalid_and_pending():
    a, b = research("security-analyst"), research("cost-analyst")
    b.superseded = True
    c = P.agent_record("ux-advocate", "research", None, status="invalid")
    e = research("test-engineer", status="running")
    d = P.make_deliberation([a, b, c, e], phase="RESEARCH")
    assert phases.current(d) == [a]
    assert phases.pending(d) == [e]


# -- the degenerate case: two agents, one FOR, one AGAINST ----------------------------------------


def test_two_agent_minimum_is_a_valid_deliberation():
    """Advocate FOR (product-strategist) and critic AGAINST (devils-advocate, its concern about A
    documented): when both prefer A at ranking, both gates pass with 2 agents."""
    d = P.make_deliberation(phase="IDLE", initial_confidence=0.55)
    transition(d, "RESEARCH", "opened", 0)
    for persona in ("product-strategist", "devils-advocate"):
        assert phases.stage_for_spawn(d, "persona", 2) == ("research", None)
        d.agents.append(research(persona, approaches=(("A", "ship the outbox"), ("B", "keep webhooks"))))
    assert phases.research_shortfall(d, 2) is None
    transition(d, "DELIBERATION", "2 research reports", 1)
    assert phases.stage_for_spawn(d, "persona", 2) == ("ranking", None)  # research proposed A and B
    transition(d, "RANKING", "first ranking persona", 2)
    d.agents.append(
        P.agent_record(
            "product-strategist",
            "ranking",
            P.ranking_json(
                {"A": (8.6,) * 5, "B": (5,) * 5},
                verdict="approve",
                preferred="A",
                rationale="ships the guarantee customers asked for",
            ),
            key="k-ps",
        )
    )
    d.agents.append(
        P.agent_record(
            "devils-advocate",
            "ranking",
            P.ranking_json(
                {"A": (7.4,) * 5, "B": (6,) * 5},
                verdict="approve",
                preferred="A",
                dissent=[
                    {
                        "target": "A",
                        "concern": "the relay is a new single point of failure",
                        "reason": "no second relay worker is planned",
                    }
                ],
                rationale="the relay worker adds an operational burden, webhooks lose events",
            ),
            key="k-da",
        )
    )
    d.ranking = rank(d.agents, W)
    # both prefer A, by 3.6 and 1.4 points: firmness 1 + 1 → 2 / 2.2 = 0.9091 ≥ 0.70
    assert d.ranking.leading == "A" and d.ranking.consensus == 0.9091
    g1 = consensus_gate.evaluate(d, 2, 3)
    assert g1.passed, [c.figure for c in g1.checks]
    assert {c.name: c.figure for c in g1.checks}["dissent_documented"] == "0 of 0 dissenters documented"
    g2 = gate2(
        d,
        min_distinct_personas=2,
        min_alternatives=2,
        strong=0.85,
        moderate=0.70,
        require_improvement=True,
        conformity=[],
        conformity_blocks=False,
        now=4,
    )
    assert g2.passed, [c.figure for c in g2.checks]
    transition(d, "PRD_GENERATION", "both gates passed", 5)
    transition(d, "COMPLETE", "record written", 6)
    assert d.phase == "COMPLETE"


def test_two_agent_split_is_no_consensus():
    """FOR approves A, AGAINST rejects: one for, one against — a split, weak, whatever the scores."""
    d = P.make_deliberation([research("product-strategist"), research("devils-advocate")], phase="RANKING")
    d.agents.append(
        P.agent_record("product-strategist", "ranking", P.ranking_json({"A": (8.6,) * 5, "B": (5,) * 5}, preferred="A"), key="k1")
    )
    d.agents.append(
        P.agent_record(
            "devils-advocate",
            "ranking",
            P.ranking_json(
                {"A": (7.4,) * 5, "B": (6,) * 5},
                verdict="reject",
                dissent=[{"target": "A", "concern": "single point of failure", "reason": "one relay worker"}],
            ),
            key="k2",
        )
    )
    d.ranking = rank(d.agents, W)
    assert d.ranking.consensus == round(1 / 2.2, 4)
    g1 = consensus_gate.evaluate(d, 2, 0)
    assert [c.name for c in g1.checks if not c.passed] == ["consensus"]


def test_two_agent_critic_without_reasons_is_not_enough():
    d = P.make_deliberation([research("product-strategist"), research("devils-advocate")], phase="RANKING")
    d.agents.append(
        P.agent_record("product-strategist", "ranking", P.ranking_json({"A": (8.6,) * 5, "B": (5,) * 5}, preferred="A"), key="k1")
    )
    d.agents.append(
        P.agent_record("devils-advocate", "ranking", P.ranking_json({"A": (7.4,) * 5, "B": (6,) * 5}, verdict="reject"), key="k2")
    )
    d.ranking = rank(d.agents, W)
    g1 = consensus_gate.evaluate(d, 2, 0)
    # the split also fails the consensus check; the bare reject fails dissent_documented
    assert [c.name for c in g1.checks if not c.passed] == ["consensus", "dissent_documented"]


def test_a_persona_respawned_in_research_ranks_once_research_is_complete():
    d = P.make_deliberation([research("product-strategist")], phase="RESEARCH")
    # research incomplete (1 of 2): the same persona researches again
    assert phases.stage_for_spawn(d, "persona", 2, "product-strategist") == ("research", None)
    d.agents.append(research("devils-advocate"))
    assert phases.stage_for_spawn(d, "persona", 2, "product-strategist") == ("ranking", None)
    assert phases.stage_for_spawn(d, "persona", 2, "cost-analyst") == ("research", None)  # a new voice
    bare = P.make_deliberation(
        [research("product-strategist", approaches=()), research("devils-advocate", approaches=())], phase="RESEARCH"
    )
    stage, refusal = phases.stage_for_spawn(bare, "persona", 2, "devils-advocate")
    assert stage == "ranking"
    assert refusal.startswith("RESEARCH → RANKING refused: no approach has been proposed.")
