"""The decision record: a structured dict (`record_json`) and its Markdown rendering.

Owns what a decision record says and in which order: question, task type and threshold, the
decision (leading approach, consensus vs threshold, strong/moderate/weak band), the decision
document (PRD: requirements, non-goals, acceptance criteria, risks and mitigations, open
questions — each item with the findings and dissent it cites, resolved), the persona × approach
score table, the five-dimension breakdown of the leading approach, alternatives, the findings
by persona with evidence and severity, dissent with reasons, gate checks with figures,
conformity warnings, the depth-axis trail, the route and the rules that fired, the cost
(agents, tokens per agent, wall time; money only at configured prices), warnings — and, given a
`Lineage`, the spawn tree. Its JSON form follows `record_model.DecisionRecord`
(`state_schema/decision_record.schema.json`); `build` makes that typed record once, and the
Markdown (`markdown`) and the HTML (`html_report.html`) render from it.

Pure rendering over `state.Deliberation`: no I/O, no clock. The only times shown are those in
the state, formatted as UTC, so the same state always renders byte-identically.
`html_report` and the CLI views reuse the helpers here (labels, titles, lineage rows).
Model-written text is escaped for Markdown (no raw HTML, no table breakage).
"""

from __future__ import annotations

from deliberation.state import record_model as R

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from deliberation import defaults
from deliberation.core import lineage as lin
from deliberation.core import consensus_gate, cost, personas, prd, quality_gate, ranking
from deliberation.core import independence, token_usage
from deliberation.text import conformity as conformity_words
from deliberation.text.cost import duration, summary_line
from deliberation.report import outcome
from deliberation.state.models import Deliberation, Lineage, Spawn
from deliberation.core.phases import current, ranked_identities
from deliberation.text.depth import hot_spot_line
from deliberation.text.notes import TWO_AGENT_OUTCOME as OUTCOME_TEXT

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.config import PriceTable
    from deliberation.state.models import AgentRecord, GateResult

STRONG = defaults.CONFIG["gates"]["strong"]
MODERATE = defaults.CONFIG["gates"]["moderate"]
MAIN = lin.MAIN


# --------------------------------------------------------------------------------------------
# small formatting helpers (shared with html_report and the CLI)


def fmt_utc(ts: "float | None") -> str:
    """`2026-01-01 09:00:00 UTC`, or an em dash for a missing/zero time."""
    if not ts:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def fmt_score(x: "float | None", digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def one_line(text: "str | None", limit: int = 0) -> str:
    """Collapse whitespace to single spaces; cut to `limit` characters with an ellipsis."""
    s = " ".join((text or "").split())
    if limit and len(s) > limit:
        s = s[: max(1, limit - 1)].rstrip() + "…"
    return s


def band(consensus: float, strong: float = STRONG, moderate: float = MODERATE) -> str:
    """strong (> strong), moderate (>= moderate), else weak — Gate 2's bands (docs/EVIDENCE.md, E4)."""
    return ranking.band(consensus, strong, moderate)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md(text: "str | None", limit: int = 0) -> str:
    """Model-written text made safe for one Markdown line or table cell: whitespace collapsed,
    Markdown/HTML punctuation backslash-escaped, so `</script>` or `|` stays literal text."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text, limit))


def md_code(text: "str | None") -> str:
    """An id in backticks; backticks inside are removed (ids never legitimately hold them)."""
    return "`" + one_line(text).replace("`", "'") + "`"


# --------------------------------------------------------------------------------------------
# views over the deliberation


def approach_catalogue(delib: Deliberation) -> "dict[str, dict[str, str]]":
    """Approach id → {title, summary, proposed_by}: the approaches the rankers ranked under
    their ranked ids (the synthesis' list, else research's, as phases.ranked_identities names
    them), then any other report's approach under an id not yet taken (first proposal wins;
    superseded reports skipped). Ranked ids nobody described get their id as title."""
    out: dict[str, dict[str, str]] = {}
    titles, owners = ranked_identities(delib)
    for agent in delib.agents:
        if agent.report is None or agent.superseded:
            continue
        for ap in agent.report.approaches:
            key = owners.get((agent.persona, ap.id))
            if key is not None and key in titles and key not in out:
                out[key] = {"title": titles[key], "summary": ap.summary, "proposed_by": agent.persona}
    for agent in delib.agents:
        if agent.report is None or agent.superseded:
            continue
        for ap in agent.report.approaches:
            if ap.id not in out:
                out[ap.id] = {"title": ap.title, "summary": ap.summary, "proposed_by": agent.persona}
    for aid in delib.ranking.approaches if delib.ranking else []:
        out.setdefault(aid, {"title": aid, "summary": "", "proposed_by": ""})
    return out


def agent_labels(delib: Deliberation) -> "dict[str, str]":
    """Agent key → a person-readable label: the persona's title, made unique by a suffix."""
    seen: dict[str, int] = {}
    for a in delib.agents:
        seen[a.persona] = seen.get(a.persona, 0) + 1
    labels: dict[str, str] = {}
    for a in delib.agents:
        base = personas.title(a.persona)
        if a.tier == 2 and a.kind == "red-team":
            base = f"{base} 2"
        labels[a.key] = base
    # scored agents must be distinguishable in the score table
    ranked = [a for a in delib.agents if a.stage == "ranking"]
    counts: dict[str, int] = {}
    for a in ranked:
        counts[labels[a.key]] = counts.get(labels[a.key], 0) + 1
    for a in ranked:
        if counts[labels[a.key]] > 1:
            labels[a.key] = f"{labels[a.key]} ({a.key[:8]})"
    return labels


def _score_rows(delib: Deliberation, labels: "dict[str, str]") -> "list[dict[str, Any]]":
    """One row per scoring agent (ranking order): {agent, persona, label, scores: {approach: weighted}}."""
    r = delib.ranking
    if r is None:
        return []
    rows: dict[str, dict[str, Any]] = {}
    for s in r.scores:
        row = rows.setdefault(
            s.agent,
            {"agent": s.agent, "persona": s.persona, "label": labels.get(s.agent, personas.title(s.persona)), "scores": {}},
        )
        row["scores"][s.approach] = s.weighted
    return list(rows.values())


def _breakdown(delib: Deliberation, labels: "dict[str, str]") -> "list[dict[str, Any]]":
    """Per dimension of the leading approach: weight, per-agent values, mean, weighted contribution."""
    r = delib.ranking
    if r is None or r.leading is None:
        return []
    lead = [s for s in r.scores if s.approach == r.leading]
    out = []
    # heaviest first, so the order does not depend on how the file stored the dict
    for dim, weight in sorted(r.dimensions.items(), key=lambda kv: (-kv[1], kv[0])):
        values = {labels.get(s.agent, s.persona): s.dimensions.get(dim) for s in lead}
        present = [v for v in values.values() if v is not None]
        mean = round(sum(present) / len(present), 4) if present else None
        out.append(
            {
                "dimension": dim,
                "weight": weight,
                "by_agent": values,
                "mean": mean,
                "contribution": round(weight * mean, 4) if mean is not None else None,
            }
        )
    return out


_REFUTATION_ID = re.compile(r"^([a-z0-9][a-z0-9-]*):R(\d+)$")


def shown_id(sid: "str | None") -> "str | None":
    """A cited id as the record shows it: a refutation is `persona:C1` (a challenge), so that `R`
    means a requirement only (`R1`, the decision document's own ids). The hooks and the model
    say `persona:R1`; the record translates it wherever it names one, and nothing else."""
    return _REFUTATION_ID.sub(r"\1:C\2", sid) if sid else sid


def _source_ids(catalogue: "dict[str, prd.Source]") -> "dict[tuple[str, str, int], str]":
    """(kind, agent key, index in its report's list) → the id a decision document cites it by."""
    return {(src.kind, src.agent, src.index): sid for sid, src in catalogue.items() if src.agent}


def _dissent(
    delib: Deliberation, labels: "dict[str, str]", ids: "dict[tuple[str, str, int], str] | None" = None
) -> "tuple[list[dict], list[dict]]":
    """Documented concerns (current reports), and the dissenters — by Gate 1's definition: they
    reject, or prefer another approach than the leading one — who documented none."""
    ids = ids if ids is not None else _source_ids(prd.citable(delib))
    items: list[dict] = []
    undocumented: list[dict] = []
    leading = delib.ranking.leading if delib.ranking else None
    approach_ids = delib.ranking.approaches if delib.ranking else []
    positions = consensus_gate.positions(delib, leading)
    for a in consensus_gate.dissenters(delib, leading):
        if not consensus_gate.documents(a, leading, approach_ids):
            rep = a.filed
            pos = positions.get(a.key)
            why = (
                "rejected"
                if rep.verdict == "reject"
                else f"prefers {pos.preferred if pos and pos.preferred else rep.preferred_approach} over the leading {leading}"
            )
            undocumented.append({"agent": a.key, "label": labels[a.key], "why": why})
    for a in delib.agents:
        if a.report is None or a.superseded or a.status != "reported":
            continue
        for i, c in enumerate(a.report.dissent):
            items.append(
                {
                    "id": ids.get(("dissent", a.key, i)),
                    "agent": a.key,
                    "label": labels[a.key],
                    "persona": a.persona,
                    "stage": a.stage,
                    "verdict": a.report.verdict,
                    "target": c.target,
                    "concern": c.concern,
                    "reason": c.reason,
                }
            )
    return items, undocumented


def _findings(
    delib: Deliberation, labels: "dict[str, str]", ids: "dict[tuple[str, str, int], str]", cited_by: "dict[str, list[str]]"
) -> "list[dict[str, Any]]":
    """The findings (and refutations) of every valid, current report, grouped by agent in record
    order — research personas first — each with its evidence, severity, citable id and the
    decision-document items that cite it."""
    groups = []
    for a in current(delib):
        rep = a.filed
        if not rep.findings and not rep.refutations:
            continue
        findings = []
        for i, f in enumerate(rep.findings):
            sid = ids.get(("finding", a.key, i))
            findings.append(
                {
                    "id": sid,
                    "local_id": f.id,
                    "claim": f.claim,
                    "evidence": f.evidence,
                    "severity": f.severity,
                    "cited_by": list(cited_by.get(sid or "", [])),
                }
            )
        refutations = []
        for i, r in enumerate(rep.refutations):
            sid = ids.get(("refutation", a.key, i))
            refutations.append(
                {
                    "id": shown_id(sid),
                    "target": shown_id(r.target),
                    "verdict": r.verdict,
                    "claim": r.claim,
                    "evidence": r.evidence,
                    "cited_by": list(cited_by.get(sid or "", [])),
                }
            )
        groups.append(
            {
                "agent": a.key,
                "label": labels[a.key],
                "persona": a.persona,
                "kind": a.kind,
                "stage": a.stage,
                "tier": a.tier,
                "findings": findings,
                "refutations": refutations,
            }
        )
    return groups


def _cited(doc: "prd.DecisionDocument | None", catalogue: "dict[str, prd.Source]") -> "dict[str, list[str]]":
    """Source id → the document items that cite it."""
    out: dict[str, list[str]] = {}
    if doc is None:
        return out
    for _section, label, refs in prd._items(doc):
        for ref in refs:
            sid = prd.resolve(ref, catalogue)
            if sid is not None and label not in out.setdefault(sid, []):
                out[sid].append(label)
    return out


def _prd(delib: Deliberation, catalogue: "dict[str, prd.Source]") -> "dict[str, Any]":
    """The decision document's state and content, every citation resolved to what it cites."""
    st = delib.prd

    def refs(raw: "list[str]") -> "list[dict[str, Any]]":
        out: "list[dict[str, Any]]" = []
        for ref in raw:
            sid = prd.resolve(ref, catalogue)
            if sid is None:
                out.append({"id": ref, "kind": "unknown", "persona": "", "text": ""})
            else:
                src = catalogue[sid]
                out.append({"id": shown_id(sid), "kind": src.kind, "persona": src.persona, "text": src.text})
        return out

    doc = st.document
    body = None
    trace = None
    if doc is not None:
        verified_by: dict[str, list[str]] = {}
        for a in doc.acceptance_criteria:
            for v in a.verifies:
                verified_by.setdefault(v, []).append(a.id)
        body = {
            "decision": doc.decision,
            "problem": doc.problem,
            "requirements": [
                {
                    "id": r.id,
                    "text": r.text,
                    "priority": r.priority,
                    "sources": refs(r.sources),
                    "verified_by": verified_by.get(r.id, []),
                }
                for r in doc.requirements
            ],
            "non_goals": [{"text": n.text, "sources": refs(n.sources)} for n in doc.non_goals],
            "acceptance_criteria": [
                {"id": a.id, "text": a.text, "verifies": list(a.verifies), "sources": refs(a.sources)}
                for a in doc.acceptance_criteria
            ],
            "risks": [
                {"id": k.id, "risk": k.risk, "mitigation": k.mitigation, "severity": k.severity, "sources": refs(k.sources)}
                for k in doc.risks
            ],
            "open_questions": [{"question": q.question, "sources": refs(q.sources)} for q in doc.open_questions],
        }
        t = prd.trace(doc, catalogue)
        trace = {
            "items": t.items,
            "citations": t.citations,
            "by_kind": dict(t.by_kind),
            "untraced": list(t.untraced),
            "unknown": list(t.unknown),
            "uncovered": list(t.uncovered),
        }
    return {
        "status": st.status,
        "due_at": fmt_utc(st.due_at) if st.due_at else None,
        "closed_at": fmt_utc(st.closed_at) if st.closed_at else None,
        "send_backs": st.send_backs,
        "problem": st.problem,
        "document": body,
        "trace": trace,
    }


def _usage(delib: Deliberation, labels: "dict[str, str]", prices: "PriceTable | None") -> "dict[str, Any]":
    u = cost.usage(delib, prices)
    for row in u["per_agent"]:
        row["label"] = labels.get(row["agent"], personas.title(row["persona"]))
    u["summary"] = summary_line(u)
    return u


def _gate(g: "GateResult | None") -> "dict[str, Any] | None":
    if g is None:
        return None
    return {
        "gate": g.gate,
        "passed": g.passed,
        "at": fmt_utc(g.at),
        "next_step": g.next_step,
        "checks": [{"name": c.name, "passed": c.passed, "figure": c.figure, "detail": c.detail} for c in g.checks],
    }


def _depth(delib: Deliberation, labels: "dict[str, str]") -> "dict[str, Any]":
    d = delib.depth
    tier2 = []
    for a in delib.agents:
        if a.tier != 2:
            continue
        rep = a.report
        tier2.append(
            {
                "agent": a.key,
                "label": labels[a.key],
                "lens": a.persona,
                "kind": a.kind,
                "status": a.status,
                "zeroed": a.key in d.zeroed,
                "hot_spots": list(rep.hot_spots if rep else a.given.hot_spots),
                "summary": rep.summary if rep else "",
                "refutations": [
                    {"target": shown_id(x.target), "verdict": x.verdict, "claim": x.claim, "evidence": x.evidence}
                    for x in (rep.refutations if rep else [])
                ],
            }
        )
    return {
        "posture": d.posture,
        "enabled": d.enabled,
        "status": d.status,
        "passes": d.passes,
        "workers_per_wave": d.workers_per_wave,
        "skipped_reason": d.skipped_reason,
        "clamped": d.clamped,
        "hot_spots": [h.model_dump(mode="json") for h in d.hot_spots],
        "tier2_by_lens": dict(d.tier2_by_lens),
        "overrides": [o.model_dump(mode="json") for o in d.overrides],
        "zeroed": [labels.get(z, z) for z in d.zeroed],
        "tier2": tier2,
        "tokens": token_usage.summary(delib),
        "basis": d.basis,
    }


def _preferred(agent: "AgentRecord", positions: "dict[str, Any]") -> "str | None":
    """The approach an agent prefers: the one its report names, else — for a current ranker —
    its top weighted score, as the vote read it (consensus.position); None for neither."""
    if agent.report is None:
        return None
    if agent.report.preferred_approach:
        return agent.report.preferred_approach
    pos = positions.get(agent.key) if not agent.superseded else None
    return pos.preferred if pos is not None and pos.preferred else None


def hot_spot_verdicts(depth: "R.Depth") -> "dict[str, list[tuple[str, str]]]":
    """Hot spot id → (tier-2 worker, verdict) of each refutation a worker that took the hot spot
    on made (a worker with no refutation: "no counter-evidence"; one that restated tier 1: "zero
    signal"), from the record's depth section."""
    out: "dict[str, list[tuple[str, str]]]" = {}
    for row in depth.tier2 or []:
        verdicts = list(dict.fromkeys(x.verdict for x in row.refutations)) or ["no counter-evidence"]
        if row.zeroed:
            verdicts = ["zero signal"]
        for hid in row.hot_spots:
            out.setdefault(hid, []).extend((row.lens, v) for v in verdicts)
    return out


def record_json(
    delib: Deliberation, strong: float = STRONG, moderate: float = MODERATE, prices: "PriceTable | None" = None
) -> "dict[str, Any]":
    """The structured decision record (JSON-ready, deterministic) kept in the deliberation JSON;
    its shape is `record_model.DecisionRecord`. `prices` (config.PriceTable) adds money to the
    cost section."""
    labels = agent_labels(delib)
    catalogue = prd.citable(delib)
    ids = _source_ids(catalogue)
    cat = approach_catalogue(delib)
    r = delib.ranking
    leading = r.leading if r else None
    outcome = delib.outcome or ranking.outcome(r)
    decision: dict[str, Any] = {
        "approach": leading,
        "title": None,
        "summary": None,
        "consensus": None,
        "threshold": delib.threshold,
        "meets_threshold": False,
        "band": None,
        "text": delib.decision,
        "outcome": outcome,
        "adopted": leading if outcome == "adopted" else None,
        "spread": None,
        "stdev": None,
        "approvals": None,
        "rejections": None,
        "abstentions": None,
        "agents": None,
        "mean": None,
    }
    if outcome == "rejected":
        decision["text"] = ranking.REJECTED
    if r is not None:
        decision.update(
            consensus=r.consensus,
            meets_threshold=r.consensus >= delib.threshold,
            band=band(r.consensus, strong, moderate),
            spread=r.spread,
            stdev=r.stdev,
            approvals=r.approvals,
            rejections=r.rejections,
            abstentions=r.abstentions,
            agents=r.agents,
        )
    means = dict(r.means) if r else {}
    if leading:
        decision.update(title=cat[leading]["title"], summary=cat[leading]["summary"], mean=means.get(leading))
    approaches: list[dict[str, Any]] = [
        {
            "id": aid,
            "title": cat.get(aid, {}).get("title", aid),
            "summary": cat.get(aid, {}).get("summary", ""),
            "mean": means.get(aid),
            "leading": aid == leading,
            "struck": any(o.target == aid for o in delib.depth.overrides),
        }
        for aid in (r.approaches if r else sorted(cat))
    ]
    lead_mean = means.get(leading) if leading else None
    alternatives = [
        {**a, "gap": round(a["mean"] - lead_mean, 4) if a["mean"] is not None and lead_mean is not None else None}
        for a in approaches
        if not a["leading"]
    ]
    alternatives.sort(key=lambda a: (-(a["mean"] if a["mean"] is not None else -1), a["id"]))
    dissent, undocumented = _dissent(delib, labels, ids)
    # a ranker that named no approach prefers what its scores prefer, as the vote read it
    positions = consensus_gate.positions(delib, leading)
    route = None
    if delib.route is not None:
        route = delib.route.model_dump(mode="json")
    return {
        "deliberation_id": delib.id,
        "session_id": delib.session_id,
        "question": delib.question,
        "task_type": delib.task_type,
        "task_type_overridden": delib.task_type_overridden,
        "threshold": delib.threshold,
        "phase": delib.phase,
        "created_at": fmt_utc(delib.created_at),
        "updated_at": fmt_utc(delib.updated_at),
        "initial_confidence": delib.initial_confidence,
        "improvement": quality_gate.improvement_evidence(delib).to_json(),
        "decision": decision,
        "dimensions": dict(sorted(r.dimensions.items(), key=lambda kv: (-kv[1], kv[0]))) if r else {},
        "approaches": approaches,
        "scores": _score_rows(delib, labels),
        "leading_breakdown": _breakdown(delib, labels),
        "alternatives": alternatives,
        "prd": _prd(delib, catalogue),
        "findings": _findings(delib, labels, ids, _cited(delib.prd.document, catalogue)),
        "dissent": dissent,
        "undocumented_dissent": undocumented,
        "gates": {"consensus": _gate(delib.gate1), "quality": _gate(delib.gate2)},
        "conformity": [
            {
                "detector": w.detector,
                "agents": [labels.get(a, a) for a in w.agents],
                "evidence": w.evidence,
                "recommendation": w.recommendation,
            }
            for w in delib.conformity
        ],
        "independence": _independence(delib),
        "depth": _depth(delib, labels),
        "two_agent": delib.two_agent.model_dump(mode="json") if delib.two_agent else None,
        "ways": delib.ways.model_dump(mode="json") if delib.ways else None,
        "route": route,
        "usage": _usage(delib, labels, prices),
        "warnings": list(delib.warnings),
        "failure_reasons": list(delib.failure_reasons),
        "phase_history": [
            {"from": p.from_phase, "to": p.to_phase, "at": fmt_utc(p.at), "why": p.why} for p in delib.phase_history
        ],
        "participants": [
            {
                "key": a.key,
                "label": labels[a.key],
                "persona": a.persona,
                "kind": a.kind,
                "stage": a.stage,
                "tier": a.tier,
                "status": a.status,
                "verdict": a.report.verdict if a.report else None,
                "preferred": _preferred(a, positions),
                "confidence": a.report.confidence if a.report else None,
                "superseded": a.superseded,
                "problem": a.problem,
                "model": a.model or a.model_requested,
                "resumes": a.resumes,
                "revisions": [{"status": v.status, "replaced_at": fmt_utc(v.replaced_at), "why": v.why} for v in a.revisions],
            }
            for a in delib.agents
        ],
        "models": _models(delib),
    }


def _models(delib: Deliberation) -> "dict[str, Any]":
    """Which models the agents ran on (the client's resolved model, else the one asked for)."""
    ran: dict[str, int] = {}
    unknown = 0
    for a in delib.agents:
        m = a.model or a.model_requested
        if m:
            ran[m] = ran.get(m, 0) + 1
        else:
            unknown += 1
    return {
        "ran_on": dict(sorted(ran.items())),
        "unknown": unknown,
        "single_model": any(w.detector == "single_model" for w in delib.conformity),
    }


# --------------------------------------------------------------------------------------------
# lineage tree (shared by the Markdown record, the HTML report and `deliberation lineage`)


@dataclass(frozen=True)
class LineageRow:
    level: int  # 0 = a child of main
    spawn: Spawn
    node: str  # agent_id, else tool_use_id, else a positional name
    active: int  # this node's active children
    total: int  # this node's children
    last: bool  # last among its siblings (for tree drawing)
    prefix: str  # box-drawing prefix for text rendering, e.g. "│   └── "
    orphan: bool = False  # its parent is not in the lineage


def _node_id(spawn: Spawn, index: int) -> str:
    return spawn.agent_id or spawn.tool_use_id or f"#{index}"


def is_active(spawn: Spawn, now: "float | None" = None, stale_after_s: "float | None" = None) -> bool:
    """Active = requested or running; with `now`, a request never seen to start goes stale."""
    if now is not None and stale_after_s is not None:
        return lin.is_active(spawn, now, stale_after_s)
    return spawn.status in lin.ACTIVE


def children_counts(
    lineage: Lineage, now: "float | None" = None, stale_after_s: "float | None" = None
) -> "dict[str, tuple[int, int]]":
    """Parent → (active children, total children)."""
    out: dict[str, tuple[int, int]] = {}
    for s in lineage.spawns:
        act, tot = out.get(s.parent, (0, 0))
        out[s.parent] = (act + (1 if is_active(s, now, stale_after_s) else 0), tot + 1)
    return out


def lineage_rows(lineage: Lineage, now: "float | None" = None, stale_after_s: "float | None" = None) -> "list[LineageRow]":
    """The spawn tree in depth-first order (spawn order among siblings). Spawns whose parent is
    unknown hang under main, marked orphan; a cycle can never loop."""
    nodes = {_node_id(s, i): s for i, s in enumerate(lineage.spawns)}
    counts = children_counts(lineage, now, stale_after_s)
    kids: dict[str, list[tuple[str, Spawn, bool]]] = {}
    for i, s in enumerate(lineage.spawns):
        parent, orphan = s.parent, False
        if parent != MAIN and parent not in nodes:
            parent, orphan = MAIN, True
        kids.setdefault(parent, []).append((_node_id(s, i), s, orphan))
    rows: list[LineageRow] = []
    seen: set[str] = set()

    def walk(parent: str, level: int, stem: str) -> None:
        siblings = [k for k in kids.get(parent, []) if k[0] not in seen]
        for j, (node, spawn, orphan) in enumerate(siblings):
            if node in seen:
                continue
            seen.add(node)
            last = j == len(siblings) - 1
            act, tot = counts.get(node, (0, 0)) if spawn.agent_id else (0, 0)
            rows.append(LineageRow(level, spawn, node, act, tot, last, stem + ("└── " if last else "├── "), orphan))
            walk(node, level + 1, stem + ("    " if last else "│   "))

    walk(MAIN, 0, "")
    # anything unreachable (a parent cycle): list it flat under main
    for i, s in enumerate(lineage.spawns):
        node = _node_id(s, i)
        if node not in seen:
            seen.add(node)
            rows.append(LineageRow(0, s, node, 0, 0, True, "└── ", True))
    return rows


def spawn_label(spawn: Spawn) -> str:
    """`Security Analyst` for a deliberation agent, else the raw subagent type; how it started
    when not through the Agent tool, its model, resumes and a start past the budget."""
    name = personas.normalise_agent_type(spawn.subagent_type)
    base = personas.title(name) if personas.is_deliberation_agent(name) else (one_line(spawn.subagent_type, 60) or "unknown")
    extra = []
    if spawn.channel != "agent":
        extra.append("workflow" if spawn.channel == "workflow" else "unannounced start")
    if spawn.model or spawn.model_requested:
        extra.append(one_line(spawn.model or spawn.model_requested, 40))
    if spawn.resumes:
        extra.append(f"resumed {spawn.resumes}×")
    if spawn.over_budget:
        extra.append("PAST THE BUDGET")
    return f"{base} ({', '.join(extra)})" if extra else base


# --------------------------------------------------------------------------------------------
# Markdown


def _table(headers: "list[str]", rows: "list[list[str]]", align: "list[str] | None" = None) -> "list[str]":
    align = align or ["l"] * len(headers)
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in align]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _md_decision(rec: R.DecisionRecord) -> "list[str]":
    d = rec.decision
    lines = ["## Decision", ""]
    if d.approach is None and d.outcome != "no-consensus":
        lines += ["No approach has been ranked yet (phase " + rec.phase + ").", ""]
        return lines
    verdict = "meets" if d.meets_threshold else "is below"
    if d.outcome == "no-consensus":
        w = rec.ways
        rnd = " after the revision round" if w is not None and w.revision not in (None, "available") else ""
        lines.append(
            f"**No consensus{rnd} — the decision was handed to the user.** The panel did not agree "
            f"({'; '.join(md(f) for f in (w.failed if w else [])) or 'the vote did not pass'}); nothing is "
            "adopted until a person settles it (route human-review): `deliberation approve "
            f"{rec.deliberation_id}` adopts the leading approach, `deliberation reject "
            f"{rec.deliberation_id}` sets it aside."
        )
        if d.approach is not None and d.consensus is not None:
            lines.append("")
            lines.append(
                f"Leading approach: {md(d.title)} ({md_code(d.approach)}), consensus "
                f"{d.consensus:.2f} {verdict} the {md(rec.task_type)} threshold {d.threshold:.2f} "
                f"— {d.band}. Verdicts: {d.approvals} approve · {d.rejections} reject · "
                f"{d.abstentions} abstain."
            )
        before: "dict[str, Any]" = (w.before if w else None) or {}
        if rnd and before.get("leader"):
            lines.append("")
            lines.append(
                f"Before the revision round: leading {md_code(before['leader'])}, consensus "
                f"{before.get('consensus', 0.0):.2f} ({before.get('band', '')}); split "
                + ", ".join(f"{md(s['approach'])} {s['rankers']}" for s in before.get("split", []))
                + "."
            )
        lines.append("")
        return lines
    if d.outcome == "rejected":
        lines.append(
            f"**Rejected — no approach adopted.** Every agent that voted rejected "
            f"({d.rejections} reject · {d.approvals} approve · {d.abstentions} abstain): "
            "the panel adopts none of the approaches (route auto-reject)."
        )
        lines.append("")
        lines.append(
            f"Top-scored approach, not adopted: {md(d.title)} ({md_code(d.approach)}), "
            f"mean {fmt_score(d.mean)}, consensus {d.consensus:.2f} "
            f"(spread {d.spread:.2f}, stdev {d.stdev:.2f} over {d.agents} agents)."
        )
        lines.append("")
        return lines
    lines.append(f"**{md(d.title)}** (approach {md_code(d.approach)})")
    lines.append("")
    lines.append(
        f"Consensus **{d.consensus:.2f}** {verdict} the {md(rec.task_type)} threshold "
        f"**{d.threshold:.2f}** — **{d.band}** consensus "
        f"(spread {d.spread:.2f}, stdev {d.stdev:.2f} over {d.agents} agents)."
    )
    lines.append("")
    lines.append(f"Verdicts: {d.approvals} approve · {d.rejections} reject · {d.abstentions} abstain.")
    if d.summary:
        lines += ["", f"> {md(d.summary)}"]
    lines.append("")
    return lines


def _md_scores(rec: R.DecisionRecord) -> "list[str]":
    if not rec.scores:
        return []
    ids = [a.id for a in rec.approaches]
    lead = rec.decision.approach
    headers = ["Persona"] + [f"{md(a)} ★" if a == lead else md(a) for a in ids]
    rows = [
        [md(r.label)] + [(f"**{r.scores[a]:.2f}**" if a == lead else f"{r.scores[a]:.2f}") if a in r.scores else "—" for a in ids]
        for r in rec.scores
    ]
    means = {a.id: a.mean for a in rec.approaches}
    rows.append(["*mean*"] + [f"*{fmt_score(means.get(a))}*" for a in ids])
    lines = ["## Scores (weighted, 0–10)", ""]
    lines += _table(headers, rows, ["l"] + ["r"] * len(ids))
    lines.append("")
    lines.append(
        "★ leading approach. "
        + "; ".join(
            f"{md_code(a.id)} {md(a.title)}" + (" (struck by the depth axis)" if a.struck else "") for a in rec.approaches
        )
        + "."
    )
    lines.append("")
    return lines


def _md_breakdown(rec: R.DecisionRecord) -> "list[str]":
    rows_in = rec.leading_breakdown
    if not rows_in:
        return []
    agents = list(rows_in[0].by_agent)
    headers = ["Dimension", "Weight"] + [md(a) for a in agents] + ["Mean", "Weighted"]
    rows = [
        [md(r.dimension), f"{r.weight:.2f}"]
        + [fmt_score(r.by_agent[a], 1) for a in agents]
        + [fmt_score(r.mean), fmt_score(r.contribution)]
        for r in rows_in
    ]
    total = rec.decision.mean or 0.0  # = Σ contributions, without a second rounding
    rows.append(["**total**", f"{sum(r.weight for r in rows_in):.2f}"] + [""] * len(agents) + ["", f"**{total:.2f}**"])
    lines = [f"## Five-dimension breakdown of {md_code(rec.decision.approach)}", ""]
    lines += _table(headers, rows, ["l", "r"] + ["r"] * len(agents) + ["r", "r"])
    lines.append("")
    return lines


def _md_alternatives(rec: R.DecisionRecord) -> "list[str]":
    lines = ["## Alternatives", ""]
    if not rec.alternatives:
        return lines + ["None were ranked.", ""]
    for a in rec.alternatives:
        gap = f" ({a.gap:+.2f} vs leading)" if a.gap is not None else ""
        struck = " — struck by the depth axis" if a.struck else ""
        summary = f": {md(a.summary)}" if a.summary else ""
        lines.append(f"- {md_code(a.id)} **{md(a.title)}** — mean {fmt_score(a.mean)}{gap}{struck}{summary}")
    lines.append("")
    return lines


def _md_refs(sources: "list[R.SourceRef]") -> str:
    if not sources:
        return ""
    return " ← " + ", ".join(md_code(x.id) + ("" if x.kind != "unknown" else " (unknown)") for x in sources)


def _md_prd(rec: R.DecisionRecord) -> "list[str]":
    p = rec.prd
    lines = ["## Decision document (PRD)", ""]
    doc = p.document
    if doc is None:
        if p.status == "missing":
            return lines + [
                f"**Missing** — recorded without a decision document after {p.send_backs} send-back(s): {md(p.problem)}",
                "",
            ]
        state = {
            "due": "due: the vote passed, the main agent's concluding answer brings it",
            "not_due": "not due yet: the vote has not passed",
        }.get(p.status, p.status)
        return lines + [f"Not written yet ({md(state)}).", ""]
    lines += [f"**Decision.** {md(doc.decision)}", ""]
    if doc.problem:
        lines += [f"**Problem.** {md(doc.problem)}", ""]
    lines.append(
        "Each item cites (←) the findings (`persona:F1`), dissent (`persona:D1`), refutations "
        "(`persona:C1`, a challenge) or hot spots (`H1`) it follows from; they are listed under *Findings by persona*, "
        "*Dissent* and *Depth axis*."
    )
    lines.append("")
    if doc.requirements:
        lines += ["### Requirements", ""]
        for r in doc.requirements:
            by = f" (verified by {', '.join(md_code(x) for x in r.verified_by)})" if r.verified_by else ""
            lines.append(f"- {md_code(r.id)} **{r.priority}** — {md(r.text)}{by}{_md_refs(r.sources)}")
        lines.append("")
    if doc.non_goals:
        lines += ["### Non-goals", ""] + [f"- {md(n.text)}{_md_refs(n.sources)}" for n in doc.non_goals] + [""]
    if doc.acceptance_criteria:
        lines += ["### Acceptance criteria", ""]
        for a in doc.acceptance_criteria:
            ver = f" (verifies {', '.join(md_code(x) for x in a.verifies)})" if a.verifies else ""
            lines.append(f"- {md_code(a.id)} {md(a.text)}{ver}{_md_refs(a.sources)}")
        lines.append("")
    if doc.risks:
        rows = [
            [
                md_code(k.id),
                k.severity,
                md(k.risk),
                md(k.mitigation),
                ", ".join(md_code(x.id) for x in k.sources),
            ]
            for k in doc.risks
        ]
        lines += ["### Risks and mitigations", ""] + _table(["Id", "Severity", "Risk", "Mitigation", "Cites"], rows) + [""]
    if doc.open_questions:
        lines += ["### Open questions", ""] + [f"- {md(q.question)}{_md_refs(q.sources)}" for q in doc.open_questions] + [""]
    t = p.trace
    if t:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}(s)" for k, n in t.by_kind.items() if n)
        lines.append(
            f"Traceability: {t.citations} citation(s) from {t.items} item(s) resolve to {kinds or 'nothing'}"
            + (f"; untraced: {', '.join(t.untraced + t.unknown)}" if t.untraced or t.unknown else "")
            + (f"; no acceptance criterion verifies {', '.join(t.uncovered)}" if t.uncovered else "")
            + "."
        )
        lines.append("")
    return lines


def _md_findings(rec: R.DecisionRecord) -> "list[str]":
    if not rec.findings:
        return []
    lines = ["## Findings by persona", ""]
    for g in rec.findings:
        lines += [f"### {md(g.label)} ({g.stage})", ""]
        for f in g.findings:
            cited = f" — cited by {', '.join(md_code(x) for x in f.cited_by)}" if f.cited_by else ""
            ev = md(f.evidence) or "*no evidence given*"
            lines.append(f"- {md_code(f.id or f.local_id)} **{f.severity}** — {md(f.claim)} (evidence: {ev}){cited}")
        for r in g.refutations:
            cited = f" — cited by {', '.join(md_code(x) for x in r.cited_by)}" if r.cited_by else ""
            ev = md(r.evidence) or "*no evidence*"
            lines.append(f"- {md_code(r.id or '-')} {r.verdict} {md_code(r.target)}: {md(r.claim)} (evidence: {ev}){cited}")
        lines.append("")
    return lines


def _md_usage(rec: R.DecisionRecord) -> "list[str]":
    u = rec.usage
    lines = ["## Cost and usage", "", md(u.summary), ""]
    if not u.per_agent:
        return lines
    rows = []
    for r in u.per_agent:

        def n(key: str, r: R.AgentUsageRow = r) -> str:
            v = getattr(r, key)
            return "—" if v is None else f"{v:,}"

        rows.append(
            [
                md(r.label),
                r.stage,
                "background" if r.background else "foreground",
                md(r.model) or "—",
                n("calls"),
                n("input_tokens"),
                n("cache_creation_input_tokens"),
                n("cache_read_input_tokens"),
                n("output_tokens"),
                f"{r.total_tokens:,}",
                md(r.source),
                "—" if r.wall_s is None else duration(r.wall_s),
            ]
        )
    b = u.breakdown
    rows.append(
        [
            "**total**",
            "",
            "",
            "",
            f"{u.calls:,}",
            f"{b['input_tokens']:,}",
            f"{b['cache_creation_input_tokens']:,}",
            f"{b['cache_read_input_tokens']:,}",
            f"{b['output_tokens']:,}",
            f"**{u.total_tokens:,}**",
            "",
            duration(u.wall_time_s) + " wall",
        ]
    )
    lines += _table(
        ["Agent", "Stage", "Mode", "Model", "Calls", "Input", "Cache write", "Cache read", "Output", "Total", "Source", "Time"],
        rows,
        ["l", "l", "l", "l", "r", "r", "r", "r", "r", "r", "l", "r"],
    )
    lines.append("")
    lines.append(f"Counted: {md(u.counted)}.")
    m = u.money
    if m is not None:
        rates = "; ".join(
            f"{md_code(k)} input {r['input']}, cache write {r['cache_write']}, cache read {r['cache_read']}, output {r['output']}"
            for k, r in m.rates_per_mtok.items()
        )
        lines.append(f"Prices ({m.currency} per million tokens, as of {md(m.as_of)}, from {md(m.source)}): {rates}.")
    lines.append("")
    return lines


def _md_dissent(rec: R.DecisionRecord) -> "list[str]":
    lines = ["## Dissent", ""]
    if not rec.dissent and not rec.undocumented_dissent:
        return lines + ["No agent dissented.", ""]
    for c in rec.dissent:
        lines.append(
            f"- {md_code(c.id or '-')} **{md(c.label)}** ({c.stage}, verdict {c.verdict}) on "
            f"{md_code(c.target)}: {md(c.concern)} — *reason:* {md(c.reason)}"
        )
    for x in rec.undocumented_dissent:
        lines.append(f"- **{md(x.label)}** dissented ({md(x.why)}) without documenting a concern.")
    lines.append("")
    return lines


def _md_gates(rec: R.DecisionRecord) -> "list[str]":
    lines = ["## Gates", ""]
    names = {"consensus": "Gate 1 — consensus", "quality": "Gate 2 — quality"}
    for key in ("consensus", "quality"):
        g = getattr(rec.gates, key)
        if g is None:
            lines += [f"### {names[key]}: not run", ""]
            continue
        lines += [f"### {names[key]}: {outcome.gate_mark(g).upper()} ({g.at})", ""]
        for c in g.checks:
            detail = f" — {md(c.detail)}" if c.detail else ""
            lines.append(f"- {outcome.check_mark(c).upper()} {md_code(c.name)}: {md(c.figure)}{detail}")
        if g.next_step:
            lines += ["", f"Next step: {md(g.next_step)}"]
        lines.append("")
    return lines


def _independence(delib: Deliberation) -> "dict[str, Any]":
    m = independence.measure(delib)
    return {"findings": m.findings, "restated": list(m.restated), "beyond": m.beyond, "dropped": list(m.dropped)}


def _md_conformity(rec: R.DecisionRecord) -> "list[str]":
    lines = ["## Conformity warnings", ""]
    i = rec.independence
    if i is not None:
        lines += [conformity_words.beyond_context(i.findings, len(i.restated), len(i.dropped)), ""]
    if not rec.conformity:
        return lines + ["None detected. (The detectors cannot prove independence; they flag herding patterns.)", ""]
    for w in rec.conformity:
        who = ", ".join(md(a) for a in w.agents)
        lines.append(f"- **{w.detector.replace('_', ' ')}** ({who}): {md(w.evidence)}. Recommendation: {md(w.recommendation)}.")
    lines.append("")
    return lines


def _md_tokens(d: R.Depth) -> "list[str]":
    t = d.tokens
    if not t:
        return []
    by = t.agents_by_source
    return [
        f"Tokens counted for the depth budget: {t.used} — {md(t.counted)}; "
        f"{by['transcript']} agent(s) from their transcripts, {by['totalTokens']} from the client's "
        f"totalTokens, {by['task-notification']} from task notifications, {t.agents_not_counted} "
        "not counted.",
        "",
    ]


def _md_depth(rec: R.DecisionRecord) -> "list[str]":
    d = rec.depth
    lines = ["## Depth axis", ""]
    if not d.enabled and not d.hot_spots and not d.skipped_reason:
        state = "off (breadth only)" if d.status == "off" else d.status.replace("_", " ")
        return lines + [f"Depth axis: {state}. Posture: {md(d.posture) or '—'}.", ""] + _md_tokens(d)
    lines.append(
        f"Posture **{md(d.posture) or '—'}**, status **{d.status}**, {d.passes} additional "
        f"pass(es), {d.workers_per_wave} workers per wave."
    )
    if d.basis:
        lines.append(
            f"Planned on the {md(d.basis)}: in the minimum viable deliberation the AGAINST agent "
            "stands in for the first red-team pass."
        )
    if d.clamped:
        lines.append(f"Clamped: {md(d.clamped)}.")
    if d.skipped_reason:
        lines.append(f"**Deepening skipped:** {md(d.skipped_reason)}")
    lines.append("")
    lines += _md_tokens(d)
    if d.hot_spots:
        found = hot_spot_verdicts(d)
        rows = [
            [
                md_code(h.id),
                md(hot_spot_line(h.kind, found.get(h.id, []))),
                md(h.statement),
                md(", ".join(h.sources)),
            ]
            for h in d.hot_spots
        ]
        lines += ["Hot spots:", ""] + _table(["Id", "Kind", "Statement", "Sources"], rows) + [""]
    if d.tier2_by_lens:
        lines.append("Tier-2 workers by lens: " + ", ".join(f"{md(k)} {v}" for k, v in sorted(d.tier2_by_lens.items())) + ".")
        lines.append("")
    for t in d.tier2:
        spots = " on " + ", ".join(md_code(h) for h in t.hot_spots) if t.hot_spots else ""
        zero = " — **zero signal** (restated tier 1)" if t.zeroed else ""
        lines.append(f"- **{md(t.label)}**{spots}: {md(t.summary)}{zero}")
        for x in t.refutations:
            ev = md(x.evidence) or "*no evidence*"
            lines.append(f"  - {x.verdict} {md_code(x.target)}: {md(x.claim)} (evidence: {ev})")
    if d.tier2:
        lines.append("")
    for o in d.overrides:
        lines.append(f"- **Override** {md_code(o.hot_spot)} → {md_code(o.target)}: {md(o.effect)} (evidence: {md(o.evidence)})")
    if d.overrides:
        lines.append("")
    if d.zeroed:
        lines += ["Zero-signal tier-2 results (tier 1 stands): " + ", ".join(md(z) for z in d.zeroed) + ".", ""]
    return lines


def _md_two_agent(rec: R.DecisionRecord) -> "list[str]":
    c = rec.two_agent
    if not c:
        return []

    return [
        "## Minimum viable deliberation (2 agents)",
        "",
        f"**{md(OUTCOME_TEXT.get(c.verdict, c.verdict))}** — {md(c.detail)}",
        "",
    ]


def _md_route(rec: R.DecisionRecord) -> "list[str]":
    lines = ["## Route", ""]
    r = rec.route
    if r is None:
        return lines + ["Not routed yet.", ""]
    lines.append(
        f"**{r.route}** for decision class {md_code(r.decision_class)} "
        f"(vote {'unanimous' if r.unanimous else 'split'}; review {r.review.replace('_', ' ')})."
    )
    lines.append("")
    if r.reviewed_by:
        why = f" Reason: {md(r.review_reason)}." if r.review_reason else " No reason given."
        lines += [f"{r.review.capitalize()} by **{md(r.reviewed_by)}** at {fmt_utc(r.reviewed_at)}.{why}", ""]
    if r.policy:
        conf = r.judges_confidence
        lines.append(
            f"Policy **{md(r.policy)}**; route decided by **{md(r.decided_by or '—')}**; "
            f"judges' confidence {fmt_score(conf)} (what T2 reads)."
        )
        lines.append("")
    if r.rules:
        lines.append("Rules that fired:")
        lines += [f"- **{x.rule}**: {md(x.detail)}" for x in r.rules]
    else:
        lines.append("No escalation rule fired.")
    lines.append("")
    for note in r.notes or []:
        lines += [f"Note: {md(note)}", ""]
    if r.probes:
        rows = [
            [
                md(p.name),
                "pass" if p.passed else ("timeout" if p.timed_out else "FAIL"),
                "—" if p.exit_code is None else str(p.exit_code),
                f"{p.duration_s:.1f}s",
                md(p.causal_warning) or "—",
            ]
            for p in r.probes
        ]
        lines += (
            ["Probes:", ""]
            + _table(["Probe", "Result", "Exit", "Time", "Causal warning"], rows, ["l", "l", "r", "r", "l"])
            + [""]
        )
    return lines


def _md_list(title: str, items: "list[str]") -> "list[str]":
    if not items:
        return []
    return [f"## {title}", ""] + [f"- {md(x)}" for x in items] + [""]


def _md_history(rec: R.DecisionRecord) -> "list[str]":
    if not rec.phase_history:
        return []
    rows = [[p.at, f"{p.from_} → {p.to}", md(p.why)] for p in rec.phase_history]
    return ["## Phase history", ""] + _table(["When", "Transition", "Why"], rows) + [""]


def _md_participants(rec: R.DecisionRecord) -> "list[str]":
    if not rec.participants:
        return []
    rows = [
        [
            md(p.label),
            p.kind,
            p.stage,
            str(p.tier),
            p.status + (" (superseded)" if p.superseded else ""),
            p.verdict or "—",
            md(p.preferred) or "—",
            fmt_score(p.confidence),
            md(p.model) or "—",
            str(len(p.revisions or [])),
        ]
        for p in rec.participants
    ]
    lines = (
        ["## Participants", ""]
        + _table(
            ["Agent", "Kind", "Stage", "Tier", "Status", "Verdict", "Prefers", "Confidence", "Model", "Revisions"],
            rows,
            ["l", "l", "l", "r", "l", "l", "l", "r", "l", "r"],
        )
        + [""]
    )
    models = rec.models
    if models.ran_on:
        listed = ", ".join(f"{md(m)} × {n}" for m, n in models.ran_on.items())
        unknown = f"; not known for {models.unknown}" if models.unknown else ""
        lines += [
            f"Models: {listed}{unknown}." + (" The ranking panel ran on a single model." if models.single_model else ""),
            "",
        ]
    replaced = [(p, v) for p in rec.participants for v in p.revisions or []]
    if replaced:
        lines += ["Reports replaced by a resumed run of the same agent (SendMessage):", ""]
        lines += [f"- {md(p.label)}: a {v.status} report replaced at {v.replaced_at} — {md(v.why)}" for p, v in replaced]
        lines.append("")
    return lines


def _md_lineage(lineage: Lineage) -> "list[str]":
    rows = lineage_rows(lineage)
    counts = children_counts(lineage)
    act, tot = counts.get(MAIN, (0, 0))
    lines = ["## Lineage", "", "```", f"main  [{act} active / {tot} spawned]"]
    for r in rows:
        kids = f"  [{r.active} active / {r.total} spawned]" if r.total else ""
        orphan = "  (parent unknown)" if r.orphan else ""
        line = (
            f"{r.prefix}{spawn_label(r.spawn)} · {one_line(r.node, 40)} · depth {r.spawn.depth} · {r.spawn.status}{kids}{orphan}"
        )
        lines.append(line.replace("`", "'"))
    lines.append("```")
    for d in lineage.denied:
        lines.append(f"- denied {md(d.subagent_type)} ({d.rule}) at {fmt_utc(d.at)}: {md(d.reason)}")
    for w in lineage.workflows:
        bound = f"bound {w.bound}" if w.bound is not None else "no bound"
        past = f", {w.overrun} past the budget" if w.overrun else ""
        lines.append(
            f"- workflow {md(w.name or w.task_id or w.tool_use_id)}: {w.status}, {bound}, {w.agents} agent(s) started{past}"
        )
    lines.append("")
    return lines


def build(
    delib: Deliberation, strong: float = STRONG, moderate: float = MODERATE, prices: "PriceTable | None" = None
) -> R.DecisionRecord:
    """The typed decision record (`record_model.DecisionRecord`), built once: the Markdown and
    the HTML record both render from it (`markdown`, `html_report.html`)."""
    return R.DecisionRecord.model_validate(record_json(delib, strong, moderate, prices))


def render_markdown(
    delib: Deliberation,
    lineage: "Lineage | None" = None,
    strong: float = STRONG,
    moderate: float = MODERATE,
    prices: "PriceTable | None" = None,
) -> str:
    """The decision record as Markdown (deterministic). Should `record_json` and the model ever
    drift apart, the record is still written — its data as JSON under a line that says so — for
    the Stop hook writes it, and a drift must never keep a deliberation from completing."""
    try:
        rec = build(delib, strong, moderate, prices)
    except ValidationError as exc:
        data = json.dumps(record_json(delib, strong, moderate, prices), indent=1, sort_keys=True, default=str)
        return (
            f"# Decision record {md_code(delib.id)}\n\nThis record could not be laid out: its data no longer "
            f"fits the record model ({exc.error_count()} error(s); a bug to report). Its data:\n\n~~~json\n"
            + data.replace("~~~", "~ ~ ~")
            + "\n~~~\n"
        )
    return markdown(rec, lineage)


def markdown(rec: R.DecisionRecord, lineage: "Lineage | None" = None) -> str:
    """The typed record as Markdown (deterministic)."""
    lines = [f"# Decision record {md_code(rec.deliberation_id)}", ""]
    lines += _md_outcome(rec)
    body = [f"**Question:** {md(rec.question) or '—'}", ""]
    overridden = " (overridden)" if rec.task_type_overridden else ""
    body += _table(
        ["Task type", "Threshold", "Phase", "Session", "Opened", "Updated"],
        [
            [
                md(rec.task_type) + overridden,
                f"{rec.threshold:.2f}",
                rec.phase,
                md_code(rec.session_id),
                rec.created_at,
                rec.updated_at,
            ]
        ],
    )
    body.append("")
    lines, outline = body, lines
    lines += _md_decision(rec)
    lines += _md_prd(rec)
    lines += _md_scores(rec)
    lines += _md_breakdown(rec)
    lines += _md_alternatives(rec)
    lines += _md_findings(rec)
    lines += _md_dissent(rec)
    lines += _md_gates(rec)
    lines += _md_conformity(rec)
    lines += _md_two_agent(rec)
    lines += _md_depth(rec)
    lines += _md_route(rec)
    lines += _md_usage(rec)
    lines += _md_list("Warnings", rec.warnings)
    lines += _md_list("Failure reasons", rec.failure_reasons)
    lines += _md_history(rec)
    lines += _md_participants(rec)
    if lineage is not None:
        lines += _md_lineage(lineage)
    lines = outline + _md_contents(lines) + lines
    return "\n".join(lines).rstrip("\n") + "\n"


def _md_outcome(rec: R.DecisionRecord) -> "list[str]":
    """The record's first section: outcome, route, what to do (with the commands), why."""
    o = outcome.outcome(rec)
    lines = [
        "## Outcome",
        "",
        f"**{md(o.headline)}**",
        "",
        f"- **Route:** {md(o.route)}",
        f"- **What you must do:** {md(o.action)}" if o.must_act else f"- **Action:** {md(o.action)}",
    ]
    lines += [f"  - `{c}`" for c in o.commands]
    if o.why:
        lines.append("- **Why:** " + " ".join(md(w) for w in o.why))
    return lines + [""]


def _slug(heading: str) -> str:
    """The anchor GitHub (and most Markdown viewers) give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("\\", "").lower())
    return text.strip().replace(" ", "-")


def _md_contents(lines: "list[str]") -> "list[str]":
    """One line of links to the sections below (level-2 headings)."""
    heads = [line[3:] for line in lines if line.startswith("## ")]
    if not heads:
        return []
    return ["**Contents:** " + " · ".join(f"[{h.replace('`', '')}](#{_slug(h)})" for h in heads), ""]
