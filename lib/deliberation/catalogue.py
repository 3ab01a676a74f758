"""The three catalogues of the plugin, each defined once: the ranking dimensions, the task types
and the research personas. Everything that lists them — the defaults of config.json, the
protocol, the prompts, the report examples, the CLI choices, the agent files, the docs tables
and the tests — is derived from here; tests/unit/test_catalogue.py fails when another module of
lib/ spells a member out.

A member is data, never a rule: how a dimension scores, how a task type classifies or what a
persona is asked lives where that rule lives (core/, text/), reading these tables. What a
project configures (`ranking.dimensions`, `task_types.thresholds` / `keywords`) overrides the
built-in values, and the configured ones reach every prompt and check.

Imports nothing, like `deliberation.defaults` (which reads it): every tier may import it, the
hook process's fast path included.
"""


class Dimension:
    """A ranking dimension: its `name` (a report's score key), its `weight` in the weighted
    score, its `scale` note ("10 = lowest risk": said where the direction is not obvious; ""
    otherwise) and what it asks (`about`). Its config description is `description`."""

    __slots__ = ("name", "weight", "scale", "about")

    def __init__(self, name: str, weight: float, about: str, scale: str = "") -> None:
        self.name, self.weight, self.about, self.scale = name, weight, about, scale

    @property
    def description(self) -> str:
        return f"{self.scale}: {self.about}" if self.scale else self.about


class TaskType:
    """A task type: its `name`, the consensus `threshold` a decision of it needs (Gate 1), the
    classification `keywords` (empty for the fallback type), whether a weak leader goes to a
    person (`review`), the suggested `panel` (3-5 personas, holding at least one conflicting
    pair; the devils-advocate always there) and its depth dial (`depth`: "off" switches the
    depth axis off by default). The order of TASK_TYPES is the precedence: strictest first."""

    __slots__ = ("name", "threshold", "keywords", "review", "panel", "depth")

    def __init__(
        self,
        name: str,
        threshold: float,
        panel: "tuple[str, ...]",
        keywords: "tuple[str, ...]" = (),
        review: bool = False,
        depth: str = "",
    ) -> None:
        self.name, self.threshold, self.panel, self.keywords, self.review, self.depth = (
            name,
            threshold,
            panel,
            keywords,
            review,
            depth,
        )


class Persona:
    """A research persona: its `slug` (the agent file's name and subagent type), `title`,
    evaluation `priority` and the personas whose priorities its own `conflicts` with (the
    conformity check's pairs: both approving is suspicious; models.diverse runs them apart)."""

    __slots__ = ("slug", "title", "priority", "conflicts")

    def __init__(self, slug: str, title: str, priority: str, conflicts: "tuple[str, ...]" = ()) -> None:
        self.slug, self.title, self.priority, self.conflicts = slug, title, priority, conflicts


DIMENSIONS: "tuple[Dimension, ...]" = (
    Dimension("correctness", 0.30, "Does it solve the problem as stated, without known defects?"),
    Dimension("risk", 0.25, "security, data loss, irreversibility, blast radius.", scale="10 = lowest risk"),
    Dimension("maintainability", 0.20, "Can the team understand, test and change it later?"),
    Dimension("performance", 0.15, "Latency, throughput and resource use under the expected load."),
    Dimension("cost", 0.10, "build, run and migration cost.", scale="10 = cheapest"),
)

PERSONAS: "tuple[Persona, ...]" = (
    Persona("technical-architect", "Technical Architect", "structure, coupling, long-term evolvability"),
    Persona("security-analyst", "Security Analyst", "threats, trust boundaries, data exposure", ("performance-engineer",)),
    Persona("performance-engineer", "Performance Engineer", "latency, throughput, resource cost at load"),
    Persona(
        "cost-analyst", "Cost Analyst", "what the problem actually costs, and what each fix costs", ("reliability-engineer",)
    ),
    Persona("reliability-engineer", "Reliability Engineer", "failure modes, recovery, operability"),
    Persona("test-engineer", "Test Engineer", "verifiability, coverage of the risky paths"),
    Persona("maintainability-reviewer", "Maintainability Reviewer", "readability, change cost, ownership"),
    Persona("ux-advocate", "UX Advocate", "what users and developers experience", ("security-analyst",)),
    Persona(
        "product-strategist", "Product Strategist", "value, scope, timing, reversibility of bets", ("maintainability-reviewer",)
    ),
    Persona("devils-advocate", "Devil's Advocate", "the strongest case against each option", ("product-strategist",)),
)

# the persona every task type's panel holds: the strongest case against each option
DEVILS_ADVOCATE = "devils-advocate"
# the 2-agent form of a deliberation: one FOR, one AGAINST
MINIMUM_PANEL = ("product-strategist", DEVILS_ADVOCATE)
# the personas the texts' examples name (a ref `security-analyst:F1`, a conflicting pair, a source)
EXAMPLE_PERSONAS = ("security-analyst", "performance-engineer", "cost-analyst")
EXAMPLE_PERSONA = EXAMPLE_PERSONAS[0]

DEFAULT_TASK_TYPE = "default"

_SECURITY_WORDS = (
    "security",
    "secure",
    "auth",
    "authn",
    "authz",
    "authenticat*",
    "authoriz*",
    "oauth",
    "sso",
    "saml",
    "login",
    "logout",
    "password*",
    "credential*",
    "secret*",
    "api key*",
    "token",
    "tokens",
    "access token*",
    "jwt*",
    "session cookie*",
    "csrf",
    "xss",
    "cors",
    "injection",
    "sanitiz*",
    "escap* user input",
    "vulnerab*",
    "cve",
    "exploit*",
    "attack*",
    "encrypt*",
    "decrypt*",
    "tls",
    "ssl",
    "certificate*",
    "permission*",
    "rbac",
    "acl",
    "privilege*",
    "2fa",
    "mfa",
    "pii",
    "gdpr",
    "leaked",
    "data leak*",
    "rate limit*",
    "brute force",
)
# Phrases in which a type's keyword means something else: cut out before the keywords are
# matched. A rate limiter's "token bucket" is no credential (a real-model trial's rate-limit
# question was held to the security bar and panel by its "token"), nor is a model's token budget.
OTHER_SENSES = {
    "security": ("token bucket*", "token budget*", "token count*", "token usage", "tokens per"),
}
_ARCHITECTURE_WORDS = (
    "architecture",
    "architectur*",
    "microservice*",
    "monolith*",
    "service boundar*",
    "event sourcing",
    "event driven",
    "message queue*",
    "message bus",
    "kafka",
    "cqrs",
    "distributed",
    "shard*",
    "replicat*",
    "scalab*",
    "multi tenant*",
    "multi region",
    "data model",
    "schema design",
    "system design",
    "plugin system",
    "infrastructure",
    "caching layer",
    "cache layer",
    "database choice",
    "which database",
    "vendor*",
    "provider",
    "framework",
    "platform",
    "crud model",
    "storage engine",
    "api design",
)
_REFACTORING_WORDS = (
    "refactor*",
    "rename*",
    "extract",
    "inline",
    "clean up",
    "cleanup",
    "restructur*",
    "reorganiz*",
    "simplif*",
    "dedup*",
    "duplicat* code",
    "dead code",
    "tech debt",
    "technical debt",
    "modulari*",
    "split the function",
    "move the function",
    "tidy",
    "f strings",
    "type hints",
    "unused imports",
)
_DOCUMENTATION_WORDS = (
    "doc",
    "docs",
    "documentation",
    "document",
    "readme",
    "docstring*",
    "comments",
    "code comment*",
    "changelog",
    "typo*",
    "spelling",
    "wording",
    "tutorial",
    "guide",
    "contributing",
    "markdown",
    "man page",
    "api reference",
    "release notes",
)

# strictest first: the order is the precedence when a question matches several types (a question
# that touches several concerns is held to the strictest bar among them; core/task_type.py)
TASK_TYPES: "tuple[TaskType, ...]" = (
    TaskType(
        "security",
        0.85,
        ("security-analyst", "ux-advocate", "performance-engineer", "devils-advocate"),
        _SECURITY_WORDS,
        review=True,
    ),
    TaskType(
        "architecture",
        0.80,
        ("technical-architect", "reliability-engineer", "cost-analyst", "performance-engineer", "devils-advocate"),
        _ARCHITECTURE_WORDS,
        review=True,
    ),
    TaskType(
        DEFAULT_TASK_TYPE,
        0.70,
        ("technical-architect", "security-analyst", "performance-engineer", "cost-analyst", "devils-advocate"),
    ),
    TaskType(
        "refactoring",
        0.65,
        ("maintainability-reviewer", "test-engineer", "product-strategist", "devils-advocate"),
        _REFACTORING_WORDS,
    ),
    TaskType(
        "documentation",
        0.50,
        ("ux-advocate", "maintainability-reviewer", "product-strategist", "devils-advocate"),
        _DOCUMENTATION_WORDS,
        depth="off",
    ),
)


def dimension(name: str) -> "Dimension | None":
    return next((d for d in DIMENSIONS if d.name == name), None)


def task_type(name: str) -> "TaskType | None":
    return next((t for t in TASK_TYPES if t.name == name), None)


def persona(slug: str) -> "Persona | None":
    return next((p for p in PERSONAS if p.slug == slug), None)


def conflicting_pairs() -> "list[list[str]]":
    """Every persona pair whose priorities conflict, in catalogue order (config
    `conformity.conflicting_pairs`'s default)."""
    return [[p.slug, other] for p in PERSONAS for other in p.conflicts]


def scale_note(description: str) -> str:
    """A dimension's scale note as its (configured) description gives it: the part before
    the first ':' of a description that opens with "10 =" ("10 = lowest risk: …"); else ""."""
    head, sep, _ = description.partition(":")
    return head.strip() if sep and head.strip().startswith("10 =") else ""
