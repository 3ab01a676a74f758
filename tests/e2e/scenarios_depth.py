"""Scripted deliberations for the depth axis and escalation.

`StagedDeliberation` is a main agent that walks a deliberation one wave of FOREGROUND spawns at a
time and a panel of subagents that answer from a `Script` of reports:

    research → synthesis → red team 1 → [depth instruction] → a lens WITHOUT the floor (denied)
    → the three lenses with the prompts copied from the instruction → red team 2 → ranking
    → [consensus gate block] → re-rank of the dissenters → final answer

Every wave is tagged in the Agent call's `description` (`wave:<name>`), so the scenario reads
its progress from the request (`waves_done`) and never from counters. The plugin's texts drive
the branches: the lenses are spawned only when the depth instruction reached the model, their
prompts are parsed out of that instruction (`instruction_prompts`), red team 2 only after its
instruction arrived, a re-rank only when a consensus-gate block reached the model.

`BreadthDeliberation` is the short version (research → ranking, for `depth.posture = "off"`)
used to build a decision history for the escalation scenario, and `EditFile` a main agent that
reads then edits one file (the risky tool a pending review gates).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from fake_api import ApiRequest, ReplyLike, agent_call, text, tool_use
from harness import agent_type
from scenarios import Scenario, agent_outcomes, agent_spawns, citable_ids, concluding_answer, report, report_message
from scenarios_gates import approach_listing
from deliberation import catalogue

WAVE = re.compile(r"^wave:([a-z0-9-]+)")
TAG = re.compile(r"^(PERSONA|PHASE): ?([a-z0-9-]+)$", re.M)
WORKER_BLOCK = re.compile(
    r"--- worker (\d+) of (\d+): subagent_type \"([a-z:-]+)\", hot spots ([^\n]*?) — prompt: these lines, "
    r"then the shared part:\n(.*?)\n--- end of worker \1 prompt",
    re.S,
)
SHARED_PART = re.compile(
    r"--- the shared part, the same at the end of every worker's prompt:\n(.*?)\n"
    r"--- end of the shared part",
    re.S,
)
LENS_TITLES = {"Evidence Chase": "evidence-chase", "Counter-Model": "counter-model", "Edge-Case Hunt": "edge-case-hunt"}
DEPTH_INSTRUCTION = "Depth axis: the red-team pass left"
RED_TEAM_2_INSTRUCTION = "Depth axis — red team 2:"
CONSENSUS_BLOCK = "consensus gate FAILED"
FLOORLESS_PROMPT = (
    "Dig into H1: check whether approach A really removes the session lookup. "
    "The panel already agrees on A, so confirm it quickly."
)


# --------------------------------------------------------------------------- what the agents say


@dataclass
class Script:
    """The reports of one scripted deliberation. Ranking rounds: round 1 is every persona in
    `ranking`; `rerank` holds the report of a persona spawned again after a gate block."""

    question: str
    research: "dict[str, dict]"
    synthesis: dict
    red_team_1: dict
    lenses: "dict[str, dict]"
    red_team_2: dict
    ranking: "dict[str, dict]"
    rerank: "dict[str, dict]" = field(default_factory=dict)
    final_text: str = "Decision recorded with its dissent."
    probe_floorless: bool = True
    document: "dict | None" = None  # the decision document the main agent writes when asked


DIMENSIONS = tuple(d.name for d in catalogue.DIMENSIONS)  # the catalogue's


def scores(a: "float | dict", b: "float | dict") -> dict:
    """Approach A's and B's scores: a number scores every dimension alike (weighted score = that
    number), a dict gives each dimension its own."""

    def per(x: "float | dict") -> dict:
        return dict(x) if isinstance(x, dict) else {d: x for d in DIMENSIONS}

    return {"A": per(a), "B": per(b)}


def dims(correctness: float, risk: float, maintainability: float, performance: float, cost: float) -> dict:
    return {
        "correctness": correctness,
        "risk": risk,
        "maintainability": maintainability,
        "performance": performance,
        "cost": cost,
    }


APPROACHES = [
    {
        "id": "A",
        "title": "Short-lived JWT plus deny list",
        "summary": "15-minute access tokens, refresh rotation, revocation through a deny list.",
    },
    {
        "id": "B",
        "title": "Keep server sessions on a pooled store",
        "summary": "Status quo with the session store client's connection pool enlarged.",
    },
]

SECURITY_RESEARCH = report(
    summary="Revocation is the weak point of stateless tokens.",
    findings=[
        {
            "id": "F1",
            "claim": "Revoking a stateless token needs a server-side deny list checked on every request.",
            "evidence": "src/auth/session.py:42",
            "severity": "high",
        }
    ],
    approaches=APPROACHES,
    verdict="approve",
    preferred_approach="A",
    confidence=0.7,
    rationale="A keeps revocation through the deny list while dropping the session table.",
)
PERFORMANCE_RESEARCH = report(
    summary="Session lookups cost 4 ms at p99 on every authenticated request.",
    findings=[
        {
            "id": "F1",
            "claim": "The session store lookup adds 4 ms at p99 to every authenticated request.",
            "evidence": "bench/session_p99.txt",
            "severity": "medium",
        }
    ],
    approaches=APPROACHES,
    verdict="approve",
    preferred_approach="A",
    confidence=0.75,
    rationale="A takes the session store off the hot path.",
)
COST_RESEARCH = report(
    summary="The session store cluster is the largest line of the auth budget.",
    findings=[
        {
            "id": "F1",
            "claim": "The session store cluster costs 2,400 USD a month; approach A would retire it.",
            "evidence": "billing/2026-10.csv:17",
            "severity": "medium",
        }
    ],
    approaches=APPROACHES,
    verdict="approve",
    preferred_approach="A",
    confidence=0.65,
    rationale="A retires a cluster we pay for every month.",
)
SYNTHESIS = report(
    phase="deliberation",
    summary="The panel converges on short-lived JWT plus a deny list: it removes the session store "
    "from the hot path and keeps revocation.",
    findings=[],
    approaches=APPROACHES,
    verdict="approve",
    preferred_approach="A",
    confidence=0.75,
    rationale="Both research reports back A; B is the fallback.",
)
RED_TEAM_1 = report(
    phase="deliberation",
    summary="A's latency claim does not survive the middleware code.",
    findings=[],
    approaches=[],
    verdict="abstain",
    preferred_approach=None,
    confidence=0.6,
    rationale="The converged point rests on an unchecked assumption.",
    refutations=[
        {
            "target": "A",
            "verdict": "refuted",
            "claim": "Approach A still consults the deny list in the shared store on every request, "
            "so the lookup stays on the hot path.",
            "evidence": "src/auth/middleware.py:88 calls denylist.contains() for every request",
        }
    ],
    missed_angles=["Signing-key rotation and how long a leaked key stays valid were never examined."],
)
EVIDENCE_CHASE = report(
    phase="deliberation",
    summary="Traced the deny-list cost to the traces.",
    findings=[
        {
            "id": "F1",
            "claim": "Staging traces show the deny-list call at 3.8 ms p99 per request, the same cost as today's session lookup.",
            "evidence": "traces/staging-2026-11-20.json span auth.denylist p99 3.8 ms",
            "severity": "high",
        }
    ],
    approaches=[],
    verdict="abstain",
    preferred_approach=None,
    confidence=0.8,
    hot_spots=["H1"],
    rationale="Primary source checked.",
    refutations=[
        {
            "target": "A",
            "verdict": "refuted",
            "claim": "Approach A removes no latency: its deny-list check replaces the session lookup "
            "one for one on every request.",
            "evidence": "src/auth/middleware.py:88; traces/staging-2026-11-20.json span auth.denylist p99 3.8 ms",
        }
    ],
)
COUNTER_MODEL = report(
    phase="deliberation",
    summary="An alternative explanation of the 4 ms.",
    findings=[
        {
            "id": "F1",
            "claim": "The 4 ms p99 is connection-pool wait in the store client, not lookup work: "
            "a pool of 64 instead of 8 connections cut it to 0.6 ms in a load test.",
            "evidence": "loadtest/pool64.txt; src/auth/store.py:12 pool_size=8",
            "severity": "high",
        }
    ],
    approaches=[],
    verdict="abstain",
    preferred_approach=None,
    confidence=0.7,
    hot_spots=["H1", "H2"],
    rationale="The cheaper fix explains the measurement better.",
)
EDGE_CASE_HUNT = report(  # restates tier 1 only: the synthesis must count it as zero signal
    phase="deliberation",
    summary="Revocation remains the hard part.",
    findings=[
        {
            "id": "F1",
            "claim": "Revoking a stateless token needs a server-side deny list checked on every request.",
            "evidence": "src/auth/session.py:42",
            "severity": "high",
        }
    ],
    approaches=[],
    verdict="abstain",
    preferred_approach=None,
    confidence=0.5,
    hot_spots=["H1"],
    rationale="Nothing new.",
)
RED_TEAM_2 = report(
    phase="deliberation",
    summary="The tier-2 refute holds.",
    findings=[],
    approaches=[],
    verdict="abstain",
    preferred_approach=None,
    confidence=0.7,
    rationale="Checked the refute against the code.",
    refutations=[
        {
            "target": "evidence-chase:R1",
            "verdict": "upheld",
            "claim": "Every service mounts the same middleware, so the deny-list call is on every request.",
            "evidence": "services/*/main.py mount src/auth/middleware.py",
        }
    ],
)


def ranking_report(
    a: "float | dict",
    b: "float | dict",
    preferred: "str | None" = "B",
    verdict: str = "approve",
    dissent: "list | None" = None,
    rationale: str = "B keeps revocation simple and is cheaper.",
    confidence: float = 0.92,
) -> dict:
    """A ranking report; `a` and `b` are one score for every dimension or a score per dimension;
    `confidence` is the judge's own (T2 reads the approvers' mean)."""
    return report(
        phase="ranking",
        summary="Scored both approaches.",
        findings=[],
        approaches=[],
        scores=scores(a, b),
        verdict=verdict,
        preferred_approach=preferred,
        dissent=dissent or [],
        confidence=confidence,
        rationale=rationale,
    )


QUESTION = (
    "Deliberate before deciding: should our public API move from server-side sessions to "
    "short-lived JWT access tokens? Latency, revocation and the migration cost are unclear and "
    "it is hard to reverse."
)


def depth_script() -> Script:
    """Scenario 7a: two personas, the depth axis overrides approach A, both rank B."""
    return Script(
        question=QUESTION,
        research={"security-analyst": SECURITY_RESEARCH, "performance-engineer": PERFORMANCE_RESEARCH},
        synthesis=SYNTHESIS,
        red_team_1=RED_TEAM_1,
        lenses={"evidence-chase": EVIDENCE_CHASE, "counter-model": COUNTER_MODEL, "edge-case-hunt": EDGE_CASE_HUNT},
        red_team_2=RED_TEAM_2,
        ranking={"security-analyst": ranking_report(5.5, 9.0), "performance-engineer": ranking_report(6.0, 8.8)},
        final_text="Decision: keep server sessions on a pooled store (B); JWT plus deny list (A) was struck by the depth axis.",
    )


COST_CONCERN = [
    {
        "target": "B",
        "concern": "B keeps paying for the session store cluster.",
        "reason": "billing/2026-10.csv:17: 2,400 USD a month that approach A would have retired.",
    }
]


DEMO_DOCUMENT = {
    "document": "prd",
    "decision": "Keep server sessions and enlarge the session store client's connection pool from 8 to 64 (B). "
    "Short-lived JWT plus a deny list (A) is not adopted: its deny-list check stays on every request, "
    "so it removes no latency while making revocation harder.",
    "problem": "Every authenticated request pays about 4 ms at p99 for the session lookup; moving to JWT access "
    "tokens was proposed to remove it, with revocation and migration cost unclear.",
    "requirements": [
        {
            "id": "R1",
            "text": "Raise the session store client's pool from 8 to 64 connections.",
            "priority": "must",
            "sources": ["counter-model:F1", "performance-engineer:F1"],
        },
        {
            "id": "R2",
            "text": "Revocation stays server-side: a revoked session is refused on its next request.",
            "priority": "must",
            "sources": ["security-analyst:F1"],
        },
        {
            "id": "R3",
            "text": "Report the session store cluster's monthly cost next to its p99 latency.",
            "priority": "should",
            "sources": ["cost-analyst:F1", "cost-analyst:D1"],
        },
    ],
    "non_goals": [
        {
            "text": "Stateless access tokens: the deny list would keep a store lookup on every request.",
            "sources": ["evidence-chase:F1", "red-team:R1"],
        }
    ],
    "acceptance_criteria": [
        {
            "id": "AC1",
            "text": "In the staging load test, the session lookup's p99 is at most 1 ms (today 4 ms).",
            "verifies": ["R1"],
            "sources": ["counter-model:F1"],
        },
        {
            "id": "AC2",
            "text": "An integration test revokes a session and gets 401 on the next request.",
            "verifies": ["R2"],
            "sources": ["security-analyst:F1"],
        },
    ],
    "risks": [
        {
            "id": "RISK1",
            "risk": "The pool fix was measured on staging only and may not hold at production load.",
            "mitigation": "Roll out behind a canary with a p99 alert at 2 ms.",
            "severity": "medium",
            "sources": ["counter-model:F1", "H1"],
        },
        {
            "id": "RISK2",
            "risk": "The session store cluster keeps costing 2,400 USD a month.",
            "mitigation": "Revisit at the next budget review with the measured p99.",
            "severity": "low",
            "sources": ["cost-analyst:D1"],
        },
    ],
    "open_questions": [
        {
            "question": "If stateless tokens are revisited, how would signing keys rotate, and how long would a "
            "leaked key stay valid?",
            "sources": ["H2"],
        }
    ],
}


# The demo's panel scores each dimension on its own (weights for security: correctness 0.30,
# risk 0.25, maintainability 0.20, performance 0.15, cost 0.10). Weighted scores: the security
# analyst A 5.65 / B 8.70, the performance engineer A 6.13 / B 8.60, the cost analyst A 8.60 /
# B 8.53 — it prefers A by its scores, by a hair (cost 9.5 against 6), and names no preferred
# approach, so it dissents with little weight (consensus 2 / (2 + 0.075 + 0.2) = 0.88 ≥ 0.85; a
# dissent it stated would weigh at least 0.5), and B's three scores lie within 0.3.
DEMO_COST_SCORES = (dims(8.5, 8.5, 8.5, 8.5, 9.5), dims(9.0, 9.0, 8.5, 8.5, 6.0))
DEMO_COST_RATIONALE = "A is cheaper to run once the store is gone; on the rest B is as good or slightly better."
DEMO_RANKING = {
    "security-analyst": ranking_report(
        dims(6.0, 4.0, 6.0, 7.0, 6.0),
        dims(9.5, 9.0, 8.5, 8.0, 7.0),
        rationale="B keeps revocation server-side; A's deny list is a second store with the same lookup.",
    ),
    "performance-engineer": ranking_report(
        dims(6.5, 5.5, 6.0, 6.0, 7.0),
        dims(9.0, 8.5, 8.0, 9.5, 7.5),
        rationale="The pool fix removes the queueing that makes the p99; A keeps a lookup per request.",
    ),
    "cost-analyst": ranking_report(*DEMO_COST_SCORES, preferred=None, rationale=DEMO_COST_RATIONALE),
}


def demo_script() -> Script:
    """The demo: three personas; depth overrides A; the cost analyst still prefers A and
    first ranks without saying why (consensus gate blocks), then documents its concern; the
    scores cluster within 0.3 (conformity warning); the vote is split (the cost analyst's
    dissent), so rule D sends the decision to human review."""
    return Script(
        question=QUESTION,
        research={
            "security-analyst": SECURITY_RESEARCH,
            "performance-engineer": PERFORMANCE_RESEARCH,
            "cost-analyst": COST_RESEARCH,
        },
        synthesis=SYNTHESIS,
        red_team_1=RED_TEAM_1,
        lenses={"evidence-chase": EVIDENCE_CHASE, "counter-model": COUNTER_MODEL, "edge-case-hunt": EDGE_CASE_HUNT},
        red_team_2=RED_TEAM_2,
        ranking=DEMO_RANKING,
        rerank={
            "cost-analyst": ranking_report(*DEMO_COST_SCORES, preferred=None, dissent=COST_CONCERN, rationale=DEMO_COST_RATIONALE)
        },
        final_text="Decision: keep server sessions on a pooled store (B). JWT plus deny list (A) was struck by "
        "the depth axis; the cost analyst's preference for A is recorded as dissent.",
        document=DEMO_DOCUMENT,
    )


# --------------------------------------------------------------------------- request questions


def waves_done(req: ApiRequest) -> "dict[str, list[dict]]":
    """wave name → the Agent calls of that wave issued so far."""
    out: dict[str, list[dict]] = {}
    for spawn in agent_spawns(req):
        m = WAVE.match(spawn.get("input", {}).get("description", ""))
        if m:
            out.setdefault(m.group(1), []).append(spawn)
    return out


def wave_outcomes(req: ApiRequest, wave: str) -> "list[str]":
    outcomes = agent_outcomes(req)
    return [outcomes.get(s["id"], "pending") for s in waves_done(req).get(wave, [])]


def instruction_prompts(text_seen: str) -> "list[tuple[str, str]]":
    """(subagent_type, prompt) of every worker block of the depth instruction in `text_seen`."""
    shared = SHARED_PART.findall(text_seen)  # each worker's prompt: its own lines, then the shared part
    return [(m.group(3), m.group(5) + "\n" + (shared[-1] if shared else "")) for m in WORKER_BLOCK.finditer(text_seen)]


def research_findings(script: Script) -> str:
    """Every research finding with its evidence (what a synthesis prompt must carry)."""
    return "Findings of every research agent:\n" + "\n".join(
        f"- {slug}:{f['id']}: {f['claim']} (evidence: {f['evidence']})"
        for slug, r in script.research.items()
        for f in r["findings"]
    )


def tags(req: ApiRequest) -> "dict[str, str]":
    return {k: v for k, v in TAG.findall(req.agent_prompt)}


def lens_of(req: ApiRequest) -> "str | None":
    head = req.agent_prompt.split("\n", 1)[0]
    if not head.startswith("You are a fresh tier-2 worker"):
        return None
    return next((slug for title, slug in LENS_TITLES.items() if title in head), None)


# --------------------------------------------------------------------------- the scenarios


class StagedDeliberation(Scenario):
    """The main agent walks the waves of `script` (see the module docstring); subagents answer
    from the script by their prompt's PERSONA/PHASE tags (lenses by their instruction prompt)."""

    def __init__(self, script: Script, mode: str = "install") -> None:
        self.script = script
        self.mode = mode

    # -- main agent ------------------------------------------------------------------------

    def spawn(self, wave: str, slug: str, prompt: str, raw_type: "str | None" = None) -> dict:
        return agent_call(
            prompt=prompt,
            subagent_type=raw_type or agent_type(slug, self.mode),
            description=f"wave:{wave} {slug}",
            run_in_background=False,
        )

    def tagged(self, slug: str, phase: str, body: str) -> str:
        return f"PERSONA: {slug}\nPHASE: {phase}\nQuestion: {self.script.question}\n{body}"

    def main(self, req: ApiRequest) -> ReplyLike:
        done = waves_done(req)
        if any(v == "pending" for v in agent_outcomes(req).values()):
            return "Waiting for the agents to report."
        s = self.script
        if "research" not in done:
            return [text("I will consult the personas independently.")] + [
                self.spawn(
                    "research", slug, self.tagged(slug, "research", "Work independently; end with one fenced JSON report.")
                )
                for slug in s.research
            ]
        if "synthesis" not in done:
            return [
                text("Research is in; synthesising."),
                self.spawn(
                    "synthesis",
                    "synthesis-lead",
                    self.tagged(
                        "synthesis-lead",
                        "deliberation",
                        "Merge all research findings into alternatives.\n" + research_findings(s),
                    ),
                ),
            ]
        if "red-team-1" not in done:
            return [
                text("One red-team pass over the synthesis."),
                self.spawn(
                    "red-team-1",
                    "red-team",
                    self.tagged("red-team", "red-team-1", "Break the converged point; list missed angles."),
                ),
            ]
        seen = req.all_text
        workers = instruction_prompts(seen)
        if workers and s.probe_floorless and "floorless" not in done:
            return [text("Deepening H1 quickly."), self.spawn("floorless", "evidence-chase", FLOORLESS_PROMPT)]
        if workers and "lenses" not in done:
            return [text("Spawning the tier-2 lenses exactly as instructed.")] + [
                self.spawn("lenses", slug, prompt, raw_type=self.lens_type(slug)) for slug, prompt in workers
            ]
        if RED_TEAM_2_INSTRUCTION in seen and "red-team-2" not in done:
            return [
                text("Red team 2 over the tier-2 findings."),
                self.spawn(
                    "red-team-2",
                    "red-team",
                    self.tagged("red-team", "red-team-2", "Review the tier-2 findings listed by the plugin."),
                ),
            ]
        listing = approach_listing(seen) or "Approaches: A and B."
        if "ranking" not in done and (RED_TEAM_2_INSTRUCTION in seen or not workers):
            return [text("Ranking every approach (blind: the plugin's list, nothing of the vote).")] + [
                self.spawn(
                    "ranking", slug, self.tagged(slug, "ranking", f"{listing}\nScore every approach on the five dimensions.")
                )
                for slug in s.ranking
            ]
        if CONSENSUS_BLOCK in req.new_text and s.rerank and "rerank" not in done:
            return [text("Re-ranking the dissenters with their concerns documented.")] + [
                self.spawn(
                    "rerank",
                    slug,
                    self.tagged(
                        slug,
                        "ranking",
                        f"{listing}\nDocument your dissent with reasons: a concern for each approach you would not adopt.",
                    ),
                )
                for slug in s.rerank
            ]
        return self.conclude(req)

    def conclude(self, req: ApiRequest) -> ReplyLike:
        """The concluding answer: the decision, and — once the plugin asked for it — the decision
        document (the script's own, or one built from the ids the request listed)."""
        s = self.script
        if s.document is not None and citable_ids(req.all_text):
            return f"{s.final_text}\n\n```json\n{json.dumps(s.document, indent=1)}\n```"
        return concluding_answer(s.final_text, req)

    def lens_type(self, slug: str) -> str:
        """The subagent_type exactly as the instruction wrote it (namespaced in plugin mode)."""
        return slug

    # -- subagents -------------------------------------------------------------------------

    def subagent(self, req: ApiRequest) -> ReplyLike:
        s = self.script
        lens = lens_of(req)
        if lens is not None:
            return report_message(s.lenses[lens], prose=f"{lens} findings.")
        t = tags(req)
        slug, phase = t.get("PERSONA"), t.get("PHASE")
        data = None
        if slug == "synthesis-lead":
            data = s.synthesis
        elif phase == "red-team-1":
            data = s.red_team_1
        elif phase == "red-team-2":
            data = s.red_team_2
        elif phase == "research":
            data = s.research.get(slug or "")
        elif phase == "ranking":
            reranked = "Document your dissent" in req.agent_prompt
            data = (s.rerank if reranked else s.ranking).get(slug or "")
        if data is None:
            return f"I have no scripted report (prompt: {req.agent_prompt[:80]!r})."
        return report_message(data, prose=f"{slug} {phase} report.")


class BreadthDeliberation(StagedDeliberation):
    """research → ranking only (the config sets `depth.posture = "off"`)."""

    def main(self, req: ApiRequest) -> ReplyLike:
        done = waves_done(req)
        if any(v == "pending" for v in agent_outcomes(req).values()):
            return "Waiting for the agents to report."
        s = self.script
        if "research" not in done:
            return [text("Two independent personas first.")] + [
                self.spawn("research", slug, self.tagged(slug, "research", "Work independently.")) for slug in s.research
            ]
        if "ranking" not in done:
            return [text("Ranking.")] + [
                self.spawn("ranking", slug, self.tagged(slug, "ranking", "Score A and B.")) for slug in s.ranking
            ]
        return self.conclude(req)


def breadth_script(b_scores: "tuple[float, float]" = (9.5, 9.5)) -> Script:
    """A unanimous breadth-only pass on B (security/auth): consensus 2 / 2.2 = 0.9091 with the
    default scores (both prefer B by 4.5 points)."""
    return Script(
        question=QUESTION,
        research={"security-analyst": SECURITY_RESEARCH, "performance-engineer": PERFORMANCE_RESEARCH},
        synthesis={},
        red_team_1={},
        lenses={},
        red_team_2={},
        ranking={"security-analyst": ranking_report(5.0, b_scores[0]), "performance-engineer": ranking_report(5.0, b_scores[1])},
        final_text="Decision: keep server sessions on a pooled store (B).",
    )


class EditFile(Scenario):
    """The main agent reads `path`, then edits `old` → `new` in it, then answers with what the
    Edit's tool result said (so a test sees how the client surfaced a permission decision)."""

    def __init__(self, path: str, old: str, new: str) -> None:
        self.path, self.old, self.new = path, old, new

    def main(self, req: ApiRequest) -> ReplyLike:
        used = [u["name"] for u in req.tool_uses]
        if "Read" not in used:
            return [text("Reading the file first."), tool_use("Read", {"file_path": self.path})]
        if "Edit" not in used:
            return [
                text("Applying the decision."),
                tool_use("Edit", {"file_path": self.path, "old_string": self.old, "new_string": self.new}),
            ]
        edit = next(u for u in req.tool_uses if u["name"] == "Edit")
        result = req.tool_result_for(edit["id"]) or {}
        return f"Edit result (error={bool(result.get('is_error'))}): {result.get('text', '')[:300]}"

    def subagent(self, req: ApiRequest) -> ReplyLike:
        return "No subagents in this scenario."
