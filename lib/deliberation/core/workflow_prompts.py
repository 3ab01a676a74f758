"""What each agent of the plugin's workflow may and must carry, picked from the recorded state,
and the main agent's note when the run ends (text/prompts.py and text/workflow.py word them).

By construction: research prompts are identical and carry nothing any agent found; synthesis and
debate carry every research finding's claim and evidence and the approaches research proposed;
the red team adds the synthesis and the debate's conflicts; tier 2 is the depth axis' own worker
prompt; red team 2 gets the tier-2 items; ranking gets the approaches in the neutral order and
nothing of the vote. workflow_steps.py then checks each prompt by the same rules as an Agent
spawn's. Pure over the Deliberation.
"""

from __future__ import annotations

from deliberation.core import blind_ranking, drafting, engine, independence, next_step, phases
from deliberation.core.depth import axis as depth_axis
from deliberation.state.config import Config
from deliberation.state.models import Deliberation
from deliberation.text import conformity as conformity_words
from deliberation.text import prompts as words
from deliberation.text import workflow as run_words
from deliberation.text.depth import tier2_lines
from deliberation.text.gates import GateFailed
from deliberation.text.notes import TWO_AGENT_OUTCOME as OUTCOME_TEXT
from deliberation.text.render import render

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import AgentRecord

CONTEXT_CHARS = 4000


def shared_context(text: str) -> str:
    """The shared project context as every research prompt carries it: facts, its conclusion
    sentences dropped (core/independence.py), whitespace-trimmed, bounded."""
    text, _dropped = independence.split_context((text or "").strip())
    return text if len(text) <= CONTEXT_CHARS else text[: CONTEXT_CHARS - 1] + "…"


def research(delib: Deliberation, context: str) -> str:
    """The research prompt: the same for every research persona."""
    return words.research(delib.question, shared_context(context))


def findings(delib: Deliberation) -> "list[list[str]]":
    """Every research finding of the current reports: [ref, severity, claim, evidence]."""
    return [
        [f"{a.persona}:{f.id}", f.severity, f.claim, f.evidence]
        for a in phases.current(delib, "research")
        for f in a.filed.findings
    ]


def findings_block(delib: Deliberation) -> str:
    """Every research finding, claim and evidence, by ref."""
    return words.findings_block(findings(delib))


def approaches_block(delib: Deliberation, agents: "list[AgentRecord] | None" = None) -> str:
    """The approaches proposed so far (the synthesis', else research's), with their summaries."""
    source = (
        agents
        if agents is not None
        else ([a for a in phases.current(delib, "deliberation") if a.kind == "synthesis"] or phases.current(delib, "research"))
    )
    return words.approaches_block([[f"{a.persona}:{ap.id}", ap.title, ap.summary] for a in source for ap in a.filed.approaches])


def deliberation(delib: Deliberation, role: str) -> str:
    """The synthesis-lead or debate-moderator prompt: the question and every research finding."""
    return words.deliberation(
        delib.question, findings_block(delib), approaches_block(delib, phases.current(delib, "research")), role
    )


def _conflicts(delib: Deliberation) -> str:
    return words.conflicts_block(
        [[c.between, c.about] for a in phases.current(delib, "deliberation") if a.kind == "debate" for c in a.filed.conflicts]
    )


def red_team(delib: Deliberation) -> str:
    """The first red-team pass: what the panel converged on, to break."""
    synth = [a for a in phases.current(delib, "deliberation") if a.kind == "synthesis"]
    texts = [" ".join(f"{a.filed.summary} {a.filed.rationale}".split()) for a in synth]
    return words.red_team(
        delib.question, approaches_block(delib), findings_block(delib), [t for t in texts if t], _conflicts(delib)
    )


def tier2(delib: Deliberation, lens: str, hot_spots: "tuple[str, ...] | list[str]") -> str:
    """A tier-2 worker's prompt: the depth axis' own (floor, hot spots, map), reported by the tool."""
    return depth_axis.worker_prompt(lens, hot_spots, delib) + "\n" + words.report("deliberation")


def red_team_2(delib: Deliberation) -> str:
    """Red team 2 over the tier-2 findings (the last depth pass)."""
    return words.red_team_2(delib.question, tier2_lines(depth_axis.tier2_items(delib)))


def ranking(delib: Deliberation, dimensions: "list | None" = None) -> str:
    """The blind ranking prompt: the question and the approaches in the neutral order."""
    return words.ranking(delib.question, blind_ranking.approach_list(delib), dimensions)


def checkpoint(wave: str, launch: str = "") -> str:
    return words.checkpoint(wave, launch)


# --------------------------------------------------------------------------------------------
# what the main agent is told when the run ends


def _waves(delib: Deliberation) -> "list[list]":
    """Each wave of the run: [name, reports, agents]."""
    drive = delib.workflow
    out = []
    for n, w in enumerate(drive.waves if drive else [], start=1):
        if w.name == "drafting":  # the drafter is no deliberation agent: its report is the document
            out.append([w.name, int(delib.prd.via == "drafter"), w.agents])
            continue
        recs = [a for a in delib.agents if a.wave == n]
        out.append([w.name, sum(1 for a in recs if a.status == "reported"), len(recs)])
    return out


def outcome(delib: Deliberation, cfg: Config, relaunch: str) -> str:
    """The main agent's note when the plugin's workflow has ended: what ran, what went wrong,
    what the rules found on the way, and the next step — the decision document when the vote
    passed, as after the per-turn protocol."""
    drive = delib.workflow
    status = drive.status if drive else "done"
    lines = [run_words.run_ended(delib.id, status, _waves(delib))]
    if status in ("failed", "hooks_off", "foreign") and drive is not None and drive.outcome:
        lines.append(run_words.what_happened(drive.outcome))
    missed = [a for a in delib.agents if a.channel == "workflow" and a.status == "invalid"]
    for a in missed[:6]:
        lines.append(run_words.no_report_from(a.persona, a.stage, (a.problem or "").splitlines()[0]))
    if delib.two_agent is not None:
        lines.append(run_words.two_agent_rule(delib.two_agent.agents, OUTCOME_TEXT[delib.two_agent.verdict]))
    st = delib.depth
    if st.status == "skipped":
        lines.append(run_words.depth_skipped(st.skipped_reason))
    elif st.status == "done":
        lines.append(run_words.depth_done(len(st.hot_spots), len(st.overrides), len(st.zeroed)))
    elif st.status == "off":
        lines.append(run_words.DEPTH_OFF)
    m = independence.measure(delib)
    if m.findings and delib.phase in ("PRD_GENERATION", "COMPLETE", "RANKING"):
        lines.append(conformity_words.beyond_context(m.findings, len(m.restated), len(m.dropped)))
    if delib.phase == "PRD_GENERATION" and delib.prd.status == "accepted" and delib.prd.via == "drafter":
        lines.append(drafting.outcome_text(delib, drafting.record_path(delib.id)))
    elif delib.phase == "PRD_GENERATION":
        if drafting.due(delib) and any(w.name == "drafting" for w in (drive.waves if drive else [])):
            lines.append(run_words.DRAFT_NOT_RECORDED)
        lines.append(render(engine.document_due(delib)))
    elif delib.phase == "RANKING" and delib.gate1 is not None and not delib.gate1.passed:
        lines.append(render(GateFailed(deliberation=delib.id, result=delib.gate1)))
    elif delib.phase not in ("COMPLETE", "FAILED"):
        why = (drive.outcome if drive and status == "done" else "") or "it ended before the vote"
        lines.append(run_words.not_finished(delib.phase, why))
        lines.append(run_words.run_again(relaunch, next_step.next_step(delib, cfg).text))
    return "\n".join(lines)
