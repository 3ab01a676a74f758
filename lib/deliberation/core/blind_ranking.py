"""Blind ranking: what a RANKING prompt may carry — the approaches in a neutral order, nothing of
the vote (docs/FORMULAS.md, "Blind ranking", gives the measured cost of herding and the rules).

`neutral_order` orders the approach ids by a hash of the deliberation id, the same for every
ranker and re-rank; `approach_list` is the block the main agent puts in every ranking prompt.
`check_prompt` returns what a prompt leaks as `Leak`s — a leader, scores, verdicts, another
ranker's or the synthesis' rationale, the approaches out of order or missing — after removing the
question (the spawned persona's own name does not count); `deny_reason` words the refusal.
Lexical: a leak in words no pattern knows passes. Pure, stdlib only (PreToolUse's spawn path).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Iterable

from deliberation import catalogue
from deliberation.core import personas
from deliberation.core.depth import established as depth_facts
from deliberation.core.similarity import containment, tokens
from deliberation.core.phases import approaches as collected
from deliberation.core.phases import current
from deliberation.text import progress, refusals

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import Deliberation

RATIONALE_CONTAINMENT = 0.5  # share of another agent's rationale trigrams found in the prompt
RATIONALE_MIN_TOKENS = 6  # shorter rationales are not compared
SNIPPET = 70
DIMENSIONS = tuple(d.name for d in catalogue.DIMENSIONS)  # the built-in names; a configured set is passed in

_SCALE = re.compile(r"\b(?:0|1)\s*(?:-|–|—|to)\s*10\b|\b10\s*=\s*[a-z]+(?:\s+[a-z]+)?", re.I)
_ROLE_NAMES = re.compile(r"\bsynthesis[- ]lead\b|\bdebate[- ]moderator\b|\bred[- ]team\b", re.I)
_NEGATION = re.compile(r"\b(?:no|not|never|without|nor|none|neither)\b|n't\b", re.I)
_OWNER = r"(?<!your )(?<!its )(?<!own )(?<!my )(?<!their )"
_LEADER = re.compile(
    r"\blead(?:s|ing|er)\b(?!\s+(?:to|time|zeros?|whitespace)\b)"
    r"|\bfront[- ]?runner\b|\bfavou?rite\b|\bwinn(?:er|ing)\b|\bbest so far\b"
    r"|\btop[- ](?:ranked|rated|scored|choice|pick)\b"
    r"|" + _OWNER + r"\b(?:recommended|preferred|favou?red|chosen|selected) (?:by|approach|option|choice)\b"
    r"|\b(?:the synthesis|the panel|the majority|the others|other agents|the team)(?:['’]s)?\b(?:[^.\n]|\.(?=\d)){0,40}?"
    r"\b(?:prefer|recommend|favou?r|back|pick|chose|choose|lean|settle|converge)\w*"
    r"|\bconsensus\b(?!\s+gate)",
    re.I,
)
# a score-like number: 0-10 (decimals allowed), not a measurement with a unit
_NO_UNIT = r"(?!\s*(?:%|ms\b|s\b|sec|min|h\b|hours?|days?|weeks?|months?|[gmk]b\b|k\b|req|rps|usd|eur|\$|x\b|times))"
_SCORE_NUMBER = r"(?:10(?:\.0+)?|\d(?:\.\d+)?)(?![\d.])" + _NO_UNIT
_SCORE_WORDS = (
    r"\b(?:scor(?:e|es|ed|ing)|rated|rating|mean|average|avg|weighted)\b\W{0,3}"
    r"(?:of|at|is|was|=|:)?\s*" + _SCORE_NUMBER
)
_OUT_OF_TEN = r"\b\d{1,2}(?:\.\d+)?\s*(?:/\s*10\b|out of 10\b)"
_GROUPS = (
    r"\d+\s+of\s+\d+|unanimous(?:ly)?|the panel|the majority|everyone|all (?:the )?(?:agents|personas|rankers)"
    r"|(?:the )?other(?:s| agents| personas| rankers)|most (?:agents|personas|rankers)"
)
_VERBS = (
    r"(?:approv\w*|reject\w*|abstain\w*|vot(?:e|es|ed|ing)\b|endors\w*|veto\w*|verdicts?\b|back(?:s|ed)\b"
    r"|prefer\w*|favou?r\w*|object\w*)"
)


@dataclass(frozen=True)
class Leak:
    kind: str  # leader | scores | verdicts | rationale | order
    snippet: str  # what was found (quoted in the deny reason)


# --------------------------------------------------------------------------------------------
# the neutral order and the list the rankers get


def approaches(delib: "Deliberation") -> "dict[str, str]":
    """Approach id → title, as the phase machine collects them (synthesis, else research)."""
    return collected(delib)


def neutral_order(delib: "Deliberation", ids: "Iterable[str] | None" = None) -> "list[str]":
    """The approach ids in the deliberation's neutral order: sorted by a hash of (deliberation
    id, approach id) — the same for every ranker, owed to no agent's preference or score."""
    ids = list(approaches(delib)) if ids is None else list(ids)
    return sorted(ids, key=lambda a: (hashlib.sha256(f"{delib.id}:{a}".encode()).hexdigest(), a))


def _summaries(delib: "Deliberation") -> "dict[str, str]":
    synth = [a for a in current(delib, "deliberation") if a.kind == "synthesis"]
    source = synth or current(delib, "research") + current(delib, "deliberation")
    out: dict[str, str] = {}
    for agent in source:
        for ap in agent.filed.approaches:
            out.setdefault(ap.id, ap.summary)
    return out


_VERDICT = r"\b(?:refuted|weakened|upheld|struck|overturned|rebutted|debunked)\b"
_VERDICT_ASIDE = re.compile(r"\s*[(\[][^()\[\]]*" + _VERDICT + r"[^()\[\]]*[)\]]", re.I)
_VERDICT_CLAUSE = re.compile(
    r"\s*[—–;,-]\s*(?:since |now |but |and )?(?:was |is |been |partly |partially )*" + _VERDICT + r"\b[^.;]*", re.I
)
_VERDICT_SENTENCE = re.compile(r"[^.!?]*" + _VERDICT + r"[^.!?]*(?:[.!?]|$)", re.I)


def neutral(text: str) -> str:
    """`text` without the red team's verdicts on it ("(weakened by devils-advocate:F2 …)", "— refuted
    by the red team", a sentence saying what was upheld): rankers see the approach, not the vote."""
    text = _VERDICT_ASIDE.sub("", text or "")
    text = _VERDICT_CLAUSE.sub("", text)
    text = _VERDICT_SENTENCE.sub("", text)
    return " ".join(text.split()).strip(" ;,—–-")


def established(delib: "Deliberation") -> "dict[str, list[tuple[str, str, str, str]]]":
    """Ranked approach id → (verdict, claim, evidence, step) the red-team passes and the tier-2
    workers established about it with evidence (core/depth/established.py), each sentence that
    would say something of the vote (a leader, a score, who backs what) dropped: facts, not votes."""
    ids = list(approaches(delib))
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for aid, found in depth_facts.facts(delib).items():
        kept = []
        for f in found:
            claim, evidence = _without_vote(f.claim, ids), _without_vote(f.evidence, ids)
            if claim and evidence:
                kept.append((f.verdict, claim, evidence, f.step))
        if kept:
            out[aid] = kept
    return out


def approach_list(delib: "Deliberation", head: str = progress.APPROACH_LIST_HEAD, facts_of: "str | None" = None) -> str:
    """The approaches to put in every ranking prompt, in the neutral order ('' when none), each
    with what the challenge and depth steps established about it (`facts_of`: under that approach
    only — the drafter's, whose dissent items say why the others lost)."""
    titles = approaches(delib)
    if not titles:
        return ""
    summaries = _summaries(delib)
    facts = established(delib)
    if facts_of is not None:
        facts = {k: v for k, v in facts.items() if k == facts_of}
    lines = [head] + ([progress.APPROACH_FACTS_NOTE] if facts else [])
    for aid in neutral_order(delib, titles):
        summary = neutral(summaries.get(aid.rsplit(":", 1)[-1]) or "")
        title = neutral(titles[aid]) or titles[aid]
        lines.append(f"- {aid}: {title}" + (f" — {summary}" if summary and summary != title else ""))
        lines += [progress.approach_fact(*fact) for fact in facts.get(aid, [])]
    return "\n".join(lines)


def ranking_instruction(delib: "Deliberation") -> str:
    """What the main agent is told when it is time to rank (the rule and the list)."""
    return progress.ranking_instruction(approach_list(delib))


# --------------------------------------------------------------------------------------------
# the check


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"


_BOUNDARY = re.compile(r"[.!?;](?=\s|$)|\n")


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence (or line) holding text[start:end]; a decimal point does not end it."""
    left = max((m.end() for m in _BOUNDARY.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _BOUNDARY.finditer(text, end)), len(text))
    return text[left:right].strip()


def _remove(text: str, pieces: "Iterable[str]") -> str:
    """`text` without every occurrence of each piece (whitespace-insensitive; newlines kept)."""
    for piece in sorted({p for p in pieces if len((p or "").split()) >= 3}, key=len, reverse=True):
        pattern = r"\s+".join(re.escape(w) for w in piece.split())
        text = re.sub(pattern, " ", text, flags=re.I)
    return text


def _allowed(delib: "Deliberation") -> "list[str]":
    """Texts a ranking prompt may quote freely: the question, the approaches' titles and
    summaries, and the findings (claims and evidence) — the material, not the vote."""
    out = [getattr(delib, "question", "") or ""]
    for a in getattr(delib, "agents", []):
        rep = a.report
        if rep is None:
            continue
        out += [x for ap in rep.approaches for x in (ap.title, ap.summary)]
        out += [x for f in rep.findings for x in (f.claim, f.evidence)]
    if getattr(delib, "depth", None) is not None:
        out += [x for found in established(delib).values() for _v, claim, evidence, _s in found for x in (claim, evidence)]
    return out


def _first_unnegated(pattern: "re.Pattern[str]", text: str) -> "re.Match[str] | None":
    for m in pattern.finditer(text):
        floor = max(0, m.start() - 40)
        left = max([floor] + [b.end() for b in _BOUNDARY.finditer(text, floor, m.start())])
        if not _NEGATION.search(text[left : m.start()]):
            return m
    return None


def _names(exclude: str) -> "list[str]":
    """Persona/role slugs and titles as regex alternatives, the spawned persona's excluded."""
    out = []
    for slug, (title, _prio) in personas.ALL.items():
        if slug == exclude:
            continue
        out += [
            re.escape(slug),
            re.escape(title).replace("\\ ", r"\s+"),
            re.escape(title.replace("'", "’")).replace("\\ ", r"\s+"),
        ]
    return sorted(set(out), key=len, reverse=True)


def _id_alternation(ids: "Iterable[str]") -> str:
    return "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))


def _list_entries(prompt: str, ids: "list[str]") -> "list[str]":
    """Approach ids in the order the prompt LISTS them (one per line, as list items)."""
    if not ids:
        return []
    line = re.compile(
        r"^\s*(?:[-*•]|\d+[.)])?\s*(?:\*\*)?(?:approach\s+|option\s+)?[`\"']?("
        + _id_alternation(ids)
        + r")[`\"']?(?:\*\*)?\s*(?:[:.)\]—–]|\s-\s|\s\(|$)",
        re.I | re.M,
    )
    seen: list[str] = []
    by_lower = {i.lower(): i for i in ids}
    for m in line.finditer(prompt):
        aid = by_lower.get(m.group(1).lower(), m.group(1))
        if aid not in seen:
            seen.append(aid)
    return seen


def _rationales(delib: "Deliberation", persona: str) -> "list[tuple[str, str]]":
    """(label, text) of other agents' ranking rationales (every round) and the synthesis'."""
    out = []
    for a in delib.agents:
        rep = a.report
        if rep is None or a.persona == persona:
            continue
        if a.stage == "ranking":
            out.append((refusals.rationale_label(a.persona, "ranking"), rep.rationale))
        elif a.kind == "synthesis":
            out.append((refusals.rationale_label(a.persona, "synthesis"), rep.rationale))
    return [(label, text) for label, text in out if len(tokens(text)) >= RATIONALE_MIN_TOKENS]


def check_prompt(
    prompt: str,
    delib: "Deliberation",
    persona: str = "",
    dimensions: "Iterable[str] | None" = None,
) -> "list[Leak]":
    """Everything `prompt` (a ranking spawn's prompt) carries that a blind ranker must not see;
    `dimensions` the configured ranking dimensions' names (default the catalogue's)."""
    if dimensions is None:
        dimensions = [d.name for d in catalogue.DIMENSIONS]
    if not prompt:
        return []
    own = personas.normalise_agent_type(persona)
    text = _ROLE_NAMES.sub(" ", _remove(prompt, _allowed(delib)))
    ids = list(approaches(delib))
    leaks = _vote_leaks(text, ids, own, dimensions)

    for label, body in _rationales(delib, own):
        share = containment(body, prompt)
        if share >= RATIONALE_CONTAINMENT:
            leaks.append(Leak("rationale", f"{label} ({share:.0%} of its wording)"))

    listed = _list_entries(prompt, ids)
    if len(listed) >= 2:
        order = neutral_order(delib, ids)
        expected = [a for a in order if a in listed]
        missing = [a for a in order if a not in listed]
        if listed != expected:
            leaks.append(Leak("order", f"listed {', '.join(listed)}; the neutral order is {', '.join(expected)}"))
        if missing:
            leaks.append(Leak("order", f"{len(listed)} of {len(ids)} approaches listed: {', '.join(missing)} missing"))
    return leaks


def _without_vote(text: str, ids: "list[str]") -> str:
    """`text` without each sentence that names a leader, a score or who backs what."""
    kept = [s for s in _SENTENCES.split(" ".join((text or "").split())) if s and not _vote_leaks(_ROLE_NAMES.sub(" ", s), ids)]
    return " ".join(kept).strip()


_SENTENCES = re.compile(r"(?<=[.!?;])\s+")


def _vote_leaks(text: str, ids: "list[str]", own: str = "", dimensions: "Iterable[str]" = DIMENSIONS) -> "list[Leak]":
    """The leader, scores and verdicts `text` carries (the vote, whatever the text's source)."""
    leaks: list[Leak] = []
    scan = _SCALE.sub(" ", text)

    m = _first_unnegated(_LEADER, scan)
    if m:
        leaks.append(Leak("leader", _clip(_sentence_around(scan, m.start(), m.end()))))

    dims = "|".join(re.escape(d) for d in dimensions)
    score_patterns = [_OUT_OF_TEN, _SCORE_WORDS]
    if dims:
        score_patterns.append(r"\b(?:" + dims + r")\b[\"']?\s*[:=]?\s*(?!0\.\d)" + _SCORE_NUMBER)
    if ids:
        score_patterns.append(
            r"(?<![\w:-])(?:" + _id_alternation(ids) + r")(?![\w:-])\s*[:=(]?\s*"
            r"(?:10\.0+|\d\.\d+)(?![\d.])" + _NO_UNIT
        )
    m = re.search("|".join(f"(?:{p})" for p in score_patterns), scan, re.I)
    if m:
        leaks.append(Leak("scores", _clip(_sentence_around(scan, m.start(), m.end()))))

    subject = r"(?:(?<![\w-])(?:" + "|".join(_names(own)) + r")(?![\w-]|:\w)|\b(?:" + _GROUPS + r")\b)"
    m = _first_unnegated(re.compile(subject + r"(?:[^.\n]|\.(?=\d)){0,60}?\b" + _VERBS, re.I), scan)
    if m:
        leaks.append(Leak("verdicts", _clip(_sentence_around(scan, m.start(), m.end()))))
    return leaks


def deny_reason(leaks: "list[Leak]", delib: "Deliberation") -> str:
    """The deny reason: what leaked (quoted) and exactly what to send instead."""
    return refusals.vote_in_ranking_prompt([(k.kind, k.snippet) for k in leaks], approach_list(delib))
