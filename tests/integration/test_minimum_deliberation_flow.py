"""The minimum viable deliberation — two agents, FOR and AGAINST — end to end through the REAL
hook scripts under the DEFAULT config. Its three outcomes come from the
hooks: agree for different reasons → proceed; disagree → investigate that conflict (the depth
step opens on it); agree for the same reasons → herding warning."""

from __future__ import annotations

import json

from tests.helpers import payloads as P

CITES = ["product-strategist:F1", "devils-advocate:F1"]  # what the concluding answers' documents cite
QUESTION = (
    "/deliberate Which structured logging library should the billing service adopt, structlog "
    "or loguru, for its new request logs?"
)
STRUCTLOG, LOGURU = "Adopt structlog", "Adopt loguru"


def research(persona, verdict, preferred, rationale, approaches=(("A", STRUCTLOG), ("B", LOGURU)), claim=""):
    dissent = [{"target": "A", "concern": "a dependency nobody here has run", "reason": "no service uses it yet"}]
    return P.fenced(
        {
            "phase": "research",
            "summary": f"{persona} view",
            "dissent": dissent if verdict == "reject" else [],
            "findings": [
                {"id": "F1", "claim": claim or f"{persona}: the SIEM parses JSON request logs", "evidence": "ops/siem.md:12"}
            ],
            "approaches": [{"id": a, "title": t} for a, t in approaches],
            "verdict": verdict,
            "preferred_approach": preferred,
            "rationale": rationale,
            "confidence": 0.6,
        }
    )


def load(project) -> dict:
    (path,) = (project / ".claude" / "deliberation" / "deliberations").glob("*.json")
    return json.loads(path.read_text())


def ranked(s, persona, a, b, preferred, dissent=()):
    out = s.foreground(
        persona,
        "Phase: ranking. Score every approach 0-10 on the five dimensions.",
        P.ranking_report(
            {"A": (a,) * 5, "B": (b,) * 5},
            "approve",
            preferred,
            f"{persona}: my own reasons for {preferred}",
            list(dissent),
            confidence=0.8,
        ),
    )
    assert out["pre"].decision is None, out["pre"].reason
    return out


def test_agreement_for_different_reasons_proceeds_to_ranking_and_completes(project, hook):
    s = P.Session(hook)
    s.prompt(QUESTION)
    s.foreground(
        "product-strategist",
        f"Phase: research. {QUESTION} Argue FOR adopting structlog.",
        research(
            "product-strategist",
            "approve",
            "A",
            "structlog keeps one request id in every line through its processor chain, which the SIEM needs.",
        ),
    )
    last = s.foreground(
        "devils-advocate",
        f"Phase: research. {QUESTION} Argue AGAINST.",
        research(
            "devils-advocate",
            "approve",
            "B",
            "The strongest case against is the migration: two days of work; nothing else breaks.",
            approaches=(("A", LOGURU), ("B", STRUCTLOG)),
        ),
    )
    context = last["post"].context
    assert last["post"].decision is None
    assert (
        "minimum viable deliberation (2 agents: devils-advocate, product-strategist): agreement with "
        "different reasoning → proceed" in context
    )
    assert (
        "Next: spawn the research personas again to RANK every approach — `product-strategist` and `devils-advocate`" in context
        or "Next: spawn the research personas again to RANK every approach — `devils-advocate` and `product-strategist`"
        in context
    ), context
    d = load(project)
    assert (d["two_agent"]["verdict"], d["depth"]["status"], d["depth"]["basis"]) == ("proceed", "not_needed", "2-agent rule")
    # ranking right after research: no red team is asked for
    ranked(s, "product-strategist", 8.6, 6.0, "A")
    post = ranked(s, "devils-advocate", 8.2, 7.0, "A")["post"]
    assert "consensus gate passed — leading approach A" in post.context
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    d = load(project)
    assert d["phase"] == "COMPLETE" and d["decision"] == "A"
    assert [c["to_phase"] for c in d["phase_history"]] == ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]
    body = open(d["record_path"], encoding="utf-8").read()
    assert "## Minimum viable deliberation (2 agents)" in body
    assert "**agreement with different reasoning → proceed**" in body
    assert "Planned on the 2-agent rule: in the minimum viable deliberation the AGAINST agent stands in" in body


def test_agreement_for_the_same_reasons_is_a_herding_warning(project, hook):
    s = P.Session(hook)
    s.prompt(QUESTION)
    same = "structlog keeps one request id in every line through its processor chain, which the SIEM needs."
    s.foreground("product-strategist", f"Phase: research. {QUESTION}", research("product-strategist", "approve", "A", same))
    last = s.foreground("devils-advocate", f"Phase: research. {QUESTION}", research("devils-advocate", "approve", "A", same))
    assert "agreement with the same reasoning → suspect herding" in last["post"].context
    assert "⚠ A warning, not a proof" in last["post"].context
    ranked(s, "product-strategist", 8.6, 6.0, "A")
    post = ranked(s, "devils-advocate", 8.2, 7.0, "A")["post"]
    assert "- two_agent_rule: the two agents agree with the same reasoning" in post.context
    assert s.stop(message=P.prd_message(CITES)).decision is None
    d = load(project)
    assert d["phase"] == "COMPLETE" and "two_agent_rule" in [w["detector"] for w in d["conformity"]]
    assert "**agreement with the same reasoning → suspect herding**" in open(d["record_path"]).read()


def test_disagreement_is_investigated_by_the_depth_step_before_ranking(project, hook):
    from deliberation.core.depth import axis as depth_axis
    from deliberation.state.models import Deliberation

    s = P.Session(hook)
    s.prompt(QUESTION)
    s.foreground(
        "product-strategist",
        f"Phase: research. {QUESTION}",
        research("product-strategist", "approve", "A", "structlog keeps one request id in every line."),
    )
    last = s.foreground(
        "devils-advocate",
        f"Phase: research. {QUESTION}",
        research(
            "devils-advocate",
            "reject",
            "B",
            "loguru's global logger hides which module logged; structlog adds a dependency nobody here has run.",
            claim="loguru replaces the stdlib handlers globally",
        ),
    )
    block = last["post"]
    assert block.decision is None  # an instruction: said as context (docs/HOOK_ANSWERS.md)
    assert "genuine disagreement → investigate that conflict" in block.context
    assert 'product-strategist approves "Adopt structlog"' in block.context
    assert 'devils-advocate rejects, prefers "Adopt loguru"' in block.context
    assert "Depth axis: the red-team pass left 1 contested point(s)" in block.context
    # ranking before the conflict is investigated is refused with what is owed
    early = s.foreground("product-strategist", "Phase: ranking. Score every approach.", "{}")
    assert early["pre"].decision == "deny" and "the depth step is open" in early["pre"].reason
    # the fresh lens workers, with the prompts the instruction gives
    delib = Deliberation.model_validate(load(project))
    for lens in ("evidence-chase", "counter-model", "edge-case-hunt"):
        prompt = depth_axis.worker_prompt(lens, ["H1"], delib)  # its own lines, then the shared part
        assert depth_axis.worker_header(lens, ["H1"]) in block.context
        assert depth_axis.shared_part(delib) in block.context
        out = s.foreground(
            lens,
            prompt,
            P.lens_report(
                ["H1"],
                [
                    {
                        "id": "F1",
                        "claim": f"{lens}: loguru's sink format keeps the module name when configured",
                        "evidence": "docs/loguru.md:40",
                    }
                ],
            ),
        )
        assert out["pre"].decision is None, out["pre"].reason
    assert "red team 2" in out["post"].context
    rt2 = s.foreground("red-team", "Red team 2 over the tier-2 findings.", P.red_team_report(round_=2))
    assert rt2["pre"].decision is None, rt2["pre"].reason
    assert rt2["post"].context.startswith("Depth-aware synthesis")
    ranked(s, "product-strategist", 8.6, 6.0, "A")
    ranked(s, "devils-advocate", 7.8, 7.2, "A")
    final = s.stop(message=P.prd_message(CITES))
    assert final.decision is None, final.reason
    d = load(project)
    assert d["phase"] == "COMPLETE", d["failure_reasons"]
    assert (d["two_agent"]["verdict"], d["depth"]["status"], d["depth"]["basis"], d["depth"]["passes"]) == (
        "investigate",
        "done",
        "2-agent rule",
        4,
    )


def test_going_on_to_the_full_deliberation_drops_the_2_agent_form(project, hook):
    s = P.Session(hook)
    s.prompt(QUESTION)
    s.foreground(
        "product-strategist",
        f"Phase: research. {QUESTION}",
        research("product-strategist", "approve", "A", "structlog keeps one request id in every line."),
    )
    s.foreground(
        "devils-advocate",
        f"Phase: research. {QUESTION}",
        research("devils-advocate", "reject", "B", "structlog is a dependency nobody has run."),
    )
    assert load(project)["depth"]["status"] == "pending"
    synth = s.foreground(
        "synthesis-lead", "Merge all findings.\n" + s.findings(), P.synthesis_report([("A", STRUCTLOG), ("B", LOGURU)])
    )
    assert synth["pre"].decision is None, synth["pre"].reason
    d = load(project)
    assert d["two_agent"] is None and d["depth"]["basis"] == "" and d["depth"]["posture"] == ""
    # the full flow's own red-team pass is allowed and ranking waits for it
    early = s.foreground("product-strategist", "Phase: ranking. Score every approach.", "{}")
    assert early["pre"].decision == "deny" and "one red-team pass comes before ranking" in early["pre"].reason
    rt = s.foreground("red-team", "Red-team the synthesis.", P.red_team_report())
    assert rt["pre"].decision is None, rt["pre"].reason
