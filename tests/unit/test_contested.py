"""contested: the approaches and dimensions a vote contests and each dissenter's concern, bounded."""

from __future__ import annotations

from deliberation.core import contested as ct
from deliberation.core.ranking import rank
from tests.helpers import payloads as P

W = {"correctness": 0.30, "risk": 0.25, "maintainability": 0.20, "performance": 0.15, "cost": 0.10}
ABOUT_A = {"target": "A", "concern": "JWTs cannot be revoked before they expire", "reason": "no denylist planned"}
ABOUT_C = {"target": "C", "concern": "C doubles the ops load", "reason": "two stores to run"}


def split_vote():
    agents = [
        P.agent_record(
            "security-analyst",
            "ranking",
            P.ranking_json({"A": (8, 9, 8, 7, 7), "B": (6, 5, 6, 6, 6)}, preferred="A"),
            key="k-sec",
        ),
        P.agent_record(
            "performance-engineer",
            "ranking",
            P.ranking_json({"A": (8, 8, 8, 8, 8), "B": (6, 6, 6, 7, 6)}, preferred="A"),
            key="k-perf",
        ),
        P.agent_record(
            "reliability-engineer",
            "ranking",
            P.ranking_json({"A": (7, 3, 7, 7, 7), "B": (8, 8, 7, 7, 7)}, preferred="B", dissent=[ABOUT_C, ABOUT_A]),
            key="k-rel",
        ),
        P.agent_record(
            "devils-advocate",
            "ranking",
            P.ranking_json({"A": (6, 4, 6, 6, 6), "B": (5, 5, 5, 5, 5)}, verdict="reject", dissent=[ABOUT_A]),
            key="k-da",
        ),
    ]
    d = P.make_deliberation(agents, task_type="security")
    d.ranking = rank(d.agents, W)
    return d


def test_contested_names_the_split_the_divergent_dimensions_and_each_dissenter():
    d = split_vote()
    c = ct.contested(d)
    assert c.leader == "A" and c.band == "weak"
    assert [(s.approach, s.rankers) for s in c.split] == [("A", 2), ("(adopt none)", 1), ("B", 1)]
    # A's risk: 9, 8 against 3 and 4 — the dimension the panel reads most differently
    top = c.dimensions[0]
    assert (top.approach, top.dimension, top.low, top.high, top.spread) == ("A", "risk", 3.0, 9.0, 6.0)
    assert top.low_by == ("reliability-engineer",) and top.high_by == ("security-analyst",)
    # weighted scores: B 5.0-7.55 diverges a little more than A 5.5-8.0
    assert [(x.approach, x.dimension, x.spread) for x in c.approaches] == [("B", "weighted", 2.55), ("A", "weighted", 2.5)]
    assert [(x.persona, x.preferred) for x in c.dissenters] == [
        ("devils-advocate", "(adopt none)"),
        ("reliability-engineer", "B"),
    ]
    rel = c.dissenters[1]
    assert rel.concerns[0].target == "A" and rel.concerns[0].concern.startswith("JWTs cannot be revoked")
    assert rel.margin is not None and rel.margin < 0
    assert c.to_json()["dissenters"][1]["persona"] == "reliability-engineer"


def test_bounded():
    d = split_vote()
    assert len(ct.contested(d, top=2).dimensions) == 2
    assert len(ct.contested(d).dimensions) <= ct.DEFAULT_TOP
    long = {"target": "A", "concern": "x " * 400, "reason": "y " * 400}
    d.agents[2].report.dissent = P.agent_record("z", "ranking", {"dissent": [long] * 5}).report.dissent
    rel = next(x for x in ct.contested(d).dissenters if x.persona == "reliability-engineer")
    assert len(rel.concerns) == ct.MAX_CONCERNS and all(len(c.concern) <= ct.CLIP for c in rel.concerns)


def test_deterministic_and_agreement_contests_nothing_of_the_vote():
    assert ct.contested(split_vote()) == ct.contested(split_vote())
    agree = [
        P.agent_record(p, "ranking", P.ranking_json({"A": (8,) * 5, "B": (6,) * 5}, preferred="A"), key=p)
        for p in ("security-analyst", "cost-analyst")
    ]
    d = P.make_deliberation(agree)
    d.ranking = rank(d.agents, W)
    c = ct.contested(d)
    assert c.dissenters == () and c.dimensions == () and [s.approach for s in c.split] == ["A"]
    assert ct.contested(P.make_deliberation([])).leader is None
