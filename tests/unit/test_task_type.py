"""Task-type classification, its precedence, and the per-type thresholds."""

from __future__ import annotations

import pytest

from deliberation.core import task_type as tt
from deliberation.state.config import TASK_TYPES, Config


@pytest.mark.parametrize(
    "question, expected",
    [
        # security
        ("Should we replace session cookies with JWTs?", "security"),
        ("Rotate the leaked API keys and revoke the old tokens", "security"),
        ("Add CSRF protection to the settings form", "security"),
        ("Who may call the admin endpoint? Tighten the permissions", "security"),
        ("Encrypt the backups at rest", "security"),
        # architecture
        ("Should we split the monolith into microservices?", "architecture"),
        ("Event sourcing or CRUD for the billing domain?", "architecture"),
        ("Design the multi-tenant data model", "architecture"),
        ("Which message queue fits our workload, Kafka or SQS?", "architecture"),
        ("Pick a payment vendor for Europe", "architecture"),
        # refactoring
        ("Refactor the order service into smaller functions", "refactoring"),
        ("Rename helpers.py to text_utils.py", "refactoring"),
        ("Extract the retry loop into its own module", "refactoring"),
        ("Remove the dead code in the importer", "refactoring"),
        # documentation
        ("Fix the typo in the README", "documentation"),
        ("Add a docstring to parse_duration", "documentation"),
        ("Update the CHANGELOG for 2.4.0", "documentation"),
        ("Document the --dry-run option", "documentation"),
        # default
        ("Increase the HTTP timeout from 5 to 10 seconds", "default"),
        ("Add a loading spinner to the dashboard", "default"),
        ("", "default"),
        # precedence: several types match, the strictest wins
        ("Document the new OAuth login flow in the README", "security"),  # security > documentation
        ("Refactor the auth middleware", "security"),  # security > refactoring
        ("Refactor the monolith into microservices", "architecture"),  # architecture > refactoring
        ("Document the event sourcing architecture", "architecture"),  # architecture > documentation
        ("Fix the typos while you refactor the parser", "refactoring"),  # refactoring > documentation
        ("Shard the database and rotate the credentials", "security"),  # security > architecture
    ],
)
def test_classify_table(question, expected):
    assert tt.classify(question) == expected


def test_words_match_whole_words_only():
    assert tt.classify("Update the author field in the footer") == "default"  # not "auth"
    assert tt.classify("Fix the doctest runner") == "default"  # not "doc"
    assert tt.classify("Style the tokenizer output") == "default"  # not "token"


def test_custom_keywords_replace_a_types_builtin_list():
    custom = {"security": ["ledger"]}
    assert tt.classify("Rework the ledger", custom) == "security"
    # the replaced type no longer knows its built-in words; the other types keep theirs
    assert tt.classify("Rotate the passwords", custom) == "default"
    assert tt.classify("Fix the typo", custom) == "documentation"


def test_matched_keywords_explains_a_classification():
    m = tt.matched_keywords("Document the new OAuth login flow")
    assert m["security"] == ["oauth", "login"]  # in vocabulary order
    assert m["documentation"] == ["document"]
    assert m["architecture"] == [] and m["refactoring"] == []


@pytest.mark.parametrize(
    "task_type, expected",
    [
        ("security", 0.85),
        ("architecture", 0.80),
        ("default", 0.70),
        ("refactoring", 0.65),
        ("documentation", 0.50),
        ("unknown-type", 0.70),
    ],
)
def test_default_thresholds(task_type, expected):
    assert tt.threshold(task_type) == expected
    assert tt.threshold(task_type, None) == expected


def test_thresholds_are_configurable_and_partial_tables_fall_back():
    assert tt.threshold("security", {"security": 0.9}) == 0.9
    assert tt.threshold("documentation", {"security": 0.9}) == 0.50
    assert tt.threshold("nope", {"default": 0.6}) == 0.6


def test_defaults_agree_with_config():
    cfg = Config()
    assert set(tt.TASK_TYPES) == set(TASK_TYPES)
    for t in TASK_TYPES:
        assert tt.threshold(t, cfg.model_dump()["task_types"]["thresholds"]) == cfg.threshold_for(t)
        assert tt.threshold(t) == cfg.threshold_for(t)


def test_a_memory_leak_is_not_a_security_question():
    assert tt.classify("Find the memory leak in the worker") == "default"
    assert tt.classify("Rotate the leaked keys") == "security"


def test_a_lenient_type_never_lowers_the_bar_of_a_question_that_names_what_is_at_stake():
    # a real data-safety question: "see README" made it documentation (0.50), "temp file +
    # rename" refactoring (0.65); it names lost data and breaking 300 users' scripts
    q = (
        "Two users lost data because csvtool rewrites the input file in place (see README). "
        "That breaks scripts of ~300 external users. Keep in-place and make the write atomic "
        "(temp file + rename) with a backup instead?"
    )
    assert tt.classify(q) == "default"
    assert tt.classify("make the write atomic (temp file + rename) with a backup") == "default"
    # without a stake the lenient types stand
    assert tt.classify("fix the typo in the README") == "documentation"
    assert tt.classify("rename the helper function to parse_config") == "refactoring"
    # the strict types are never lowered
    assert tt.classify("document the new auth flow, the old one lost data") == "security"


def test_a_path_that_points_at_evidence_never_lowers_the_bar():
    # a real-model trial's search-latency question was documentation (0.50, depth off) by "docs/"
    q = (
        "Search p95 is 2.4 s at peak (see docs/search-latency.md). Should we add a pg_trgm index on "
        "products.name, or move search to the OpenSearch cluster Observability runs?"
    )
    assert tt.classify(q) == "default"
    assert tt.matched_keywords(q)["documentation"] == []
    assert tt.classify("The plan is in refactor/notes.md: Redis or Postgres for the job list?") == "default"
    assert tt.classify(r"see C:\docs\guide.md, then pick a queue") == "default"
    # the words outside the path still classify
    assert tt.classify("Fix the typo in docs/install.md") == "documentation"
    # a strict type still reads the path: it raises the bar, never lowers it
    assert tt.classify("Tidy up src/auth/session.py") == "security"


def test_a_token_bucket_is_no_credential():
    # a real-model trial's rate-limit question was held to the security bar (0.85) and panel
    q = (
        "Customers on the Enterprise plan keep hitting 429s during their nightly syncs. Should we raise "
        "their per-minute limit or switch the limiter to a token bucket with bursts?"
    )
    assert tt.classify(q) == "default"
    assert tt.matched_keywords(q)["security"] == []
    assert tt.classify("Cap the token budget per request, or count tokens per minute?") == "default"
    # a token in its own sense, beside a bucket, still counts
    assert tt.classify("Should the token bucket also hold the session tokens?") == "security"
    assert tt.classify("Store the refresh token in a cookie?") == "security"


def test_strip_terms_cuts_whole_words_and_prefixes_only():
    from deliberation.core.terms import normalise, strip_terms

    norm = normalise("token buckets, tokenbucket and the token")
    assert strip_terms(norm, ["token bucket*"]) == " tokenbucket and the token "
    assert strip_terms(normalise("the token"), ["token bucket*"]) == " the token "
    assert strip_terms(normalise("a token usage b"), ["token usage"]) == " a b "
