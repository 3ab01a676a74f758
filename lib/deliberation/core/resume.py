"""SendMessage to a deliberation agent: which messages and resumes the plugin accepts, and what
a resumed agent's new report does (pure over `state.Deliberation` / `state.AgentRecord`).

The client's SendMessage (docs/CLIENT_CHANNELS.md) reaches a running subagent at its next tool
round, or RESUMES a finished one: the same agent runs again with its own context and ends with a
new final message (a second SubagentStart/SubagentStop, in the background even when it was
spawned in the foreground). A resumed agent continues in the stage it was spawned for, so the
guards of that stage apply to the message as to a spawn prompt:

- the deliberation is closed (COMPLETE/FAILED) → refused: its reports are final;
- a deliberation agent messaging another while RESEARCH or RANKING runs → refused: those agents
  work independently;
- the agent's stage is over (a researcher once the deliberation is in DELIBERATION…) → refused,
  with the fresh spawn to make instead;
- a research agent's message is checked for other agents' findings (isolation.py), as a
  research spawn prompt is;
- the plugin asked for the agent's new report — its report was recorded invalid, or Gate 1
  failed because this dissenter did not document its concerns → allowed: the new report
  REPLACES the old one, as a re-spawn's would (the old one is kept in `revisions`);
- otherwise (not asked for): a research, synthesis or debate agent of the open stage may revise
  (recorded as a revision; the record says it was not requested); a ranker's vote is never
  changed unasked (a re-rank is a fresh, blind spawn) and the red team and tier-2 lenses are one
  pass each (the depth axis is linear) → refused.

A resume the hooks did not see asked for (no SendMessage hook: an older install) is recorded as a
revision with a warning: a new report is never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import consensus_gate, phases
from deliberation.state.models import AgentRecord, Deliberation, Revision
from deliberation.core import blind_ranking
from deliberation.core import isolation
from deliberation.text import refusals

STAGE_PHASE = {"research": "RESEARCH", "deliberation": "DELIBERATION", "ranking": "RANKING"}
INDEPENDENT = ("research", "ranking")


@dataclass
class Decision:
    allowed: bool
    rule: str         # requested, revision, running, not_deliberation | the refusal's rule
    reason: str = ""  # the refusal, for the model
    why: str = ""     # what the record keeps with the replaced report


def who(rec: AgentRecord) -> str:
    return f"{rec.persona} (agent {rec.agent_id or rec.key})"


def requested_revision(delib: Deliberation, rec: AgentRecord) -> "str | None":
    """Why the plugin asked for this agent's new report, or None when it did not."""
    if rec.status == "invalid":
        return f"its report was recorded invalid ({(rec.problem or 'no valid report').splitlines()[0][:160]})"
    gate = delib.gate1
    if rec.stage == "ranking" and gate is not None and not gate.passed and delib.ranking is not None \
            and rec.status == "reported" and not rec.superseded:
        missing = consensus_gate.undocumented(consensus_gate.dissenters(delib, delib.ranking.leading))
        if any(a is rec for a in missing):
            return "the consensus gate asked it to document its dissent (concern + reason)"
    return None


def _stage_over(delib: Deliberation, rec: AgentRecord) -> "str | None":
    if delib.phase == STAGE_PHASE[rec.stage]:
        return None
    if rec.stage == "research":
        step = ("spawn it again with the Agent tool for ranking (a fresh agent given only the approaches)"
                if delib.phase == "RANKING" or rec.kind != "persona"
                else "give its findings to the deliberation roles in their spawn prompts, or spawn it again to "
                     "rank when deliberation is done")
    elif rec.stage == "deliberation":
        step = "re-rank instead: spawn the personas again for RANKING"
    elif delib.phase == "PRD_GENERATION":
        step = ("the vote has passed: hand the plugin the decision document it asked for (the Write call it "
                "named) — or, to change the vote, spawn the ranking personas again for a fresh, blind re-rank")
    else:
        step = "spawn the ranking personas again for a fresh, blind re-rank"
    return (f"{who(rec)} worked in the {rec.stage.upper()} stage, and deliberation {delib.id} is now in "
            f"{delib.phase}; a resumed agent continues in its own stage, which is over. Next: {step}.")


def _one_pass_refusal(delib: Deliberation, rec: AgentRecord) -> "str | None":
    """Red team and tier-2 lenses run one pass each; synthesis and debate are settled once the red
    team has read them."""
    if rec.kind in ("red-team", "lens"):
        return (f"{who(rec)} already reported, and the red team and the tier-2 lenses run one pass each "
                "(the depth axis is linear, never rounds). Next: continue with the step the last gate "
                "reason named — or, to repair a report the plugin recorded as invalid, resume it then.")
    red_team_in = any(a.kind == "red-team" for a in phases.current(delib, "deliberation"))
    if rec.kind in ("synthesis", "debate") and red_team_in:
        return (f"{who(rec)} already reported, and the red team has reviewed that work: a revision now "
                "would leave the red-team pass behind it. Next: rank the approaches as they stand "
                "(spawn the personas again for RANKING).")
    return None


def decide(delib: "Deliberation | None", rec: "AgentRecord | None", message: str, *,
           sender: "AgentRecord | None" = None, isolation_enabled: bool = True,
           leak_threshold: float = 0.5, blind_ranking: bool = True) -> Decision:
    """May this SendMessage reach `rec` (the recipient's deliberation record, None when the
    recipient is no deliberation agent)? `sender` is the sending agent's record when a
    deliberation agent sends it."""
    if rec is None or delib is None:
        return Decision(True, "not_deliberation")
    if delib.phase in phases.CLOSED:
        return Decision(False, "closed",
                        f"Deliberation {delib.id} is {delib.phase}: the reports of {who(rec)} are final. Next: for "
                        "a new question spawn fresh personas with the Agent tool (a new deliberation opens).")
    if sender is not None and sender is not rec and (sender.stage in INDEPENDENT or rec.stage in INDEPENDENT):
        return Decision(False, "independence",
                        f"{who(sender)} may not message {who(rec)}: {sender.stage} and {rec.stage} agents of a "
                        "deliberation work independently. Next: put what you found in your own report; the "
                        "main agent shares findings in DELIBERATION.")
    over = _stage_over(delib, rec)
    if over:
        return Decision(False, "phase", over)
    asked = requested_revision(delib, rec)
    if rec.stage == "ranking" and asked is None:
        state = "is ranking" if rec.status in ("spawned", "running") else "already ranked"
        return Decision(False, "ranking_independence",
                        f"{who(rec)} {state}; a ranker's vote changes only when the plugin asks for it "
                        "(a dissent to document, an invalid report), so no message may steer it. Next: to "
                        "re-rank, spawn the ranking personas again with the Agent tool (fresh, blind votes).")
    if rec.stage == "research" and isolation_enabled:
        leak = _leak(delib, rec, message, leak_threshold)
        if leak:
            return Decision(False, "isolation", leak)
    if rec.stage == "ranking" and blind_ranking:
        seen = _vote_seen(delib, rec, message)
        if seen:
            return Decision(False, "blind_ranking", seen)
    if rec.status in ("spawned", "running"):
        return Decision(True, "running")
    if asked is not None:
        return Decision(True, "requested", why=f"requested by the plugin: {asked}")
    refusal = _one_pass_refusal(delib, rec)
    if refusal:
        return Decision(False, "one_pass", refusal)
    return Decision(True, "revision", why="a revision the plugin did not ask for (SendMessage resume)")


def _vote_seen(delib: Deliberation, rec: AgentRecord, message: str) -> "str | None":
    """A message to a ranker carries nothing of the vote either (ranking is blind): no leader,
    no other agent's scores, verdicts or words. (The approach list's order is a spawn prompt's
    matter: a revision request need not list the approaches.)"""
    leaks = [k for k in blind_ranking.check_prompt(message, delib, rec.persona) if k.kind != "order"]
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
    return isolation.leak_reason(leaked, findings, subject=f"this message to research agent {who(rec)}",
                                 instead="send it nothing of other agents' findings")


def restart(delib: Deliberation, rec: AgentRecord, why: str, now: float) -> None:
    """The agent runs again (a resume): its current report moves to `revisions`, and the report
    of this run replaces it when it arrives. A resumed run reports in the background."""
    if rec.status in ("reported", "invalid"):
        rec.revisions.append(Revision(status=rec.status, report=rec.report, problem=rec.problem,
                                      reported_at=rec.reported_at, replaced_at=now, why=why))
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
