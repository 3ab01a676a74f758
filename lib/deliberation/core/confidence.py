"""The trigger: score a user prompt on four dimensions and decide whether to deliberate.

Owns the built-in vocabularies, the phrase matcher, the combination formula and the trigger
decision. Pure and deterministic; stdlib only (`re`), because it runs on every user prompt.

Dimensions, each in [0, 1]:
    ambiguity           — the ask is open: options, trade-offs, "should we", "best way"
    complexity          — many moving parts: distributed, concurrency, migrations, multi-tenant
    stakes              — the cost of being wrong: production, data loss, auth, payments
    context_dependence  — the answer depends on facts not in the prompt: our team, our traffic

A dimension's score is the noisy-OR of the weights of the vocabulary terms found in the prompt,
plus two structural signals (a question mark adds ambiguity, a long prompt adds complexity):

    d = 1 − Π (1 − w_t)   over the matched terms t

Combination, with d(1) ≥ d(2) ≥ d(3) ≥ d(4) the dimensions sorted, `high` the level at which a
dimension counts as high (0.6) and `low = high − 0.2` (0.4):

    ramp(x)    = clamp((x − low) / (high − low), 0, 1)
    confidence = clamp(1 − 0.3·d(1) − 0.3·Σ_{i≥2} ramp(d(i)), 0, 1)

The single hardest dimension costs at most 0.3, so one high dimension with the others low keeps
confidence ≥ 0.70; every further dimension that climbs from low to high costs another 0.3, so
two high dimensions give confidence ≤ 1 − 0.18 − 0.3 = 0.52 < 0.70. Confidence never rises when
a dimension rises.

Terms: lower-case words or phrases; hyphens and punctuation count as spaces, so "multi-tenant"
matches "multi tenant"; a trailing `*` matches any word ending ("migrat*" → migrate, migration).
"""

from __future__ import annotations


from deliberation import defaults
from deliberation.wire.hookio import is_task_notification as is_task_notification  # never scored
from deliberation.core import task_type as tt
from deliberation.core.terms import find_terms, normalise

DIMENSIONS = ("ambiguity", "complexity", "stakes", "context_dependence")
COMBINE_WEIGHT = 0.3      # cost of the top dimension, and of each further dimension at "high"
RAMP_WIDTH = 0.2          # low = high − RAMP_WIDTH
QUESTION_WEIGHT = 0.15    # ambiguity added by a question mark
LONG_PROMPT_WORDS = 60    # complexity added from this many words on…
LONG_PROMPT_WEIGHT = 0.15
VERY_LONG_PROMPT_WORDS = 150
VERY_LONG_PROMPT_WEIGHT = 0.3
DEFAULT_THRESHOLD = defaults.CONFIG["trigger"]["threshold"]
DEFAULT_HIGH = defaults.CONFIG["trigger"]["high_dimension"]
DEFAULT_FORCE_MARKERS = tuple(defaults.CONFIG["trigger"]["force_markers"])

AMBIGUITY = {
    "should we": 0.35, "should i": 0.25, "how should": 0.35, "what should": 0.3,
    "best way": 0.35, "best approach": 0.4, "what s the best": 0.35, "right way": 0.3,
    "trade off*": 0.35, "tradeoff*": 0.35, "pros and cons": 0.4, "alternatives": 0.3,
    "options": 0.25, "versus": 0.3, "vs": 0.3, "decide": 0.3, "decision": 0.25,
    "choose": 0.25, "which": 0.15, "strategy": 0.3, "unclear": 0.4, "not sure": 0.4,
    "figure out": 0.3, "rethink": 0.35, "design": 0.25, "redesign": 0.3, "evaluate": 0.25,
    "worth it": 0.35, "where to start": 0.4, "consider*": 0.25, "safest": 0.3, "plan": 0.15,
    "whether": 0.3, "build or buy": 0.4, "build our own": 0.3, "compare": 0.3, "or buy": 0.3,
}

COMPLEXITY = {
    "architecture": 0.35, "architectur*": 0.35, "distributed": 0.35, "microservice*": 0.4,
    "monolith*": 0.3, "services": 0.2, "multiple": 0.15, "concurren*": 0.35,
    "race condition*": 0.35, "consistency": 0.25, "replicat*": 0.3, "shard*": 0.4,
    "scales": 0.3, "scale": 0.3, "scaling": 0.3, "scalab*": 0.3, "millions": 0.3,
    "event sourcing": 0.4, "event driven": 0.35, "queue*": 0.2, "real time": 0.25,
    "multi tenant*": 0.4, "per tenant": 0.3, "multi region": 0.4, "migrat*": 0.3,
    "rewrite": 0.3, "redesign": 0.3, "infrastructure": 0.25, "orchestrat*": 0.25,
    "without downtime": 0.35, "zero downtime": 0.4, "keeps running": 0.35, "backfill*": 0.3,
    "backward compat*": 0.3, "all consumers": 0.3, "plugin system": 0.3, "out of process": 0.3,
    "in process": 0.2, "across all": 0.25, "row level security": 0.3, "sso": 0.2,
    "at the same time": 0.2, "split": 0.2, "jwt*": 0.15, "mobile app": 0.15,
    "depend on": 0.25, "integrations": 0.2, "public api": 0.3, "new service": 0.2, "versioning": 0.25,
}

STAKES = {
    "production": 0.35, "prod": 0.3, "downtime": 0.3, "outage": 0.4, "data loss": 0.5,
    "irreversib*": 0.5, "purge": 0.45, "wipe": 0.45, "truncate": 0.4, "drop": 0.25, "drops": 0.25, "drop table": 0.35,
    "delete": 0.2, "force push*": 0.4, "customer data": 0.45, "customer records": 0.45,
    "customers": 0.25, "customer": 0.2, "pii": 0.45, "gdpr": 0.4, "compliance": 0.35,
    "regulat*": 0.35, "audit*": 0.2, "payment*": 0.4, "billing": 0.3, "fees": 0.25,
    "authenticat*": 0.35, "authoriz*": 0.35, "auth": 0.3, "oauth": 0.35, "sso": 0.3,
    "login": 0.2, "locking users out": 0.4, "password*": 0.35, "secret*": 0.35,
    "credential*": 0.35, "api key*": 0.3, "jwt*": 0.3, "session cookie*": 0.3, "encrypt*": 0.3,
    "security": 0.35, "vulnerab*": 0.35, "cve": 0.3, "leaked": 0.35, "migrat*": 0.25,
    "lock in": 0.35, "all users": 0.35, "millions of users": 0.35, "breaking change*": 0.4,
    "reliable": 0.2, "reliability": 0.25, "isolation": 0.25, "money": 0.3, "legal": 0.35,
    "public api": 0.35, "breaking": 0.3, "enterprise": 0.25,
}

CONTEXT_DEPENDENCE = {
    "our": 0.2, "we have": 0.3, "for us": 0.35, "in our case": 0.4, "our use case": 0.4,
    "our current": 0.35, "current traffic": 0.35, "our traffic": 0.35, "growing": 0.25,
    "traffic": 0.2, "teams": 0.3, "other teams": 0.35, "other services": 0.35,
    "consumers": 0.25, "still referenced": 0.35, "reference those": 0.3, "referenced by": 0.3,
    "existing": 0.1, "legacy": 0.3, "roadmap": 0.35, "expansion": 0.3, "business": 0.25,
    "requirements": 0.2, "constraints": 0.3, "stakeholder*": 0.35, "enterprise customers": 0.35,
    "operational": 0.25, "shared": 0.15, "given": 0.2, "effort": 0.2, "cost": 0.2,
    "we pay": 0.3, "saas": 0.25, "it depends": 0.4, "depends on": 0.3, "downstream": 0.3,
    "team": 0.2, "experience": 0.2, "growth": 0.25, "expected": 0.2, "partners": 0.25,
    "existing integrations": 0.35, "depend on": 0.25,
}

BUILTIN_VOCABULARIES = {
    "ambiguity": AMBIGUITY,
    "complexity": COMPLEXITY,
    "stakes": STAKES,
    "context_dependence": CONTEXT_DEPENDENCE,
}

def _vocabulary(dim: str, vocabularies, extra_terms) -> "dict[str, float]":
    base = BUILTIN_VOCABULARIES[dim]
    if vocabularies and dim in vocabularies and vocabularies[dim] is not None:
        base = vocabularies[dim]
    if extra_terms and extra_terms.get(dim):
        base = {**base, **extra_terms[dim]}
    return base


def _noisy_or(weights) -> float:
    miss = 1.0
    for w in weights:
        miss *= 1.0 - min(max(float(w), 0.0), 1.0)
    return 1.0 - miss


def _structural(dim: str, prompt: str, n_words: int) -> "list[tuple[str, float]]":
    if dim == "ambiguity" and "?" in prompt:
        return [("(question)", QUESTION_WEIGHT)]
    if dim == "complexity" and n_words >= VERY_LONG_PROMPT_WORDS:
        return [(f"(long prompt: {n_words} words)", VERY_LONG_PROMPT_WEIGHT)]
    if dim == "complexity" and n_words >= LONG_PROMPT_WORDS:
        return [(f"(long prompt: {n_words} words)", LONG_PROMPT_WEIGHT)]
    return []


def score(prompt: str, vocabularies=None, extra_terms=None) -> dict:
    """{ambiguity, complexity, stakes, context_dependence: float in [0,1], matched: {dim: [terms]}}.

    `vocabularies` replaces a dimension's built-in terms ({dim: {term: weight}}), `extra_terms`
    adds to them.
    """
    norm = normalise(prompt)
    n_words = len(norm.split())
    result: dict = {}
    matched: dict = {}
    for dim in DIMENSIONS:
        vocab = _vocabulary(dim, vocabularies, extra_terms)
        hits = [(t, vocab[t]) for t in find_terms(norm, vocab)]
        hits += _structural(dim, prompt, n_words)
        result[dim] = round(_noisy_or(w for _, w in hits), 4)
        matched[dim] = [t for t, _ in hits]
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


def forced_by(prompt: str, markers) -> "str | None":
    """The force marker the prompt starts with (case-sensitive, then a non-word char), if any."""
    text = prompt.lstrip()
    for marker in markers:
        if marker and text.startswith(marker):
            rest = text[len(marker):]
            if not rest or not (rest[0].isalnum() or rest[0] in "_-"):
                return marker
    return None


def question_of(prompt: str, markers=None) -> str:
    """The question a prompt asks, without the force marker that made it a deliberation:
    `/deliberate Should we…?` and `DELIBERATE: Should we…?` → `Should we…?` (the marker says
    how to decide, not what)."""
    text = prompt.strip()
    marker = forced_by(text, markers or DEFAULT_FORCE_MARKERS)
    if marker:
        return text[len(marker):].lstrip(" :—-\n\t")
    return text


def section(cfg, name: str) -> dict:
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
    `<task-notification>` prompt is never scored and never triggers.
    """
    trig = section(cfg, "trigger")
    types = section(cfg, "task_types")
    threshold = float(trig.get("threshold", DEFAULT_THRESHOLD))
    high = float(trig.get("high_dimension", DEFAULT_HIGH))
    enabled = bool(trig.get("enabled", True))
    markers = trig.get("force_markers") or DEFAULT_FORCE_MARKERS
    zero = {d: 0.0 for d in DIMENSIONS}
    if is_task_notification(prompt):
        return {"dimensions": zero, "confidence": 1.0, "threshold": threshold, "triggered": False,
                "forced": False, "task_type": "default", "matched": {d: [] for d in DIMENSIONS},
                "reason": "task notification: not a user prompt, not scored",
                "consensus_threshold": tt.threshold("default", types.get("thresholds"))}
    scored = score(prompt, trig.get("vocabularies"), trig.get("extra_terms"))
    matched = scored.pop("matched")
    confidence = combine(scored, high)
    marker = forced_by(prompt, markers)
    task_type = tt.classify(prompt, types.get("keywords"))
    if marker:
        triggered, reason = True, f"forced by {marker!r}"
    elif not enabled:
        triggered, reason = False, "trigger disabled in config"
    elif confidence < threshold:
        highs = [d for d in DIMENSIONS if scored[d] >= high]
        triggered = True
        reason = f"confidence {confidence:.2f} < {threshold:.2f} (high: {', '.join(highs) or 'none'})"
    else:
        triggered, reason = False, f"confidence {confidence:.2f} >= {threshold:.2f}"
    return {"dimensions": scored, "confidence": confidence, "threshold": threshold,
            "triggered": triggered, "forced": marker is not None, "task_type": task_type,
            "matched": matched, "reason": reason,
            "consensus_threshold": tt.threshold(task_type, types.get("thresholds"))}
