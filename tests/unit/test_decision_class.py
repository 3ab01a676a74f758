import pytest

from deliberation.core.decision_class import decision_class, slug, tag_scores, task_type_of
from deliberation.core.task_type import classify


def test_task_type_alone_when_no_tag_matches():
    assert decision_class("refactoring", "rename the helper for readability") == "refactoring"


def test_question_tags_the_class():
    assert decision_class("security", "Should we switch login to OAuth with JWT sessions?") == "security/auth"
    assert decision_class("architecture", "Plan the schema migration for the orders table") == "architecture/schema-migration"


def test_question_outweighs_reports_and_scores_are_counted():
    # question: 'cache' (2); reports: 'migration', 'schema' (1 + 1) -> tie 2:2 broken by order
    scores = tag_scores("add a cache", "the migration needs a schema change")
    assert scores == {"schema-migration": 2, "caching": 2}
    # the question names only caching: reports cannot move the decision to another tag
    assert decision_class("architecture", "add a cache", "the migration needs a schema change") == "architecture/caching"
    # a question that names no tag is the bare task type: reports never add a tag
    assert decision_class("architecture", "what should we do", "the migration needs a schema change") == "architecture"
    assert decision_class("architecture", "add a cache with ttl", "the migration needs a schema") == "architecture/caching"


def test_whole_words_and_plurals():
    assert decision_class("default", "update the apis") == "default/api-contract"
    assert decision_class("default", "a rapid change") == "default"  # 'api' inside a word
    assert decision_class("default", "rotate the Secrets") == "default/secrets"


def test_configured_tags_replace_the_builtin_table():
    tags = {"Billing Engine": ["invoice", "tax rate"]}
    assert decision_class("default", "change the TAX  rate rounding", class_tags=tags) == "default/billing-engine"
    assert decision_class("security", "OAuth login", class_tags=tags) == "security"


def test_deterministic_and_helpers():
    q = "deploy the new auth service with a cache"
    assert len({decision_class("security", q, "x") for _ in range(5)}) == 1
    assert slug("Schema Migration!") == "schema-migration"
    assert task_type_of("security/auth") == "security" and task_type_of("default") == "default"


# reports of a real panel mention credentials whatever the question: redaction, tokens, auth headers
REPORTS = (
    "never log the password or the auth token; the session token must be redacted; "
    "JWT claims, OAuth scopes and the api key stay out of the payload"
)


@pytest.mark.parametrize(
    "question,cls",
    [
        (
            "We're thinking of replacing our Redis-backed server-side sessions in billing/ with stateless "
            "JWTs. This touches auth, so be careful.",
            "security/auth",
        ),
        (
            "Should the billing service switch its request logging to structured JSON logs with structlog?",
            "default/observability",
        ),
        ("Should we add a Redis cache in front of the product catalogue, and how do we invalidate it?", "default/caching"),
        ("Plan the migration of the orders table to the new schema with a backfill", "default/schema-migration"),
        ("Should we upgrade Django from 3.2 to 4.2 this quarter?", "default/dependency"),
        ("Rename the helpers in utils.py and split the 400-line function", "refactoring"),
        ("Where should we keep the Stripe API keys: environment variables or Vault?", "security/secrets"),
        ("Should invoices be deleted after seven years to meet our retention policy?", "default/data-deletion"),
        ("Should the worker pool use threads or asyncio for the webhook fan-out?", "default/concurrency"),
        ("Fix the typos in the README", "documentation"),
        ("Should we roll out the new pricing page behind a feature flag or all at once?", "default/deployment"),
        ("Should we add OpenTelemetry tracing to the checkout path?", "default/observability"),
    ],
)
def test_realistic_questions_are_classed_by_the_question(question, cls):
    assert decision_class(classify(question), question, REPORTS) == cls


def test_logging_is_not_login():
    assert decision_class("default", "Move the logs to a logger per module") == "default/observability"
    assert decision_class("security", "Should users log in with SSO?") == "security/auth"
