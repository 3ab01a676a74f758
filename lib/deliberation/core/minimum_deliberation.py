"""The minimum viable deliberation: two research personas, FOR and AGAINST, compared by the 2-agent
rule (docs/FLOW.md, "The minimum viable deliberation").

`eligible`: research ended with exactly two personas' reports and no deliberation role was
spawned. `check` applies the 2-agent rule (`conformity.two_agent_rule`) to their positions —
proceed, investigate or suspect herding, or `no_position` when one abstains (the full flow then
applies). On agreement the depth step is not needed; on disagreement the conflict is the hot spot
(`hot_spots.find_hot_spots(..., two_agent=True)`); the AGAINST agent stands in for the red-team
pass. `release`
returns to the full flow when a third persona or a deliberation role is spawned before any
tier-2 worker ran. Pure over `state.Deliberation` and `config.Config`.
"""

from __future__ import annotations

from types import SimpleNamespace

from deliberation.core import phases
from deliberation.state.models import AgentRecord, ConformityWarning, Deliberation, DepthState, TwoAgentCheck
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
    return not any(
        a.kind in ("debate", "synthesis") or (a.kind == "red-team" and a.tier == 1) for a in delib.agents if a.status != "refused"
    )


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
    return SimpleNamespace(
        verdict=rep.verdict, preferred_approach=" ".join(title.lower().split()) or None, rationale=rep.rationale, title=title
    )


def check(delib: Deliberation, threshold: float) -> TwoAgentCheck:
    """The 2-agent rule over the two research reports (`threshold`: rationale similarity that
    counts as the same reasoning, conformity.same_reasoning_similarity)."""
    a, b = research_pair(delib)
    titles = phases.approaches(delib)
    pa, pb = _position(a, titles), _position(b, titles)
    silent = [x.persona for x, p in ((a, pa), (b, pb)) if p.verdict == "abstain"]
    verdict = "no_position" if silent else two_agent_rule(pa, pb, threshold)
    sim = round(similarity(pa.rationale, pb.rationale), 2) if pa.rationale.strip() and pb.rationale.strip() else None

    def says(agent: AgentRecord, p: SimpleNamespace) -> str:
        target = f'"{p.title}"' if p.title else "no approach"
        what = {
            "approve": f"approves {target}",
            "reject": f"rejects, prefers {target}",
            "abstain": "takes no position (abstains)",
        }[p.verdict]
        why = " ".join(p.rationale.split())
        return f"{agent.persona} {what}" + (f' — "{why[:160]}"' if why else "")

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
    return [
        ConformityWarning(
            detector="two_agent_rule",
            agents=keys,
            evidence=words.herding_evidence(c.detail),
            recommendation=words.HERDING_RECOMMENDATION,
        )
    ]


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
