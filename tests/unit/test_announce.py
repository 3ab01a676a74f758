"""announce: the route told with the decision document's request, whether the concluding answer
told the user, and when the completing Stop still holds."""

from __future__ import annotations

from deliberation.core import announce, engine, escalation, prd, reversals
from deliberation.core.ranking import rank
from deliberation.state.config import Config
from deliberation.state.models import AnnouncedRoute, ReversalRegistry, Route
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
DID = "d-5e55a7c1-1"


def research(persona: str, claim: str):
    return P.agent_record(
        persona,
        "research",
        {
            "findings": [{"id": "F1", "claim": claim, "evidence": f"src/{persona}.py:1", "severity": "high"}],
            "approaches": [{"id": "A", "title": "Outbox"}, {"id": "B", "title": "Dual write"}],
            "confidence": 0.5,
        },
    )


def ranker(persona: str, preferred: str = "A", confidence: float = 0.95):
    a, b = ((9, 8, 8, 8, 8), (6, 6, 6, 6, 6)) if preferred == "A" else ((6, 6, 6, 6, 6), (9, 8, 8, 8, 8))
    return P.agent_record(
        persona, "ranking", P.ranking_json({"A": a, "B": b}, "approve", preferred, confidence=confidence), key=f"{persona}-rank"
    )


def voted(*preferred: str, confidence: float = 0.95):
    personas = ["security-analyst", "performance-engineer", "cost-analyst"][: len(preferred)]
    agents = [research(p, f"{p} found something") for p in personas]
    agents += [ranker(p, pick, confidence) for p, pick in zip(personas, preferred)]
    d = P.make_deliberation(agents, phase="RANKING", did=DID)
    d.ranking = rank(d.agents, W)
    return d


def reversed_registry(d, cfg: Config) -> ReversalRegistry:
    reg = ReversalRegistry()
    reversals.mark_reversed(reg, "d-old", escalation.class_of(d, cfg.escalation), "it leaked tokens", 1.0)
    return reg


# --------------------------------------------------------------------------- the announced route


def test_a_unanimous_vote_with_no_history_is_announced_automatic_and_the_request_says_nothing_of_review():
    d, cfg = voted("A", "A"), Config()
    engine.open_document(d, now=10.0, cfg=cfg)
    assert d.prd.announced == AnnouncedRoute(route="auto-execute", rules=[], why="", probes=[])
    assert prd.route_notice(d) == [] and "HUMAN REVIEW" not in prd.request_text(d)


def test_a_unanimous_confident_vote_on_a_reversed_class_is_announced_for_review_with_what_to_tell_the_user():
    d, cfg = voted("A", "A"), Config()
    engine.open_document(d, now=10.0, cfg=cfg, reversals=lambda: reversed_registry(d, cfg))
    a = d.prd.announced
    assert (a.route, a.rules) == ("human-review", ["T2"]) and a.why.startswith(
        "T2: unanimous pass at judges' confidence 0.95 >= 0.90"
    )
    (said,) = prd.route_notice(d)
    assert said.startswith(
        f"Route: when deliberation {DID} closes, its decision goes to HUMAN REVIEW — "
        "unanimity on a reversal-prone class is not confidence (T2: "
    )
    assert said.endswith(
        f'tell the user: "The deliberation chose approach A, but the decision is not final: it '
        f"awaits your review (unanimity on a reversal-prone class is not confidence). Approve it "
        f"with `deliberation approve {DID}` or reject it with `deliberation reject {DID}` (in "
        f'Claude Code: `! deliberation approve {DID}`); until then I will not apply it."'
    )
    text = prd.request_text(d)
    assert text.endswith(said) and announce.carries_notice(said, DID)


def test_a_split_vote_is_announced_for_review_by_rule_d_and_the_probes_that_run_at_the_close_are_named():
    cfg = Config.model_validate(
        {
            "escalation": {
                "probes": [
                    {"name": "unit-tests", "command": ["pytest", "-q"], "classes": ["*"]},
                    {"name": "auth-only", "command": ["pytest", "-q"], "classes": ["security/*"]},
                ]
            }
        }
    )
    d = voted("A", "A", "B", confidence=0.7)
    engine.open_document(d, now=10.0, cfg=cfg)
    a = d.prd.announced
    assert (a.route, a.rules, a.probes) == ("human-review", ["D"], ["unit-tests"]), a
    assert a.why.startswith("D: split vote: 3 approve / 0 reject / 0 abstain, but 1 ranker that did not reject prefers")
    (said,) = prd.route_notice(d)
    assert (
        "the panel's vote was not unanimous (a voter rejected it or preferred another approach)" in said
        and "Probes unit-tests run when you stop" in said
    )


def test_the_send_back_repeats_the_route_notice():
    d, cfg = voted("A", "A"), Config()
    engine.open_document(d, now=10.0, cfg=cfg, reversals=lambda: reversed_registry(d, cfg))
    assert prd.send_back_text(d, "Your concluding answer has no decision document block.").endswith(prd.route_notice(d)[0])


def test_a_re_rank_drops_the_announcement_with_the_document():
    d, cfg = voted("A", "A"), Config()
    engine.open_document(d, now=10.0, cfg=cfg, reversals=lambda: reversed_registry(d, cfg))
    engine.reopen_vote(d, now=11.0)
    assert d.prd.announced is None


# --------------------------------------------------------------------------- did the answer tell the user


def test_the_notice_is_found_leniently_the_id_with_the_approve_command_word():
    assert announce.carries_notice(f"It awaits your review: run `deliberation approve {DID}`.", DID)
    assert announce.carries_notice(f"Deliberation {DID.upper()} needs your sign-off — APPROVE it or reject it.", DID)
    assert announce.carries_notice(f"Once you have approved {DID} I will apply it.", DID)


def test_the_notice_is_missing_without_the_id_or_without_approve_or_only_inside_a_fenced_block():
    assert not announce.carries_notice("It awaits your review: run `deliberation approve` with its id.", DID)
    assert not announce.carries_notice(f"Deliberation {DID} chose approach A.", DID)
    assert not announce.carries_notice(f'Chose A.\n```json\n{{"decision": "approve {DID}"}}\n```', DID)
    assert not announce.carries_notice(f'Chose A.\n```json\n{{"decision": "approve {DID}"', DID)  # unclosed
    assert not announce.carries_notice(None, DID) and not announce.carries_notice("approve d-1", "")


# --------------------------------------------------------------------------- the completing Stop's hold

TOLD = f"A awaits your review: `deliberation approve {DID}` or `deliberation reject {DID}`."


def route(name: str) -> Route:
    return Route(route=name, decision_class="security/auth", unanimous=True)


def told(name: str, rules=("T2",)) -> AnnouncedRoute:
    return AnnouncedRoute(route=name, rules=list(rules))


def test_no_hold_for_an_automatic_route_whatever_was_announced_or_said():
    assert not announce.needs_hold(route("auto-execute"), None, "", DID)
    assert not announce.needs_hold(route("auto-reject"), told("human-review"), "", DID)


def test_no_hold_when_the_announced_review_route_is_the_final_one_and_the_answer_tells_the_user():
    assert not announce.needs_hold(route("human-review"), told("human-review"), TOLD, DID)
    assert not announce.needs_hold(route("hard-reject"), told("hard-reject", ["T1"]), TOLD, DID)


def test_one_hold_when_the_answer_lacks_the_notice_or_the_route_was_not_announced_or_changed_at_the_close():
    assert announce.needs_hold(route("human-review"), told("human-review"), "The panel chose A.", DID)
    assert announce.needs_hold(route("human-review"), None, TOLD, DID)  # never announced
    assert announce.needs_hold(route("human-review"), told("auto-execute", []), TOLD, DID)  # a probe failed
    assert announce.needs_hold(route("hard-reject"), told("human-review"), TOLD, DID)  # a probe hard-rejected
