"""The trigger: score a user prompt on four dimensions (ambiguity, complexity, stakes, context
dependence) and decide whether to deliberate (docs/TRIGGER.md states the formula, the signals
and how well it does).

`score` gives each dimension the noisy-OR of the weights of the vocabulary terms (vocabulary.py,
matched by terms.py) and structural signals found, scaled down by the strongest damper; `combine`
turns the four into a confidence that never rises when a dimension rises; `evaluate` applies the
threshold, the force markers and the config, and never scores a task notification. Only the
first SCORED_HEAD and last SCORED_TAIL characters of a long prompt are scored. Pure and
deterministic; stdlib only (`re`), because it runs on every user prompt; text/trigger.py words
its cue labels and reasons.
"""

from __future__ import annotations

import re

from deliberation import defaults
from deliberation.wire.hookio import is_agent_turn  # a task notification or a hand-back: never scored
from deliberation.wire.hookio import is_task_notification as is_task_notification
from deliberation.core import task_type as tt
from deliberation.core import vocabulary as vocab
from deliberation.core.terms import find_terms, normalise
from deliberation.text import trigger as said

TYPE_CHECKING = False  # mypy reads the block below; the fast path does not load `typing`
if TYPE_CHECKING:
    from typing import Iterable
    from collections.abc import Iterator

DIMENSIONS = ("ambiguity", "complexity", "stakes", "context_dependence")
COMBINE_WEIGHT = 0.3  # cost of the top dimension, and of each further dimension at "high"
RAMP_WIDTH = 0.2  # low = high − RAMP_WIDTH
QUESTION_WEIGHT = 0.15  # ambiguity added by a question mark
OPTIONS_WEIGHT = 0.45  # ambiguity added by a question that offers alternatives
DECISION_QUESTION_WEIGHT = 0.5  # ambiguity added by a question about doing something
YES_NO_WEIGHT = 0.35  # … by another yes/no question of four words or more ("does it apply to us")
SITUATION_WEIGHT = 0.45  # context dependence added by a choice asked about a described situation
SITUATION_WORDS = 16  # … a question this long describes one by itself
CHANGE_NEEDS = 0.5  # an order to change a live system counts when this much is at stake
SITUATION_NEEDS = 0.15  # … when something in it is at stake (stakes ≥ this, or complexity ≥ twice this)
VERDICT_WEIGHT = 0.45  # … by a verdict asked in a few words after a situation ("Approve?")
LONG_PROMPT_WORDS = 60  # complexity added from this many words on…
LONG_PROMPT_WEIGHT = 0.15
VERY_LONG_PROMPT_WORDS = 150
VERY_LONG_PROMPT_WEIGHT = 0.3
QUANTITY_WEIGHT = 0.3  # complexity added by a large quantity (millions of rows, terabytes)
SCORED_HEAD = 12_000  # a pasted log is scored by its start and its end (the question is usually there)
SCORED_TAIL = 4_000
DEFAULT_THRESHOLD = defaults.CONFIG["trigger"]["threshold"]
DEFAULT_HIGH = defaults.CONFIG["trigger"]["high_dimension"]
DEFAULT_FORCE_MARKERS = tuple(defaults.CONFIG["trigger"]["force_markers"])

BUILTIN_VOCABULARIES = vocab.BUILTIN_VOCABULARIES


class _Lazy:
    """A regular expression compiled at its first use: a routine prompt needs few of these, and
    each compile is a hook's latency."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        self._compiled: "re.Pattern[str] | None" = None

    def _get(self) -> "re.Pattern[str]":
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def search(self, text: str) -> "re.Match[str] | None":
        return self._get().search(text)

    def match(self, text: str) -> "re.Match[str] | None":
        return self._get().match(text)

    def split(self, text: str) -> "list[str]":
        return self._get().split(text)

    def finditer(self, text: str) -> "Iterator[re.Match[str]]":
        return self._get().finditer(text)


_QUANTITY = _Lazy(r"\b\d+(?:[.,]\d+)?\s?(?:k|m|b|bn|tb|million|billion)\b(?!\w)|\b\d{1,3}(?:,\d{3}){2,}\b")
_SENTENCE_END = _Lazy(r"([.!?\n])")
_OR = _Lazy(r"(?:,|\s)or\s", re.I)
_OPENER = _Lazy(
    r"\s*(?:should|shall|shuld|shoud|are we|do we|do i|can we|can i|"
    r"could we|must we|would it|is there any reason)\b",
    re.I,
)
_YES_NO = _Lazy(r"\s*(?:is|are|was|were|do|does|did|can|could|would|will|must|may|might|need|has|have)\b", re.I)
_REQUEST = _Lazy(r"\s*(?:can|could|would|will)\s+(?:you|u)\b|\s*(?:please|pls)\b", re.I)
_FACT = _Lazy(
    r"\s*(?:what|which|why|how|where|when|who)(?:\s+[\w.-]+){0,2}?\s+"
    r"(?:is|are|was|were|does|do|did|version)\b",
    re.I,
)
_MANY = _Lazy(
    r"\b(?:\d{1,3}(?:,\d{3})+|(?!(?:19|20)\d\d\b)\d{4,}|\d+(?:\.\d+)?\s?(?:k|m|million|thousand))"
    r"((?:\s+[a-z-]+){1,3})"
)
_LOOKUP = _Lazy(r"\s*(?:is|are)\s+there\b(?!\s+(?:a|any)\s+(?:reason|risk|danger|downside|way\s+back))", re.I)


def _vocabulary(dim: str, vocabularies: "dict | None", extra_terms: "dict | None") -> "dict[str, float]":
    base = BUILTIN_VOCABULARIES[dim]
    if vocabularies and dim in vocabularies and vocabularies[dim] is not None:
        base = vocabularies[dim]
    if extra_terms and extra_terms.get(dim):
        base = {**base, **extra_terms[dim]}
    return base


def _noisy_or(weights: "Iterable[float]") -> float:
    miss = 1.0
    for w in weights:
        miss *= 1.0 - min(max(float(w), 0.0), 1.0)
    return 1.0 - miss


def _scored_text(prompt: str) -> str:
    """The part of the prompt that is scored: all of it, or the start and end of a very long one."""
    if len(prompt) <= SCORED_HEAD + SCORED_TAIL:
        return prompt
    return prompt[:SCORED_HEAD] + "\n" + prompt[-SCORED_TAIL:]


def _questions(prompt: str) -> "list[str]":
    """The prompt's questions: its sentences that end with "?", and its first sentence when
    that opens like a decision question without the mark ("shuld we refund or …")."""
    pieces = _SENTENCE_END.split(prompt)  # text, mark, text, mark, … (linear, unlike a findall)
    found = [pieces[i] + "?" for i in range(0, len(pieces) - 1, 2) if pieces[i + 1] == "?"]
    first = pieces[0] if pieces else ""
    if first.strip() and _OPENER.match(first) and first + "?" not in found:
        found.append(first)
    return found


def offers_alternatives(questions: "list[str]") -> bool:
    """A question that names alternatives: "Block by IP, add a captcha, or force 2FA?"."""
    return any(_OR.search(q) for q in questions)


def asks_yes_or_no(questions: "list[str]") -> bool:
    """A question about doing something: "Should the API require auth?", "Do we …?", or a
    proposed step put as a question: "Disable SSO and allow password login for now?"."""
    return any(_OPENER.match(q) or (q.rstrip().endswith("?") and _first_word(q) in vocab.PROPOSING_VERBS) for q in questions)


def _first_word(sentence: str) -> str:
    words = sentence.split(None, 1)
    return words[0].lower().strip("\"'`*(") if words else ""


def asks_a_verdict(prompt: str, questions: "list[str]") -> bool:
    """A situation described, then a verdict asked in a few words: "… Approve?", "… Good
    enough for now?", "… Which one?", "… Thoughts?"."""
    return any(
        len(q.split()) <= 4 and not _REQUEST.match(q) and prompt.strip() != q.strip()
        for q in questions
        if q.rstrip().endswith("?")
    )


def asks_whether(questions: "list[str]") -> bool:
    """A yes/no question of another kind ("Does COPPA apply to us?", "Is that enough?"), not a
    request ("Can you …?") or a look-up ("Is there a …?")."""
    return any(_YES_NO.match(q) and not _REQUEST.match(q) and not _LOOKUP.match(q) and len(q.split()) >= 4 for q in questions)


def _structural(dim: str, prompt: str, norm: str, n_words: int, so_far: dict) -> "list[tuple[str, float]]":
    out: "list[tuple[str, float]]" = []
    if dim == "ambiguity":
        questions = _questions(prompt)
        if "?" in prompt:
            out.append((said.CUES["question"], QUESTION_WEIGHT))
        if asks_yes_or_no(questions):
            out.append((said.CUES["decision_question"], DECISION_QUESTION_WEIGHT))
        elif asks_whether(questions):
            out.append((said.CUES["yes_no_question"], YES_NO_WEIGHT))
        if asks_a_verdict(prompt, questions):
            out.append((said.CUES["verdict"], VERDICT_WEIGHT))
        if offers_alternatives(questions):
            out.append((said.CUES["options"], OPTIONS_WEIGHT))
    elif dim == "complexity":
        if n_words >= VERY_LONG_PROMPT_WORDS:
            out.append((said.long_prompt(n_words), VERY_LONG_PROMPT_WEIGHT))
        elif n_words >= LONG_PROMPT_WORDS:
            out.append((said.long_prompt(n_words), LONG_PROMPT_WEIGHT))
        if _QUANTITY.search(prompt.lower()):
            out.append((said.CUES["quantity"], QUANTITY_WEIGHT))
    elif dim == "stakes":
        if weakens_protection(norm):
            out.append((said.CUES["weakens_protection"], vocab.WEAKENS_PROTECTION))
        if platform_choice(prompt):
            out.append((said.CUES["platform_choice"], vocab.PLATFORM_CHOICE))
        if many_affected(prompt):
            out.append((said.CUES["many_affected"], vocab.MANY_AFFECTED))
    elif dim == "context_dependence":
        if irreversible_on_live(norm):
            out.append((said.CUES["irreversible_on_live"], vocab.IRREVERSIBLE_ON_LIVE))
        elif so_far.get("stakes", 0.0) >= CHANGE_NEEDS and changes_a_live_system(prompt, norm):
            out.append((said.CUES["change_to_live"], vocab.IRREVERSIBLE_ON_LIVE))
        if (
            so_far.get("stakes", 0.0) >= SITUATION_NEEDS or so_far.get("complexity", 0.0) >= 2 * SITUATION_NEEDS
        ) and describes_a_situation(prompt, norm):
            out.append((said.CUES["situation"], SITUATION_WEIGHT))
    return out


def describes_a_situation(prompt: str, norm: str) -> bool:
    """A choice asked about a situation the prompt describes — "Our Redis holds sessions and
    the job queue. Upgrade in place or stand up a new one?" — as opposed to a bare question
    ("Should the flag be --out or --output?"): the answer turns on facts of that situation,
    including those left unsaid."""
    questions = _questions(prompt)
    if not questions:
        return False
    sentences = [p for p in _SENTENCE_END.split(prompt)[::2] if len(p.split()) >= 3]
    return (len(sentences) >= 2 or len(norm.split()) >= SITUATION_WORDS) and not find_terms(norm, vocab.CODE_LOCAL)


def changes_a_live_system(prompt: str, norm: str) -> bool:
    """An order to change something ("Send the customer list to the agency", "I want to share
    the prod credentials with…") that names a live target: whether it is safe depends on who
    relies on that target, as for the destructive steps above."""
    first = _first_word(prompt)
    intends = find_terms(norm[:40], vocab.INTENT)
    return (first in vocab.CHANGE_VERBS or bool(intends)) and bool(find_terms(norm, vocab.LIVE_SYSTEMS))


def irreversible_on_live(norm: str) -> bool:
    """A destructive or protection-weakening step named together with a live target."""
    return bool(find_terms(norm, vocab.IRREVERSIBLE_ACTIONS)) and bool(find_terms(norm, vocab.LIVE_TARGETS))


def platform_choice(prompt: str) -> bool:
    """A decision question (a "should we", a proposed step, alternatives offered) that names a
    platform the system is built on: "Postgres or DynamoDB for the bookings?", "Elixir for the
    new chat service?". Questions of fact ("which Postgres are we on?") are not decisions."""
    questions = _questions(prompt)
    decisive = [
        q
        for q in questions
        if _OPENER.match(q) or _OR.search(q) or (q.rstrip().endswith("?") and _first_word(q) in vocab.PROPOSING_VERBS)
    ]
    if not decisive:
        decisive = [
            q
            for q in questions
            if q.rstrip().endswith("?") and not _REQUEST.match(q) and not _FACT.match(q) and len(q.split()) <= 12
        ]
    return any(find_terms(normalise(q), vocab.PLATFORMS) for q in decisive)


def many_affected(prompt: str) -> bool:
    """A count in the thousands or more of people or records ("60k free accounts", "1.2M users",
    "400,000 rows"): whatever the change, that many are reached by it."""
    return any(find_terms(normalise(m.group(1)), vocab.AFFECTED) for m in _MANY.finditer(prompt.lower()))


def weakens_protection(norm: str) -> bool:
    """A protection named together with a word that switches it off or loosens it."""
    return bool(find_terms(norm, vocab.WEAKENING)) and bool(find_terms(norm, vocab.PROTECTIONS))


def _damper(dim: str, norm: str) -> "tuple[str, float] | None":
    """The strongest damper of `dim` that applies (see the module docstring), or None."""
    table = vocab.SETTLED if dim == "ambiguity" else vocab.DISPOSABLE if dim == "stakes" else None
    if not table:
        return None
    found = find_terms(norm, table)
    if not found or (dim == "stakes" and find_terms(norm, vocab.LIVE_TARGETS)):
        return None
    term = max(found, key=lambda t: table[t])
    return term, table[term]


def score(prompt: str, vocabularies: "dict | None" = None, extra_terms: "dict | None" = None) -> dict:
    """{ambiguity, complexity, stakes, context_dependence: float in [0,1], matched: {dim: [terms]}}.

    `vocabularies` replaces a dimension's built-in terms ({dim: {term: weight}}), `extra_terms`
    adds to them. `matched` lists the terms, then the structural signals in parentheses, then a
    damper as "×(1 − f) term".
    """
    text = _scored_text(prompt)
    norm = normalise(text)
    n_words = len(norm.split())
    result: dict = {}
    matched: dict = {}
    for dim in DIMENSIONS:
        words = _vocabulary(dim, vocabularies, extra_terms)
        hits = [(t, words[t]) for t in find_terms(norm, words)]
        hits += _structural(dim, text, norm, n_words, result)
        value = _noisy_or(w for _, w in hits)
        names = [t for t, _ in hits]
        damp = _damper(dim, norm) if value > 0 else None
        if damp:
            value *= 1.0 - damp[1]
            names.append(said.damped(1 - damp[1], damp[0]))
        result[dim] = round(value, 4)
        matched[dim] = names
    result["matched"] = matched
    return result


def _ramp(x: float, high: float) -> float:
    low = max(high - RAMP_WIDTH, 0.0)
    if high <= low:
        return 1.0 if x >= high else 0.0
    return min(max((x - low) / (high - low), 0.0), 1.0)


def combine(dims: dict, high: float = DEFAULT_HIGH) -> float:
    """Confidence in [0,1] from the four dimensions (formula in the module docstring)."""
    values = sorted((min(max(float(dims.get(d, 0.0)), 0.0), 1.0) for d in DIMENSIONS), reverse=True)
    penalty = COMBINE_WEIGHT * values[0] + COMBINE_WEIGHT * sum(_ramp(v, high) for v in values[1:])
    return round(min(max(1.0 - penalty, 0.0), 1.0), 4)


def forced_by(prompt: str, markers: "Iterable[str]") -> "str | None":
    """The force marker the prompt starts with (case-sensitive, then a non-word char), if any,
    as the prompt spells it. A command marker (`/deliberate`) is also recognised in the client's
    namespaced form, whatever the namespace: a plugin's command reaches the prompt hook as
    `/<plugin>:deliberate …` (measured on Claude Code 2.1.328), so that is returned."""
    text = prompt.lstrip()
    for marker in markers:
        if not marker:
            continue
        spelt = _namespaced(text, marker) if marker.startswith("/") else None
        if spelt is None and text.startswith(marker):
            spelt = marker
        if spelt is not None:
            rest = text[len(spelt) :]
            if not rest or not (rest[0].isalnum() or rest[0] in "_-"):
                return spelt
    return None


def _namespaced(text: str, marker: str) -> "str | None":
    """`/<namespace>:<command>` at the start of `text` for the command marker `/<command>`:
    the namespace a run of letters, digits, `_`, `-` and `.` (a plugin's name)."""
    colon = text.find(":", 1)
    if not text.startswith("/") or colon < 2:
        return None
    namespace = text[1:colon]
    if not all(ch.isalnum() or ch in "_-." for ch in namespace):
        return None
    spelt = text[: colon + 1] + marker[1:]
    return spelt if text.startswith(spelt) else None


def question_of(prompt: str, markers: "Iterable[str] | None" = None) -> str:
    """The question a prompt asks, without the force marker that made it a deliberation:
    `/deliberate Should we…?` and `DELIBERATE: Should we…?` → `Should we…?` (the marker says
    how to decide, not what)."""
    text = prompt.strip()
    marker = forced_by(text, markers or DEFAULT_FORCE_MARKERS)
    if marker:
        return text[len(marker) :].lstrip(" :—-\n\t")
    return text


def section(cfg: "dict | None", name: str) -> dict:
    """One section of a config dict ({} when missing)."""
    if isinstance(cfg, dict) and isinstance(cfg.get(name), dict):
        return cfg[name]
    return {}


def evaluate(prompt: str, cfg: "dict | None" = None) -> dict:
    """The trigger decision for one user prompt.

    `cfg` is `Config().model_dump()` (keys `trigger.*`, `task_types.*`) or None for defaults.
    Returns {dimensions, confidence, threshold, triggered, forced, task_type, matched, reason,
    consensus_threshold}: `threshold` is the trigger's, `consensus_threshold` the task type's.
    A force marker triggers even when the trigger is disabled (it is an explicit request); a
    `<task-notification>` or `<agent-message>` prompt (an agent's turn) is never scored and never triggers.
    """
    trig = section(cfg, "trigger")
    types = section(cfg, "task_types")
    threshold = float(trig.get("threshold", DEFAULT_THRESHOLD))
    high = float(trig.get("high_dimension", DEFAULT_HIGH))
    enabled = bool(trig.get("enabled", True))
    markers = trig.get("force_markers") or DEFAULT_FORCE_MARKERS
    zero = {d: 0.0 for d in DIMENSIONS}
    if is_agent_turn(prompt):
        return {
            "dimensions": zero,
            "confidence": 1.0,
            "threshold": threshold,
            "triggered": False,
            "forced": False,
            "task_type": "default",
            "matched": {d: [] for d in DIMENSIONS},
            "reason": said.NOTIFICATION,
            "consensus_threshold": tt.threshold("default", types.get("thresholds")),
        }
    scored = score(prompt, trig.get("vocabularies"), trig.get("extra_terms"))
    matched = scored.pop("matched")
    confidence = combine(scored, high)
    marker = forced_by(prompt, markers)
    task_type = tt.classify(_scored_text(prompt), types.get("keywords"))
    if marker:
        triggered, reason = True, said.forced(marker)
    elif not enabled:
        triggered, reason = False, said.DISABLED
    elif confidence < threshold:
        highs = [d for d in DIMENSIONS if scored[d] >= high]
        triggered = True
        reason = said.below(confidence, threshold, highs)
    else:
        triggered, reason = False, said.at_or_above(confidence, threshold)
    return {
        "dimensions": scored,
        "confidence": confidence,
        "threshold": threshold,
        "triggered": triggered,
        "forced": marker is not None,
        "task_type": task_type,
        "matched": matched,
        "reason": reason,
        "consensus_threshold": tt.threshold(task_type, types.get("thresholds")),
    }
