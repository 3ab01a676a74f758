"""Paraphrase detection for the depth axis: does a tier-2 text only restate a tier-1 finding (then
it scores 0), or add something on the same topic? (docs/FORMULAS.md, "Paraphrase of tier 1",
states the measure and its limits.)

`concepts` folds a text onto content words (stemming, phrases, the synonym table here);
`pair_score` is the share of a candidate's weighted concepts found in one original, halved when
the polarity differs and again when the candidate states a number the original lacks; a
candidate is a paraphrase when its best score over the originals (`paraphrase_score`) reaches
THRESHOLD. The word lists are data the measure matches. Stdlib only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from deliberation.core.similarity import STOP_WORDS, normalise, stem

THRESHOLD = 0.70
NUMBER_WEIGHT = 2.0
POLARITY_PENALTY = 0.5
NEW_NUMBER_PENALTY = 0.5

# multi-word phrases folded to one word before tokenising (matched on normalised text)
_PHRASES = (
    ("without bound", "unbounded"),
    ("without limit", "unbounded"),
    ("no upper bound", "unbounded"),
    ("no limit", "unbounded"),
    ("out of memory", "oom"),
    ("runs out of memory", "oom"),
    ("time out", "timeout"),
    ("times out", "timeout"),
    ("timed out", "timeout"),
    ("single point of failure", "spof"),
    ("race condition", "race"),
    ("data race", "race"),
    ("round trip", "roundtrip"),
    ("round trips", "roundtrip"),
    ("at the same time", "concurrently"),
    ("in parallel", "concurrently"),
    ("in memory", "inmemory"),
    ("on disk", "ondisk"),
    ("sign in", "login"),
    ("log in", "login"),
    ("logs in", "login"),
    ("set up", "setup"),
    ("goes down", "outage"),
    ("is down", "outage"),
    ("are down", "outage"),
    ("fall over", "crash"),
    ("falls over", "crash"),
    ("more than once", "duplicate"),
    ("twice", "duplicate"),
    ("per cent", "percent"),
    ("without encryption", "unencrypted"),
    ("in plain text", "plaintext"),
    ("plain text", "plaintext"),
    ("no one", "nobody"),
    ("n plus 1", "nplus1"),
    ("n 1 query", "nplus1"),
)

# synonym groups: every word maps onto the group's first word (compared after stemming)
_SYNONYMS = (
    "fail crash break abort die",
    "slow sluggish laggy latency lag delay",
    "fast quick rapid speedy",
    "big large huge bulky",
    "small tiny little",
    "use utilize utilise employ leverage",
    "show demonstrate reveal indicate prove confirm",
    "bug defect flaw fault",
    "remove delete eliminate strip",
    "lose drop discard",
    "grow increase rise climb balloon",
    "shrink decrease reduce lower",
    "memory ram heap",
    "unbounded unlimited limitless infinite endless indefinitely",
    "store persist save",
    "read load fetch retrieve",
    "send publish emit dispatch",
    "verify validate check",
    "leak expose disclose",
    "secret credential",
    "attacker adversary intruder",
    "database db datastore",
    "config configuration setting",
    "start begin launch boot startup",
    "halt terminate kill",
    "hang stall freeze",
    "lock mutex",
    "concurrent parallel simultaneous concurrently",
    "duplicate double repeat duplicated",
    "order ordering sequence",
    "retry reattempt resend",
    "cost expense price spend",
    "expensive costly pricey",
    "cheap inexpensive",
    "hard difficult",
    "easy simple straightforward trivial",
    "require need",
    "cause trigger produce",
    "prevent avoid preclude",
    "allow permit enable let",
    "lack miss absent missing",
    "many numerous multiple several",
    "often frequently regularly",
    "outage downtime unavailable unavailability",
    "function method routine",
    "vulnerable exploitable susceptible",
    "bypass circumvent skip",
    "permission privilege",
    "wrong incorrect invalid broken",
    "stale outdated obsolete old",
    "user customer",
    "request call",
    "test spec",
    "migration migrate",
    "message event",
    "queue backlog",
    "throughput capacity",
    "spike burst surge",
    "unsafe dangerous risky",
    "whole entire full",
    "expire expiry expiration",
    "hold held holds",
    "every each all",
)

# words that carry no claim of their own in a finding (hedges, intensifiers, generic nouns)
_FILLER = frozenset(
    stem(w)
    for w in """
actually really essentially basically currently clearly likely probably possibly seems seem
appears appear happen happens occur occurs heavy heavily significantly significant severe
severely entries entry items item thing things way case cases point also even ever still
already simply just quite rather somewhat certain certainly indeed note noted notes noting
find found finding findings observe observed issue problem here there because since hence
therefore result results resulting lead leads leading end ends up whenever get gets got become becomes
""".split()
)

_CONTRACTED_NOT = re.compile(r"n[’']t\b", re.I)  # "doesn't": normalise() drops the "'t"
_NEGATION_WORDS = frozenset("no not never none nothing nobody neither nor without cannot".split())
_NEGATION_STEMS = frozenset(stem(w) for w in "lack lacks lacking missing absent unable".split())


@lru_cache(maxsize=1)
def _synonym_map() -> "dict[str, str]":
    table: dict[str, str] = {}
    for group in _SYNONYMS:
        words = group.split()
        canon = _stem2(words[0])
        for w in words:
            table.setdefault(_stem2(w), canon)
    return table


def _stem2(word: str) -> str:
    """similarity.stem, then '-ion' after t/s ("eviction"/"evicts" → "evict") and a trailing
    'e' left by the first pass ("guarantee" → "guarant", like "guarantees")."""
    s = stem(word)
    if len(s) > 5 and s.endswith(("tion", "sion")):
        s = stem(s[:-3])
    while len(s) > 4 and s.endswith("e") and s.isalpha():
        s = s[:-1]
    return s


def _fold_phrases(norm: str) -> str:
    padded = f" {norm} "
    for phrase, word in _PHRASES:
        padded = padded.replace(f" {phrase} ", f" {word} ")
    return padded.strip()


@lru_cache(maxsize=4096)
def concepts(text: str) -> "frozenset[str]":
    """The canonical content words of `text` (see module docstring)."""
    norm = _fold_phrases(normalise(text or ""))
    syn = _synonym_map()
    out = set()
    for word in norm.split():
        if word in STOP_WORDS:
            continue
        s = _stem2(word)
        if s in _FILLER or word in _NEGATION_WORDS:
            continue
        out.add(syn.get(s, s))
    return frozenset(out)


def _negated(text: str) -> bool:
    """Does the text negate (after phrase folding, so "without encryption" is not a negation)?"""
    if _CONTRACTED_NOT.search(text or ""):
        return True
    words = _fold_phrases(normalise(text or "")).split()
    return (
        any(w in _NEGATION_WORDS or _stem2(w) in _NEGATION_STEMS for w in words)
        or "fail to" in " ".join(words)
        or "fails to" in " ".join(words)
    )


def _numbers(cs: "frozenset[str]") -> "frozenset[str]":
    return frozenset(c for c in cs if c.isdigit())


def _weight(concept: str) -> float:
    return NUMBER_WEIGHT if concept.isdigit() else 1.0


def pair_score(candidate: str, original: str) -> float:
    """How much `candidate` restates `original`, in [0, 1]."""
    c, o = concepts(candidate), concepts(original)
    if not c:
        return 0.0
    total = sum(_weight(x) for x in c)
    score = sum(_weight(x) for x in c & o) / total
    if _negated(candidate) != _negated(original):
        score *= POLARITY_PENALTY
    if _numbers(c) - _numbers(o):
        score *= NEW_NUMBER_PENALTY
    return round(score, 4)


def paraphrase_score(candidate: str, originals: "list[str]") -> "tuple[float, int]":
    """(best score, index of the best original); (0.0, -1) when there is nothing to compare."""
    best, at = 0.0, -1
    for i, original in enumerate(originals):
        s = pair_score(candidate, original)
        if s > best:
            best, at = s, i
    return best, at


def is_paraphrase(candidate: str, originals: "list[str]", threshold: float = THRESHOLD) -> bool:
    """True when `candidate` only restates one of `originals` (no new content)."""
    return paraphrase_score(candidate, originals)[0] >= threshold
