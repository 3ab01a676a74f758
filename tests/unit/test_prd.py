"""prd: the decision document (PRD) — what may be cited, finding it in the concluding answer,
traceability, the bounded capture, and what the main agent is told."""

from __future__ import annotations

import json
import re

import pytest

from deliberation.core import engine, prd, quality_gate
from deliberation.state.config import Config
from deliberation.text.render import render
from tests.helpers import payloads as P
from tests.helpers.payloads import prd_deliberation as deliberation

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}


def doc_text(**over) -> str:
    doc = P.prd_document(["security-analyst:F1", "performance-engineer:F1"])
    doc.update(over)
    return "Decision: A.\n\n```json\n" + json.dumps(doc) + "\n```"


# --------------------------------------------------------------------------- what may be cited


def test_the_catalogue_names_findings_dissent_refutations_and_hot_spots():
    d = deliberation()
    cat = prd.citable(d)
    assert list(cat) == [
        "security-analyst:F1",
        "security-analyst:F2",
        "performance-engineer:F1",
        "red-team:R1",
        "red-team-2:R1",
        "security-analyst:D1",
        "H1",
    ]
    assert (cat["security-analyst:F2"].kind, cat["security-analyst:F2"].detail) == ("finding", "high")
    assert cat["security-analyst:D1"].kind == "dissent" and cat["security-analyst:D1"].detail == "B"
    assert cat["red-team:R1"].text == "It is 0.4 ms with batching"
    assert cat["red-team-2:R1"].detail == "upheld A"  # round 2 does not shadow round 1
    assert cat["H1"].kind == "hot_spot" and cat["H1"].evidence == "performance-engineer:F1"


def test_a_persona_s_dissent_is_numbered_across_its_reports():
    d = deliberation()
    d.agents[0].report.dissent = []
    from deliberation.state.agent_report import Concern

    d.agents[0].report.dissent.append(Concern(target="A", concern="research doubt", reason="because"))
    cat = prd.citable(d)
    assert cat["security-analyst:D1"].stage == "research" and cat["security-analyst:D2"].stage == "ranking"


def test_a_dissent_never_loses_its_id_to_a_finding_the_persona_lettered_d():
    """A devil's advocate that lettered its findings D1, D2 kept its dissent uncitable (a real-model
    trial: the drafter could not cite its dissent on the adopted approach): dissent numbers skip
    the ids its findings took, and every finding and every dissent stays citable."""
    from deliberation.state.agent_report import Concern

    d = deliberation()
    d.agents[0].report.findings[0].id = "D1"
    d.agents[0].report.findings[1].id = "D2"
    d.agents[0].report.dissent = [Concern(target="A", concern="research doubt", reason="because")]
    cat = prd.citable(d)
    assert cat["security-analyst:D1"].kind == cat["security-analyst:D2"].kind == "finding"
    assert cat["security-analyst:D3"].kind == "dissent" and cat["security-analyst:D3"].stage == "research"
    assert cat["security-analyst:D4"].kind == "dissent" and cat["security-analyst:D4"].stage == "ranking"
    assert sum(1 for s in cat.values() if s.kind == "dissent") == 2


def test_a_research_dissent_on_its_own_approach_says_which_one():
    """A research report letters its own approaches: its "A" need not be the synthesis' A (t17)."""
    from deliberation.state.agent_report import Approach, Concern

    d = deliberation()
    d.agents[0].report.approaches = [Approach(id="A", title="Expand  and contract, with a backfill " + "x" * 60)]
    d.agents[0].report.dissent = [
        Concern(target="A", concern="research doubt", reason="because"),
        Concern(target="leading", concern="second doubt", reason="because"),
    ]
    cat = prd.citable(d)
    assert cat["security-analyst:D1"].detail == 'its own A, "Expand and contract, with a backfill xxxxxxxxxxxxxxxxxxxxxx…"'
    assert cat["security-analyst:D2"].detail == "leading"
    assert cat["security-analyst:D3"].detail == "B"  # a ranker's target is the synthesis' own letter
    listed = "\n".join(prd._listing(cat))
    assert '- security-analyst:D1 (dissent on its own A, "Expand and contract' in listed


def test_superseded_and_invalid_reports_cannot_be_cited():
    d = deliberation()
    d.agents[0].superseded = True
    assert "security-analyst:F2" not in prd.citable(d)
    d.agents[0].superseded, d.agents[1].status = False, "invalid"
    cat = prd.citable(d)
    assert "security-analyst:F2" in cat and "performance-engineer:F1" not in cat


@pytest.mark.parametrize(
    "raw", ["security-analyst:F1", " Security-Analyst:f1 ", "`security-analyst:F1`", "deliberation:security-analyst:F1"]
)
def test_citations_resolve_tolerantly(raw):
    assert prd.resolve(raw, prd.citable(deliberation())) == "security-analyst:F1"


@pytest.mark.parametrize("raw", ["F1", "security-analyst:F9", "R1", "ux-advocate:F1", ""])
def test_unknown_citations_do_not_resolve(raw):
    assert prd.resolve(raw, prd.citable(deliberation())) is None


# --------------------------------------------------------------------------- the block


def test_a_valid_document_is_found_among_other_fenced_json():
    quoted = 'The security analyst reported:\n```json\n{"phase": "research", "findings": []}\n```\n'
    doc, ignored = prd.extract_document(quoted + doc_text(owner="me"), 65536)
    assert doc.requirements[0].sources == ["security-analyst:F1"] and ignored == ["owner"]


def test_an_unmarked_block_with_requirements_is_the_document():
    data = P.prd_document(["security-analyst:F1"])
    del data["document"]
    doc, _ = prd.extract_document("```json\n" + json.dumps(data) + "\n```", 65536)
    assert doc.document == "prd"


@pytest.mark.parametrize(
    "text,problem",
    [
        ("Decision: A. Done.", "Your concluding answer has no decision document block."),
        ('```json\n{"document": "prd", "decision": "A",}\n```', "does not parse as JSON"),
        (doc_text() + "\n" + doc_text(), "has 2 decision document blocks; end it with exactly ONE"),
        (
            doc_text(requirements=[{"id": "R1", "text": "x", "sources": []}]),
            "requirements.0.sources: List should have at least 1 item",
        ),
        (
            doc_text(risks=[{"id": "RISK1", "risk": "x", "sources": ["security-analyst:F1"]}]),
            "risks.0.mitigation: Field required",
        ),
    ],
)
def test_what_is_wrong_with_a_block_is_said(text, problem):
    with pytest.raises(prd.DocumentProblem) as err:
        prd.extract_document(text, 65536)
    assert problem in str(err.value)


def test_an_oversized_document_is_refused_but_not_a_long_answer():
    with pytest.raises(prd.DocumentProblem, match="Your decision document block is [0-9]+ bytes; the limit is 1024"):
        prd.extract_document(doc_text(problem="x" * 2000), 1024)
    long_prose = "A long explanation for the user. " * 200 + doc_text()
    assert prd.extract_document(long_prose, 2048)[0].document == "prd"


# --------------------------------------------------------------------------- traceability


def parse(**over):
    return prd.extract_document(doc_text(**over), 65536)[0]


def test_every_cited_id_must_exist():
    d = deliberation()
    bad = parse(requirements=[{"id": "R1", "text": "x", "sources": ["security-analyst:F9", "R1"]}])
    problem = prd.trace_problem(bad, prd.citable(d), d.outcome)
    assert "'security-analyst:F9' in R1" in problem
    assert "'R1' in R1 (an item of this document, not a source)" in problem
    assert prd.trace_problem(parse(), prd.citable(d), d.outcome) is None


def test_item_ids_are_unique_and_criteria_verify_real_requirements():
    cat = prd.citable(deliberation())
    twice = parse(risks=[{"id": "R1", "risk": "x", "mitigation": "y", "sources": ["H1"]}])
    assert prd.trace_problem(twice, cat, "adopted") == "Item ids must be unique within the document; repeated: R1."
    wrong = parse(acceptance_criteria=[{"id": "AC1", "text": "x", "verifies": ["R7"], "sources": ["H1"]}])
    assert "these are not among them: AC1 → R7" in prd.trace_problem(wrong, cat, "adopted")


def test_an_adopted_decision_needs_requirements_criteria_and_risks_a_rejection_risks():
    cat = prd.citable(deliberation())
    bare = parse(requirements=[], acceptance_criteria=[])
    assert prd.trace_problem(bare, cat, "adopted") == (
        "The decision document of an adopted decision needs at least one requirement, one acceptance "
        "criterion and one risk, each citing the ids it follows from; yours has no requirement and no "
        "acceptance criterion."
    )
    assert prd.trace_problem(bare, cat, "rejected") is None
    assert "needs at least one risk" in prd.trace_problem(
        parse(requirements=[], acceptance_criteria=[], risks=[]), cat, "rejected"
    )


def test_trace_counts_what_is_cited_and_what_no_criterion_verifies():
    d = deliberation()
    doc = parse(
        requirements=[
            {"id": "R1", "text": "x", "sources": ["security-analyst:F1", "H1"]},
            {"id": "R2", "text": "y", "sources": ["security-analyst:D1"]},
        ]
    )
    t = prd.trace(doc, prd.citable(d))
    assert t.by_kind == {"finding": 2, "dissent": 1, "refutation": 0, "hot_spot": 1}
    assert t.uncovered == ("R2",) and t.untraced == () and t.unknown == ()
    assert t.citations == 2 + 1 + 1 + 1 + 1 + 0  # R1, R2, AC1, RISK1, open question, non-goal


# --------------------------------------------------------------------------- capture


def test_accepted_at_once():
    d = deliberation()
    out = prd.capture(d, doc_text(), retries=1, max_bytes=65536, may_block=True, now=20.0)
    assert out.status == "accepted" and out.send_back is None
    assert (d.prd.status, d.prd.closed_at, d.prd.send_backs) == ("accepted", 20.0, 0)
    assert prd.capture(d, "anything", retries=1, max_bytes=65536, may_block=True, now=21.0).status == "already"


def test_sent_back_once_then_recorded_missing():
    d = deliberation()
    first = prd.capture(d, "Decision: A.", retries=1, max_bytes=65536, may_block=True, now=20.0)
    assert first.status == "send_back" and d.prd.status == "due" and d.prd.send_backs == 1
    assert first.send_back.startswith(
        f"Deliberation {d.id}: both gates passed; the decision document is the "
        "last step before it closes. Your concluding answer has no decision "
        "document block."
    )
    second = prd.capture(d, doc_text(risks=[]), retries=1, max_bytes=65536, may_block=True, now=30.0)
    assert second.status == "missing" and second.send_back is None
    assert (d.prd.status, d.prd.closed_at) == ("missing", 30.0)
    assert "yours has no risk" in d.prd.problem
    assert any(w.startswith("decision document recorded as missing after 1 send-back(s)") for w in d.warnings)


def test_a_fixed_document_is_accepted_after_its_send_back():
    d = deliberation()
    prd.capture(
        d,
        doc_text(requirements=[{"id": "R1", "text": "x", "sources": ["nobody:F1"]}]),
        retries=1,
        max_bytes=65536,
        may_block=True,
        now=20.0,
    )
    assert prd.capture(d, doc_text(), retries=1, max_bytes=65536, may_block=True, now=30.0).status == "accepted"
    assert d.prd.problem is None and d.prd.send_backs == 1


@pytest.mark.parametrize("retries,may_block", [(0, True), (1, False)])
def test_no_send_back_without_budget_or_when_the_stop_may_not_block(retries, may_block):
    d = deliberation()
    out = prd.capture(d, "no document", retries=retries, max_bytes=65536, may_block=may_block, now=20.0)
    assert out.status == "missing" and d.prd.send_backs == 0


def test_a_rejection_s_document_is_checked_against_the_rejection():
    d = deliberation("rejected")
    assert d.outcome == "rejected"
    text = P.prd_message(["security-analyst:D1", "performance-engineer:D1"], outcome="rejected")
    assert prd.capture(d, text, retries=1, max_bytes=65536, may_block=True, now=20.0).status == "accepted"


# --------------------------------------------------------------------------- what the main agent reads


def test_the_request_gives_the_shape_the_rules_and_every_citable_id():
    d = deliberation()
    text = render(engine.document_due(d))
    first, rest = text.split("\n", 1)
    assert (
        first == f"Deliberation {d.id}: consensus gate passed — leading approach A, consensus {d.ranking.consensus:.2f} ≥ 0.70."
    )
    assert (
        "Next: write the decision document (PRD) and hand it to the plugin — the deliberation closes with it. "
        f"Call the Write tool with file_path `<project>/.claude/deliberation/documents/{d.id}.json`"
    ) in rest
    assert "Then give the user your concluding answer in prose" in rest
    assert prd.EXAMPLE in rest
    assert "It needs at least one requirement, one acceptance criterion and one risk." in rest
    for sid in prd.citable(d):
        assert f"- {sid} (" in rest
    assert "- security-analyst:D1 (dissent on B): dual write loses events" in rest
    assert "- red-team:R1 (refutation: refuted performance-engineer:F1): It is 0.4 ms with batching" in rest
    # an instruction, not an error; no command line or path of the plugin
    assert "error" not in text.lower() and "failed" not in text.lower()
    assert not re.search(r"\.py\b|\$ |--format|deliberation (report|show|status|approve)", text)
    # of the state folder, only the path the document is handed over at (no file is written there)
    assert re.findall(r"\.claude/[\w/.-]*", text) == [f".claude/deliberation/documents/{d.id}.json"]


def test_the_request_for_a_rejection_says_nothing_is_adopted():
    d = deliberation("rejected")
    text = render(engine.document_due(d))
    assert "unanimously REJECTED every approach" in text and "Do not implement any of the approaches." in text
    assert "write the decision document of this rejection" in text and "It needs at least one risk." in text


def test_a_long_catalogue_lists_every_id_within_its_budget():
    from deliberation.state.agent_report import Finding

    d = deliberation()
    d.agents[0].report.findings = [Finding(id=f"F{i}", claim=f"claim {i} " + "x" * 200, severity="low") for i in range(1, 128)]
    catalogue = prd.citable(d)
    lines = prd._listing(catalogue)
    assert sum(len(line) + 1 for line in lines) <= prd.LISTING_BUDGET
    listed = "\n".join(lines)
    assert "more, named the same way" not in listed
    who = prd.cite_prefix(d.agents[0])
    assert f"- {who}: " + ", ".join(f"F{i}" for i in range(1, 128)) + " (findings)" in listed
    read = set()  # every id can be read off the listing
    for line in lines[1:]:
        whole = re.match(r"- (\S+) \((?:dissent|refutation)[^)]*\): \S", line)  # numbered by the plugin: with text
        if whole:
            read.add(whole.group(1))
            continue
        agent, _, groups = line[2:].partition(": ")
        for group in groups.split("; "):
            for local in group.split(" (")[0].split(", "):
                read.add(local if agent == "hot spots" else f"{agent}:{local}")
    assert read == set(catalogue)
    # the ids the plugin numbered (in no report by that id) keep their text even here
    assert "- security-analyst:D1 (dissent on B): dual write loses events" in listed
    assert any(line.startswith("- red-team:R1 (refutation: refuted performance-engineer:F1): It is") for line in lines)
    assert not re.search(r"^- [a-z-]+: .*\(dissent\)", listed, re.M)
    d.agents[0].report.findings = d.agents[0].report.findings[:5]  # a short catalogue keeps its texts
    assert prd._listing(prd.citable(d))[0].startswith(f"- {who}:F1 (finding, low): claim 1 ")
    assert all(not line.startswith("- hot spots:") for line in prd._listing(prd.citable(d)))


def test_every_dissent_and_refutation_keeps_its_text_in_a_long_catalogue():
    """Dissent and refutation ids are numbered by the plugin (no report shows them): a long
    catalogue (50 findings of 200 characters, 16 dissents, 18 refutations of 300) still gives
    each its text, so the main agent knows what it cites, and the whole request fits one hook
    answer."""
    from deliberation.state.agent_report import Concern, Finding, Refutation
    from deliberation.wire.hookio import ANSWER_BUDGET

    d = deliberation()
    d.agents[0].report.findings = [Finding(id=f"F{i}", claim=f"claim {i} " + "x" * 200, severity="low") for i in range(1, 51)]
    for a in d.agents:
        if a.stage == "ranking":
            a.report.dissent = [
                Concern(target="B", concern=f"{a.persona} concern {i}: " + "y" * 300, reason="r") for i in range(1, 9)
            ]
        if a.persona == "red-team":
            a.report.refutations = [
                Refutation(target=f"security-analyst:F{i}", verdict="weakened", claim=f"counter {i}: " + "z" * 300, evidence="e")
                for i in range(1, 10)
            ]
    catalogue = prd.citable(d)
    lines = prd._listing(catalogue)
    assert sum(len(line) + 1 for line in lines) <= prd.LISTING_BUDGET
    numbered = [src for src in catalogue.values() if src.kind in ("dissent", "refutation")]
    assert len(numbered) == 2 * 8 + 2 * 9  # a large panel's: 12 contested points, 6 of red team 2
    for src in numbered:  # at least the first 40 characters of each
        (line,) = [x for x in lines if x.startswith(f"- {src.id} (")]
        assert line.split("): ", 1)[1].startswith(src.text[:40]), line
    assert len(render(engine.document_due(d))) <= ANSWER_BUDGET


# --------------------------------------------------------------------------- Gate 2 and the engine


def test_gate2_document_check_follows_the_document():
    d = deliberation()
    check = quality_gate.document_check(d)
    assert (check.passed, check.figure) == (False, "not accepted yet (send-back 0)")
    prd.capture(d, doc_text(), retries=1, max_bytes=65536, may_block=True, now=20.0)
    check = quality_gate.document_check(d)
    assert check.passed and check.figure.startswith("present: 1 requirement(s), 1 acceptance criteria, 1 risk(s)")
    assert check.figure.endswith("every requirement, criterion and risk traced")
    assert check.detail == "4 citation(s) resolve to 2 findings"
    d2 = deliberation()
    prd.capture(d2, "none", retries=0, max_bytes=65536, may_block=True, now=20.0)
    check = quality_gate.document_check(d2)
    assert (check.passed, check.figure) == (False, "missing after 0 send-back(s)")


def test_gate2_fails_on_its_document_check_alone_and_names_the_next_step():
    d = deliberation()
    from deliberation.state.models import Check, GateResult

    five = GateResult(gate="quality", passed=True, at=1.0, checks=[Check(name="method_diversity", passed=True, figure="2")])
    result = quality_gate.with_document(five, d)
    assert not result.passed and [c.name for c in result.checks] == ["method_diversity", "decision_document"]
    assert result.next_step.startswith("end the concluding answer with the decision document block")
    prd.capture(d, doc_text(), retries=1, max_bytes=65536, may_block=True, now=20.0)
    assert quality_gate.with_document(result, d).passed


def test_conclude_reads_the_document_from_the_concluding_answer():
    cfg = Config.model_validate({"depth": {"posture": "off"}})
    d = deliberation()
    d.phase, d.prd = "RANKING", type(d.prd)()
    d.phase_history.clear()
    c = engine.conclude(d, cfg, now=50.0, answer="All done.")
    assert not c.ready and c.kind == "document" and d.phase == "PRD_GENERATION"
    assert [(h.from_phase, h.to_phase) for h in d.phase_history] == [("RANKING", "PRD_GENERATION")]
    assert d.gate2.checks[-1].name == "decision_document" and not d.gate2.passed
    c = engine.conclude(d, cfg, now=60.0, answer=doc_text())
    assert c.ready and d.prd.status == "accepted" and d.gate2.passed
    engine.finalize(d, now=61.0)
    assert d.phase == "COMPLETE" and d.phase_history[-1].why.startswith(
        "decision record written (no route); decision document accepted (1 requirement(s)"
    )


def test_conclude_records_the_document_missing_when_the_stop_may_not_block():
    cfg = Config.model_validate({"depth": {"posture": "off"}})
    d = deliberation()
    c = engine.conclude(d, cfg, now=50.0, answer="All done.", may_block=False)
    assert c.ready and d.prd.status == "missing" and not d.gate2.passed
    (check,) = [x for x in d.gate2.checks if x.name == "decision_document"]
    assert check.figure == "missing after 0 send-back(s)"


def test_a_re_rank_reopens_the_vote_and_voids_the_document_state():
    d = deliberation()
    prd.capture(d, "none", retries=1, max_bytes=65536, may_block=True, now=20.0)
    engine.reopen_vote(d, now=30.0)
    assert d.phase == "RANKING" and d.decision is None and d.outcome is None
    assert (d.prd.status, d.prd.send_backs) == ("not_due", 0)
    assert d.phase_history[-1].why == "re-rank: the vote is taken again; the decision document waits for it"


def test_a_ranker_who_had_not_voted_joins_the_vote():
    d = deliberation()
    engine.reopen_vote(d, now=30.0, persona="cost-analyst")
    assert d.phase_history[-1].why == "cost-analyst joins the vote: the vote is taken again; the decision document waits for it"
    d = deliberation()
    engine.reopen_vote(d, now=30.0, persona="security-analyst")
    assert d.phase_history[-1].why.startswith("re-rank: ")


def test_the_decision_may_be_applied_only_when_adopted_and_nothing_holds_it():
    """The receipt says to make the change only then (t18: the user had asked for it)."""
    from deliberation.state.models import AnnouncedRoute

    d = deliberation()
    d.prd.announced = None
    assert d.outcome == "adopted" and not prd.may_apply(d)  # the route is not known yet
    d.prd.announced = AnnouncedRoute(route="auto-execute")
    assert prd.may_apply(d)
    d.prd.announced = AnnouncedRoute(route="human-review", rules=["T2"])
    assert not prd.may_apply(d)
    r = deliberation("rejected")
    r.prd.announced = AnnouncedRoute(route="auto-reject")
    assert r.outcome == "rejected" and not prd.may_apply(r)
