import itertools

import pytest

from deliberation.config import EscalationConfig
from deliberation.escalation import Vote, class_of, compute_route, route_for, summary, vote_of
from deliberation.report import AgentReport, Finding
from deliberation.state import (AgentRecord, Deliberation, ProbeRun, RankingResult, ReversalClass,
                                ReversalRegistry)

CFG = EscalationConfig()
PRONE = ReversalRegistry(classes={"security/auth": ReversalClass(decision_class="security/auth", reversals=2)})
CONFIRMED_ONLY = ReversalRegistry(classes={"security/auth": ReversalClass(decision_class="security/auth",
                                                                          confirmations=3)})
EMPTY = ReversalRegistry()
OK = ProbeRun(name="tests", passed=True, exit_code=0)
FAIL = ProbeRun(name="tests", passed=False, exit_code=1)
TIMEOUT = ProbeRun(name="slow", passed=False, exit_code=None, timed_out=True, duration_s=2.0)

UNANIMOUS_HIGH = Vote(3, 0, 0, 0.95)
UNANIMOUS_LOW = Vote(3, 0, 1, 0.80)
SPLIT_PASS = Vote(2, 1, 0, 0.95)
SPLIT_FAIL = Vote(1, 2, 0, 0.5)
UNANIMOUS_FAIL = Vote(0, 3, 0, 0.9)
NO_VOTE = Vote(0, 0, 3, None)


def rules(route):
    return [r.rule for r in route.rules]


def test_unanimous_on_a_class_with_clean_history_auto_executes():
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [OK], CFG)
    assert (r.route, rules(r), r.review, r.unanimous) == ("auto-execute", [], "not_needed", True)


def test_t1_and_t2_on_unanimous_high_confidence_pass_of_a_reversal_prone_class():
    r = compute_route("security/auth", UNANIMOUS_HIGH, PRONE, [], CFG)
    assert (r.route, rules(r), r.review) == ("human-review", ["T1", "T2"], "pending")
    assert "reversed 2 time(s)" in r.rules[0].detail
    assert "0.95 >= 0.90" in r.rules[1].detail


def test_t2_threshold_is_inclusive_and_configurable():
    at = Vote(2, 0, 0, 0.9)
    assert rules(compute_route("security/auth", at, PRONE, [], CFG)) == ["T1", "T2"]
    strict = EscalationConfig(unanimous_confidence=0.99)
    assert rules(compute_route("security/auth", at, PRONE, [], strict)) == ["T1"]


def test_t1_alone_on_unanimous_low_confidence_pass():
    r = compute_route("security/auth", UNANIMOUS_LOW, PRONE, [], CFG)
    assert (r.route, rules(r)) == ("human-review", ["T1"])


def test_t1_matches_the_task_type_entry_and_can_hard_reject():
    reg = ReversalRegistry(classes={"security": ReversalClass(decision_class="security", reversals=1)})
    assert rules(compute_route("security/crypto", UNANIMOUS_HIGH, reg, [], CFG)) == ["T1", "T2"]
    cfg = EscalationConfig(known_reversal="reject")
    r = compute_route("security/crypto", UNANIMOUS_LOW, reg, [], cfg)
    assert (r.route, rules(r), r.review) == ("hard-reject", ["T1"], "pending")


def test_split_vote_is_d_and_the_accept_path_adds_t1():
    r = compute_route("security/auth", SPLIT_PASS, PRONE, [], CFG)
    assert (r.route, rules(r), r.unanimous) == ("human-review", ["T1", "D"], False)
    r = compute_route("security/auth", SPLIT_FAIL, PRONE, [], CFG)  # not on the accept path
    assert (r.route, rules(r)) == ("human-review", ["D"])
    assert "1 approve / 2 reject / 0 abstain" in r.rules[0].detail


def test_no_vote_cannot_auto_execute():
    r = compute_route("security/auth", NO_VOTE, CONFIRMED_ONLY, [], CFG)
    assert (r.route, rules(r)) == ("human-review", ["D"])
    assert "no approve/reject vote" in r.rules[0].detail


def test_unanimous_fail_stands_even_with_a_failing_probe_or_prone_class():
    r = compute_route("security/auth", UNANIMOUS_FAIL, PRONE, [FAIL], CFG)
    assert (r.route, rules(r)) == ("auto-execute", [])


@pytest.mark.parametrize("probe,text", [(FAIL, "tests exited 1"), (TIMEOUT, "slow timed out after 2.0s")])
def test_failing_or_timed_out_probe_overrides_a_unanimous_pass(probe, text):
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [OK, probe], CFG)
    assert (r.route, rules(r)) == ("human-review", ["PROBE"])
    assert "overrides the unanimous pass" in r.rules[0].detail and text in r.rules[0].detail
    assert [p.name for p in r.probes] == ["tests", probe.name]


def test_probe_failure_can_hard_reject():
    cfg = EscalationConfig(probe_failure="reject")
    r = compute_route("security/auth", UNANIMOUS_HIGH, CONFIRMED_ONLY, [FAIL], cfg)
    assert (r.route, rules(r)) == ("hard-reject", ["PROBE"])


def test_cold_start_falls_back_to_d_and_says_so():
    r = compute_route("architecture/caching", UNANIMOUS_HIGH, EMPTY, [], CFG)
    assert (r.route, rules(r)) == ("auto-execute", ["COLD_START"])
    assert "falls back to the split-vote rule D" in r.rules[0].detail
    r = compute_route("architecture/caching", SPLIT_PASS, EMPTY, [], CFG)
    assert (r.route, rules(r)) == ("human-review", ["D", "COLD_START"])
    assert summary(r) == "human-review (D) for class architecture/caching [cold start: no reversal history]"


def test_every_rule_at_once_and_summary():
    r = compute_route("security/auth", Vote(3, 0, 0, 1.0), PRONE, [FAIL], EscalationConfig(probe_failure="reject"))
    assert (r.route, rules(r)) == ("hard-reject", ["T1", "T2", "PROBE"])
    assert summary(r) == "hard-reject (T1, T2, PROBE) for class security/auth"


def test_combinations_table():
    """Every vote × registry × probe combination against the rules written out by hand."""
    votes = {"uh": UNANIMOUS_HIGH, "ul": UNANIMOUS_LOW, "sp": SPLIT_PASS, "sf": SPLIT_FAIL,
             "uf": UNANIMOUS_FAIL, "nv": NO_VOTE}
    regs = {"prone": PRONE, "clean": CONFIRMED_ONLY, "none": EMPTY}
    probes = {"none": [], "ok": [OK], "fail": [FAIL]}
    for (vk, v), (rk, reg), (pk, pr) in itertools.product(votes.items(), regs.items(), probes.items()):
        expect = []
        if rk == "prone" and vk in ("uh", "ul", "sp"):
            expect.append("T1")
        if rk == "prone" and vk == "uh":
            expect.append("T2")
        if vk in ("sp", "sf", "nv"):
            expect.append("D")
        if pk == "fail" and vk != "uf":
            expect.append("PROBE")
        if rk == "none":
            expect.append("COLD_START")
        r = compute_route("security/auth", v, reg, pr, CFG)
        assert rules(r) == expect, (vk, rk, pk)
        escalated = bool(set(expect) - {"COLD_START"})
        assert r.route == ("human-review" if escalated else "auto-execute"), (vk, rk, pk)


def _report(verdict, evidence="src/auth.py:10", conf=0.9):
    return AgentReport(phase="ranking", verdict=verdict, confidence=conf, summary="OAuth login flow",
                       findings=[Finding(id="F1", claim="jwt expiry", evidence=evidence)])


def _agent(i, verdict, **kw):
    return AgentRecord(key=f"a{i}", persona="security-analyst", kind="persona", stage="ranking",
                       status="reported", spawned_at=0.0, report=_report(verdict, **kw))


def test_vote_of_uses_the_ranking_result_when_present():
    d = Deliberation(id="d1", session_id="s1", task_type="security",
                     ranking=RankingResult(dimensions={}, approaches=["A"], scores=[], means={}, leading="A",
                                           leading_scores={}, consensus=0.92, spread=0.1, stdev=0.1, agents=4,
                                           approvals=3, rejections=0, abstentions=1))
    assert vote_of(d) == Vote(3, 0, 1, 0.92)


def test_vote_of_counts_ranking_verdicts_and_skips_superseded():
    agents = [_agent(1, "approve", conf=0.8), _agent(2, "approve", conf=1.0), _agent(3, "abstain", conf=0.9),
              _agent(4, "reject")]
    agents[3].superseded = True
    d = Deliberation(id="d1", session_id="s1", task_type="security", question="x", agents=agents)
    assert vote_of(d) == Vote(2, 0, 1, pytest.approx(0.9))


def test_route_for_a_deliberation():
    d = Deliberation(id="d1", session_id="s1", task_type="security", question="Move login to OAuth?",
                     agents=[_agent(1, "approve", conf=0.95), _agent(2, "approve", conf=0.95)])
    assert class_of(d, CFG) == "security/auth"
    r = route_for(d, PRONE, [], CFG)
    assert (r.decision_class, r.route, rules(r)) == ("security/auth", "human-review", ["T1", "T2"])


# -- the human-review side (adjudication.py) --------------------------------------------------

from deliberation.adjudication import (AdjudicationError, adjudicate, close_escalation,  # noqa: E402
                                       escalation_reason, open_escalation, open_index, review_answer)
from deliberation.paths import Layout  # noqa: E402
from deliberation.state import EscalationIndex, OpenEscalation  # noqa: E402
from deliberation.store import SessionTx, Store  # noqa: E402


def _entry(i, route="human-review"):
    return OpenEscalation(deliberation_id=f"d{i}", session_id="s", route=route, reason=f"reason {i}",
                          opened_at=0.0)


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
    assert text.startswith("deliberation d9 [architecture/caching] routed to human-review (cold start")
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
    in_tx(open_escalation, Deliberation(id="d1", session_id="s1", route=compute_route(
        "security/auth", UNANIMOUS_HIGH, PRONE, [], CFG)))
    with pytest.raises(AdjudicationError, match="already approved"):
        adjudicate(store, "d1", "reject", "bob")
    assert open_index(store).open == []
