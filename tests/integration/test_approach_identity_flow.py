"""One identity per approach, end to end through the REAL hook scripts.

Research personas each number their own approaches A, B (different options under the same
letters); the synthesis' A/B/C are what the rankers rank. The red team weakens one persona's own
A; a tier-2 worker refutes that point ("the tally mixes different approaches"). Nothing the
rankers rank is struck, the hot spots name the persona's approach as `<persona>:A`, the rankers
unanimously prefer the synthesis' B, and B leads and passes the consensus gate.
"""

from __future__ import annotations

from tests.helpers import payloads as P
import re

from tests.helpers.project import only_delib as load_delib
from tests.helpers.project import state_dir

QUESTION = (
    "How should the deploy pipeline pin what reaches production, given the auth service's "
    "irreversible schema migrations and the production risk of a wrong build?"
)
OWN = {  # each persona's own A and B: the letters collide, the options differ
    "product-strategist": [("A", "Full auto-deploy on merge"), ("B", "Weekly release train")],
    "security-analyst": [("A", "Signed artefacts with manual promotion"), ("B", "Deploy freeze windows")],
    "reliability-engineer": [("A", "Canary with automatic rollback"), ("B", "Blue-green switch")],
}
SYNTHESIS = [
    ("A", "Content hash per artefact", "Pin each build artefact by its content hash."),
    ("B", "Hash of the resolved lock file", "Pin the resolved dependency set by one hash."),
    ("C", "Version tags only", "Rely on the release tags."),
]
CITES = ["security-analyst:F1", "product-strategist:F1"]
LENS_PROMPT = re.compile(
    r'--- worker (\d+) of (\d+): subagent_type "([a-z-]+)", hot spots ([H0-9, ]+) '
    r"— prompt: these lines, then the shared part:\n(.*?)\n--- end of worker \1 prompt",
    re.S,
)
SHARED_PART = re.compile(
    r"--- the shared part, the same at the end of every worker's prompt:\n(.*?)\n"
    r"--- end of the shared part",
    re.S,
)


def lens_prompts(reason: str) -> "list[tuple[str, list[str], str]]":
    """(lens, hot spot ids, prompt) for each worker the deepen instruction names."""
    (shared,) = SHARED_PART.findall(reason)
    return [
        (lens, [h.strip() for h in ids.split(",")], own + "\n" + shared) for _i, _k, lens, ids, own in LENS_PROMPT.findall(reason)
    ]


def ok(out: dict) -> dict:
    """A spawn that must have been allowed and whose report was accepted."""
    assert out["pre"].decision is None, out["pre"].reason
    assert out["stop"].decision is None, out["stop"].reason
    return out


def research(persona: str) -> str:
    return P.fenced(
        {
            "phase": "research",
            "summary": f"{persona} view",
            "findings": [
                {
                    "id": "F1",
                    "claim": f"{persona}: {OWN[persona][0][1]} fits the team's deploy cadence",
                    "evidence": f"docs/{persona}.md",
                    "severity": "high",
                }
            ],
            "approaches": [{"id": a, "title": t, "summary": t} for a, t in OWN[persona]],
            "verdict": "approve",
            "preferred_approach": "A",
            "confidence": 0.6,
            "rationale": f"{persona} prefers its own A",
        }
    )


def test_colliding_research_letters_strike_nothing_ranked_and_the_unanimous_b_leads(project, hook):
    s = P.Session(hook)
    s.prompt(QUESTION)
    for persona in OWN:
        ok(s.foreground(persona, f"Research the question from your perspective: {QUESTION}", research(persona)))
    synth = P.fenced(
        {
            "phase": "deliberation",
            "summary": "Three ways to pin what is deployed.",
            "approaches": [{"id": a, "title": t, "summary": m} for a, t, m in SYNTHESIS],
            "confidence": 0.6,
        }
    )
    ok(s.foreground("synthesis-lead", "Merge all research findings into alternatives.\n" + s.findings(), synth))
    rt1 = ok(
        s.foreground(
            "red-team",
            "Red-team every finding and approach.",
            P.red_team_report(
                [
                    {
                        "target": "security-analyst:A",
                        "verdict": "weakened",
                        "claim": "Manual promotion is skipped under release pressure",
                        "evidence": "incident log 2026-03: 4 of 9 promotions bypassed",
                    }
                ]
            ),
        )
    )
    gate = rt1["post"].context
    # the persona's own approach is named as its own; no cross-persona tally of "approach A"
    assert 'approach security-analyst:A ("Signed artefacts with manual promotion")' in gate
    assert "preferred by product-strategist" not in gate and "H1 [challenged] approach A " not in gate
    workers = lens_prompts(gate)
    assert workers
    for i, (lens, ids, prompt) in enumerate(workers):
        refutes = (
            [
                {
                    "target": ids[0],
                    "verdict": "refuted",
                    "claim": "The tally mixes different approaches: each persona's A is another option",
                    "evidence": "the research reports: product-strategist A is auto-deploy, security-analyst A "
                    "is signed artefacts",
                }
            ]
            if i == 0
            else []
        )
        out = ok(
            s.foreground(
                lens,
                prompt,
                P.lens_report(
                    ids,
                    [
                        {
                            "id": "F1",
                            "claim": f"{lens} dug into {ids[0]}: promotion bypasses cluster on Fridays {i}",
                            "evidence": "deploy log export, 2026-03",
                        }
                    ],
                    refutes,
                ),
            )
        )
    rt2 = ok(s.foreground("red-team", out["post"].context, P.red_team_report([], round_=2)))
    synth_note = rt2["post"].context
    assert "0 override(s)" in synth_note, synth_note
    assert "security-analyst:A is one research persona's own approach" in synth_note
    assert "OVERRIDE" not in synth_note and "Ranking will exclude" not in synth_note
    assert load_delib(project)["depth"]["overrides"] == []

    scores = {"A": (6, 6, 6, 6, 6), "B": (9, 9, 9, 9, 9), "C": (5, 5, 5, 5, 5)}
    outs = [
        s.foreground(
            p,
            "Rank approaches A, B and C on the five dimensions.",
            P.ranking_report(scores, "approve", "B", f"{p}: the lock-file hash pins the whole set"),
        )
        for p in (*OWN, "cost-analyst")
    ]
    for o in outs:
        assert o["pre"].decision is None, o["pre"].reason
    assert "leading approach B" in outs[-1]["post"].context, outs[-1]["post"].context
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    d = load_delib(project)
    assert d["ranking"]["leading"] == "B" and d["decision"] == "B" and d["phase"] == "COMPLETE"
    assert d["ranking"]["consensus"] >= 0.85
    md = (state_dir(project) / "records" / f"{d['id']}.md").read_text()
    assert "Hash of the resolved lock file" in md and "Weekly release train" not in md.split("## Depth axis")[0]
