"""Decision classes: the task type and at most one tag (`security/auth`, `refactoring`), the key of
the reversal registry, T1/T2 and the probes (docs/FORMULAS.md, "Decision class").

`decision_class` scores only the tags the question names (TAGS, or `escalation.class_tags`,
which replaces them): 2 per distinct keyword in the question, 1 per one found only in the
reports, so the reports break ties and never add a tag; no named tag gives the bare task type;
a tie goes to the tag listed first. Deterministic: the same question and reports always give the
same class. Pure and stdlib only.
"""

from __future__ import annotations

import re

# tag → keywords; the order is the tie-break priority
TAGS: "dict[str, tuple[str, ...]]" = {
    "auth": (
        "auth",
        "authentication",
        "authorization",
        "login",
        "oauth",
        "jwt",
        "password",
        "sso",
        "permission",
        "rbac",
        "session token",
        "access control",
    ),
    "secrets": ("secret", "api key", "credential", "vault", "private key"),
    "crypto": ("encryption", "encrypt", "cipher", "tls", "ssl", "certificate", "hashing", "signature", "key rotation"),
    "injection": ("injection", "sql injection", "xss", "csrf", "sanitize", "sanitization", "escaping", "untrusted input"),
    "data-deletion": ("delete", "deletion", "drop table", "purge", "retention", "gdpr", "erase"),
    "schema-migration": ("migration", "migrate", "schema", "alter table", "column", "backfill", "database model"),
    "api-contract": (
        "api",
        "endpoint",
        "breaking change",
        "versioning",
        "contract",
        "backward compatibility",
        "public interface",
    ),
    "dependency": ("dependency", "dependencies", "upgrade", "library", "package", "vendoring"),
    "concurrency": ("race condition", "concurrency", "deadlock", "locking", "thread", "async"),
    "caching": ("cache", "caching", "invalidation", "ttl"),
    "deployment": (
        "deploy",
        "deployment",
        "rollout",
        "roll out",
        "rollback",
        "feature flag",
        "infrastructure",
        "kubernetes",
        "terraform",
        "ci pipeline",
    ),
    "data-pipeline": ("export", "import", "etl", "ingestion", "data pipeline", "sensor"),
    "performance": ("latency", "throughput", "performance", "slow", "optimize", "optimise"),
    "observability": (
        "logging",
        "logs",
        "logger",
        "log format",
        "log level",
        "structured logging",
        "structlog",
        "observability",
        "tracing",
        "metrics",
        "monitoring",
        "alerting",
        "telemetry",
        "opentelemetry",
    ),
}

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """Lower-case, non-alphanumerics collapsed to '-', trimmed: 'Schema Migration' → 'schema-migration'."""
    return _SLUG.sub("-", text.lower()).strip("-")


def _pattern(keyword: str) -> "re.Pattern[str]":
    words = [re.escape(w) for w in keyword.lower().split()]
    return re.compile(r"(?<![a-z0-9])" + r"\s+".join(words) + r"s?(?![a-z0-9])")


def _hits(keywords: "tuple[str, ...] | list[str]", text: str) -> "set[str]":
    return {k for k in keywords if k.strip() and _pattern(k).search(text)}


def tag_scores(question: str, reports_text: str, class_tags: "dict[str, list[str]] | None" = None) -> "dict[str, int]":
    """Score of every tag with at least one hit (see the module docstring)."""
    table = TAGS if class_tags is None else class_tags
    q, r = question.lower(), reports_text.lower()
    scores: dict[str, int] = {}
    for tag, keywords in table.items():
        in_question = _hits(tuple(keywords), q)
        in_reports = _hits(tuple(keywords), r) - in_question
        score = 2 * len(in_question) + len(in_reports)
        if score and slug(tag):
            scores[slug(tag)] = max(score, scores.get(slug(tag), 0))
    return scores


def decision_class(
    task_type: str, question: str, reports_text: str = "", class_tags: "dict[str, list[str]] | None" = None
) -> str:
    """`task_type/tag` for the best-scoring tag, or just the task type when none matches."""
    base = slug(task_type) or "default"
    asked = tag_scores(question, "", class_tags)
    if not asked:
        return base
    # the question decides which tags are in play; reports only break ties between them
    scores = {t: s for t, s in tag_scores(question, reports_text, class_tags).items() if t in asked}
    best = max(scores.values())
    tag = next(t for t in scores if scores[t] == best)  # dict order = priority
    return f"{base}/{tag}"


def task_type_of(cls: str) -> str:
    """The task-type part of a class: 'security/auth' → 'security'."""
    return cls.split("/", 1)[0]
