"""blind_ranking: a ranking prompt carries the approaches in a neutral order and nothing of the
vote."""

from __future__ import annotations

import pytest

from deliberation.core import blind_ranking as B
from tests.helpers import payloads as P

QUESTION = "should the order service cache product prices in each node or keep reading them from the database?"
APPROACHES = [
    {
        "id": "A",
        "title": "Per-node price cache with a 30 s TTL",
        "summary": "Cache in each node; the vendor's recommended setup, leading to fewer reads.",
    },
    {"id": "B", "title": "Keep reading prices from the pricing database", "summary": "Status quo."},
    {"id": "C", "title": "One shared cache in front of the database", "summary": "Shared Redis."},
]
FINDING = "Price reads average 41 ms of the 108 ms checkout p99; the vendor recommended approach is a cache."


def delib(ranked=()):
    agents = [
        P.agent_record(
            "security-analyst",
            "research",
            {"findings": [{"id": "F1", "claim": FINDING, "evidence": "bench/checkout_p99.txt"}], "approaches": APPROACHES[:2]},
            key="r-sec",
        ),
        P.agent_record(
            "synthesis-lead",
            "deliberation",
            {
                "approaches": APPROACHES,
                "preferred_approach": "A",
                "rationale": "A removes the hot read path and its stale window is bounded by the TTL.",
            },
            key="s-1",
            kind="synthesis",
        ),
    ]
    agents += list(ranked)
    d = P.make_deliberation(agents, phase="DELIBERATION", did="d-blind-1")
    d.question = QUESTION
    return d


def kinds(prompt, d=None, persona="security-analyst"):
    return [leak.kind for leak in B.check_prompt(prompt, d or delib(), persona)]


def test_neutral_order_is_drawn_from_the_deliberation_not_from_any_agent():
    d = delib()
    order = B.neutral_order(d)
    assert sorted(order) == ["A", "B", "C"] and order == B.neutral_order(d)  # stable
    # owed to nobody's preference: the same ids in another deliberation come out in another order
    orders = {tuple(B.neutral_order(P.make_deliberation(d.agents, did=f"d-{i}"))) for i in range(12)}
    assert len(orders) > 1
    listed = B.approach_list(d)
    assert listed.splitlines()[0] == "Approaches to rank (neutral order; it ranks nothing):"
    assert [line[2] for line in listed.splitlines()[1:]] == order
    assert "- B: Keep reading prices from the pricing database — Status quo." in listed


def clean_prompt(d):
    return (
        f"PERSONA: security-analyst\nPhase: ranking\nQuestion: {QUESTION}\n{B.approach_list(d)}\n"
        "Score every approach 0-10 on correctness, risk (10 = lowest), maintainability, performance, "
        "cost (10 = cheapest). Nothing of the other rankers is shown to you; no approach is leading.\n"
        f"Findings: security-analyst:F1 {FINDING}"
    )


def test_the_plugins_own_list_and_the_findings_pass():
    d = delib()
    assert B.check_prompt(clean_prompt(d), d, "security-analyst") == []
    assert kinds("Rank every approach on the five dimensions.") == []


@pytest.mark.parametrize(
    "prompt,kind,quoted",
    [
        ("Approaches: A, B, C. Leading: A. Score every approach 0-10.", "leader", "Leading: A"),
        ("Rank them; A is the front-runner so far.", "leader", "A is the front-runner so far"),
        ("Rank them. The synthesis prefers A.", "leader", "The synthesis prefers A"),
        ("Rank them (recommended approach: A).", "leader", "Rank them (recommended approach: A)"),
        ("Rank them; the consensus was 0.78 on A.", "leader", "the consensus was 0.78 on A"),
        ("Round 1: A scored 8.2 and B 7.6; rank again.", "scores", "Round 1: A scored 8.2 and B 7.6"),
        ("Last time A got 9/10.", "scores", "Last time A got 9/10"),
        ("Previous ranker: correctness: 8, risk: 6.", "scores", "Previous ranker: correctness: 8, risk: 6"),
        ("Means so far: A 8.93, B 6.27.", "scores", "Means so far: A 8.93, B 6.27"),
        (
            "The performance-engineer approved A and the cost analyst rejected it.",
            "verdicts",
            "The performance-engineer approved A and the cost analyst rejected it",
        ),
        ("Rank again: 2 of 3 agents preferred B.", "verdicts", "Rank again: 2 of 3 agents preferred B"),
        ("The Devil's Advocate voted against A.", "verdicts", "The Devil's Advocate voted against A"),
    ],
)
def test_each_leak_is_named_and_quoted(prompt, kind, quoted):
    leaks = B.check_prompt(prompt, delib(), "security-analyst")
    assert [(x.kind, x.snippet) for x in leaks if x.kind == kind] == [(kind, quoted)], leaks


def test_another_agents_rationale_and_the_synthesis_preference_leak():
    ranked = P.agent_record(
        "cost-analyst",
        "ranking",
        P.ranking_json(
            {"A": (9,) * 5}, preferred="A", rationale="The replica bill grows every quarter and A retires two replicas."
        ),
        key="k-cost",
    )
    d = delib([ranked])
    prompt = "Rank. Context: the replica bill grows every quarter and A retires two replicas."
    leaks = B.check_prompt(prompt, d, "security-analyst")
    assert [(x.kind, x.snippet) for x in leaks] == [("rationale", "cost-analyst's ranking rationale (100% of its wording)")]
    assert B.check_prompt(prompt, d, "cost-analyst") == []  # its own earlier words are not another agent's
    synth = "Rank. Note that A removes the hot read path and its stale window is bounded by the TTL."
    assert [x.snippet for x in B.check_prompt(synth, d, "security-analyst")] == [
        "the synthesis-lead's rationale for its preferred approach (100% of its wording)"
    ]


def test_approaches_out_of_the_neutral_order_or_missing():
    d = delib()
    order = B.neutral_order(d)
    wrong = list(reversed(order))
    prompt = "\n".join(["Approaches:"] + [f"- {a}: {t}" for a, t in zip(wrong, ("x", "y", "z"))])
    [leak] = B.check_prompt(prompt, d, "security-analyst")
    assert leak.kind == "order" and leak.snippet == (f"listed {', '.join(wrong)}; the neutral order is {', '.join(order)}")
    two = "\n".join(["Approaches:"] + [f"{i + 1}. {a} — option" for i, a in enumerate(order[:2])])
    [leak] = B.check_prompt(two, d, "security-analyst")
    assert leak.snippet == f"2 of 3 approaches listed: {order[2]} missing"


def test_negations_the_question_own_persona_and_measurements_are_not_leaks():
    d = delib()
    assert kinds("No approach is leading and you do not see the others' verdicts.") == []
    assert kinds("You are the Security Analyst: give your verdict (approve or reject) and your preferred approach.") == []
    assert kinds("Reads average 41 ms; the p99 is 108 ms; three replicas cost 4.1k a month.") == []
    assert kinds("Option B (2.5 ms p99) and C: 3.5 GB of memory; A at 1.5x the cost.") == []
    assert kinds("Score the synthesis-lead's approaches; red-team notes: none.") == []
    d.question = "Which option do the reviewers favour, and should the leading vendor's cache be used?"
    assert B.check_prompt(f"Question: {d.question}\nRank every approach.", d, "security-analyst") == []


def test_deny_reason_says_what_leaked_and_what_to_send_instead():
    d = delib()
    leaks = B.check_prompt("Leading: A. The performance-engineer approved A.", d, "security-analyst")
    text = B.deny_reason(leaks, d)
    assert text.startswith(
        'Blind ranking: this RANKING prompt carries which approach leads: "Leading: A"; '
        'other agents\' verdicts or preferences: "The performance-engineer approved A"'
    )
    assert "Re-spawn with the question, the shared context and the approaches below" in text
    assert B.approach_list(d) in text and "computes the leader after the vote" in text
