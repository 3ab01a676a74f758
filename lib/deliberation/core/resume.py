"""SendMessage to a deliberation agent: which messages and resumes are accepted, and what a resumed
agent's new report does (docs/CLIENT_CHANNELS.md states the client's behaviour and the rules).

A resumed agent continues in the stage it was spawned for, so that stage's guards apply to the
message as to a spawn prompt: refused once the deliberation is closed or the stage is over (with
the fresh spawn to make instead), between deliberation agents during RESEARCH or RANKING, for a
research agent's message that carries other agents' findings (isolation.py), and for a ranker,
red team or tier-2 lens the plugin did not ask. A report the plugin asked for (recorded invalid,
or a dissenter Gate 1 named) REPLACES the old one; an unasked revision of an open stage's
research, synthesis or debate agent is recorded as one, with a warning; the old report stays in
`revisions`, and a resume the hooks never saw asked for is recorded too, never dropped. Pure over
`state.Deliberation` / `state.AgentRecord`.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import consensus_gate, phases
from deliberation.state.models import AgentRecord, Deliberation, Revision
from deliberation.core import blind_ranking
from deliberation.core import isolation
from deliberation.text import messages as words
from deliberation.text import refusals

STAGE_PHASE = {"research": "RESEARCH", "deliberation": "DELIBERATION", "ranking": "RANKING"}
INDEPENDENT = ("research", "ranking")


@dataclass
class Decision:
    allowed: bool
    rule: str  # requested, revision, running, not_deliberation | the refusal's rule
    reason: str = ""  # the refusal, for the model
    why: str = ""  # what the record keeps with the replaced report


def who(rec: AgentRecord) -> str:
    return words.who(rec.persona, rec.agent_id or rec.key)


def requested_revision(delib: Deliberation, rec: AgentRecord) -> "str | None":
    """Why the plugin asked for this agent's new report, or None when it did not."""
    if rec.status == "invalid":
        return words.recorded_invalid((rec.problem or "no valid report").splitlines()[0][:160])
    gate = delib.gate1
    if (
        rec.stage == "ranking"
        and gate is not None
        and not gate.passed
        and delib.ranking is not None
        and rec.status == "reported"
        and not rec.superseded
    ):
        missing = consensus_gate.undocumented(consensus_gate.dissenters(delib, delib.ranking.leading))
        if any(a is rec for a in missing):
            return words.DISSENT_ASKED
    return None


def _stage_over(delib: Deliberation, rec: AgentRecord) -> "str | None":
    if delib.phase == STAGE_PHASE[rec.stage]:
        return None
    if rec.stage == "research":
        case = "rank_fresh" if delib.phase == "RANKING" or rec.kind != "persona" else "share_findings"
    elif rec.stage == "deliberation":
        case = "re_rank"
    elif delib.phase == "PRD_GENERATION":
        case = "document"
    else:
        case = "re_rank_blind"
    return words.stage_over(who(rec), rec.stage, delib.id, delib.phase, case)


def _one_pass_refusal(delib: Deliberation, rec: AgentRecord) -> "str | None":
    """Red team and tier-2 lenses run one pass each; synthesis and debate are settled once the red
    team has read them."""
    if rec.kind in ("red-team", "lens"):
        return words.one_pass(who(rec))
    red_team_in = any(a.kind == "red-team" for a in phases.current(delib, "deliberation"))
    if rec.kind in ("synthesis", "debate") and red_team_in:
        return words.reviewed(who(rec))
    return None


def decide(
    delib: "Deliberation | None",
    rec: "AgentRecord | None",
    message: str,
    *,
    sender: "AgentRecord | None" = None,
    isolation_enabled: bool = True,
    leak_threshold: float = 0.5,
    blind_ranking: bool = True,
    dimensions: "list[str] | None" = None,
) -> Decision:
    """May this SendMessage reach `rec` (the recipient's deliberation record, None when the
    recipient is no deliberation agent)? `sender` is the sending agent's record when a
    deliberation agent sends it. `dimensions`: the configured ranking dimensions' names, whose
    scores a message to a ranker may not carry (default the catalogue's)."""
    if rec is None or delib is None:
        return Decision(True, "not_deliberation")
    if delib.phase in phases.CLOSED:
        return Decision(False, "closed", words.closed(delib.id, delib.phase, who(rec)))
    if sender is not None and sender is not rec and (sender.stage in INDEPENDENT or rec.stage in INDEPENDENT):
        return Decision(False, "independence", words.independence(who(sender), sender.stage, who(rec), rec.stage))
    over = _stage_over(delib, rec)
    if over:
        return Decision(False, "phase", over)
    asked = requested_revision(delib, rec)
    if rec.stage == "ranking" and asked is None:
        return Decision(False, "ranking_independence", words.ranker_steered(who(rec), rec.status in ("spawned", "running")))
    if rec.stage == "research" and isolation_enabled:
        leak = _leak(delib, rec, message, leak_threshold)
        if leak:
            return Decision(False, "isolation", leak)
    if rec.stage == "ranking" and blind_ranking:
        seen = _vote_seen(delib, rec, message, dimensions)
        if seen:
            return Decision(False, "blind_ranking", seen)
    if rec.status in ("spawned", "running"):
        return Decision(True, "running")
    if asked is not None:
        return Decision(True, "requested", why=words.requested(asked))
    refusal = _one_pass_refusal(delib, rec)
    if refusal:
        return Decision(False, "one_pass", refusal)
    return Decision(True, "revision", why=words.UNASKED)


def _vote_seen(delib: Deliberation, rec: AgentRecord, message: str, dimensions: "list[str] | None" = None) -> "str | None":
    """A message to a ranker carries nothing of the vote either (ranking is blind): no leader,
    no other agent's scores, verdicts or words. (The approach list's order is a spawn prompt's
    matter: a revision request need not list the approaches.)"""
    leaks = [k for k in blind_ranking.check_prompt(message, delib, rec.persona, dimensions) if k.kind != "order"]
    if not leaks:
        return None
    return refusals.vote_in_message(who(rec), [(k.kind, k.snippet) for k in leaks])


def _leak(delib: Deliberation, rec: AgentRecord, message: str, threshold: float) -> "str | None":
    findings = isolation.recorded_findings(phases.current(delib, "research"), exclude_persona=rec.persona)
    if not findings:
        return None
    leaked = isolation.check_prompt(message, findings, shared_context=delib.question, threshold=threshold)
    if not leaked:
        return None
    return isolation.leak_reason(leaked, findings, subject=words.leak_subject(who(rec)), instead=words.LEAK_INSTEAD)


def restart(delib: Deliberation, rec: AgentRecord, why: str, now: float) -> None:
    """The agent runs again (a resume): its current report moves to `revisions`, and the report
    of this run replaces it when it arrives. A resumed run reports in the background."""
    if rec.status in ("reported", "invalid"):
        rec.revisions.append(
            Revision(
                status=rec.status, report=rec.report, problem=rec.problem, reported_at=rec.reported_at, replaced_at=now, why=why
            )
        )
        rec.report = None
        rec.problem = None
        rec.ignored_keys = []
        rec.reported_at = None
        rec.send_backs = 0
        rec.superseded = False
        rec.status = "running"
        rec.background = True
        rec.notified = False
        rec.resumes += 1
        delib.last_delivered = ""
        delib.updated_at = now
        if why.startswith("a revision") or why.startswith("resumed without"):
            delib.warnings.append(f"{who(rec)}: {why}")
