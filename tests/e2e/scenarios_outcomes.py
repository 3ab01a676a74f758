"""Scripted deliberations for gates, ranking and routing that measure what docs/EVIDENCE.md
states — a forced plain question, blind ranking, a unanimous reject, one red-team pass, and the
two-agent minimum deliberation.

They reuse `scenarios_gates.StagedDeliberation` (one wave of agents per message, reports from a
table, the ranking prompt carrying the approach list the plugin gave) with the question of the
issue's report: a plainly worded choice the user forces with `/deliberate`, which the trigger's
word lists score 0.70 (not a doubtful question: it triggered only because it was forced).
"""

from __future__ import annotations

from fake_api import ApiRequest
from scenarios import report
from scenarios_gates import (
    DIMENSIONS,
    StagedDeliberation,
    Wave,
    concern,
    ranking_report,
)

QUESTION = "Which structured logging library should the billing service adopt, structlog or loguru, for its new request logs?"
PROMPT = "/deliberate " + QUESTION
TRIGGER_CONFIDENCE = 0.7025  # the trigger's word-list score of PROMPT (forced)
PANEL = ("technical-architect", "security-analyst", "performance-engineer")
STRUCTLOG = ("A", "Adopt structlog with a JSON renderer")
LOGURU = ("B", "Adopt loguru with a JSON sink")
STDLIB = ("C", "Keep the stdlib logging module with a JSON formatter")
BLIND_DENIED = "Blind ranking: this RANKING prompt carries"
RED_TEAM_DENIED = 'Red-team spawn denied — rule "one red-team pass, then the depth step"'
LEAKY_NOTE = "Leading: A. The security-analyst scored A 8.2 and approved it, so agree unless you have a strong reason."


def research(
    finding: str,
    evidence: str,
    preferred: str,
    rationale: str,
    confidence: float = 0.6,
    verdict: str = "approve",
    approaches=(STRUCTLOG, LOGURU, STDLIB),
    dissent=(),
) -> dict:
    return report(
        phase="research",
        summary=finding,
        findings=[{"id": "F1", "claim": finding, "evidence": evidence, "severity": "medium"}],
        approaches=[{"id": i, "title": t, "summary": t + "."} for i, t in approaches],
        verdict=verdict,
        preferred_approach=preferred,
        rationale=rationale,
        confidence=confidence,
        dissent=list(dissent),
    )


RESEARCH = {
    "technical-architect": research(
        "The billing service already wraps logging in billing/log.py; either library plugs in there.",
        "billing/log.py:1-40",
        "A",
        "structlog's processor chain fits the existing wrapper.",
    ),
    "security-analyst": research(
        "Request logs must drop card numbers before they leave the process (PCI DSS 3.4).",
        "docs/pci.md:12",
        "A",
        "A redaction processor runs before any renderer.",
    ),
    "performance-engineer": research(
        "At 2k requests/s the JSON rendering cost matters more than the library choice.",
        "bench/log_render.txt",
        "B",
        "loguru's sink is slightly cheaper in my micro-benchmark.",
    ),
}
SYNTHESIS = report(
    phase="deliberation",
    summary="Three alternatives; no finding conflicts with another.",
    findings=[],
    scores={},
    verdict="abstain",
    preferred_approach="A",
    confidence=0.6,
    approaches=[{"id": i, "title": t, "summary": t + "."} for i, t in (STRUCTLOG, LOGURU, STDLIB)],
    rationale="structlog's processors give redaction and the request id in one place.",
)
DEBATE = report(
    phase="deliberation",
    summary="No real conflict: the personas weigh different aspects.",
    findings=[],
    approaches=[],
    scores={},
    verdict="abstain",
    preferred_approach=None,
    confidence=0.6,
    conflicts=[],
)
RED_TEAM_CLEAN = report(
    phase="deliberation",
    summary="The converged points held.",
    findings=[],
    approaches=[],
    scores={},
    verdict="abstain",
    preferred_approach=None,
    confidence=0.6,
    missed_angles=[],
    refutations=[
        {
            "target": "security-analyst:F1",
            "verdict": "upheld",
            "claim": "the PCI rule applies",
            "evidence": "docs/pci.md:12 quotes requirement 3.4",
        }
    ],
)
# a second red-team pass: an evidence-backed "weakened" on A that nobody would ever plan
RED_TEAM_SECOND = report(
    phase="deliberation",
    summary="A is weaker than it looks.",
    findings=[],
    approaches=[],
    scores={},
    verdict="abstain",
    preferred_approach=None,
    confidence=0.6,
    missed_angles=[],
    refutations=[
        {
            "target": "A",
            "verdict": "weakened",
            "claim": "structlog's stdlib bridge drops records logged before configuration",
            "evidence": "billing/__init__.py:3 logs at import time, before configure()",
        }
    ],
)


def passing_ranking(confidence: float) -> dict:
    """Two prefer A by 1.1 and 1.3 points, performance-engineer states B, ahead by 0.1: a stated
    dissent weighs at least 0.5, so consensus = 2 / (2 + 0.5 + 0.2) = 0.7407 (moderate; the
    near-tie dissent is still dissent)."""
    return {
        "technical-architect": ranking_report({"A": 7.6, "B": 6.5, "C": 5.5}, "A", confidence=confidence),
        "security-analyst": ranking_report({"A": 7.8, "B": 6.0, "C": 6.5}, "A", confidence=confidence),
        "performance-engineer": ranking_report(
            {"A": 7.4, "B": 7.5, "C": 5.0},
            "B",
            confidence=confidence,
            dissent=[
                concern(
                    "A",
                    "its processor chain renders every record twice when the stdlib bridge is on",
                    "bench/log_render.txt: 1.8x the JSON cost",
                )
            ],
        ),
    }


PASS_CONSENSUS = 0.7407

WHY_NOT = {
    "A": ("structlog needs a migration of 40 call sites", "grep -c 'logging.getLogger' billing/ = 40"),
    "B": ("loguru's global logger cannot be isolated per test", "tests/conftest.py patches handlers"),
    "C": ("the stdlib formatter cannot redact by field", "docs/pci.md:12 requires field-level redaction"),
}


def rejecting(persona: str, a: float) -> dict:
    return ranking_report(
        {"A": a, "B": a - 1.0, "C": a - 1.5},
        "A",
        verdict="reject",
        dissent=[concern(k, c, r) for k, (c, r) in WHY_NOT.items()],
        rationale=f"{persona}: none of the three meets the PCI redaction rule as proposed.",
    )


def table(ranking: dict, red_team: dict = RED_TEAM_CLEAN) -> dict:
    t: dict = {(slug, "research"): r for slug, r in RESEARCH.items()}
    t[("synthesis-lead", "deliberation")] = SYNTHESIS
    t[("debate-moderator", "deliberation")] = DEBATE
    t[("red-team", "deliberation", 1)] = red_team
    t[("red-team", "deliberation", 2)] = RED_TEAM_SECOND
    t.update({(slug, "ranking"): r for slug, r in ranking.items()})
    return t


FULL = (
    Wave("research", PANEL),
    Wave("deliberation", ("synthesis-lead", "debate-moderator")),
    Wave("deliberation", ("red-team",)),
    Wave("ranking", PANEL),
)


class Deliberation(StagedDeliberation):
    """StagedDeliberation on this file's question; ranking prompts carry the plugin's list."""

    final_text = "Decision recorded; dissent summarised."

    def prompt(self, wave: Wave, slug: str, listing: str = "") -> str:
        head = f"PERSONA: {slug}\nPhase: {wave.phase}\nRound: {wave.round}\nQuestion: {QUESTION}\n"
        if wave.phase == "research":
            body = "Shared context: billing/ (the service), docs/pci.md. Work independently."
        elif wave.phase == "deliberation":
            body = "All research findings: " + "; ".join(f"{p}:F1 {r['findings'][0]['claim']}" for p, r in RESEARCH.items()) + "."
        else:
            body = (
                f"{listing or 'Approaches: A, B and C.'}\nScore every approach 0-10 on "
                f"{', '.join(DIMENSIONS)}; give your verdict and a concern with its reason for each "
                "approach you would not adopt."
            )
        note = f"\n{wave.note}" if wave.note else ""
        return head + body + note + "\nEnd with one fenced JSON report."


class LeakyRanking(Deliberation):
    """The model first gives the rankers the vote (a leader, a score, a verdict); the plugin
    denies every such spawn; the model then copies the list from the deny reason."""

    def plan(self, req: ApiRequest) -> "list[Wave]":
        plan = list(FULL[:-1]) + [Wave("ranking", PANEL, round=1, note=LEAKY_NOTE)]
        if req.saw(BLIND_DENIED):
            plan.append(Wave("ranking", PANEL, round=2))
        return plan

    def prompt(self, wave: Wave, slug: str, listing: str = "") -> str:
        if wave.round == 1 and wave.phase == "ranking":
            return (
                f"PERSONA: {slug}\nPhase: ranking\nRound: 1\nQuestion: {QUESTION}\nApproaches: A "
                f"{STRUCTLOG[1]}; B {LOGURU[1]}; C {STDLIB[1]}.\n{LEAKY_NOTE}\nScore every approach 0-10."
            )
        return super().prompt(wave, slug, listing)


class SecondRedTeam(Deliberation):
    """After a clean first red-team pass the model asks for a second one; the plugin refuses it;
    the model ranks as the reason says."""

    def plan(self, req: ApiRequest) -> "list[Wave]":
        return (
            list(FULL[:-1]) + [Wave("deliberation", ("red-team",), round=2, note="A second, harder red-team pass.")] + [FULL[-1]]
        )


# --------------------------------------------------------------------------- the 2-agent form

PAIR = ("product-strategist", "devils-advocate")
FOR_REPORT = research(
    "The SIEM parses JSON request logs; both libraries emit JSON.",
    "ops/siem.md:12",
    "A",
    "structlog keeps the request id on every line through its processor chain.",
    approaches=(STRUCTLOG, LOGURU),
)
AGAINST_AGREES = research(
    "The migration touches 40 call sites; nothing else breaks.",
    "billing/ grep",
    "B",
    "I looked for the strongest case against it: only two days of migration work.",
    approaches=(LOGURU, ("B", STRUCTLOG[1])),
)  # its own ids: structlog is "B"
AGAINST_DISAGREES = research(
    "loguru replaces the stdlib handlers globally.",
    "docs/loguru.md:40",
    "B",
    "structlog is a dependency nobody here has run; loguru is one import.",
    verdict="reject",
    approaches=(STRUCTLOG, LOGURU),
    dissent=[concern("A", "a dependency nobody here has run in production", "no service in the org uses it")],
)
PAIR_RANKING = {
    "product-strategist": ranking_report({"A": 8.6, "B": 6.0}, "A", confidence=0.8),
    "devils-advocate": ranking_report({"A": 8.0, "B": 7.0}, "A", confidence=0.75),
}
