from deliberation.core.decision_class import decision_class, slug, tag_scores, task_type_of


def test_task_type_alone_when_no_tag_matches():
    assert decision_class("refactoring", "rename the helper for readability") == "refactoring"


def test_question_tags_the_class():
    assert decision_class("security", "Should we switch login to OAuth with JWT sessions?") == "security/auth"
    assert decision_class("architecture", "Plan the schema migration for the orders table") == \
        "architecture/schema-migration"


def test_question_outweighs_reports_and_scores_are_counted():
    # question: 'cache' (2); reports: 'migration', 'schema' (1 + 1) -> tie 2:2 broken by order
    scores = tag_scores("add a cache", "the migration needs a schema change")
    assert scores == {"schema-migration": 2, "caching": 2}
    # the question names only caching: reports cannot move the decision to another tag
    assert decision_class("architecture", "add a cache", "the migration needs a schema change") == \
        "architecture/caching"
    # reports decide only where the question names no tag at all
    assert decision_class("architecture", "what should we do", "the migration needs a schema change") == \
        "architecture/schema-migration"
    assert decision_class("architecture", "add a cache with ttl", "the migration needs a schema") == \
        "architecture/caching"


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
