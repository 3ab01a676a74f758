"""Hook flows the integration tests share: a foreground deliberation (its question, approaches,
the research and ranking waves) and the gates' flows (a start, two research personas, a vote)."""

from __future__ import annotations

from tests.helpers import payloads as P
from tests.helpers.project import write_config

# -- a foreground deliberation (tests/integration/test_deliberation_flow.py) ------------------

QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
APPROACHES = [
    ("A", "Dual-write for two weeks, then cut over"),
    ("B", "Big-bang migration in a maintenance window"),
    ("C", "Keep MySQL and shard the orders table"),
]


def research(s: P.Session) -> None:
    for persona, claims in (
        ("security-analyst", ["Dual-write doubles the credentials surface for the orders database"]),
        ("performance-engineer", ["Dual-write adds about 8 ms p99 latency to order placement"]),
        ("cost-analyst", ["A maintenance window of 6 hours costs about 40k in lost orders"]),
    ):
        out = s.foreground(
            persona,
            f"Research the question from your perspective: {QUESTION}",
            P.research_report(persona, claims, APPROACHES[:2]),
        )
        assert out["pre"].decision is None, out["pre"].reason
        assert out["stop"].decision is None, out["stop"].reason


def rank(s: P.Session, table: dict) -> list:
    outs = []
    for persona, (scores, verdict, preferred, dissent) in table.items():
        outs.append(
            s.foreground(
                persona,
                "Rank approaches A, B, C on the five dimensions.",
                P.ranking_report(scores, verdict, preferred, f"{persona}: own reasons about {preferred}", dissent),
            )
        )
    return outs


GOOD: "dict[str, tuple]" = {
    "security-analyst": ({"A": (9, 8, 8, 7, 6), "B": (7, 4, 7, 8, 8), "C": (6, 7, 5, 6, 7)}, "approve", "A", []),
    "performance-engineer": ({"A": (8, 8, 8, 6, 7), "B": (7, 5, 7, 9, 8), "C": (5, 7, 5, 5, 6)}, "approve", "A", []),
    "cost-analyst": ({"A": (9, 9, 8, 8, 5), "B": (6, 4, 6, 7, 9), "C": (7, 6, 6, 6, 6)}, "approve", "A", []),
}


# -- the gates' flows (tests/integration/test_gates_flow.py) ----------------------------------

GATES_QUESTION = (
    "Should the payments service move its session store from Redis to Postgres, given "
    "the irreversible cut-over and the production risk?"
)
HARD = (
    "We are unsure which approach fits: should we redesign the architecture of our auth system and "
    "migrate all customer data irreversibly in production, depending on how legacy clients behave?"
)
TWO = [("A", "Move sessions to Postgres"), ("B", "Keep Redis with replication")]


def gate_research(s, personas=("security-analyst", "performance-engineer"), approaches=TWO, verdicts=None):
    for i, persona in enumerate(personas):
        verdict = (verdicts or {}).get(persona, "abstain")
        msg = P.fenced(
            {
                "phase": "research",
                "findings": [
                    {"id": "F1", "claim": f"{persona} claim {i}: sessions hold PII", "evidence": f"src/session_{i}.py:10"}
                ],
                "approaches": [{"id": a, "title": t} for a, t in approaches],
                "verdict": verdict,
                "confidence": 0.5,
                "rationale": f"{persona} view",
            }
        )
        out = s.foreground(persona, f"Research independently: {GATES_QUESTION}", msg)
        assert out["pre"].decision is None, out["pre"].reason


def gate_rank(s, table):
    outs = []
    for persona, (scores, verdict, preferred, dissent) in table.items():
        outs.append(
            s.foreground(
                persona,
                "Rank every approach on the five dimensions.",
                P.ranking_report(scores, verdict, preferred, f"{persona}: because {preferred}", dissent),
            )
        )
    return outs


HIGH: "dict[str, tuple]" = {
    "security-analyst": ({"A": (9, 8, 8, 8, 7), "B": (6, 6, 6, 6, 6)}, "approve", "A", []),
    "performance-engineer": ({"A": (8, 8, 9, 8, 8), "B": (6, 5, 6, 7, 6)}, "approve", "A", []),
}


def start(project, hook, cfg=None, prompt=GATES_QUESTION):
    write_config(project, {"depth": {"posture": "off"}, **(cfg or {})})
    s = P.Session(hook)
    s.prompt(prompt)
    return s


def failed_checks(gate: dict) -> "dict[str, str]":
    return {c["name"]: c["figure"] for c in gate["checks"] if not c["passed"]}


# -- the obedient main agent's question (tests/integration/test_next_step_flow.py) -------------

OBEDIENT_QUESTION = (
    "should the order service cache product prices in each node or keep reading them from "
    "the pricing database? The latency, cost and staleness trade-offs are unclear, the choice "
    "is hard to reverse and depends on load we have not measured."
)


# -- a short deliberation, synthesis included (tests/reliability: liveness, a hostile project) --

TWO_APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a window")]
RESEARCH_CLAIMS = {
    "security-analyst": "Dual-write doubles the credentials surface for the orders database",
    "performance-engineer": "Dual-write adds about 8 ms p99 latency to order placement",
    "cost-analyst": "A maintenance window of 6 hours costs about 40k in lost orders",
}
TWO_GOOD = {
    "security-analyst": {"A": (9, 8, 8, 7, 6), "B": (7, 4, 7, 8, 8)},
    "performance-engineer": {"A": (8, 8, 8, 6, 7), "B": (7, 5, 7, 9, 8)},
    "cost-analyst": {"A": (9, 9, 8, 8, 5), "B": (6, 4, 6, 7, 9)},
}
TWO_SPLIT = {
    "security-analyst": ({"A": (9, 8, 8, 7, 6), "B": (4, 3, 5, 6, 6)}, "approve", "A", []),
    "performance-engineer": (
        {"A": (3, 3, 4, 2, 5), "B": (8, 7, 7, 9, 8)},
        "reject",
        "B",
        [{"target": "A", "concern": "dual-write latency", "reason": "8 ms p99"}],
    ),
    "cost-analyst": ({"A": (6, 5, 6, 6, 4), "B": (7, 6, 6, 7, 8)}, "approve", "B", []),
}


def deliberate(s: P.Session, split: bool = False) -> list:
    """Prompt, 3 research reports, synthesis, 3 rankings (TWO_GOOD or TWO_SPLIT); returns every answer."""
    answers = [s.prompt(QUESTION)]
    for persona, claim in RESEARCH_CLAIMS.items():
        answers += list(
            _results(s.foreground(persona, f"Research: {QUESTION}", P.research_report(persona, [claim], TWO_APPROACHES)))
        )
    answers += list(
        _results(s.foreground("synthesis-lead", "Merge the findings\n" + s.findings(), P.synthesis_report(TWO_APPROACHES)))
    )
    for persona in RESEARCH_CLAIMS:
        if split:
            scores, verdict, preferred, dissent = TWO_SPLIT[persona]
            text = P.ranking_report(scores, verdict, preferred, f"{persona} reasons", dissent)
        else:
            text = P.ranking_report(TWO_GOOD[persona], "approve", "A", f"{persona}: own reasons about A")
        answers += list(_results(s.foreground(persona, "Rank approaches A and B.", text)))
    return answers


def _results(out: dict):
    return (v for k, v in out.items() if k != "agent_id")


# a background research wave: the question, the approaches its reports propose, one finding per persona
CACHE_QUESTION = (
    "Should the order service cache product prices in each node? The latency and staleness "
    "trade-offs are unclear and the choice is hard to reverse."
)
CACHE_APPROACHES = [("A", "Per-node cache with a TTL"), ("B", "Keep reading from the pricing database")]
CACHE_PANEL = {
    "security-analyst": "A per-node cache serves withdrawn promotion prices",
    "performance-engineer": "Price reads are 38 % of checkout p99",
    "cost-analyst": "Two more read replicas cost 4.1k a month",
}


def launch_background(project, hook, question: str, personas, config: "dict | None" = None):
    """A session whose prompt is `question` and whose main agent launched one background research
    agent per persona (PreToolUse → SubagentStart → the Agent call's async PostToolUse), with
    `config` (depth off by default). Returns the session and [(persona, tool_use_id, agent_id)]."""
    write_config(project, {"depth": {"posture": "off"}, **(config or {})})
    s = P.Session(hook)
    s.prompt(question)
    launched = []
    for persona in personas:
        tuid, aid = s._ids(persona)
        prompt = f"Research: {question}"
        assert s.hook("PreToolUse", P.pre_agent(s.sid, tuid, persona, prompt, background=None)).decision is None
        s.hook("SubagentStart", P.subagent_start(s.sid, aid, persona))
        s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, persona, prompt))
        launched.append((persona, tuid, aid))
    return s, launched
