"""Complete deliberations through the real hook scripts (subprocesses), foreground mode."""

from __future__ import annotations

import json

from tests import payloads as P

QUESTION = ("Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
            "given the irreversible data migration and the production risk?")
APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a maintenance window"),
              ("C", "Keep MySQL and shard the orders table")]


def write_config(project, cfg: dict) -> None:
    d = project / ".claude" / "deliberation"
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg))


def load_delib(project, did=None):
    files = sorted((project / ".claude" / "deliberation" / "deliberations").glob("*.json"))
    assert files, "no deliberation file"
    path = files[-1] if did is None else project / ".claude" / "deliberation" / "deliberations" / f"{did}.json"
    return json.loads(path.read_text())


def research(s: P.Session) -> None:
    for persona, claims in (
        ("security-analyst", ["Dual-write doubles the credentials surface for the orders database"]),
        ("performance-engineer", ["Dual-write adds about 8 ms p99 latency to order placement"]),
        ("cost-analyst", ["A maintenance window of 6 hours costs about 40k in lost orders"]),
    ):
        out = s.foreground(persona, f"Research the question from your perspective: {QUESTION}",
                           P.research_report(persona, claims, APPROACHES[:2]))
        assert out["pre"].decision is None, out["pre"].reason
        assert out["stop"].decision is None, out["stop"].reason


def rank(s: P.Session, table: dict) -> list:
    outs = []
    for persona, (scores, verdict, preferred, dissent) in table.items():
        outs.append(s.foreground(persona, "Rank approaches A, B, C on the five dimensions.",
                                 P.ranking_report(scores, verdict, preferred, f"{persona}: own reasons about {preferred}",
                                                  dissent)))
    return outs


GOOD = {
    "security-analyst": ({"A": (9, 8, 8, 7, 6), "B": (7, 4, 7, 8, 8), "C": (6, 7, 5, 6, 7)}, "approve", "A", []),
    "performance-engineer": ({"A": (8, 8, 8, 6, 7), "B": (7, 5, 7, 9, 8), "C": (5, 7, 5, 5, 6)}, "approve", "A", []),
    "cost-analyst": ({"A": (9, 9, 8, 8, 5), "B": (6, 4, 6, 7, 9), "C": (7, 6, 6, 6, 6)}, "approve", "A", []),
}


def test_foreground_deliberation_passes_both_gates(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    research(s)
    d = load_delib(project)
    assert d["phase"] == "RESEARCH"
    assert d["question"] == QUESTION
    out = s.foreground("synthesis-lead", "Merge all findings into alternatives", P.synthesis_report(APPROACHES))
    assert out["post"].decision is None
    outs = rank(s, GOOD)
    last = outs[-1]["post"]
    assert last.decision is None, last.reason
    assert "consensus gate passed" in last.context
    res = s.stop()
    assert res.decision is None, res.reason
    assert "COMPLETE" in res.system_message
    d = load_delib(project)
    assert d["phase"] == "COMPLETE"
    assert d["decision"] == "A"
    assert d["gate1"]["passed"] and d["gate2"]["passed"]
    assert (project / ".claude" / "deliberation" / "records" / f"{d['id']}.md").exists()
    phases = [c["to_phase"] for c in d["phase_history"]]
    assert phases == ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]
