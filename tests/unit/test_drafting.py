"""core/drafting and the workflow's drafting wave: the drafter's material carries every citable
item whole and no more than its budget, its document is checked like a handed-over one, the wave
runs once after a vote that passed, and the checkpoint's values are checked against its prompt."""

from __future__ import annotations

import re

from deliberation.core import drafting, prd, workflow_steps
from deliberation.state import agent_report as D
from deliberation.state.models import Deliberation, WorkflowDrive, Wave

from tests.helpers import payloads as P
from tests.helpers.big_deliberation import big
from tests.helpers.depth_cases import contested, passed_vote, rec


def voted() -> Deliberation:
    d = contested()
    d.phase = "PRD_GENERATION"
    d.prd.status = "due"
    d.ranking = passed_vote({"A": 8.0, "B": 5.0}, consensus=0.9, agents=3)
    d.outcome = "adopted"
    d.agents.append(
        rec(
            "cost-analyst",
            "persona",
            {"dissent": [{"target": "A", "concern": "The relay doubles the bus bill.", "reason": "bus pricing page"}]},
            stage="ranking",
        )
    )
    return d


def test_the_material_carries_every_citable_item_whole_and_the_decision():
    d = voted()
    text = drafting.material(d)
    for ref, src in prd.citable(d).items():
        assert f"- {ref} (" in text and src.text in text
    assert "evidence: deploy/env:12" in text and "The relay doubles the bus bill." in text
    assert "Adopted: A — Postgres outbox with a relay worker" in text
    assert "    · weakened (challenge): The relay worker is a single point of failure." in text  # as the red team left it


def test_a_large_deliberation_gives_what_the_decision_rests_on_whole_and_the_rest_short_within_the_budget():
    """4 personas, 6 hot spots, 3 tier-2 workers and red team 2 with texts as long as a real model
    writes them (the material was 56 KB): within MATERIAL_BUDGET, the vote's dissent and the hot
    spots whole, the next items as id and claim, and a line that says how many are left out."""
    d = big()
    catalogue = prd.citable(d)
    text = drafting.material(d)
    assert len(text.encode()) <= drafting.MATERIAL_BUDGET and len(catalogue) == 82
    listed = re.findall(r"^- (\S+) \(", text, re.M)
    items = [ref for ref in listed if ref in catalogue]
    assert len(items) == len(set(items)) and set(listed) - set(items) <= {"A:", "B:", "C:"}  # the approaches
    ranked = [s.id for s in drafting.rank(d, catalogue)]
    assert items == ranked[: len(items)]  # what is shown is the head of the rank, in its order
    lines = {line.split(" (", 1)[0][2:]: line for line in text.splitlines() if line.startswith("- ")}
    whole = [ref for ref in items if catalogue[ref].text[:300] in lines[ref]]
    assert whole == items[: len(whole)] and len(whole) >= 8
    vote_dissent = [s.id for s in catalogue.values() if s.kind == "dissent" and s.stage == "ranking"]
    assert set(vote_dissent) <= set(whole) and ranked[: len(vote_dissent)] == vote_dissent
    for ref in vote_dissent:  # whole: its concern and its reason (the evidence)
        assert catalogue[ref].text in text and f"evidence: {catalogue[ref].evidence}" in text
    hot = [s.id for s in catalogue.values() if s.kind == "hot_spot"]
    assert set(hot) <= set(items)
    short = len(items) - len(whole)
    left = len(catalogue) - len(items)
    assert short > 0 and left > 0
    assert f"(the last {short} items above show only the id and the start of the text; {left} more, of lower priority" in text
    assert f"you may cite ({len(items)} of {len(catalogue)})" in text
    assert "Adopted: A — Postgres outbox with a relay worker" in text and "- A: Postgres outbox" in text


def test_the_rank_puts_the_vote_and_the_depth_step_before_the_findings():
    d = big()
    kinds = [(s.kind, s.stage, s.detail.split()[0]) for s in drafting.rank(d, prd.citable(d))]
    assert {k[:2] for k in kinds[:8]} == {("dissent", "ranking")}
    assert kinds[8][0] == "hot_spot" and kinds[-1][0] in ("finding", "refutation")
    high = [i for i, k in enumerate(kinds) if k[0] == "finding" and k[2] in drafting.HIGH]
    low = [i for i, k in enumerate(kinds) if k[0] == "finding" and k[2] in ("info", "low", "medium")]
    assert max(high) < min(low)


def test_a_huge_deliberation_is_clipped_to_the_budget():
    d = voted()
    d.agents[0].report.findings[0].claim = "x " * 1000
    d.agents[0].report.findings[0].evidence = "y " * 1900
    assert len(drafting.material(d).encode()) <= drafting.MATERIAL_BUDGET


def test_the_document_is_checked_like_a_handed_over_one():
    d = voted()
    assert drafting.check(d, {"document": "prd", "decision": "x"})[2] is not None
    bad = P.prd_document(["security-analyst:F9"])
    assert "security-analyst:F9" in (drafting.check(d, bad)[2] or "")
    good = P.prd_document(["security-analyst:F1", "performance-engineer:F1"])
    assert drafting.record(d, good, 1.0) is None and d.prd.via == "drafter" and d.prd.status == "accepted"
    out = drafting.outcome_text(d, drafting.record_path(d.id))
    assert out.startswith("Deliberation d-1 decided. Adopted: A")
    assert "Dissent (1): cost-analyst (against the adopted approach): The relay doubles the bus bill." in out
    assert "security-analyst:F1" not in out and "It rests on" not in out  # the decision names none, none is high
    # what the red team weakened in the adopted approach reaches the main agent with the decision
    assert "Challenged in the adopted approach (1;" in out
    assert "weakened: The relay worker is a single point of failure. (" in out
    assert out.index("Challenged in the adopted approach") < out.index("Dissent (1)")


def test_the_outcome_names_no_challenge_when_nothing_was_adopted_or_only_upheld():
    d = voted()
    assert drafting.record(d, P.prd_document(["security-analyst:F1", "performance-engineer:F1"]), 1.0) is None
    d.outcome = "rejected"
    assert "Challenged" not in drafting.outcome_text(d, drafting.record_path(d.id))
    d.outcome = "adopted"
    for a in d.agents:
        for r in a.filed.refutations:
            r.verdict = "upheld"
    assert drafting.challenged(d) == []
    assert "Challenged" not in drafting.outcome_text(d, drafting.record_path(d.id))


def test_the_outcome_shows_at_most_three_challenges_clipped():
    d = big()
    d.outcome = "adopted"
    distinct = ("relay lag grows past the order timeout", "bus credentials rotate monthly by hand", "outbox rows never expire",
                "failover drops the lease silently", "batch size is unbounded under replay")  # fmt: skip
    refs = [r for a in d.agents for r in a.filed.refutations]
    for r, claim in zip(refs, distinct):
        r.verdict, r.target, r.claim = "weakened", "A", claim + " " + "x" * 200
    facts = drafting.challenged(d)
    assert len(facts) > 3
    out = drafting.outcome_text(d, drafting.record_path(d.id))
    assert f"Challenged in the adopted approach ({len(facts)};" in out and f"(+{len(facts) - 3} more in the document)" in out
    line = next((x for x in out.splitlines() if x.startswith("Challenged")), "")
    assert len(line) <= 300 + 3 * (160 + 100 + 16)


def test_the_drafting_wave_runs_once_after_a_vote_that_passed():
    d = voted()
    d.workflow = WorkflowDrive(launches=["toolu_1"])
    wave = workflow_steps.drafting_wave(d)
    assert wave.last and wave.name == "drafting" and wave.agents[0].agent_type == "drafter"
    schema = wave.agents[0].schema
    assert schema == drafting.schema() and schema["properties"]["document"]["const"] == "prd"
    assert not workflow_steps.drafted(d)
    d.workflow.waves.append(Wave(name="drafting", agents=1, last=True, launch="toolu_1", issued_at=0.0))
    assert workflow_steps.drafted(d)


def test_checkpoint_values_are_checked_against_its_prompt():
    assert workflow_steps.checkpoint_problems({"checkpoint": "research", "launch": "t1"}, "research", "t1") == []
    problems = workflow_steps.checkpoint_problems({"checkpoint": "ranking", "next": "done"}, "research", "t1")
    assert problems == [
        "checkpoint: 'ranking', expected 'research'",
        "launch: nothing, expected 't1'",
        "values the prompt did not ask for: next",
    ]
    assert workflow_steps.checkpoint_problems("done", "research", "t1") == ["report: 'str', expected 'an object'"]


def test_the_items_the_decision_names_come_first():
    """A real-model trial's drafter saw 14 of 116 items and none of the findings its decision
    named (the adopted approach cites the findings it rests on): they now come before the rest."""
    from tests.helpers.big_deliberation import big

    d = big()
    adopted = d.ranking.leading
    synth = next(a for a in d.agents if a.kind == "synthesis")
    ap = next(a for a in synth.filed.approaches if a.id == adopted.rsplit(":", 1)[-1])
    low = [s.id for s in prd.citable(d).values() if s.kind == "finding" and s.detail in ("low", "info")]
    ap.summary += f" Rests on {low[0]} and {low[1].split(':')[0]}:{low[1].split(':')[1]}-F99."
    ranked = [s.id for s in drafting.rank(d, prd.citable(d))]
    assert ranked[:2] == [low[0], low[1]]
    text = drafting.material(d)
    assert f"- {low[0]} (finding" in text and f"- {low[1]} (finding" in text


def test_the_drafter_sees_the_facts_of_the_adopted_approach_only():
    """The facts under every approach were 10 of the material's 16 KB in a real-model trial, and
    the dissent items say why the others lost: the drafter gets the adopted approach's facts."""
    from deliberation.core import blind_ranking

    d = voted()
    everyone = blind_ranking.established(d)
    others = [c for aid, found in everyone.items() if aid != d.ranking.leading for _v, c, _e, _s in found]
    text = drafting.material(d)
    assert all(
        f"(challenge): {c}" in text or f"(depth check): {c}" in text for _v, c, _e, _s in everyone.get(d.ranking.leading, [])
    )
    assert not any(f": {c} (evidence:" in text for c in others)
    assert others or everyone  # the case has facts to show


def test_the_outcome_says_what_the_decision_rests_on_and_the_dissent_against_it_first():
    """A real-model trial's outcome named its findings by id only ("Rests on performance-engineer:F1,
    F2…") and the main agent re-read three files to tell the user why; its dissent preview showed
    three against the losing options and hid the one against the winner among "+7 more"."""
    d = voted()
    synth = next(a for a in d.agents if a.persona == "synthesis-lead")
    synth.report.approaches[0].summary += " Rests on security-analyst:F1 and performance-engineer:F1."
    ranker = next(a for a in d.agents if a.stage == "ranking")
    ranker.report.dissent = [D.Concern(target="B", concern=f"B concern {i}.", reason="r") for i in range(4)] + [
        D.Concern(target="A", concern="The relay doubles the bus bill.", reason="bus pricing page")
    ]
    drafting.record(d, P.prd_document(["security-analyst:F1", "performance-engineer:F1"]), 1.0)
    out = drafting.outcome_text(d, drafting.record_path(d.id))
    rests = next(line for line in out.splitlines() if line.startswith("It rests on"))
    assert "security-analyst:F1: The relay stores the bus credentials in plain text in the env file. (deploy/env:12)" in rests
    assert "performance-engineer:F1: The outbox relay adds 40 ms of publish latency at p99. (bench/relay.txt)" in rests
    assert "security-analyst:F2" not in rests
    assert (
        "Dissent (5): cost-analyst (against the adopted approach): The relay doubles the bus bill.; cost-analyst: B concern 0."
        in out
    )
    assert "(+2 more in the record)" in out
    # nothing adopted: no findings to rest on
    d.outcome = "rejected"
    assert drafting.rests_on(d) == [] and not any(x[2] for x in drafting.dissent(d))
