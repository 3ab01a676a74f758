"""The decision document is drafted where the reports are.

Once the vote has passed, a drafter agent (`agents/drafter.md`, no persona: like the checkpoint
it only reports) gets every report's citable item WHOLE — the finding's claim and evidence, the
dissent's concern and reason, the refutation's counter-claim and evidence, each hot spot — with
the outcome of the vote and the document's shape, and writes the decision document. The plugin
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

from typing import Any

from deliberation.core import blind_ranking, personas, prd
from deliberation.core.phases import current
from deliberation.state import report_schema
from deliberation.state.decision_document import DecisionDocument
from deliberation.state.models import Deliberation
from deliberation.text import drafting as words

DRAFTER = personas.DRAFTER
RECORDS = ".claude/deliberation/records"  # state/paths.py: Layout.record
REPORT_BYTES = 400_000  # the drafter's document, at most
MATERIAL_BUDGET = 60_000  # bytes of the drafter's prompt (an updatedInput of 60 KB goes through whole)
TEXT_CHARS = (1200, 600, 300, 160)  # each item's text and evidence, clipped shorter until the material fits


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


def _item(src: prd.Source, n: int) -> str:
    head = {
        "finding": f"finding, {src.detail}",
        "dissent": f"dissent on {src.detail}",
        "refutation": f"refutation: {src.detail}",
    }.get(src.kind, f"hot spot, {src.detail.replace('_', ' ')}")
    who = f"; {src.persona} in {src.stage}" if src.persona else ""
    line = f"- {src.id} ({head}{who}): {_clip(src.text, n)}"
    return line + (f"\n  evidence: {_clip(src.evidence, n)}" if src.evidence.strip() else "")


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
    """The drafter's prompt: the question, the decision, the ranking's dissent, every citable item
    whole (clipped only as far as MATERIAL_BUDGET needs), the document's shape and rules."""
    catalogue = prd.citable(delib)
    facts = blind_ranking.approach_list(delib, words.APPROACHES_HEAD)
    shape = [prd.EXAMPLE, words.rules(list(prd.minimums(delib.outcome).items()))]
    text = ""
    for n in TEXT_CHARS:
        items = [_item(src, n) for src in catalogue.values()]
        text = words.material(delib.id, delib.question, decision_line(delib), facts, items, shape)
        if len(text.encode("utf-8")) <= MATERIAL_BUDGET:
            break
    return text


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


def outcome_text(delib: Deliberation, record_path: str) -> str:
    """The main agent's short outcome once the drafter's document is recorded: the decision, the
    dissent, the route, the document and its counts, the next step."""
    doc = delib.prd.document
    dissent = [(a.persona, c.concern) for a in current(delib, "ranking") for c in a.filed.dissent]
    route = "\n".join(prd.route_notice(delib))
    return words.outcome(
        delib.id,
        decision_line(delib),
        dissent,
        route,
        record_path,
        prd.counts_text(doc) if doc is not None else "",
        prd.may_apply(delib),
    )
