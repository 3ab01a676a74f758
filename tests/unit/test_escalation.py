import itertools

import pytest

from deliberation.app.adjudication import (
    AdjudicationError,
    adjudicate,
    close_escalation,
    escalation_reason,
    open_escalation,
    open_index,
    review_answer,
)
from deliberation.state.config import EscalationConfig
from deliberation.state.paths import Layout
from deliberation.state.models import EscalationIndex, OpenEscalation
from deliberation.state.store import SessionTx, Store
from deliberation.core.escalation import Vote, class_of, compute_route, route_for, summary, vote_of
from deliberation.state.agent_report import AgentReport, Finding
from deliberation.state.models import AgentRecord, Deliberation, ProbeRun, RankingResult, ReversalClass, ReversalRegistry

CFG = EscalationConfig()  # policy D+T2+PROBE (the default)
STRICT = EscalationConfig(policy="T1+D+T2+PROBE")
PRONE = ReversalRegistry(classes={"security/auth": ReversalClass(decision_class="security/auth", reversals=2)})
CONFIRMED_ONLY = ReversalRegistry(classes={"security/auth": ReversalClass(decision_class="security/auth", confirmations=3)})
EMPTY = ReversalRegistry()
OK = ProbeRun(name="tests", passed=True, exit_code=0)
FAIL = ProbeRun(name="tests", passed=False, exit_code=1)
TIMEOUT = ProbeRun(name="slow", passed=False, exit_code=None, timed_out=True, duration_s=2.0)

# Vote(approvals, rejections, abstentions, judges' confidence)
UNANIMOUS_HIGH = Vote(3, 0, 0, 0.95)
UNANIMOUS_LOW = Vote(3, 0, 1, 0.80)
SPLIT_PASS = Vote(2, 1, 0, 0.95)
SPLIT_FAIL = Vote(1, 2, 0, 0.5)
UNANIMOUS_FAIL = Vote(0, 3, 0, 0.9)
NO_VOTE = Vote(0, 0, 3, None)


def rules(route):
    return [r.rule for r in route.rules]


def test_default_policy_is_the_seeds_deployable_one():
    assert CFG.policy == "D+T2+PROBE"


def test_unanimous_on_a_class_with_clean_history_auto_executes():
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [OK], CFG)
    assert (r.route, rules(r), r.review, r.unanimous) == ("auto-execute", [], "not_needed", True)
    assert (r.policy, r.decided_by, r.notes) == ("D+T2+PROBE", "unanimous pass, no rule fired", [])


def test_t2_changes_the_route_under_the_default_policy():
    """T1 used to fire on every accepted decision of a reversed class, so T2 never
    changed a route. Under D+T2+PROBE, T2 alone sends the unanimous confident pass to a person."""
    r = compute_route("security/auth", UNANIMOUS_HIGH, PRONE, [], CFG)
    assert (r.route, rules(r), r.review, r.decided_by) == ("human-review", ["T2"], "pending", "T2")
    assert "judges' confidence 0.95 >= 0.90" in r.rules[0].detail and "reversed 2 time(s)" in r.rules[0].detail
    strict = compute_route("security/auth", UNANIMOUS_HIGH, PRONE, [], STRICT)
    assert (strict.route, rules(strict), strict.policy, strict.decided_by) == (
        "human-review",
        ["T1", "T2"],
        "T1+D+T2+PROBE",
        "T1, T2",
    )
    assert "reversed 2 time(s)" in strict.rules[0].detail


def test_t2_threshold_is_inclusive_and_configurable():
    at = Vote(2, 0, 0, 0.9)
    assert rules(compute_route("security/auth", at, PRONE, [], CFG)) == ["T2"]
    stricter = EscalationConfig(unanimous_confidence=0.99)
    r = compute_route("security/auth", at, PRONE, [], stricter)
    assert (r.route, rules(r)) == ("auto-execute", [])
    assert rules(compute_route("security/auth", at, PRONE, [], STRICT.model_copy(update={"unanimous_confidence": 0.99}))) == [
        "T1"
    ]


def test_unanimous_low_confidence_pass_on_a_reversed_class_says_what_the_policy_left_out():
    r = compute_route("security/auth", UNANIMOUS_LOW, PRONE, [], CFG)
    assert (r.route, rules(r)) == ("auto-execute", [])
    (note,) = r.notes
    assert "reversed 2 time(s)" in note and "0.80 < 0.90" in note and "T1+D+T2+PROBE" in note
    r = compute_route("security/auth", UNANIMOUS_LOW, PRONE, [], STRICT)
    assert (r.route, rules(r), r.notes) == ("human-review", ["T1"], [])


def test_t1_matches_the_task_type_entry_and_can_hard_reject():
    reg = ReversalRegistry(classes={"security": ReversalClass(decision_class="security", reversals=1)})
    assert rules(compute_route("security/crypto", UNANIMOUS_HIGH, reg, [], STRICT)) == ["T1", "T2"]
    cfg = EscalationConfig(policy="T1+D+T2+PROBE", known_reversal="reject")
    r = compute_route("security/crypto", UNANIMOUS_LOW, reg, [], cfg)
    assert (r.route, rules(r), r.review, r.decided_by) == ("hard-reject", ["T1"], "pending", "T1")
    # known_reversal acts through T1 only: the default policy does not run it
    r = compute_route("security/crypto", UNANIMOUS_HIGH, reg, [], EscalationConfig(known_reversal="reject"))
    assert (r.route, rules(r)) == ("human-review", ["T2"])


def test_split_vote_is_d_and_the_strict_accept_path_adds_t1():
    r = compute_route("security/auth", SPLIT_PASS, PRONE, [], CFG)
    assert (r.route, rules(r), r.unanimous) == ("human-review", ["D"], False)
    r = compute_route("security/auth", SPLIT_PASS, PRONE, [], STRICT)
    assert (r.route, rules(r)) == ("human-review", ["T1", "D"])
    r = compute_route("security/auth", SPLIT_FAIL, PRONE, [], STRICT)  # not on the accept path
    assert (r.route, rules(r)) == ("human-review", ["D"])
    assert "1 approve / 2 reject / 0 abstain" in r.rules[0].detail


def test_no_vote_cannot_auto_execute():
    r = compute_route("security/auth", NO_VOTE, CONFIRMED_ONLY, [], CFG)
    assert (r.route, rules(r)) == ("human-review", ["D"])
    assert "no approve/reject vote" in r.rules[0].detail


@pytest.mark.parametrize("cfg", [CFG, STRICT])
def test_unanimous_fail_is_auto_reject_even_with_a_failing_probe_or_prone_class(cfg):
    """Unanimous → auto-pass or auto-REJECT (docs/EVIDENCE.md, E10); a unanimous reject adopts nothing."""
    r = compute_route("security/auth", UNANIMOUS_FAIL, PRONE, [FAIL], cfg)
    assert (r.route, rules(r), r.review, r.decided_by) == ("auto-reject", [], "not_needed", "unanimous reject")


@pytest.mark.parametrize("probe,text", [(FAIL, "tests exited 1"), (TIMEOUT, "slow timed out after 2.0s")])
def test_failing_or_timed_out_probe_overrides_a_unanimous_pass(probe, text):
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [OK, probe], CFG)
    assert (r.route, rules(r)) == ("human-review", ["PROBE"])
    assert "overrides the unanimous pass" in r.rules[0].detail and text in r.rules[0].detail
    assert [p.name for p in r.probes] == ["tests", probe.name]


def test_probe_failure_can_hard_reject():
    cfg = EscalationConfig(probe_failure="reject")
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [FAIL], cfg)
    assert (r.route, rules(r), r.decided_by) == ("hard-reject", ["PROBE"], "PROBE")


def test_cold_start_falls_back_to_d_and_says_so():
    r = compute_route("architecture/caching", UNANIMOUS_HIGH, EMPTY, [], CFG)
    assert (r.route, rules(r)) == ("auto-execute", ["COLD_START"])
    assert "falls back to the split-vote rule D" in r.rules[0].detail
    r = compute_route("architecture/caching", SPLIT_PASS, EMPTY, [], CFG)
    assert (r.route, rules(r)) == ("human-review", ["D", "COLD_START"])
    assert summary(r) == ("human-review (D) for class architecture/caching, policy D+T2+PROBE [cold start: no reversal history]")


def test_every_rule_at_once_and_summary():
    r = compute_route(
        "security/auth", Vote(3, 0, 0, 1.0), PRONE, [FAIL], EscalationConfig(policy="T1+D+T2+PROBE", probe_failure="reject")
    )
    assert (r.route, rules(r)) == ("hard-reject", ["T1", "T2", "PROBE"])
    assert summary(r) == "hard-reject (T1, T2, PROBE) for class security/auth, policy T1+D+T2+PROBE"


@pytest.mark.parametrize("cfg", [CFG, STRICT])
def test_combinations_table(cfg):
    """Every vote × registry × probe combination against the rules written out by hand."""
    strict = cfg.policy == "T1+D+T2+PROBE"
    votes = {"uh": UNANIMOUS_HIGH, "ul": UNANIMOUS_LOW, "sp": SPLIT_PASS, "sf": SPLIT_FAIL, "uf": UNANIMOUS_FAIL, "nv": NO_VOTE}
    regs = {"prone": PRONE, "clean": CONFIRMED_ONLY, "none": EMPTY}
    probes = {"none": [], "ok": [OK], "fail": [FAIL]}
    for (vk, v), (rk, reg), (pk, pr) in itertools.product(votes.items(), regs.items(), probes.items()):
        expect = []
        if strict and rk == "prone" and vk in ("uh", "ul", "sp"):
            expect.append("T1")
        if rk == "prone" and vk == "uh":
            expect.append("T2")
        if vk in ("sp", "sf", "nv"):
            expect.append("D")
        if pk == "fail" and vk != "uf":
            expect.append("PROBE")
        if rk == "none":
            expect.append("COLD_START")
        r = compute_route("security/auth", v, reg, pr, cfg)
        assert rules(r) == expect, (vk, rk, pk)
        escalated = bool(set(expect) - {"COLD_START"})
        plain = "auto-reject" if vk == "uf" else "auto-execute"
        assert r.route == ("human-review" if escalated else plain), (vk, rk, pk)


def _report(verdict, evidence="src/auth.py:10", conf=0.9):
    return AgentReport(
        phase="ranking",
        verdict=verdict,
        confidence=conf,
        summary="OAuth login flow",
        findings=[Finding(id="F1", claim="jwt expiry", evidence=evidence)],
    )


def _agent(i, verdict, **kw):
    return AgentRecord(
        key=f"a{i}",
        persona="security-analyst",
        kind="persona",
        stage="ranking",
        status="reported",
        spawned_at=0.0,
        report=_report(verdict, **kw),
    )


def test_vote_of_uses_the_ranking_result_when_present():
    d = Deliberation(
        id="d1",
        session_id="s1",
        task_type="security",
        ranking=RankingResult(
            dimensions={},
            approaches=["A"],
            scores=[],
            means={},
            leading="A",
            leading_scores={},
            consensus=0.92,
            spread=0.1,
            stdev=0.1,
            agents=4,
            approvals=3,
            rejections=0,
            abstentions=1,
        ),
    )
    assert vote_of(d) == Vote(3, 0, 1, None, 0.92)  # no ranking reports: no judges' confidence


def test_vote_of_counts_ranking_verdicts_and_skips_superseded():
    agents = [_agent(1, "approve", conf=0.8), _agent(2, "approve", conf=1.0), _agent(3, "abstain", conf=0.9), _agent(4, "reject")]
    agents[3].superseded = True
    d = Deliberation(id="d1", session_id="s1", task_type="security", question="x", agents=agents)
    # the judges' confidence is the approvers' mean self-reported confidence (0.8, 1.0)
    assert vote_of(d) == Vote(2, 0, 1, pytest.approx(0.9))


def test_route_for_a_deliberation():
    d = Deliberation(
        id="d1",
        session_id="s1",
        task_type="security",
        question="Move login to OAuth?",
        agents=[_agent(1, "approve", conf=0.95), _agent(2, "approve", conf=0.95)],
    )
    assert class_of(d, CFG) == "security/auth"
    r = route_for(d, PRONE, [], CFG)
    assert (r.decision_class, r.route, rules(r)) == ("security/auth", "human-review", ["T2"])
    assert r.judges_confidence == 0.95


def test_judges_confidence_not_the_consensus_score():
    """T2 reads the judges' own confidence, never the consensus figure (here 0.81)."""
    agents = [_agent(1, "approve", conf=0.95), _agent(2, "approve", conf=0.93), _agent(3, "abstain", conf=0.1)]
    d = Deliberation(
        id="d1",
        session_id="s1",
        task_type="security",
        question="Move login to OAuth?",
        agents=agents,
        ranking=RankingResult(
            dimensions={},
            approaches=["A"],
            scores=[],
            means={},
            leading="A",
            leading_scores={},
            consensus=0.81,
            spread=1.0,
            stdev=0.5,
            agents=3,
            approvals=2,
            rejections=0,
            abstentions=1,
        ),
    )
    v = vote_of(d)
    assert (v.confidence, v.consensus) == (0.94, 0.81)
    assert rules(route_for(d, PRONE, [], CFG)) == ["T2"]


# -- the human-review side (adjudication.py) --------------------------------------------------


def _entry(i, route="human-review"):
    return OpenEscalation(deliberation_id=f"d{i}", session_id="s", route=route, reason=f"reason {i}", opened_at=0.0)


def test_review_answer_ask_deny_and_pass_through():
    risky = CFG.risky_tools
    assert review_answer(None, "Edit", risky) == (None, "")
    assert review_answer(EscalationIndex(), "Edit", risky) == (None, "")
    idx = EscalationIndex(open=[_entry(1)])
    assert review_answer(idx, "Read", risky) == (None, "")
    assert review_answer(idx, "Editor", risky) == (None, "")  # full match only
    d, why = review_answer(idx, "MultiEdit", risky)
    assert d == "ask" and "reason 1" in why and "`deliberation approve d1`" in why
    idx.open.append(_entry(2, "hard-reject"))
    d, why = review_answer(idx, "Bash", risky)
    assert d == "deny" and "reason 2" in why and "reason 1" not in why
    assert review_answer(idx, "Write", "(unclosed")[0] == "deny"  # invalid regex → default list
    assert review_answer(idx, "Read", "(unclosed") == (None, "")


def test_escalation_reason_names_rules_class_and_decision():
    r = compute_route("architecture/caching", SPLIT_PASS, EMPTY, [FAIL], CFG)
    text = escalation_reason("d9", r, "Use Redis")
    assert text.startswith("deliberation d9 [architecture/caching] routed to human-review by policy D+T2+PROBE (cold start")
    assert "D: split vote" in text and "PROBE: probe failed: tests exited 1" in text
    assert text.endswith("decision: Use Redis")
    assert "(decision not recorded)" in escalation_reason("d9", r, None)


def test_open_replace_close_and_stale_entry_cleanup(tmp_path):
    store = Store(Layout(str(tmp_path)))
    d = Deliberation(id="d1", session_id="s1", decision="X")

    def in_tx(fn, *args, **kw):
        with SessionTx(store, "s1") as tx:
            return fn(tx, *args, **kw)

    assert in_tx(open_escalation, d) is None  # no route
    d.route = compute_route("security/auth", UNANIMOUS_HIGH, PRONE, [], CFG)
    in_tx(open_escalation, d, at=1.0)
    in_tx(open_escalation, d, at=2.0)  # recomputed: replaced, not duplicated
    assert [(e.deliberation_id, e.opened_at) for e in open_index(store).open] == [("d1", 2.0)]
    in_tx(close_escalation, "d1")
    in_tx(close_escalation, "d1")  # closing what is not open changes nothing
    assert not (tmp_path / ".claude/deliberation/escalations.json").exists()

    # approved, but an interrupted run left the entry behind: approving again refuses and cleans up
    store.save(store.layout.deliberation("d1"), d)
    adjudicate(store, "d1", "approve", "alice", at=3.0)
    in_tx(
        open_escalation,
        Deliberation(id="d1", session_id="s1", route=compute_route("security/auth", UNANIMOUS_HIGH, PRONE, [], CFG)),
    )
    with pytest.raises(AdjudicationError, match="already approved"):
        adjudicate(store, "d1", "reject", "bob")
    assert open_index(store).open == []


# -- the vote stated truly ----------------------------------------------------------------------


def _ranked(prefs, verdicts=None):
    """Four ranking reports scoring B and C; `prefs` = each ranker's stated preferred approach."""
    from deliberation.core.ranking import rank
    from tests.helpers import payloads as P

    verdicts = verdicts or {}
    scores = {"B": {"B": (7.5,) * 5, "C": (6,) * 5}, "C": {"B": (6.9,) * 5, "C": (7,) * 5}}
    agents = [
        P.agent_record(
            p,
            "ranking",
            P.ranking_json(scores[pref], verdict=verdicts.get(p, "approve"), preferred=pref, confidence=0.8),
            key=f"k-{p}",
        )
        for p, pref in prefs.items()
    ]
    d = Deliberation(
        id="d1",
        session_id="s1",
        task_type="default",
        agents=agents,
        question="Should the billing service switch its request logging to structured JSON logs?",
    )
    d.ranking = rank(d.agents, {"correctness": 0.3, "risk": 0.25, "maintainability": 0.2, "performance": 0.15, "cost": 0.1})
    return d


def test_a_ranker_that_approves_another_approach_makes_the_vote_split():
    """Three prefer B, the reliability engineer prefers C (7.00 against B's 6.90): four approvals,
    but not a unanimous vote — rule D sends it to a person, the route says split."""
    d = _ranked({"security-analyst": "B", "performance-engineer": "B", "cost-analyst": "B", "reliability-engineer": "C"})
    assert d.ranking.leading == "B" and d.ranking.approvals == 4
    v = vote_of(d)
    assert (v.pattern, v.dissents) == ("split", 1)
    r = route_for(d, ReversalRegistry(), [], CFG)
    assert (r.route, r.unanimous) == ("human-review", False) and "D" in rules(r)
    assert "but 1 ranker that did not reject prefers another approach" in r.rules[0].detail


def test_every_ranker_preferring_the_leader_is_unanimous():
    d = _ranked(dict.fromkeys(("security-analyst", "performance-engineer", "cost-analyst"), "B"))
    v = vote_of(d)
    assert (v.pattern, v.dissents) == ("unanimous-pass", 0)
    assert route_for(d, ReversalRegistry(), [], CFG).unanimous


def test_a_preference_read_from_the_scores_counts_too():
    d = _ranked({"security-analyst": "B", "performance-engineer": "B", "cost-analyst": "C"})
    d.agents[2].report.preferred_approach = None  # its scores prefer C
    assert vote_of(d).pattern == "split"
