"""Gate 1 (consensus) and Gate 2 (quality): the next step a failed gate names, and its hold.

The gates (core/consensus_gate.py, core/quality_gate.py) decide which checks fail, with their
figures; they ask here for the sentence of the next step they record in the result
(`GateResult.next_step`, shown by the hold, the record and `deliberation show`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deliberation import catalogue
from deliberation.state.models import GateResult


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dissenter(_Data):
    persona: str
    agent: str  # its agent id (else its record key): what a SendMessage is sent to


class ConsensusNext(_Data):
    """What Gate 1's next step depends on: the failed checks, the phase, the 2-agent form."""

    failed: list[str]  # names of the failed checks, in the gate's order
    phase: str
    two_agent: "str | None" = None  # the 2-agent rule's verdict, when it applied
    agents_figure: str = ""  # the agents_completed check's figure
    undocumented: list[Dissenter] = []


def consensus_next_step(n: ConsensusNext) -> str:
    if "phase" in n.failed:
        if n.phase == "RESEARCH" and n.two_agent in ("proceed", "suspect_herding"):
            return (
                "spawn both personas again to RANK every approach (the minimum viable deliberation: "
                "their research agreed), or continue with DELIBERATION for the full deliberation"
            )
        if n.phase in ("IDLE", "RESEARCH"):
            return (
                "finish RESEARCH (at least 2 independent persona reports), then DELIBERATION "
                "(synthesis-lead / debate-moderator, one red-team pass), then spawn the personas "
                "again to RANK the approaches"
            )
        return "spawn the personas again to RANK every approach on every ranking dimension"
    if "agents_completed" in n.failed:
        return f"spawn more personas to rank: {n.agents_figure} ranking reports"
    if "consensus" in n.failed:
        # fresh blind rankers of the same approaches have nothing new to go on: a bare re-rank
        # is not offered (core/ways_forward.py)
        return "the panel did not agree — " + AGREEMENT_NEXT
    if "dissent_documented" in n.failed:
        names = ", ".join(f"{d.persona} (agent {d.agent})" for d in n.undocumented)
        return (
            f"have {names} document, in `dissent`, a concern with its reason for every approach "
            "it would not adopt: resume each with SendMessage (to = its agent id) asking only for "
            "that, with no other agent's scores or verdicts and no leader — its new report replaces "
            "the old one — or spawn it again for ranking with the same blind prompt; the plugin "
            "reads dissent against the leader it computes after the vote, and a dissent without "
            "reasons cannot be weighed"
        )
    return ""


AGREEMENT_NEXT = (
    "two ways forward, both naming what is contested: (a) one "
    "revision round (ONE synthesis-lead revises the approaches against the contested points, "
    "then the personas rank the revised approaches, fresh and blind; once per deliberation), "
    "or (b) hand the decision to the user (present the options and the split, then stop: "
    "recorded as no consensus, human review)"
)

QUALITY_NEXT = {
    "method_diversity": "spawn research personas with different priorities (e.g. {} and {}) for the missing perspectives, "
    "then re-rank".format(*catalogue.EXAMPLE_PERSONAS[:2]),
    "contradiction_transparency": "ask each dissenting agent to document its concerns with reasons: resume it with SendMessage (to = its agent id; its new report replaces the old one) or spawn it again; its report's `dissent` needs concern + reason",
    "complexity_handling": "generate at least one more alternative — add it (e.g. 'keep the status quo') to the ranking prompt — and re-rank: spawn the personas again to score all of them (synthesis-lead cannot run once ranking has started)",
    "consensus_confidence": "consensus is weak: " + AGREEMENT_NEXT,
    "improvement_evidence": "the deliberation did not move the panel towards its decision: " + AGREEMENT_NEXT,
    "conformity": "re-run the flagged agents with fresh isolation (new spawns, no shared findings) and re-rank",
    "decision_document": "end the concluding answer with the decision document block (PRD): requirements, acceptance criteria and risks, each citing the finding or dissent ids it follows from",
}


def quality_next_step(failed: "list[str]") -> str:
    """The next steps of Gate 2's failed checks (by name, in the gate's order), joined; the
    agreement checks share one (the two ways forward), said once."""
    steps: list[str] = []
    agreement = [name for name in failed if name in ("consensus_confidence", "improvement_evidence")]
    for name in failed:
        if name in agreement[1:]:
            continue
        if name in QUALITY_NEXT:
            steps.append(QUALITY_NEXT[name])
    return "; then ".join(steps)


# --------------------------------------------------------------------------------------------
# the two ways forward of a gate failed on agreement (core/ways_forward.py)


class Share(_Data):
    approach: str  # an approach id, or "(adopt none)"
    rankers: int


class Divergence(_Data):
    approach: str
    dimension: str  # a ranking dimension, or "weighted"
    low: float
    high: float
    low_by: list[str] = []
    high_by: list[str] = []


class Dissent(_Data):
    persona: str
    preferred: "str | None" = None  # "(adopt none)" for a reject; None for a tie
    margin: "float | None" = None  # the leader's score minus its best alternative
    target: str = ""
    concern: str = ""
    reason: str = ""


class Ways(_Data):
    """What the ways forward say: what is contested (bounded) and which ways are open."""

    deliberation: str
    leader: "str | None" = None
    consensus: float = 0.0
    band: str = "weak"
    titles: dict[str, str] = {}
    split: list[Share] = []
    divergences: list[Divergence] = []
    dissent: list[Dissent] = []
    more_dissent: int = 0
    revision: Literal["available", "used"] = "available"
    synthesis_type: str = "synthesis-lead"
    findings: list[str] = []  # persona:finding-id of every research finding the revision prompt carries


def _title(w: Ways, aid: str) -> str:
    t = w.titles.get(aid)
    return f"{aid} ({t})" if t and t != aid else aid


def _dimension(d: Divergence) -> str:
    what = "weighted score" if d.dimension == "weighted" else d.dimension.replace("/", ", ")
    low = f" (low: {', '.join(d.low_by)})" if d.low_by else ""
    high = f" (high: {', '.join(d.high_by)})" if d.high_by else ""
    return f"{d.approach} {what} {d.low:g}–{d.high:g}{low}{high}"


def _unanimous(w: Ways) -> bool:
    """Every ranker that voiced a preference preferred the leader, and none dissented: the vote
    failed on how firmly, not on how many (a real-model trial's 3 of 3 for B at 0.64 was told to
    "say the panel did not agree")."""
    return bool(w.leader) and len(w.split) == 1 and w.split[0].approach == w.leader and not w.dissent and not w.more_dissent


THIN = "each by a thin margin over its next choice (the consensus weighs how firmly, not only how many)"


def contested_lines(w: Ways) -> "list[str]":
    """What is contested: the split, the scores that diverge most, each dissenter's concern."""
    lines = ["What is contested:"]
    if w.split:
        lines.append(
            "- the split: "
            + "; ".join(f"{s.approach} preferred by {s.rankers} ranker{'s' if s.rankers != 1 else ''}" for s in w.split)
            + (f" (leading: {w.leader}, consensus {w.consensus:.2f}, {w.band})" if w.leader else "")
        )
    if _unanimous(w):
        lines.append(f"- no dissent: every ranker prefers {w.leader}, {THIN}")
    if w.divergences:
        lines.append("- the scores diverge most on: " + "; ".join(_dimension(d) for d in w.divergences))
    for d in w.dissent:
        if d.preferred is None:
            pos = "ties the leader with another approach"
        elif d.preferred == "(adopt none)":
            pos = "rejects every approach"
        else:
            by = f" by {-d.margin:.1f} points" if d.margin is not None and d.margin < 0 else ""
            pos = f"prefers {d.preferred} over {w.leader}{by}"
        said = f' — "{d.concern}"' + (f" ({d.reason})" if d.reason else "") if d.concern else " — no concern documented"
        lines.append(f"- {d.persona} {pos}{said}")
    if w.more_dissent:
        lines.append(f"- and {w.more_dissent} more dissenter(s) (the record lists them)")
    return lines


def ways_forward(w: Ways) -> str:
    """The contested points and the two ways forward, each with its exact next step."""
    ids = ", ".join(_title(w, a) for a in w.titles) or "the approaches"
    lead = f"adopt the leading approach {w.leader}" if w.leader else "adopt the leading approach"
    said = (
        f"say every ranker preferred {w.leader}, but too narrowly to reach the bar"
        if _unanimous(w)
        else "say the panel did not agree"
    )
    handover = (
        f"hand the decision to the user: present the options — {ids} — and the split above, {said}, "
        "and end your turn. That stop is accepted: the deliberation completes "
        f'with route human-review and outcome "no consensus", its record written; tell the user they '
        f"settle it with `deliberation approve {w.deliberation}` ({lead}) or `deliberation reject "
        f"{w.deliberation}` (set it aside) — in Claude Code `! deliberation approve {w.deliberation}`."
    )
    lines = contested_lines(w)
    carry = (
        f"the claim and evidence of EVERY research finding ({', '.join(w.findings)}; the contested points "
        "do not replace them: a prompt that lacks any of them is refused), "
        if w.findings
        else ""
    )
    if w.revision == "available":
        lines += [
            "Two ways forward — choose one:",
            f"(a) one revision round (this deliberation has one; never a second): spawn ONE `{w.synthesis_type}` "
            f'with the Agent tool, prompt starting "Phase: deliberation" with the question, {carry}the '
            f"approaches {ids} and the contested points above, asking it to revise each approach "
            "against them (keep the ids; its report's `approaches` replace the list). When it has reported, "
            "spawn the research personas again, fresh, to rank the revised approaches blind — the contested "
            "points may be in the ranking prompts, never who scored or voted what.",
            f"(b) {handover}",
            "Asking the user which way to take is (b) until they answer: if they then ask for the revision "
            "round, take (a) — the deliberation reopens for it, until they approve or reject.",
        ]
    else:
        lines += [f"The one revision round of this deliberation is used: the way forward is to {handover}"]
    return "\n".join(lines)


class GateFailed(_Data):
    """A gate failed: the hold names every failed check with its figure and the next step — for
    a failure on agreement, what is contested and the two ways forward (`ways`)."""

    kind: Literal["gate_failed"] = "gate_failed"
    deliberation: str
    result: GateResult
    ways: "Ways | None" = None


PHASE_DETAIL = "a conclusion needs the vote of the RANKING phase"  # Gate 1's phase check
AGENTS_DETAIL = "valid ranking reports"  # Gate 1's agents_completed check


def phase_figure(phase: str, at_ranking: bool) -> str:
    """Gate 1's phase check: 'phase DELIBERATION < RANKING'."""
    return f"phase {phase}" + ("" if at_ranking else " < RANKING")


def count_figure(done: int, needed: int) -> str:
    """Gate 1's agents_completed check: '1 < 2'."""
    return f"{done} {'≥' if done >= needed else '<'} {needed}"


def consensus_figure(consensus: float, threshold: float, task_type: str, passed: bool) -> str:
    """Gate 1's consensus check: '0.62 < 0.80 for architecture'."""
    return f"{consensus:.2f} {'≥' if passed else '<'} {threshold:.2f} for {task_type}"


def consensus_detail(leading: "str | None") -> str:
    return f"leading approach {leading}" if leading else "no ranking yet"


def dissent_figure(documented: int, dissenters: int) -> str:
    """Gate 1's dissent_documented check: '1 of 2 dissenters documented'."""
    return f"{documented} of {dissenters} dissenters documented"


def dissent_detail(undocumented: "list[str]") -> str:
    return ("undocumented: " + ", ".join(undocumented)) if undocumented else ""


def unanimous_reject_figure(rejections: int, outcome: str) -> str:
    """Gate 1's consensus check on a unanimous reject: every voter rejects (`outcome`: its name)."""
    return f"unanimous reject: {rejections} of {rejections} voting agents reject — {outcome}"


def unanimous_reject_detail(leading: "str | None", consensus: float) -> str:
    """The panel agrees on the verdict; the top-scored approach, if any, is not adopted."""
    top = f"; the top-scored approach {leading} ({consensus:.2f}) is not adopted" if leading else ""
    return f"agreement on the verdict{top}"


# Gate 2's figures: improvement evidence, the consensus on a reject, the decision document

IMPROVEMENT_SCALE = (
    "the share of the panel whose position is the decision: each research persona's preferred "
    "approach, stated alone (before), against each blind ranker's preference (after)"
)
IMPROVEMENT_STATUS = {
    "improved": "improved: the deliberation moved the panel towards its decision",
    "confirmed": "confirmed: every position was the decision before and after",
    "flat": "flat: the deliberation moved nobody",
    "fell": "fell: the deliberation broke an agreement",
    "unmeasured": "unmeasured: no research position to compare (does not block)",
}


def improvement_figure(after: float, before: float, status: str) -> str:
    """The share for the decision after the blind ranking against research (status: improved,
    confirmed, flat or fell)."""
    sign = {"improved": ">", "confirmed": "=", "flat": "=", "fell": "<"}[status]
    return f"share for the decision {after:.2f} {sign} {before:.2f} at research ({status})"


def improvement_detail(
    decision: "str | None", paired: bool, pairs: "list[dict]", unmatched: "list[str]", trigger: "float | None", forced: bool
) -> str:
    """What the improvement check compared: the scale, the decision, each persona's position
    before and after (`pairs`: persona, before, after; `paired`: the same personas took both),
    the research preferences that matched no ranked approach, and what it did not compare."""
    who = ", ".join(f"{p['persona']} {p['before'] or '-'}→{p['after'] or '-'}" for p in pairs)
    text = f"compared: {IMPROVEMENT_SCALE}; decision {decision or '-'}"
    if who:
        text += f"; {'the same personas' if paired else 'two panels'}: {who}"
    if unmatched:
        text += f"; research preference matched no ranked approach: {', '.join(unmatched)}"
    text += "; not compared: the rankers' self-reported confidence (fresh blind rankers have no new evidence)"
    if trigger is not None:
        how = "forced by the user" if forced else "the trigger's score"
        text += f", the trigger's {trigger:.2f} ({how}), a word-list score of the prompt on another scale"
    return text


def personas_figure(distinct: int, needed: int) -> str:
    """Gate 2's method_diversity check: '2 distinct personas (need 2)'."""
    return f"{distinct} distinct personas (need {needed})"


def dissents_figure(documented: int, dissents: int) -> str:
    """Gate 2's contradiction_transparency check: '1 of 2 dissents documented'."""
    return f"{documented} of {dissents} dissents documented"


def without_reasons_detail(bare: "list[str]") -> str:
    """The dissenting reports (`persona/stage`) that gave no reason."""
    return ("without reasons: " + ", ".join(bare)) if bare else ""


def alternatives_figure(alternatives: int, needed: int) -> str:
    """Gate 2's complexity_handling check: '1 alternatives (need 2)'."""
    return f"{alternatives} alternatives (need {needed})"


def reject_confidence_figure(rejections: int, outcome: str) -> str:
    """Gate 2's consensus_confidence check on a unanimous reject (`outcome`: its name)."""
    return f"unanimous reject ({rejections} reject, 0 approve): {outcome}"


def band_figure(consensus: float, band: str) -> str:
    """Gate 2's consensus_confidence check: '0.62 (weak)'."""
    return f"{consensus:.2f} ({band})"


def band_detail(strong: float, moderate: float, task_type: str, threshold: float) -> str:
    return f"strong > {strong:.2f}, moderate {moderate:.2f}–{strong:.2f}; {task_type} threshold {threshold:.2f}"


def conformity_figure(warnings: int) -> str:
    return f"{warnings} warning(s)"


def conformity_detail(warnings: "list[tuple[str, str]]") -> str:
    """Each (detector, evidence) of the conformity warnings, on one line."""
    return "; ".join(f"{detector}: {evidence}" for detector, evidence in warnings)


def document_missing_figure(send_backs: int) -> str:
    return f"missing after {send_backs} send-back(s)"


def document_pending_figure(send_backs: int) -> str:
    return f"not accepted yet (send-back {send_backs})"


def reject_confidence_detail(consensus: float) -> str:
    """Gate 2's consensus check on a unanimous reject: the score measures what is not adopted."""
    return (
        f"agreement on the verdict; the consensus score {consensus:.2f} measures "
        "support for the top-scored approach, which is not adopted"
    )


def document_figure(counts: str, untraced: "list[str] | tuple[str, ...]") -> str:
    """The decision document is present (`counts`: its parts); every item traced, or the untraced ones."""
    return f"present: {counts}; " + (
        "every requirement, criterion and risk traced" if not untraced else f"untraced: {', '.join(untraced)}"
    )


def no_consensus_detail(failed: "list[str]", leading: "str | None", after_revision: bool) -> str:
    """The NO_CONSENSUS rule's detail: what failed (the failed checks), the leading approach, who
    holds the decision now."""
    what = "; ".join(failed) if failed else "the vote did not pass"
    lead = f"; leading approach {leading}" if leading else ""
    rnd = " after the revision round" if after_revision else ""
    return f"no consensus{rnd} ({what}{lead}): the decision was handed to the user"


def gate_failed(o: GateFailed) -> str:
    r = o.result
    if r.gate == "consensus":
        lines = [f"Deliberation {o.deliberation} — consensus gate FAILED:"]
        lines += [f"- {c.name}: {c.figure}" + (f" ({c.detail})" if c.detail else "") for c in r.checks if not c.passed]
    else:
        lines = [f"Deliberation {o.deliberation} — quality gate FAILED:"]
        for c in r.checks:
            lines.append(f"- {c.name}: {'pass' if c.passed else 'FAIL'} — {c.figure}")
            if not c.passed and c.name == "improvement_evidence" and c.detail:
                lines.append(f"  ({c.detail})")
    if o.ways is not None:
        lines.append(ways_forward(o.ways))
    else:
        lines.append(f"Next: {r.next_step}.")
    return "\n".join(lines)


def gate_failed_person(o: GateFailed) -> str:
    """The person's line of a failed gate (the model reads the whole hold; the person would see
    nothing of it): what failed with its figures, and who decides what now."""
    r = o.result
    failed = [c for c in r.checks if not c.passed]
    if r.gate == "consensus":
        figures = "; ".join(c.figure if c.figure.startswith(c.name) else f"{c.name} {c.figure}" for c in failed)
        figures = figures or "the vote did not pass"
        if o.ways is not None and o.ways.revision == "available":
            then = "the panel did not agree: Claude takes the one revision round, or hands the decision to you"
        elif o.ways is not None:
            then = "the revision round is used: Claude hands the decision to you"
        else:
            then = f"Claude must first {r.next_step}" if r.next_step else "Claude must act on it before it may conclude"
        return f"⚠ Deliberation {o.deliberation}: consensus gate FAILED ({figures}) — {then}."
    names = ", ".join(c.name for c in failed) or "a check"
    return f"⚠ Deliberation {o.deliberation}: quality gate FAILED ({names}) — Claude must fix it before it may conclude."


class RevisionIn(_Data):
    """The revision round's synthesis has reported: its approaches stand, the fresh ranking is due."""

    kind: Literal["revision_in"] = "revision_in"
    deliberation: str
    titles: dict[str, str] = {}


def revision_in(o: RevisionIn) -> str:
    listed = "; ".join(f"{a}: {t}" for a, t in o.titles.items()) or "none"
    return (
        f"Deliberation {o.deliberation} — revision round: the revised approaches stand ({listed}); the "
        "earlier ranking is set aside (the record keeps its figures). Rank the revised approaches with "
        "fresh, blind rankers — this is the deliberation's one revision round."
    )
