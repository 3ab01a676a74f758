"""The decision document is drafted where the reports are.

Once the vote has passed, a drafter agent (`agents/drafter.md`, no persona: like the checkpoint
it only reports) gets the deliberation's citable items — what the decision rests on WHOLE (the
vote's dissent, the hot spots and the depth step's verdicts, the high and critical findings: text
and evidence), the rest as id and short claim, within MATERIAL_BUDGET — with the outcome of the
vote, the approaches and what was established about them, and the document's shape, and writes
the decision document. The plugin
checks it as it checks a handed-over document (`prd.trace_problem`) and records it
(`PrdState.via = "drafter"`). The main agent then gets a short outcome (`outcome_text`): the
decision, the dissent, the route, where the document is and its counts, the user's next step —
no list of citable ids, no journal to read.

Two ways in: inside the plugin's workflow a drafting wave after the ranking (its report arrives
by StructuredOutput with `schema()`); on the turn-by-turn path the main agent spawns the drafter
with the Agent tool and the PreToolUse hook replaces the prompt with `material` (`updatedInput`),
and the drafter's fenced JSON block is read at its SubagentStop. Pure over the Deliberation.
"""

from __future__ import annotations

import re
from typing import Any

from deliberation.core import blind_ranking, personas, prd
from deliberation.core.depth import established
from deliberation.core.depth.hot_spots import approach_index
from deliberation.core.phases import current
from deliberation.state import report_schema
from deliberation.state.decision_document import DecisionDocument
from deliberation.state.models import Deliberation
from deliberation.text import drafting as words

DRAFTER = personas.DRAFTER
RECORDS = ".claude/deliberation/records"  # state/paths.py: Layout.record
REPORT_BYTES = 400_000  # the drafter's document, at most
# Bytes of the drafter's prompt, which is in each of its requests (the first and any send-back):
# it was 54 KB for 4 personas, 6 hot spots and 3 tier-2 workers. 16 KB holds the decision, the
# approaches with what was established about them and the document's shape (~4 KB) and ~12 KB of
# items: a document cites 10-25 ids, and what it must rest on comes first, whole.
MATERIAL_BUDGET = 16_000
WHOLE_CHARS = 500  # an item's text and its evidence, each, in the whole form (a claim may be 2000)
SHORT_CHARS = 90  # an item's text in the short form (id, kind, the claim's start; no evidence)
WHOLE_SHARE = 0.6  # of the items' room, the whole forms take at most this; the rest lists the others short
HIGH = ("high", "critical")


def record_path(delib_id: str) -> str:
    """Where the decision record is written when the deliberation closes (under the project)."""
    return f"{RECORDS}/{delib_id}.md"


def is_drafter(agent_type: "str | None") -> bool:
    return personas.normalise_agent_type(agent_type) == DRAFTER


def due(delib: Deliberation) -> bool:
    """A document is due and none is recorded: the vote passed (PRD_GENERATION)."""
    return delib.phase == "PRD_GENERATION" and delib.prd.status != "accepted"


def schema() -> "dict[str, Any]":
    """The drafter's StructuredOutput schema: the decision document's own model, as every report
    schema is sent (report_schema.wire: no titles or defaults, every constraint)."""
    out = report_schema.inline(report_schema.wire(DecisionDocument.model_json_schema()))
    # what the model's descriptions say of the main agent's fenced block: the drafter's material
    # says how it reports, and `document`'s const says what it marks
    out.pop("description", None)
    out["properties"]["document"].pop("description", None)
    return out


def _clip(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _head(src: prd.Source) -> str:
    head = {
        "finding": f"finding, {src.detail}",
        "dissent": f"dissent on {src.detail}",
        "refutation": f"refutation: {src.detail}",
    }.get(src.kind, f"hot spot, {src.detail.replace('_', ' ')}")
    who = f"; {src.persona} in {src.stage}" if src.persona else ""
    return f"- {src.id} ({head}{who}): "


def _item(src: prd.Source, n: int = WHOLE_CHARS) -> str:
    line = _head(src) + _clip(src.text, n)
    return line + (f"\n  evidence: {_clip(src.evidence, n)}" if src.evidence.strip() else "")


def _short(src: prd.Source) -> str:
    return _head(src) + _clip(src.text, SHORT_CHARS)


def rank(delib: Deliberation, catalogue: "dict[str, prd.Source]") -> "list[prd.Source]":
    """The citable items, what the decision rests on first (stable within a rank): the items the
    decision's own text names (the adopted approach cites the findings it rests on: a real-model
    trial's drafter saw 14 of 116 items, none of the findings its decision named); the vote's
    dissent; the hot spots and the depth step's verdicts with evidence (tier 2, red team 2); the
    high and critical findings, the red team's refutations with evidence and the research
    positions' dissent; then the rest."""
    agents = {a.key: a for a in delib.agents}
    named = _named(decision_line(delib), catalogue)

    def order(src: prd.Source) -> int:
        agent = agents.get(src.agent)
        depth = agent is not None and (agent.tier > 1 or (agent.red_team_round or 1) > 1)
        if src.id in named:
            return -1
        if src.kind == "dissent":
            return 0 if src.stage == "ranking" else 3
        if src.kind == "hot_spot":  # the statement before the verdicts on it
            return 1
        if src.kind == "refutation" and depth and src.evidence.strip():
            return 2
        if src.kind == "finding" and src.detail in HIGH:
            return 3
        if src.kind == "refutation" and src.evidence.strip() and not src.detail.startswith("upheld"):
            return 3
        return 4

    return sorted(catalogue.values(), key=order)


_REF = re.compile(r"\b[\w.-]+:[\w.-]+")


def _named(text: str, catalogue: "dict[str, prd.Source]") -> "set[str]":
    """The citable ids `text` names (`security-analyst:F6`, a range `ux-advocate:F2-F3` by its
    first id)."""
    out = set()
    for m in _REF.finditer(text):
        ref = m.group(0).rstrip(".")
        who, what = ref.split(":", 1)
        for cand in (ref, f"{who}:{what.split('-')[0]}"):
            if cand in catalogue:
                out.add(cand)
    return out


def _fit(ranked: "list[prd.Source]", room: int) -> "tuple[list[str], list[str], int]":
    """(whole items, short items, how many left out) in `room` bytes: in rank order each item whole
    while the whole ones fit in WHOLE_SHARE of it, then each as id and short claim while that fits,
    then none."""
    whole: "list[str]" = []
    for src in ranked:
        full = _item(src)
        used = sum(len(w.encode("utf-8")) + 1 for w in whole)
        if used + len(full.encode("utf-8")) + 1 > room * WHOLE_SHARE:
            break
        whole.append(full)
    room -= sum(len(w.encode("utf-8")) + 1 for w in whole)
    short: "list[str]" = []
    for src in ranked[len(whole) :]:
        line = _short(src)
        if len(line.encode("utf-8")) + 1 > room:
            break
        short.append(line)
        room -= len(line.encode("utf-8")) + 1
    return whole, short, len(ranked) - len(whole) - len(short)


def decision_line(delib: Deliberation) -> str:
    """What was decided, as the vote left it: the adopted approach (id, title, summary) or none."""
    r = delib.ranking
    if delib.outcome == "rejected" or r is None or r.leading is None:
        return words.REJECTED
    titles = blind_ranking.approaches(delib)
    summary = ""
    for a in current(delib, "deliberation") + current(delib, "research"):
        for ap in a.filed.approaches:
            if ap.id == r.leading.rsplit(":", 1)[-1] and not summary:
                summary = ap.summary
    return words.adopted(r.leading, titles.get(r.leading, r.leading), summary, r.consensus)


def material(delib: Deliberation) -> str:
    """The drafter's prompt within MATERIAL_BUDGET: the question, the decision, the approaches
    with what was established about them, the citable items in `rank` order — whole while they
    fit, then as id and short claim, and how many are left out — the document's shape and rules."""
    ranked = rank(delib, prd.citable(delib))
    r = delib.ranking
    adopted = r.leading if delib.outcome == "adopted" and r is not None else None
    facts = blind_ranking.approach_list(delib, words.APPROACHES_HEAD, facts_of=adopted)
    shape = [prd.EXAMPLE, words.rules(list(prd.minimums(delib.outcome).items()))]
    decision = decision_line(delib)

    def text(whole: "list[str]", short: "list[str]", left: int) -> str:
        return words.material(delib.id, delib.question, decision, facts, whole, short, left, shape)

    fixed = len(text([], [], len(ranked)).encode("utf-8")) + len(words.left_out(len(ranked), len(ranked)).encode("utf-8"))
    whole, short, left = _fit(ranked, MATERIAL_BUDGET - fixed)
    return text(whole, short, left)


def check(delib: Deliberation, data: object) -> "tuple[DecisionDocument | None, list[str], str | None]":
    """(document, ignored keys, problem): a drafter's report, checked like a handed-over document."""
    if isinstance(data, str):  # the turn-by-turn drafter's answer: one fenced json block (or the JSON alone)
        try:
            doc, ignored = prd.extract_document(data, REPORT_BYTES) if "```" in data else prd.read_content(data, REPORT_BYTES)
        except prd.DocumentProblem as exc:
            return None, [], str(exc)
    elif isinstance(data, dict):
        try:
            doc, ignored = prd.parse_document(data)
        except prd.DocumentProblem as exc:
            return None, [], str(exc)
    else:
        return None, [], words.NOT_A_DOCUMENT
    problem = prd.trace_problem(doc, prd.citable(delib), delib.outcome)
    return (None, [], problem) if problem else (doc, ignored, None)


def record(delib: Deliberation, data: object, now: float) -> "str | None":
    """Record the drafter's document (None) or say why it cannot be (the problem)."""
    doc, ignored, problem = check(delib, data)
    st = delib.prd
    if doc is None:
        if st.status != "accepted":
            st.problem = problem
        return problem
    st.status, st.document, st.ignored_keys, st.via = "accepted", doc, ignored, "drafter"
    st.problem, st.closed_at = None, now
    return None


RESTS_SHOWN = 5  # findings with evidence the outcome gives the main agent


def outcome_text(delib: Deliberation, record_path: str) -> str:
    """The main agent's short outcome once the drafter's document is recorded: the decision, what
    it rests on, the dissent (against the adopted approach first), the route, the document and its
    counts, the next step."""
    doc = delib.prd.document
    route = "\n".join(prd.route_notice(delib))
    return words.outcome(
        delib.id,
        decision_line(delib),
        dissent(delib),
        route,
        record_path,
        prd.counts_text(doc) if doc is not None else "",
        prd.may_apply(delib),
        challenged(delib),
        rests_on(delib),
    )


def rests_on(delib: Deliberation) -> "list[tuple[str, str, str]]":
    """(id, claim, evidence) of the findings the adopted approach rests on, at most RESTS_SHOWN:
    the ones the decision's text names, else the high and critical ones, in `rank` order. A
    real-model trial's outcome named them by id only ("Rests on performance-engineer:F1, F2…") and
    the main agent read three files again to tell the user why."""
    if delib.outcome != "adopted":
        return []
    catalogue = prd.citable(delib)
    named = _named(decision_line(delib), catalogue)
    findings = [s for s in rank(delib, catalogue) if s.kind == "finding" and s.evidence.strip()]
    chosen = [s for s in findings if s.id in named] or [s for s in findings if s.detail in HIGH]
    return [(s.id, s.text, s.evidence) for s in chosen[:RESTS_SHOWN]]


def dissent(delib: Deliberation) -> "list[tuple[str, str, bool]]":
    """(persona, concern, against the adopted approach) of the rankers' dissent, the ones against
    the adopted approach first: a real-model trial's outcome showed three against the losing options
    and left the one against the winner among the "+7 more"."""
    r = delib.ranking
    leading = r.leading if delib.outcome == "adopted" and r is not None else None
    index = approach_index(delib) if leading else None
    out = []
    for a in current(delib, "ranking"):
        for c in a.filed.dissent:
            t = (c.target or "").strip()
            against = index is not None and (t.lower() == "leading" or index.of(a, t) == leading)
            out.append((a.persona, c.concern, against))
    return sorted(out, key=lambda d: not d[2])


def challenged(delib: Deliberation) -> "list[tuple[str, str, str]]":
    """What the challenge and depth steps weakened or refuted in the adopted approach, with its
    evidence (verdict, claim, evidence): the adopted summary is the research's wording, and a step
    the depth axis weakened must reach the main agent with the decision, not only the document's
    risks (a real-model trial's main agent re-read five files to find it)."""
    r = delib.ranking
    if delib.outcome != "adopted" or r is None or r.leading is None:
        return []
    return [
        (f.verdict, f.claim, f.evidence)
        for f in established.facts(delib).get(r.leading, [])
        if f.verdict != "upheld" and f.step != "recheck_point"  # a re-check of a point against it
    ]
