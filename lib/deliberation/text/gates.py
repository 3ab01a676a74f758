"""Gate 1 (consensus) and Gate 2 (quality): the next step a failed gate names, and its hold.

The gates (core/consensus_gate.py, core/quality_gate.py) decide which checks fail, with their
figures; they ask here for the sentence of the next step they record in the result
(`GateResult.next_step`, shown by the hold, the record and `deliberation show`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deliberation.state.models import GateResult


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dissenter(_Data):
    persona: str
    agent: str  # its agent id (else its record key): what a SendMessage is sent to


class ConsensusNext(_Data):
    """What Gate 1's next step depends on: the failed checks, the phase, the 2-agent form."""
    failed: list[str]                       # names of the failed checks, in the gate's order
    phase: str
    two_agent: "str | None" = None          # the 2-agent rule's verdict, when it applied
    agents_figure: str = ""                 # the agents_completed check's figure
    undocumented: list[Dissenter] = []


def consensus_next_step(n: ConsensusNext) -> str:
    if "phase" in n.failed:
        if n.phase == "RESEARCH" and n.two_agent in ("proceed", "suspect_herding"):
            return ("spawn both personas again to RANK every approach (the minimum viable deliberation: "
                    "their research agreed), or continue with DELIBERATION for the full deliberation")
        if n.phase in ("IDLE", "RESEARCH"):
            return ("finish RESEARCH (at least 2 independent persona reports), then DELIBERATION "
                    "(synthesis-lead / debate-moderator, one red-team pass), then spawn the personas "
                    "again to RANK the approaches")
        return "spawn the personas again to RANK every approach on the five dimensions"
    if "agents_completed" in n.failed:
        return f"spawn more personas to rank: {n.agents_figure} ranking reports"
    if "consensus" in n.failed:
        # ranking has started: the phase machine refuses debate, synthesis and the depth lenses
        # now, so the advice must be a re-rank
        return ("do not conclude: investigate the contested points in a re-rank — spawn the "
                "personas again with the Agent tool for RANKING (fresh agents: a re-rank is a blind "
                "vote, not a SendMessage to the old rankers) with the contested points and their "
                "evidence named in their prompts, never who scored or voted what (debate, synthesis "
                "and the depth lenses cannot run once ranking has started) — or stop and ask the user "
                "to decide")
    if "dissent_documented" in n.failed:
        names = ", ".join(f"{d.persona} (agent {d.agent})" for d in n.undocumented)
        return (f"have {names} document, in `dissent`, a concern with its reason for every approach "
                "it would not adopt: resume each with SendMessage (to = its agent id) asking only for "
                "that, with no other agent's scores or verdicts and no leader — its new report replaces "
                "the old one — or spawn it again for ranking with the same blind prompt; the plugin "
                "reads dissent against the leader it computes after the vote, and a dissent without "
                "reasons cannot be weighed")
    return ""


QUALITY_NEXT = {
    "method_diversity": "spawn research personas with different priorities (e.g. security-analyst and performance-engineer) for the missing perspectives, then re-rank",
    "contradiction_transparency": "ask each dissenting agent to document its concerns with reasons: resume it with SendMessage (to = its agent id; its new report replaces the old one) or spawn it again; its report's `dissent` needs concern + reason",
    "complexity_handling": "generate at least one more alternative — add it (e.g. 'keep the status quo') to the ranking prompt — and re-rank: spawn the personas again to score all of them (synthesis-lead cannot run once ranking has started)",
    "consensus_confidence": "consensus is weak: re-rank with the contested points and their evidence named in the ranking prompts, never who scored or voted what (ranking is blind; deliberation roles cannot run once ranking has started), or hand the decision to the user",
    "improvement_evidence": "the panel is not more confident after deliberating than before: investigate the open questions (re-rank with the contested points and their evidence in the ranking prompts), or tell the user the decision stays uncertain",
    "conformity": "re-run the flagged agents with fresh isolation (new spawns, no shared findings) and re-rank",
    "decision_document": "end the concluding answer with the decision document block (PRD): requirements, acceptance criteria and risks, each citing the finding or dissent ids it follows from",
}


def quality_next_step(failed: "list[str]") -> str:
    """The next steps of Gate 2's failed checks (by name, in the gate's order), joined."""
    return "; then ".join(QUALITY_NEXT[name] for name in failed if name in QUALITY_NEXT)


class GateFailed(_Data):
    """A gate failed: the hold names every failed check with its figure and the next step."""
    kind: Literal["gate_failed"] = "gate_failed"
    deliberation: str
    result: GateResult


def gate_failed(o: GateFailed) -> str:
    r = o.result
    if r.gate == "consensus":
        lines = [f"Deliberation {o.deliberation} — consensus gate FAILED:"]
        lines += [f"- {c.name}: {c.figure}" + (f" ({c.detail})" if c.detail else "")
                  for c in r.checks if not c.passed]
    else:
        lines = [f"Deliberation {o.deliberation} — quality gate FAILED:"]
        for c in r.checks:
            lines.append(f"- {c.name}: {'pass' if c.passed else 'FAIL'} — {c.figure}")
            if not c.passed and c.name == "improvement_evidence" and c.detail:
                lines.append(f"  ({c.detail})")
    lines.append(f"Next: {r.next_step}.")
    return "\n".join(lines)
