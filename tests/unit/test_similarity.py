"""similarity: normalisation, stemming, shingles and the overlap measures (hand-computed)."""

from __future__ import annotations

import time

import pytest

from deliberation.core.similarity import containment, dice, jaccard, normalise, shingles, similarity, stem, token_set, tokens


def test_normalise_strips_markdown_case_punctuation_and_whitespace():
    text = "> - **Cache** the user's TOKENS!\n```python\nttl = 60\n```\n1. Second   item\n# Heading"
    assert normalise(text) == "cache the user tokens ttl 60 second item heading"


def test_reformatting_does_not_change_tokens():
    prose = "The migration locks the orders table. It needs a maintenance window."
    listed = "* the MIGRATION locks the Orders table\n*   it needs a\n    maintenance window"
    quoted = "> 1. The migration locks the orders table;\n> 2. it needs a maintenance-window"
    assert tokens(prose) == tokens(listed) == tokens(quoted)
    assert tokens(prose) == ("migr", "lock", "ord", "tabl", "need", "maintenanc", "window")


@pytest.mark.parametrize(
    "words, stem_",
    [
        (("migration", "migrate", "migrated", "migrations"), "migr"),
        (("cache", "caches", "cached", "caching"), "cach"),
        (("queue", "queues", "queued"), "queu"),
        (("policy", "policies"), "policy"),
        (("status", "statuses"), "status"),
        (("index", "indexes"), "index"),
    ],
)
def test_stem_merges_inflections(words, stem_):
    assert {stem(w) for w in words} == {stem_}


def test_stop_words_drop_but_negations_stay():
    assert tokens("it is not safe to do this without a lock") == ("not", "saf", "without", "lock")


def test_shingles_trigram_and_short_text():
    assert shingles("alpha beta gamma delta") == {("alpha", "beta", "gamma"), ("beta", "gamma", "delta")}
    assert shingles("alpha beta") == {("alpha", "beta")}  # shorter than n: one shingle
    assert shingles("the of and") == frozenset()  # only stop words
    assert shingles("alpha beta gamma", 1) == {("alpha",), ("beta",), ("gamma",)}
    assert token_set("Redis, redis and REDIS caches") == {"redis", "cach"}
    with pytest.raises(ValueError):
        shingles("x", 0)


def test_measures_hand_computed():
    a = "alpha beta gamma delta"  # trigrams: abg, bgd
    b = "alpha beta gamma epsilon"  # trigrams: abg, bge
    assert jaccard(a, b) == pytest.approx(1 / 3)
    assert dice(a, b) == pytest.approx(0.5)
    assert jaccard(a, b, 1) == pytest.approx(3 / 5)
    assert dice(a, b, 1) == pytest.approx(0.75)
    # similarity = 0.6 * 0.75 + 0.4 * 0.5
    assert similarity(a, b) == pytest.approx(0.65)
    # containment is asymmetric: all of "beta gamma delta" is inside a, not the reverse
    assert containment("beta gamma delta", a) == 1.0
    assert containment(a, "beta gamma delta") == 0.5
    assert containment({"x", "y"}, {"x"}) == 0.5  # sets are accepted as they are
    assert containment("", a) == 0.0 and jaccard("", "") == 0.0 and similarity("", a) == 0.0


def test_identical_after_reformatting_is_one():
    assert similarity("- Cache the TOKENS.", "cache the tokens") == 1.0


PARAPHRASES = [
    ("The migration will lock the orders table for several minutes", "Running this migration locks the orders table for minutes"),
    (
        "Redis as a cache adds an operational dependency we have to monitor and patch",
        "Adding Redis for caching adds another operational dependency that must be monitored and patched",
    ),
    (
        "Retries without idempotency keys will charge customers twice when the queue redelivers",
        "Without idempotency keys, queue redelivery plus retries charges customers twice",
    ),
]
SAME_TOPIC_DIFFERENT_ARGUMENT = [
    (
        "The migration will lock the orders table for several minutes",
        "The migration has no rollback script, so a failed deploy leaves the schema half-applied",
    ),
    (
        "Redis as a cache adds an operational dependency we have to monitor and patch",
        "A Redis cache can serve stale prices after a write unless invalidation is wired into every update path",
    ),
    (
        "Retries without idempotency keys will charge customers twice when the queue redelivers",
        "The queue has no dead-letter topic, so poison messages block the consumer for every customer",
    ),
]


def test_paraphrase_high_and_different_argument_low():
    para = [similarity(a, b) for a, b in PARAPHRASES]
    diff = [similarity(a, b) for a, b in SAME_TOPIC_DIFFERENT_ARGUMENT]
    print(f"\nsimilarity paraphrases {[round(x, 2) for x in para]}, same topic/different argument {[round(x, 2) for x in diff]}")
    assert min(para) >= 0.6
    assert max(diff) < 0.3
    # hand-computed first pair: tokens {migr,lock,ord,tabl,several,minut} vs
    # {run,migr,lock,ord,tabl,minut}: Dice 10/12; trigrams share 2 of 4+4: Dice 0.5
    assert para[0] == pytest.approx(0.6 * 10 / 12 + 0.4 * 0.5)


def test_100_agents_pairwise():
    texts = [
        f"agent {i} thinks the cache layer {i % 7} should expire entries after {i} seconds "
        f"because the pricing service {i % 5} changes prices during flash sales"
        for i in range(100)
    ]
    start = time.perf_counter()
    n = sum(1 for i in range(100) for j in range(i + 1, 100) if similarity(texts[i], texts[j]) > 0.99)
    elapsed = time.perf_counter() - start
    print(f"\n4950 pairwise similarities of 100 texts: {elapsed * 1000:.0f} ms")
    assert n == 0  # the time is printed, not asserted: a loaded machine is no bug


def test_non_ascii_words_are_kept():
    assert normalise("Zażółć gęślą jaźń — ĐƯỜNG dẫn") == "zażółć gęślą jaźń đường dẫn"
    assert similarity("Migracja tabeli zamówień", "migracja TABELI zamówień!") == 1.0


def test_long_texts_bypass_the_cache_with_the_same_result():
    unit = "the orders table migration needs a maintenance window because of locks "
    long_text = unit * 400  # > 20,000 characters
    assert len(long_text) > 20_000
    assert shingles(long_text) == shingles(unit * 3)
    assert containment(unit, long_text) == 1.0
