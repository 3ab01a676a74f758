"""Text similarity shared by the detectors: normalisation, word shingles and overlap measures.

Owns one idea — "how much of this text is that text" — for the conformity detectors (templated
dissent, same reasoning), the context-isolation leak check and the depth axis' paraphrase check.

Pipeline: `normalise` (case, markdown bullets/quotes/headings/code fences/emphasis, punctuation,
whitespace) → `tokens` (stop words dropped, light suffix stemming so that "caches", "cached" and
"caching" meet) → `shingles` (word n-grams; n=1 is the token set, n=3 keeps word order).

Measures, all in [0, 1]:
- `jaccard(a, b)`       |A∩B| / |A∪B|
- `containment(p, w)`   share of p's shingles found in w (asymmetric: "is p inside w?")
- `similarity(a, b)`    0.6 × unigram Dice + 0.4 × trigram Dice: high for paraphrases that reuse
                        the vocabulary, low for different arguments that only share the topic.

It is lexical: synonyms and translated text are NOT recognised; two texts that make the same
point in entirely different words score low. Stdlib only (it runs on the spawn path); features
of a text are cached, so comparing every pair of 100 agents' texts costs milliseconds.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import AbstractSet, Union

Shingle = tuple  # a tuple of n stemmed tokens
TextOrSet = Union[str, AbstractSet]

UNIGRAM_WEIGHT = 0.6
TRIGRAM_WEIGHT = 0.4

STOP_WORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either etc few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself just let may me might more most must my myself nor of off on once only or other ought our
ours ourselves out over own per same shall she should so some such than that the their theirs them
themselves then there these they this those through thus to too under until up upon us very via
was we were what when where which while who whom why will with within would yet you your yours
yourself yourselves
""".split()
)
# Kept on purpose (they carry meaning in an argument): no, not, never, without, cannot.

_FENCE_LINE = re.compile(r"^\s*(```|~~~)[^\n]*$", re.M)
_LINE_MARKUP = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+•·]\s+|\d{1,3}[.)]\s+|\[[ xX]\]\s+)*", re.M)
_CONTRACTION = re.compile(r"(\w)'(s|re|ve|ll|d|t|m)\b")
_NON_WORD = re.compile(r"[\W_]+")  # keeps letters and digits of any script

# (suffix, replacement), longest first; applied once, keeping a stem of at least 3 letters
_SUFFIXES = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("ations", ""),
    ("ation", ""),
    ("nesses", ""),
    ("ments", ""),
    ("ness", ""),
    ("ment", ""),
    ("ities", ""),
    ("ity", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ates", ""),
    ("ated", ""),
    ("ate", ""),
    ("ers", ""),
    ("er", ""),
    ("ed", ""),
    ("es", ""),
    ("ly", ""),
    ("s", ""),
)
_KEEP_S = ("ss", "us", "is", "os")


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces; markdown and punctuation gone.

    Line structure (bullets, quotes, headings, numbered lists, fences) is removed line by line
    before the text is flattened, so reformatting a paragraph into a list changes nothing.
    """
    if not text:
        return ""
    text = _FENCE_LINE.sub(" ", text)
    text = _LINE_MARKUP.sub("", text)
    text = text.lower().replace("\u2019", "'")
    text = _CONTRACTION.sub(r"\1", text)
    return " ".join(_NON_WORD.sub(" ", text).split())


def stem(word: str) -> str:
    """Light suffix stripping (plural, -ing, -ed, -ation, ...), then a trailing 'e' goes.

    Deliberately crude and consistent: "migration"/"migrate"/"migrated" → "migr",
    "caches"/"cached"/"caching"/"cache" → "cach". Numbers are returned unchanged.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix):
            if suffix == "s" and word.endswith(_KEEP_S):
                continue
            base = word[: -len(suffix)] + repl
            if len(base) >= 3:
                word = base
                break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


_CACHE_CHARS = 20_000  # longer texts (whole prompts) are not kept in the caches


def tokens(text: str) -> "tuple[str, ...]":
    """Content tokens of `text` in order: normalised, stop words dropped, stemmed."""
    return _tokens(text or "")


def _tokens(text: str) -> "tuple[str, ...]":
    return _tokens_cached(text) if len(text) <= _CACHE_CHARS else _compute_tokens(text)


def _compute_tokens(text: str) -> "tuple[str, ...]":
    return tuple(stem(w) for w in normalise(text).split() if w not in STOP_WORDS)


_tokens_cached = lru_cache(maxsize=8192)(_compute_tokens)


def shingles(text: str, n: int = 3) -> "frozenset[Shingle]":
    """The set of word n-grams of `text`'s content tokens.

    A text shorter than n tokens yields one shingle of all its tokens (so a two-word concern
    still has something to compare); an empty text yields the empty set.
    """
    if n < 1:
        raise ValueError(f"shingle size must be >= 1, got {n}")
    text = text or ""
    return _shingles_cached(text, n) if len(text) <= _CACHE_CHARS else _compute_shingles(text, n)


def _compute_shingles(text: str, n: int) -> "frozenset[Shingle]":
    toks = _tokens(text)
    if not toks:
        return frozenset()
    if len(toks) < n:
        return frozenset([toks])
    return frozenset(toks[i : i + n] for i in range(len(toks) - n + 1))


_shingles_cached = lru_cache(maxsize=8192)(_compute_shingles)


def token_set(text: str) -> "frozenset[str]":
    """Distinct content tokens (the n=1 view, as plain strings)."""
    return frozenset(_tokens(text or ""))


def _as_set(x: TextOrSet, n: int) -> AbstractSet:
    return shingles(x, n) if isinstance(x, str) else x


def jaccard(a: TextOrSet, b: TextOrSet, n: int = 3) -> float:
    """|A∩B| / |A∪B| of two shingle sets (texts are shingled with size n). Both empty → 0."""
    sa, sb = _as_set(a, n), _as_set(b, n)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


def dice(a: TextOrSet, b: TextOrSet, n: int = 3) -> float:
    """2|A∩B| / (|A|+|B|): like Jaccard but kinder to texts of different length. Empty → 0."""
    sa, sb = _as_set(a, n), _as_set(b, n)
    total = len(sa) + len(sb)
    return 2 * len(sa & sb) / total if total else 0.0


def containment(part: TextOrSet, whole: TextOrSet, n: int = 3) -> float:
    """Share of `part`'s shingles that occur in `whole` (0 when `part` has none)."""
    sp, sw = _as_set(part, n), _as_set(whole, n)
    return len(sp & sw) / len(sp) if sp else 0.0


Profile = tuple[frozenset[Shingle], frozenset[Shingle]]


def profile(text: str) -> Profile:
    """The two shingle sets `similarity` compares (unigrams, trigrams): compute them once per
    text when one text is compared with many (the conformity detectors compare all pairs)."""
    return shingles(text, 1), shingles(text, 3)


def similarity_of(a: Profile, b: Profile) -> float:
    """`similarity` of two non-empty texts from their profiles — the same figure, bit for bit."""
    ua, ta = a
    ub, tb = b
    uni = len(ua) + len(ub)
    tri = len(ta) + len(tb)
    return round(
        UNIGRAM_WEIGHT * (2 * len(ua & ub) / uni if uni else 0.0) + TRIGRAM_WEIGHT * (2 * len(ta & tb) / tri if tri else 0.0), 6
    )


def similarity(a: str, b: str) -> float:
    """Symmetric similarity in [0, 1]: 0.6 × Dice of token sets + 0.4 × Dice of word trigrams.

    Identical after normalisation → 1.0. A paraphrase that reuses most of the vocabulary scores
    about 0.6–0.9; two different arguments on the same topic share a few topic words and no
    trigrams and score below about 0.3.
    """
    if not a or not b:
        return 0.0
    return round(UNIGRAM_WEIGHT * dice(a, b, 1) + TRIGRAM_WEIGHT * dice(a, b, 3), 6)
