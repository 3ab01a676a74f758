"""What the plugin's workflow tells each agent, and what it tells the main agent when it ends.

Every prompt of a workflow wave is built here from the recorded state, so what an agent may and
must carry is fixed by construction and then checked by the same rules as an Agent spawn's
prompt (workflow_steps.py):

- research: "Phase: research", the question and the shared context — identical for every
  research agent, and nothing any agent found (isolation by construction);
- synthesis / debate: the question and the claim and evidence of EVERY research finding, with the
  approaches research proposed;
- red team: the question, the approaches, every finding, the synthesis and the debate's
  conflicts — what it is to break;
- tier 2: the depth axis' own worker prompt (`depth_axis.worker_prompt`, the anti-anchoring floor
  verbatim, the hot spots and their map, no consensus);
- red team 2: the tier-2 items (`depth_axis.tier2_items`);
- ranking: the question and the approaches in the neutral order (`blind_ranking.approach_list`),
  nothing of the vote.

Each ends with how to report: the StructuredOutput tool, whose schema is the report's.
Pure text over the Deliberation.
"""

from __future__ import annotations

from deliberation.core import blind_ranking, engine, next_step, phases
from deliberation.core.depth import axis as depth_axis
from deliberation.state.config import Config
from deliberation.state.models import Deliberation
from deliberation.text.depth import tier2_lines
from deliberation.text.gates import GateFailed
from deliberation.text.notes import TWO_AGENT_OUTCOME as OUTCOME_TEXT
from deliberation.text.render import render

CONTEXT_CHARS = 4000
REPORT = ("Report by calling the StructuredOutput tool once with your whole report as its input (its schema "
          "is the report: phase \"{stage}\"), as your instructions say for a run that offers that tool. "
          "If the call is refused, read why, fix exactly that and call it again.")
NO_CONTEXT = "(none beyond the question: read the repository yourself for what you need)"


def _report(stage: str) -> str:
    return REPORT.format(stage=stage)


def shared_context(text: str) -> str:
    """The shared project context as every research prompt carries it (whitespace-trimmed, bounded)."""
    text = (text or "").strip()
    return text if len(text) <= CONTEXT_CHARS else text[:CONTEXT_CHARS - 1] + "…"


def research(delib: Deliberation, context: str) -> str:
    """The research prompt: the same for every research persona."""
    return "\n".join([
        "Phase: research",
        f"Question: {delib.question}",
        "Shared project context (every research agent of this deliberation gets exactly this):",
        shared_context(context) or NO_CONTEXT,
        "",
        "Study the question alone, from your own focus: findings with evidence, 1-3 approaches (the status "
        "quo too when it is defensible) and your position on them — preferred_approach, verdict (approve = "
        "adopt it, reject = adopt none of them) and rationale in your own words.",
        _report("research"),
    ])


def findings_block(delib: Deliberation) -> str:
    """Every research finding, claim and evidence, by ref."""
    lines = []
    for a in phases.current(delib, "research"):
        for f in a.filed.findings:
            ev = f" (evidence: {' '.join(f.evidence.split())})" if f.evidence.strip() else ""
            lines.append(f"- {a.persona}:{f.id} [{f.severity}]: {' '.join(f.claim.split())}{ev}")
    return "\n".join(lines) or "- (no research finding was recorded)"


def approaches_block(delib: Deliberation, agents=None) -> str:
    """The approaches proposed so far (the synthesis', else research's), with their summaries."""
    source = agents if agents is not None else (
        [a for a in phases.current(delib, "deliberation") if a.kind == "synthesis"] or phases.current(delib, "research"))
    lines = []
    for a in source:
        for ap in a.filed.approaches:
            summary = " ".join(ap.summary.split())
            lines.append(f"- {a.persona}:{ap.id}: {ap.title}" + (f" — {summary}" if summary else ""))
    return "\n".join(lines) or "- (none proposed)"


ROLE_TASK = {
    "synthesis-lead": ("Merge the findings that do not conflict into 2-4 alternatives (approaches with ids "
                       "A, B, …), each traced to the findings it rests on; keep a defensible status quo."),
    "debate-moderator": ("Identify the conflicts between the perspectives (conflicts: between whom or which "
                         "approaches, about what) and the findings each side rests on."),
}


def deliberation(delib: Deliberation, role: str) -> str:
    """The synthesis-lead or debate-moderator prompt: the question and every research finding."""
    return "\n".join([
        "Phase: deliberation",
        f"Question: {delib.question}",
        "Findings of every research agent (claim and evidence):",
        findings_block(delib),
        "Approaches proposed in research:",
        approaches_block(delib, phases.current(delib, "research")),
        "",
        ROLE_TASK.get(role, "Work on these findings from your role."),
        _report("deliberation"),
    ])


def _conflicts(delib: Deliberation) -> str:
    lines = []
    for a in phases.current(delib, "deliberation"):
        if a.kind != "debate":
            continue
        for c in a.filed.conflicts:
            lines.append(f"- between {', '.join(c.between)}: {' '.join(c.about.split())}")
    return "\n".join(lines)


def red_team(delib: Deliberation) -> str:
    """The first red-team pass: what the panel converged on, to break."""
    synth = [a for a in phases.current(delib, "deliberation") if a.kind == "synthesis"]
    parts = ["Phase: deliberation", f"Question: {delib.question}",
             "Approaches:", approaches_block(delib),
             "Findings of every research agent (claim and evidence):", findings_block(delib)]
    for a in synth:
        rep = a.filed
        text = " ".join(f"{rep.summary} {rep.rationale}".split())
        if text:
            parts += ["The synthesis:", text]
    conflicts = _conflicts(delib)
    if conflicts:
        parts += ["Conflicts the debate found:", conflicts]
    parts += ["", "Break the converged points: for each, a refutation (target: the finding ref such as "
              "\"security-analyst:F1\" or the approach id; verdict refuted / weakened / upheld; your claim and its "
              "evidence) and the angles nobody examined in missed_angles.", _report("deliberation")]
    return "\n".join(parts)


def tier2(delib: Deliberation, lens: str, hot_spots: "tuple[str, ...] | list[str]") -> str:
    """A tier-2 worker's prompt: the depth axis' own (floor, hot spots, map), reported by the tool."""
    return depth_axis.worker_prompt(lens, hot_spots, delib) + "\n" + _report("deliberation")


def red_team_2(delib: Deliberation) -> str:
    """Red team 2 over the tier-2 findings (the last depth pass)."""
    items = tier2_lines(depth_axis.tier2_items(delib))
    return "\n".join([
        "Phase: deliberation",
        "You are red team 2: the last pass of the depth axis, over what the tier-2 workers found.",
        f"Question: {delib.question}",
        "Tier-2 items:",
        items,
        "",
        "For each item, a refutation with verdict refuted / weakened / upheld and your evidence, its target the "
        "ref shown (e.g. \"evidence-chase:R1\"); missed angles too. A tier-2 refute you break with evidence is "
        "cancelled; one you cannot break stands.",
        _report("deliberation"),
    ])


def ranking(delib: Deliberation, dimensions: "list[str]") -> str:
    """The blind ranking prompt: the question and the approaches in the neutral order."""
    return "\n".join([
        "Phase: ranking",
        f"Question: {delib.question}",
        blind_ranking.approach_list(delib),
        "",
        f"Score EVERY approach above 0-10 on each of: {', '.join(dimensions)} (risk: 10 = lowest risk; cost: 10 = "
        "cheapest), from your own focus. Give your verdict — approve (adopt your preferred_approach), reject "
        "(adopt none of them) or abstain — your rationale in your own words, and for each approach you would not "
        "adopt a dissent entry (target = its id) with its concern and reason.",
        _report("ranking"),
    ])


def checkpoint(wave: str) -> str:
    return (f"Checkpoint of the deliberation workflow after its {wave} wave. Call the StructuredOutput tool once "
            f"with exactly {{\"checkpoint\": \"{wave}\"}} and nothing else; do not read files or write prose.")


# --------------------------------------------------------------------------------------------
# what the main agent is told when the run ends


def _waves_line(delib: Deliberation) -> str:
    drive = delib.workflow
    parts = []
    for n, w in enumerate(drive.waves if drive else [], start=1):
        recs = [a for a in delib.agents if a.wave == n]
        ok = sum(1 for a in recs if a.status == "reported")
        parts.append(f"{w.name} {ok}/{len(recs)}")
    return ", ".join(parts) or "no wave"


def outcome(delib: Deliberation, cfg: Config, relaunch: str) -> str:
    """The main agent's note when the plugin's workflow has ended: what ran, what went wrong,
    what the rules found on the way, and the next step — the decision document when the vote
    passed, as after the per-turn protocol."""
    drive = delib.workflow
    status = drive.status if drive else "done"
    head = {"failed": "⚠ the plugin's workflow FAILED", "hooks_off": "⚠ the plugin's workflow ran without the "
            "plugin's hooks answering", "foreign": "⚠ the workflow that ran is NOT the plugin's"}.get(
        status, "the plugin's workflow has finished")
    lines = [f"Deliberation {delib.id} — {head} (waves, reports/agents: {_waves_line(delib)})."]
    if status in ("failed", "hooks_off", "foreign") and drive is not None and drive.outcome:
        lines.append(f"What happened: {' '.join(drive.outcome.split())[:600]}")
    missed = [a for a in delib.agents if a.channel == "workflow" and a.status == "invalid"]
    for a in missed[:6]:
        lines.append(f"- no report from {a.persona} ({a.stage}): {(a.problem or '').splitlines()[0][:200]}")
    if delib.two_agent is not None:
        lines.append(f"2-agent rule ({', '.join(delib.two_agent.agents)}): {OUTCOME_TEXT[delib.two_agent.verdict]}.")
    st = delib.depth
    if st.status == "skipped":
        lines.append(f"⚠ {st.skipped_reason}")
    elif st.status == "done":
        lines.append(f"Depth step: {len(st.hot_spots)} hot spot(s) deepened, {len(st.overrides)} override(s), "
                     f"{len(st.zeroed)} tier-2 result(s) zeroed.")
    elif st.status == "off":
        lines.append("Depth axis off for this deliberation: breadth only.")
    if delib.phase == "PRD_GENERATION":
        lines.append(render(engine.document_due(delib)))
    elif delib.phase == "RANKING" and delib.gate1 is not None and not delib.gate1.passed:
        lines.append(render(GateFailed(deliberation=delib.id, result=delib.gate1)))
    elif delib.phase not in ("COMPLETE", "FAILED"):
        why = (drive.outcome if drive and status == "done" else "") or "it ended before the vote"
        lines.append(f"The deliberation is not finished ({delib.phase}): {' '.join(why.split())[:600]}")
        lines.append(f"Next: run the plugin's workflow again — {relaunch} — it continues from what is recorded; "
                     "or continue turn by turn. " + next_step.next_step(delib, cfg).text)
    return "\n".join(lines)
