"""The minimum viable deliberation (docs/EVIDENCE.md, E5): two agents, one FOR and one AGAINST.

    Spawn 2 agents (FOR, AGAINST) → compare their findings →
        agreement with different reasoning → proceed
        genuine disagreement               → investigate that conflict
        agreement with the same reasoning  → suspect herding

**The form.** Research ends with exactly two personas' reports (the protocol suggests
product-strategist FOR and devils-advocate AGAINST) and no deliberation role was spawned
(`eligible`). The hooks then apply the 2-agent rule (`conformity.two_agent_rule`) to the two
research reports — each gives its position: `preferred_approach` (compared by the approach's
title, since each report numbers its own approaches), `verdict` and `rationale` — and say the
outcome to the main agent (`engine.minimum_step`). Ranking follows with the same two personas.
A report that takes no position (verdict abstain) leaves the rule nothing to compare
(`no_position`): the form does not apply and the full flow's red-team pass is required.

**How it meets the depth axis.** The AGAINST agent is the form's adversarial pass: it stands in
for the first red-team pass, so ranking is not refused for want of a red team.
- proceed / suspect herding: the two agree, nothing is contested → depth `not_needed` (basis
  "2-agent rule"); the herding outcome is also a conformity warning (`two_agent_rule`) in the
  vote and the record.
- investigate: the conflict between the two is the hot spot (`hot_spots.find_hot_spots(...,
  two_agent=True)`): under a posture that deepens, the depth step opens on it — fresh lens
  workers aimed at it, then red team 2, then the depth-aware synthesis — before ranking; the
  block reason says so. With the depth axis off (or dialled down) the conflict is named and the
  main agent investigates it before ranking; over budget the step is skipped loudly.
The form is released (`release`) if the main agent goes on to the full deliberation instead —
a third research persona, or synthesis-lead / debate-moderator / red-team — before any
tier-2 worker ran: the depth state returns to "not planned" and the full flow plans it after
its red-team pass.

Pure over `state.Deliberation` and `config.Config`.
"""

from __future__ import annotations

from types import SimpleNamespace

from deliberation.core import phases
from deliberation.state.models import (AgentRecord, ConformityWarning, Deliberation, DepthState, TwoAgentCheck)
from deliberation.core.conformity import two_agent_rule
from deliberation.core.similarity import similarity
from deliberation.text import notes as words

BASIS = "2-agent rule"


def research_pair(delib: Deliberation) -> "list[AgentRecord]":
    """The research personas' current reports, by persona slug (the order of parallel reports
    is not fixed; the rule is symmetric)."""
    return sorted((a for a in phases.current(delib, "research") if a.kind == "persona"), key=lambda a: a.persona)


def eligible(delib: Deliberation) -> bool:
    """Research is complete with exactly two personas and no deliberation role was spawned
    (tier-2 workers and red team 2 of the form's own depth step do not count)."""
    if delib.phase not in ("RESEARCH", "DELIBERATION") or phases.pending(delib, "research"):
        return False
    pair = research_pair(delib)
    if len(pair) != 2 or len({a.persona for a in pair}) != 2:
        return False
    return not any(a.kind in ("debate", "synthesis") or (a.kind == "red-team" and a.tier == 1)
                   for a in delib.agents if a.status != "refused")


def applies(delib: Deliberation) -> bool:
    """The deliberation runs in the 2-agent form (its depth step was planned on the pair)."""
    return delib.depth.basis == BASIS and eligible(delib)


def _position(agent: AgentRecord, titles: "dict[str, str]") -> SimpleNamespace:
    """The report's position with its preferred approach named by title (lower-cased): each
    research report numbers its own approaches, so 'A' of one may be 'B' of the other."""
    rep = agent.filed
    pref = rep.preferred_approach
    own = {ap.id: ap.title for ap in rep.approaches}
    title = own.get(pref or "") or titles.get(pref or "") or (pref or "")
    return SimpleNamespace(verdict=rep.verdict, preferred_approach=" ".join(title.lower().split()) or None,
                           rationale=rep.rationale, title=title)


def check(delib: Deliberation, threshold: float) -> TwoAgentCheck:
    """The 2-agent rule over the two research reports (`threshold`: rationale similarity that
    counts as the same reasoning, conformity.same_reasoning_similarity)."""
    a, b = research_pair(delib)
    titles = phases.approaches(delib)
    pa, pb = _position(a, titles), _position(b, titles)
    silent = [x.persona for x, p in ((a, pa), (b, pb)) if p.verdict == "abstain"]
    verdict = "no_position" if silent else two_agent_rule(pa, pb, threshold)
    sim = (round(similarity(pa.rationale, pb.rationale), 2)
           if pa.rationale.strip() and pb.rationale.strip() else None)

    def says(agent: AgentRecord, p: SimpleNamespace) -> str:
        target = f"\"{p.title}\"" if p.title else "no approach"
        what = {"approve": f"approves {target}", "reject": f"rejects, prefers {target}",
                "abstain": "takes no position (abstains)"}[p.verdict]
        why = " ".join(p.rationale.split())
        return f"{agent.persona} {what}" + (f" — \"{why[:160]}\"" if why else "")

    detail = f"{says(a, pa)}; {says(b, pb)}"
    if verdict == "suspect_herding":
        detail += f"; rationale similarity {sim:.2f} ≥ {threshold:.2f}"
    elif verdict == "proceed" and sim is not None:
        detail += f"; rationale similarity {sim:.2f} < {threshold:.2f}"
    return TwoAgentCheck(verdict=verdict, agents=[a.persona, b.persona], similarity=sim, detail=detail)


def herding_warning(delib: Deliberation) -> "list[ConformityWarning]":
    c = delib.two_agent
    if c is None or c.verdict != "suspect_herding":
        return []
    keys = [a.key for a in research_pair(delib)] or list(c.agents)
    return [ConformityWarning(
        detector="two_agent_rule", agents=keys,
        evidence=words.herding_evidence(c.detail), recommendation=words.HERDING_RECOMMENDATION)]


def release(delib: Deliberation) -> bool:
    """The main agent went on to the full deliberation before the form's depth step ran: forget
    the form (its check and its depth plan) so the full flow plans depth after its red team."""
    if delib.two_agent is None or any(a.kind == "lens" for a in delib.agents):
        return False
    delib.two_agent = None
    if delib.depth.basis == BASIS:
        fresh = DepthState()
        for name in DepthState.model_fields:  # in place: callers may hold delib.depth
            setattr(delib.depth, name, getattr(fresh, name))
    return True
