"""Gate 1 — consensus validation, at the moment a deliberation would draw a conclusion.

Four checks: the phase has reached RANKING; at least `min_agents` ranking reports
completed; the consensus meets the task-adaptive threshold; every dissenting agent documented
its concerns. Before that moment the hooks report progress instead of blocking. The result
records each check with its figure and the next step (worded by text/gates.py).
"""

from __future__ import annotations

from deliberation.core import consensus, ranking
from deliberation.core.depth.axis import struck_approaches
from deliberation.core.phases import current, reached
from deliberation.core.ranking import REJECTED, unanimous_reject
from deliberation.state.models import AgentRecord, Check, Deliberation, GateResult
from deliberation.text import gates as words
from deliberation.text.gates import ConsensusNext, Dissenter, consensus_next_step

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.config import Config


def options_of(cfg: "Config") -> consensus.Options:
    """The consensus options a Config sets (gates.strong, .moderate, .acceptable_level)."""
    g = cfg.gates
    return consensus.Options(acceptable_level=g.acceptable_level, strong=g.strong, moderate=g.moderate)


def outcome_of(delib: Deliberation, options: consensus.Options = consensus.Options()) -> consensus.ConsensusOutcome:
    """The consensus outcome of the deliberation's vote: each ranker's position on the leader,
    the figures, the leader's level and what drove the band (consensus.py)."""
    return ranking.assess(delib.agents, delib.ranking, struck_approaches(delib), delib.task_type, options)


def positions(delib: Deliberation, leading: "str | None") -> "dict[str, consensus.Position]":
    """Agent key → its position on `leading` (consensus.position), for the current ranking reports."""
    if leading is None:
        return {}
    voters = current(delib, "ranking")
    struck = struck_approaches(delib)
    return {
        b.agent: consensus.position(b, leading, struck)
        for b in ranking.ballots(voters, delib.ranking.scores if delib.ranking else [])
    }


def dissenters(delib: Deliberation, leading: "str | None") -> "list[AgentRecord]":
    """Ranking agents that reject, or prefer another approach than the leading one — derived
    after the vote, against the leader the ranking computed (rankers never see a leader). Its
    preferred approach is the one it states, else its top weighted score (consensus.position);
    a ranker whose scores tie the leader with another approach prefers neither and dissents from
    nothing."""
    pos = positions(delib, leading)
    out = []
    for a in current(delib, "ranking"):
        p = pos.get(a.key)
        if a.filed.verdict == "reject" or (p is not None and p.stance == "oppose"):
            out.append(a)
    return out


def documents(agent: AgentRecord, leading: "str | None" = None, approach_ids: "tuple | list" = ()) -> bool:
    """Does a dissenter's report document its dissent? A rejecter (it would adopt none) needs a
    concern with its reason; an agent that prefers another approach needs one about the leader
    the vote produced (or a general one, not aimed at another approach) — it could not know the
    leader when it ranked, so its concerns about each approach it would not adopt are read now."""
    concerns = [c for c in agent.filed.dissent if c.concern and c.reason]
    if agent.filed.verdict == "reject" or leading is None:
        return bool(concerns)
    return any(c.target.strip() == leading or c.target.strip() not in approach_ids for c in concerns)


def undocumented(
    agents: "list[AgentRecord]", leading: "str | None" = None, approach_ids: "tuple | list" = ()
) -> "list[AgentRecord]":
    return [a for a in agents if not documents(a, leading, approach_ids)]


def evaluate(delib: Deliberation, min_agents: int, now: float) -> GateResult:
    ranking = delib.ranking
    checks = []
    at_ranking = reached(delib.phase, "RANKING")
    checks.append(
        Check(
            name="phase",
            passed=at_ranking,
            figure=words.phase_figure(delib.phase, at_ranking),
            detail=words.PHASE_DETAIL,
        )
    )
    done = len(current(delib, "ranking"))
    checks.append(
        Check(
            name="agents_completed",
            passed=done >= min_agents,
            figure=words.count_figure(done, min_agents),
            detail=words.AGENTS_DETAIL,
            measured=done,
            needed=min_agents,
        )
    )
    consensus = ranking.consensus if ranking else 0.0
    if unanimous_reject(ranking):
        # the panel agrees on the verdict itself: adopt nothing. The consensus score measures
        # support for the top-scored approach, which a rejection does not need.
        checks.append(
            Check(
                name="consensus",
                passed=True,
                figure=words.unanimous_reject_figure(ranking.rejections, REJECTED),
                detail=words.unanimous_reject_detail(ranking.leading, consensus),
            )
        )
    else:
        ok = ranking is not None and ranking.leading is not None and consensus >= delib.threshold
        checks.append(
            Check(
                name="consensus",
                passed=ok,
                figure=words.consensus_figure(consensus, delib.threshold, delib.task_type, ok),
                detail=words.consensus_detail(ranking.leading if ranking else None),
                measured=consensus,
                needed=delib.threshold,
            )
        )
    leading = ranking.leading if ranking else None
    dis = dissenters(delib, leading)
    missing = undocumented(dis, leading, ranking.approaches if ranking else ())
    checks.append(
        Check(
            name="dissent_documented",
            passed=not missing,
            figure=words.dissent_figure(len(dis) - len(missing), len(dis)),
            detail=words.dissent_detail([a.persona for a in missing]),
            measured=len(dis) - len(missing),
            needed=len(dis),
        )
    )
    passed = all(c.passed for c in checks)
    return GateResult(
        gate="consensus", passed=passed, checks=checks, at=now, next_step="" if passed else next_step(delib, checks, missing)
    )


def next_step(delib: Deliberation, checks: "list[Check]", missing: "list[AgentRecord]") -> str:
    """The next step of the failed checks, as this deliberation stands."""
    failed = {c.name: c for c in checks if not c.passed}
    two = delib.two_agent
    return consensus_next_step(
        ConsensusNext(
            failed=list(failed),
            phase=delib.phase,
            two_agent=two.verdict if two is not None else None,
            agents_figure=failed["agents_completed"].figure if "agents_completed" in failed else "",
            undocumented=[Dissenter(persona=a.persona, agent=a.agent_id or a.key) for a in missing],
        )
    )
