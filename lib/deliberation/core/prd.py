"""The decision document (PRD) that closes a deliberation: what it may cite, whether one is valid,
and its capture.

`citable` lists every id of the deliberation a document may cite (findings `persona:F1`, dissent
`persona:D1`, refutations `persona:R1`, hot spots `H1`); `trace_problem` refuses a document that
lacks a minimum section, repeats an item id, verifies no real requirement or cites an id not in
that list. The document arrives by a Write call (`submit`) or as one fenced block of the concluding
answer (`capture`: sent back once, then recorded missing — never a loop). `trace` gives Gate 2 and
the record the figures. Pure over the deliberation model (state/decision_document.py holds the
document's models); text/document.py words every request, problem and send-back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson
from pydantic import ValidationError

from deliberation.state.decision_document import MARKER, DecisionDocument
from deliberation.core import document_call, human_review
from deliberation.core.phases import current
from deliberation.state.agent_report import _describe, _fenced_json_blocks
from deliberation.state.models import AgentRecord, Deliberation, PrdState
from deliberation.core import personas
from deliberation.text import document as doc_words
from deliberation.text import drafting as drafting_words
from deliberation.text.depth import clip as one_line
from deliberation.text.depth import hot_spot_line
from deliberation.wire.hookio import ANSWER_BUDGET

LISTING_BUDGET = 5_000  # the ids' share of an answer at most (hookio.ANSWER_BUDGET in all: request_text fits it)
SOURCE_KINDS = ("finding", "dissent", "refutation", "hot_spot")


EXAMPLE = doc_words.EXAMPLE  # the shape said with every request, send-back and refusal


class DocumentProblem(ValueError):
    """Why a concluding answer carries no valid decision document; str() says what to fix."""


# --------------------------------------------------------------------------------------------
# what may be cited


@dataclass(frozen=True)
class Source:
    """One citable item of the deliberation."""

    id: str
    kind: str  # one of SOURCE_KINDS
    persona: str  # who said it ('' for a hot spot)
    stage: str  # research / deliberation / ranking ('' for a hot spot)
    text: str  # the claim, concern, counter-claim or statement
    detail: str  # severity of a finding; target of a dissent or refutation; kind of a hot spot
    evidence: str = ""
    agent: str = ""  # the agent record's key ('' for a hot spot)
    index: int = 0  # position in that report's list (0-based)


def cite_prefix(agent: AgentRecord) -> str:
    """How an agent's items are named: its persona slug — the second red-team pass as
    `red-team-2`, so its refutations do not shadow the first pass'."""
    if agent.kind == "red-team" and (agent.red_team_round or 1) > 1:
        return f"{agent.persona}-{agent.red_team_round}"
    return agent.persona


def citable(delib: Deliberation) -> "dict[str, Source]":
    """Every id a decision document may cite, in the order of the deliberation's records:
    the findings, documented dissent and refutations of the valid, current reports, then the
    hot spots. Findings are `persona:<its id>`; a persona's dissent entries are numbered
    D1, D2… across its reports, past any id its own findings already took (a devil's advocate that
    lettered its findings D1…D7 lost every dissent to them in a real-model trial); refutations `persona:R<n>` per report (the depth axis' own
    references). The first item wins an id two reports share."""
    out: dict[str, Source] = {}
    dissent_n: dict[str, int] = {}
    for agent in current(delib):
        rep, who, key = agent.filed, cite_prefix(agent), agent.key
        for i, f in enumerate(rep.findings):
            out.setdefault(
                f"{who}:{f.id}",
                Source(f"{who}:{f.id}", "finding", agent.persona, agent.stage, f.claim, f.severity, f.evidence, key, i),
            )
        own = {a.id: a.title for a in rep.approaches}  # a research report letters its own approaches
        for i, c in enumerate(rep.dissent):
            n = dissent_n.get(who, 0) + 1
            while f"{who}:D{n}" in out:  # a persona may letter its findings D1, D2… itself
                n += 1
            dissent_n[who] = n
            sid = f"{who}:D{n}"
            target = f'its own {c.target}, "{one_line(own[c.target], 60)}"' if c.target in own else c.target
            out.setdefault(sid, Source(sid, "dissent", agent.persona, agent.stage, c.concern, target, c.reason, key, i))
        for i, r in enumerate(rep.refutations):
            sid = f"{who}:R{i + 1}"
            out.setdefault(
                sid,
                Source(
                    sid,
                    "refutation",
                    agent.persona,
                    agent.stage,
                    r.claim or r.evidence,
                    f"{r.verdict} {r.target}",
                    r.evidence,
                    key,
                    i,
                ),
            )
    found: "dict[str, list[tuple[str, str]]]" = {}  # what the tier-2 workers concluded of each hot spot
    for agent in current(delib, tier=2):
        for r in agent.filed.refutations:
            found.setdefault(r.target, []).append((cite_prefix(agent), r.verdict))
    for h in delib.depth.hot_spots:
        label = hot_spot_line(h.kind, list(dict.fromkeys(found.get(h.id, []))))
        out.setdefault(h.id, Source(h.id, "hot_spot", "", "", h.statement, label, "; ".join(h.material)))
    return out


def resolve(raw: str, catalogue: "dict[str, Source]") -> "str | None":
    """The catalogue id `raw` names, or None. Tolerant of case, backticks and the plugin's
    agent-type namespace (`deliberation:security-analyst:F1`)."""
    ref = raw.strip().strip("`'\"").strip()
    if ref.count(":") >= 2:
        ref = ":".join(ref.split(":")[-2:])
    if ref in catalogue:
        return ref
    low = ref.lower()
    for key in catalogue:
        if key.lower() == low:
            return key
    return None


def _items(doc: DecisionDocument) -> "list[tuple[str, str, list[str]]]":
    """(section, item label, sources) of every item that may cite."""
    out = [("requirements", r.id, r.sources) for r in doc.requirements]
    out += [("acceptance_criteria", a.id, a.sources) for a in doc.acceptance_criteria]
    out += [("risks", k.id, k.sources) for k in doc.risks]
    out += [("non_goals", f"non-goal {i}", n.sources) for i, n in enumerate(doc.non_goals, start=1)]
    out += [("open_questions", f"open question {i}", q.sources) for i, q in enumerate(doc.open_questions, start=1)]
    return out


def minimums(outcome: "str | None") -> "dict[str, int]":
    """What a document must hold: an adopted decision needs requirements, acceptance criteria
    and risks; a rejection (nothing adopted) needs the risks that sank the approaches."""
    if outcome == "rejected":
        return {"requirements": 0, "acceptance_criteria": 0, "risks": 1}
    return {"requirements": 1, "acceptance_criteria": 1, "risks": 1}


def trace_problem(doc: DecisionDocument, catalogue: "dict[str, Source]", outcome: "str | None") -> "str | None":
    """What a parsed document lacks that its schema cannot say, or None: the minimum sections,
    unique item ids, acceptance criteria that verify existing requirements, and every cited id
    resolving to an item of the deliberation."""
    mins = minimums(outcome)
    short = [section for section, n in mins.items() if len(getattr(doc, section)) < n]
    if short:
        return doc_words.too_few(outcome == "rejected", list(mins.items()), short)
    ids = [r.id for r in doc.requirements] + [a.id for a in doc.acceptance_criteria] + [k.id for k in doc.risks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        return doc_words.repeated_ids(dupes)
    req_ids = {r.id for r in doc.requirements}
    bad_verify = [[a.id, v] for a in doc.acceptance_criteria for v in a.verifies if v not in req_ids]
    if bad_verify:
        return doc_words.bad_verifies(bad_verify)
    unknown: list[list] = []
    for _section, label, refs in _items(doc):
        for ref in refs:
            if resolve(ref, catalogue) is None:
                unknown.append([ref, label, ref.strip() in ids])
    if unknown:
        return doc_words.unknown_ids(unknown)
    return None


# --------------------------------------------------------------------------------------------
# finding the document in the concluding answer


def _blocks(text: str) -> "list[str]":
    return _fenced_json_blocks(text)


def extract_document(text: str, max_bytes: int) -> "tuple[DecisionDocument, list[str]]":
    """(document, ignored keys) from the main agent's concluding answer, or DocumentProblem.
    The document is the fenced JSON block marked `"document": "prd"` (or, unmarked, the one
    with `requirements`): other fenced JSON the answer quotes is left alone."""
    candidates, broken = [], 0
    for body in _blocks(text):
        size = len(body.encode("utf-8", "surrogatepass"))
        if size > max_bytes and (re.search(r'"document"\s*:\s*"prd"', body, re.I) or '"requirements"' in body):
            raise DocumentProblem(doc_words.block_too_large(size, max_bytes))
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            if re.search(r'"document"\s*:\s*"prd"', body, re.I) or '"requirements"' in body:
                broken += 1
            continue
        if isinstance(data, dict) and (str(data.get("document", "")).lower() == MARKER or "requirements" in data):
            candidates.append(data)
    if not candidates:
        if broken:
            raise DocumentProblem(doc_words.block_not_json())
        raise DocumentProblem(doc_words.no_block())
    if len(candidates) > 1:
        raise DocumentProblem(doc_words.many_blocks(len(candidates)))
    return parse_document(candidates[0])


def parse_document(data: dict) -> "tuple[DecisionDocument, list[str]]":
    """(document, ignored keys) of one parsed JSON object, or DocumentProblem."""
    if isinstance(data.get("document"), str):
        data = {**data, "document": data["document"].lower()}
    try:
        doc = DecisionDocument.model_validate(data)
    except ValidationError as exc:
        raise DocumentProblem(doc_words.invalid(_describe(exc))) from None
    ignored = sorted(k for k in data if k not in DecisionDocument.model_fields)
    return doc, ignored


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*)\n\s*```\s*$", re.S)


def read_content(content: str, max_bytes: int) -> "tuple[DecisionDocument, list[str]]":
    """(document, ignored keys) from a Write call's `content` (core/document_call.py): one JSON
    object — a fenced block around it is forgiven — or DocumentProblem."""
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise DocumentProblem(doc_words.content_too_large(size, max_bytes))
    fenced = _FENCE.match(content)
    try:
        data = orjson.loads(fenced.group(1) if fenced else content)
    except orjson.JSONDecodeError:
        raise DocumentProblem(doc_words.content_not_json()) from None
    if not isinstance(data, dict):
        raise DocumentProblem(doc_words.content_not_object(type(data).__name__))
    return parse_document(data)


# --------------------------------------------------------------------------------------------
# what the main agent is told


def _line(src: Source, clip: int) -> str:
    if src.kind == "finding":
        head = f"finding, {src.detail}"
    elif src.kind == "dissent":
        head = f"dissent on {src.detail}"
    elif src.kind == "refutation":
        head = f"refutation: {src.detail}"
    else:
        head = f"hot spot, {src.detail.replace('_', ' ')}"
    return f"- {src.id} ({head}): {one_line(src.text, clip)}"


_GROUPS = (("finding", "findings"), ("dissent", "dissent"), ("refutation", "refutations"))


def _grouped(catalogue: "dict[str, Source]") -> "list[str]":
    """Every id, one line per agent: `- security-analyst: F1, F2 (findings); D1 (dissent)`."""
    by_who: "dict[str, dict[str, list[str]]]" = {}
    spots = []
    for src in catalogue.values():
        if src.kind == "hot_spot":
            spots.append(src.id)
            continue
        who, _, local = src.id.rpartition(":")
        by_who.setdefault(who, {}).setdefault(src.kind, []).append(local)
    lines = []
    for who, kinds in by_who.items():
        parts = [f"{', '.join(kinds[k])} ({label})" for k, label in _GROUPS if kinds.get(k)]
        lines.append(f"- {who}: {'; '.join(parts)}")
    if spots:
        lines.append(f"- hot spots: {', '.join(spots)}")
    return lines


NUMBERED = ("dissent", "refutation")  # ids the plugin numbers: in no report under that id


def _listing(catalogue: "dict[str, Source]", budget: int = LISTING_BUDGET) -> "list[str]":
    """Every citable id, each with the start of its text while that fits LISTING_BUDGET; else the
    findings and hot spots by id, grouped by agent (the main agent read them under those ids),
    and the dissent and refutations — ids the plugin numbered, in no report — each still with
    the start of its text, clipped shorter until the listing fits."""

    def fits(lines: "list[str]") -> bool:
        return sum(len(line) + 1 for line in lines) <= budget

    for clip in (110, 60):
        lines = [_line(src, clip) for src in catalogue.values()]
        if fits(lines):
            return lines
    named = {k: src for k, src in catalogue.items() if src.kind not in NUMBERED}
    numbered = [src for src in catalogue.values() if src.kind in NUMBERED]
    lines = []
    for clip in (60, 40, 24, 12):
        lines = [doc_words.GROUPED_HEAD, *_grouped(named), *[_line(src, clip) for src in numbered]]
        if fits(lines):
            break
    return lines


def request_text(delib: Deliberation, beside: int = 0) -> str:
    """The instruction that asks for the decision document (once the vote has passed). `beside`:
    the characters of the answer around it (the vote's outcome, its conformity warnings): the ids'
    listing takes what hookio.ANSWER_BUDGET leaves, LISTING_BUDGET at most."""
    catalogue = citable(delib)
    head = doc_words.request_head(delib.outcome == "rejected", document_call.relative(delib.id))
    before = [
        head,
        drafting_words.offer(f"{delib.agent_prefix}{personas.DRAFTER}"),
        EXAMPLE,
        doc_words.rules(list(minimums(delib.outcome).items())),
        doc_words.cite_head(len(catalogue)),
    ]
    after = [doc_words.STOP_CHECK, *route_notice(delib)]
    fixed = beside + sum(len(part) + 1 for part in before + after)
    budget = max(1_000, min(LISTING_BUDGET, ANSWER_BUDGET - fixed))
    return "\n".join([*before, *_listing(catalogue, budget), *after])


def route_notice(delib: Deliberation) -> "list[str]":
    """The announced route, when it needs a person: what to tell the user (core/announce.py)."""
    a = delib.prd.announced
    if a is None or a.route in ("auto-execute", "auto-reject"):
        return []
    return [human_review.request_notice(delib.id, a.route, a.rules, a.why, delib.decision, a.probes)]


def may_apply(delib: Deliberation) -> bool:
    """Whether the main agent may carry the decision out once its document is recorded: an
    approach was adopted and the route announced for it is auto-execute (no person holds it)."""
    a = delib.prd.announced
    return delib.outcome == "adopted" and a is not None and a.route == "auto-execute"


def shape_text(delib: Deliberation) -> str:
    """The document's shape, its rules and the ids it may cite (said again with a refusal)."""
    catalogue = citable(delib)
    return "\n".join(
        [
            EXAMPLE,
            doc_words.rules(list(minimums(delib.outcome).items())),
            doc_words.cite_head(len(catalogue)),
            *_listing(catalogue),
        ]
    )


def submit(delib: Deliberation, content: str, *, max_bytes: int, now: float) -> "str | None":
    """A document handed over by a Write call (core/document_handover.py): recorded — None — when
    it parses, validates and every cited id exists; else the problem (the call is refused and
    may be made again: the main agent's own retries, no Stop is held)."""
    st = delib.prd
    try:
        doc, ignored = read_content(content, max_bytes)
        problem = trace_problem(doc, citable(delib), delib.outcome)
    except DocumentProblem as exc:
        doc, ignored, problem = None, [], str(exc)
    if problem is not None:
        if st.status != "accepted":
            st.problem = problem
        return problem
    st.status, st.document, st.ignored_keys, st.via = "accepted", doc, ignored, "write"
    st.problem, st.closed_at = None, now
    return None


def send_back_text(delib: Deliberation, problem: str) -> str:
    """The Stop block that sends a missing or invalid document back (once)."""
    catalogue = citable(delib)
    return "\n".join(
        [
            doc_words.send_back_head(delib.id, problem),
            doc_words.send_back_next(document_call.relative(delib.id)),
            EXAMPLE,
            doc_words.rules(list(minimums(delib.outcome).items())),
            doc_words.cite_head(len(catalogue)),
            *_listing(catalogue),
            *route_notice(delib),
        ]
    )


# --------------------------------------------------------------------------------------------
# capture: accepted, sent back once, or recorded missing


@dataclass
class Outcome:
    status: str  # accepted / send_back / missing / already
    send_back: "str | None" = None


def capture(delib: Deliberation, text: str, *, retries: int, max_bytes: int, may_block: bool, now: float) -> Outcome:
    """Read the decision document from the concluding answer `text` into `delib.prd`.

    Accepted when it parses, validates and every cited id exists. Otherwise it is sent back
    while `retries` send-backs remain and a Stop block is still allowed (`may_block`: the
    Stop hook's own bound), else recorded as missing with the reason."""
    st = delib.prd
    if st.status in ("accepted", "missing"):
        return Outcome("already")
    try:
        doc, ignored = extract_document(text or "", max_bytes)
        problem = trace_problem(doc, citable(delib), delib.outcome)
    except DocumentProblem as exc:
        doc, ignored, problem = None, [], str(exc)
    if problem is None:
        st.status, st.document, st.ignored_keys, st.via = "accepted", doc, ignored, "answer"
        st.problem, st.closed_at = None, now
        return Outcome("accepted")
    st.problem = problem
    if st.send_backs < retries and may_block:
        st.send_backs += 1
        return Outcome("send_back", send_back_text(delib, problem))
    st.status, st.closed_at = "missing", now
    delib.warnings.append(doc_words.recorded_missing(st.send_backs, problem.splitlines()[0]))
    return Outcome("missing")


def reset(delib: Deliberation) -> None:
    """A re-rank reopened the vote: the document waits for the new one."""
    delib.prd = PrdState()


# --------------------------------------------------------------------------------------------
# traceability (Gate 2 and the record)


@dataclass(frozen=True)
class Trace:
    items: int  # items that cite (requirements, criteria, risks, non-goals, questions)
    citations: int
    by_kind: "dict[str, int]"  # distinct cited sources per kind
    untraced: "tuple[str, ...]"  # requirement / criterion / risk ids without a resolving source
    unknown: "tuple[str, ...]"  # cited ids that do not resolve
    uncovered: "tuple[str, ...]"  # requirement ids no acceptance criterion verifies


def trace(doc: DecisionDocument, catalogue: "dict[str, Source]") -> Trace:
    cited: dict[str, str] = {}
    citations, untraced, unknown = 0, [], []
    must_cite = {"requirements", "acceptance_criteria", "risks"}
    for section, label, refs in _items(doc):
        resolved = [resolve(r, catalogue) for r in refs]
        citations += len(refs)
        unknown += [r for r, x in zip(refs, resolved) if x is None]
        for x in resolved:
            if x is not None:
                cited[x] = catalogue[x].kind
        if section in must_cite and not any(resolved):
            untraced.append(label)
    by_kind = {k: sum(1 for v in cited.values() if v == k) for k in SOURCE_KINDS}
    verified = {v for a in doc.acceptance_criteria for v in a.verifies}
    uncovered = tuple(r.id for r in doc.requirements if r.id not in verified)
    return Trace(len(_items(doc)), citations, by_kind, tuple(untraced), tuple(unknown), uncovered)


def counts_text(doc: DecisionDocument) -> str:
    return doc_words.counts(
        len(doc.requirements), len(doc.acceptance_criteria), len(doc.risks), len(doc.non_goals), len(doc.open_questions)
    )
