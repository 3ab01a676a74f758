"""isolation: the research-prompt leak detector, measured on crafted cases.

Four software decisions (auth tokens, a table migration, a price cache, a job queue), each with
its L1 shared context (the question and a project README excerpt) and three findings recorded by
research agents. For every finding there is a verbatim leak (reformatted: bullets, quotes, case,
line breaks) and a paraphrased leak; then 12 clean prompts that repeat the shared context and
talk about the same topic in the orchestrator's own words. `pytest -s` prints the rates.
"""

from __future__ import annotations

import pytest

from deliberation.core.isolation import check_prompt, leak_reason, leak_score, recorded_findings

TOPICS = {
    "auth": (
        "Should the web app replace server-side sessions with JWT access tokens and refresh tokens?",
        "Project README: the auth service (services/auth) issues session cookies backed by the "
        "sessions table in Postgres. The web client is a React single-page app in web/src.",
    ),
    "migration": (
        "How should we migrate the orders table from integer ids to UUID primary keys without downtime?",
        "Project README: orders live in the Postgres 14 database shop; the orders table has 180 "
        "million rows and foreign keys from payments and shipments.",
    ),
    "cache": (
        "Should the product catalogue API add a Redis cache in front of the pricing service?",
        "Project README: the catalogue API (services/catalogue) calls the pricing service for "
        "every product page; prices change during flash sales.",
    ),
    "queue": (
        "Should order emails and invoice generation move from cron jobs to a message queue?",
        "Project README: background work runs as cron jobs on the worker host; emails are sent by "
        "jobs/send_emails.py and invoices by jobs/invoices.py.",
    ),
}

# (topic, ref, claim, evidence)
FINDINGS = [
    (
        "auth",
        "security-analyst:F1",
        "Storing JWT access tokens in localStorage exposes them to any XSS payload running on the page",
        "web/src/auth/store.ts:42 writes the token with localStorage.setItem",
    ),
    (
        "auth",
        "security-analyst:F2",
        "Refresh tokens are never rotated, so a stolen refresh token stays valid for its full 30-day lifetime",
        "services/auth/refresh.py:88 reuses the same token id on refresh",
    ),
    (
        "auth",
        "performance-engineer:F1",
        "Validating sessions hits Postgres on every request and accounts for 38% of p99 latency on the API",
        "APM trace sample from May: sessions lookup takes 41 ms of the 108 ms p99",
    ),
    (
        "migration",
        "reliability-engineer:F1",
        "An ALTER TABLE that rewrites the orders table holds an ACCESS EXCLUSIVE lock for the whole "
        "rewrite and blocks checkout for hours",
        "staging rehearsal: rewriting 180M rows took 3h12m",
    ),
    (
        "migration",
        "technical-architect:F1",
        "The payments and shipments foreign keys must switch in the same release as the orders key, "
        "otherwise the dual-write phase breaks referential integrity",
        "schema/fk.sql lines 10-34",
    ),
    (
        "migration",
        "cost-analyst:F1",
        "Running the backfill on the primary needs a temporary upgrade to db.r6g.4xlarge, about 2300 "
        "dollars for the migration week",
        "pricing calculator estimate with the backfill at 5k rows/s",
    ),
    (
        "cache",
        "performance-engineer:F2",
        "Pricing service calls make up 70% of product page latency; a cache with a 95% hit rate would "
        "cut median page time from 240 ms to 90 ms",
        "load test k6/product_page.js at 2k rps",
    ),
    (
        "cache",
        "reliability-engineer:F2",
        "A cache without explicit invalidation serves stale prices for the full TTL after a flash sale starts",
        "pricing/events.py publishes PriceChanged but nothing consumes it",
    ),
    (
        "cache",
        "cost-analyst:F2",
        "A managed Redis cluster with one replica costs about 410 dollars per month, less than the 1100 "
        "dollars of pricing service autoscaling it would save",
        "March billing export, pricing-svc autoscaling group",
    ),
    (
        "queue",
        "reliability-engineer:F3",
        "The cron worker is a single host with no failover; when it was down for 6 hours in April no invoices were generated",
        "incident INC-2291 postmortem",
    ),
    (
        "queue",
        "test-engineer:F1",
        "Invoice generation has no idempotency key, so a redelivered queue message would create a duplicate invoice",
        "jobs/invoices.py:57 inserts without a uniqueness check; no test covers retries",
    ),
    (
        "queue",
        "security-analyst:F3",
        "Queue messages would carry customer email addresses and billing totals in plaintext unless "
        "the broker encrypts them at rest",
        "draft message schema in docs/queue-design.md",
    ),
]
RECORDED = [(ref, claim, evidence) for _, ref, claim, evidence in FINDINGS]
TOPIC_OF = {ref: topic for topic, ref, _, _ in FINDINGS}


def shared(topic: str) -> str:
    question, readme = TOPICS[topic]
    return f"{question}\n{readme}"


def research_prompt(topic: str, persona: str, body: str) -> str:
    question, readme = TOPICS[topic]
    return (
        f"You are the {persona} on a research panel.\n\nQuestion: {question}\n\n{readme}\n\n"
        f"{body}\n\nEnd with the JSON report block."
    )


# verbatim leaks, reformatted: ref -> (persona receiving it, body carrying the finding)
VERBATIM = {
    "security-analyst:F1": (
        "cost analyst",
        "Earlier findings:\n- STORING JWT ACCESS TOKENS IN LOCALSTORAGE exposes them to any\n  XSS payload running on the page.",
    ),
    "security-analyst:F2": (
        "ux advocate",
        "> Refresh tokens are never rotated, so a stolen refresh token stays valid\n"
        "> for its full 30-day lifetime (services/auth/refresh.py:88 reuses the same token id on refresh)",
    ),
    "performance-engineer:F1": (
        "reliability engineer",
        "Keep in mind:\n1. **Validating sessions hits Postgres on every request** and accounts for 38% "
        "of p99 latency on the API.\n2. APM trace sample from May: sessions lookup takes 41 ms of the 108 ms p99",
    ),
    "reliability-engineer:F1": (
        "cost analyst",
        "Context: an alter table that rewrites the orders table holds an access exclusive lock "
        "for the whole rewrite and blocks checkout for hours.",
    ),
    "technical-architect:F1": (
        "test engineer",
        "* the payments and shipments foreign keys must switch in the same release as the orders key\n"
        "* otherwise the dual-write phase breaks referential integrity\n* see schema/fk.sql lines 10-34",
    ),
    "cost-analyst:F1": (
        "security analyst",
        "Known so far — Running the backfill on the primary needs a temporary upgrade to "
        "db.r6g.4xlarge, about 2300 dollars for the migration week.",
    ),
    "performance-engineer:F2": (
        "security analyst",
        "## Prior research\nPricing service calls make up 70% of product page latency;\n"
        "a cache with a 95% hit rate would cut median page time\nfrom 240 ms to 90 ms.",
    ),
    "reliability-engineer:F2": (
        "product strategist",
        "`A cache without explicit invalidation serves stale prices for the full TTL after a flash "
        "sale starts` (pricing/events.py publishes PriceChanged but nothing consumes it)",
    ),
    "cost-analyst:F2": (
        "maintainability reviewer",
        "- A managed Redis cluster with one replica costs about 410 dollars per month,\n"
        "- less than the 1100 dollars of pricing service autoscaling it would save.",
    ),
    "reliability-engineer:F3": (
        "security analyst",
        "Other agents report: The cron worker is a single host with no failover; when it was down "
        "for 6 hours in April no invoices were generated. Build on that.",
    ),
    "test-engineer:F1": (
        "cost analyst",
        "INVOICE GENERATION HAS NO IDEMPOTENCY KEY, SO A REDELIVERED QUEUE MESSAGE WOULD CREATE A DUPLICATE INVOICE.",
    ),
    "security-analyst:F3": (
        "performance engineer",
        "Note from security:\n\n> queue messages would carry customer email addresses and billing totals\n"
        "> in plaintext unless the broker encrypts them at rest",
    ),
}

# paraphrased leaks that keep the key content words
PARAPHRASED = {
    "security-analyst:F1": (
        "cost analyst",
        "We already know the SPA puts the JWT access token into localStorage (store.ts line 42), "
        "so an XSS payload on the page can read it.",
    ),
    "security-analyst:F2": (
        "ux advocate",
        "Be aware that refresh tokens never get rotated: the same token id is reused on refresh, "
        "so if one is stolen it remains valid for the whole 30-day lifetime.",
    ),
    "performance-engineer:F1": (
        "reliability engineer",
        "It was measured that every request validates the session against Postgres, which is 38% "
        "of the API's p99 latency (41 ms out of 108 ms in the APM traces).",
    ),
    "reliability-engineer:F1": (
        "cost analyst",
        "Rewriting the orders table with ALTER TABLE would hold an ACCESS EXCLUSIVE lock the whole "
        "time; the staging rehearsal rewrite took over 3 hours and blocked checkout.",
    ),
    "technical-architect:F1": (
        "test engineer",
        "Referential integrity breaks during dual-write unless the payments and shipments foreign "
        "keys switch in the same release as the orders key.",
    ),
    "cost-analyst:F1": (
        "security analyst",
        "A backfill on the primary means temporarily upgrading it to db.r6g.4xlarge, roughly 2300 "
        "dollars over the migration week.",
    ),
    "performance-engineer:F2": (
        "security analyst",
        "About 70% of product page latency comes from pricing service calls; at a 95% cache hit "
        "rate the median page time drops from 240 ms to 90 ms according to the k6 load test.",
    ),
    "reliability-engineer:F2": (
        "product strategist",
        "Without explicit invalidation the cache keeps serving stale prices for a full TTL once a "
        "flash sale starts, since nothing consumes the PriceChanged events.",
    ),
    "cost-analyst:F2": (
        "maintainability reviewer",
        "Managed Redis with a replica would cost around 410 dollars a month, which is less than "
        "the 1100 dollars spent on pricing service autoscaling.",
    ),
    "reliability-engineer:F3": (
        "security analyst",
        "In April the single cron worker host, which has no failover, was down 6 hours and no invoices got generated (INC-2291).",
    ),
    "test-engineer:F1": (
        "cost analyst",
        "Nothing makes invoice generation idempotent (no idempotency key, no uniqueness check), "
        "so a queue message delivered twice creates a duplicate invoice.",
    ),
    "security-analyst:F3": (
        "performance engineer",
        "The queue messages carry customer email addresses and billing totals; unless the broker "
        "encrypts at rest they sit in plaintext.",
    ),
}

# clean prompts: the shared context plus the orchestrator's own framing of the same topic
CLEAN = [
    (
        "auth",
        "security analyst",
        "Focus on threats: where tokens are stored in the browser, XSS and CSRF exposure, token "
        "lifetime and revocation. Cite files and lines.",
    ),
    (
        "auth",
        "performance engineer",
        "Focus on latency and throughput: what validating a session or a JWT costs per request at "
        "our traffic. Measure before you claim.",
    ),
    (
        "auth",
        "ux advocate",
        "Focus on what users experience: silent re-login, logout across devices, and what happens "
        "when a token expires mid-checkout.",
    ),
    (
        "migration",
        "reliability engineer",
        "Focus on failure modes of the migration: locks, long-running statements, rollback, and how to rehearse it in staging.",
    ),
    (
        "migration",
        "cost analyst",
        "What does this migration actually cost: engineering weeks, database capacity during the "
        "backfill, and the risk of an outage at checkout.",
    ),
    (
        "migration",
        "technical-architect",
        "Look at coupling: which services and tables reference orders ids, and in which order the keys can be switched.",
    ),
    (
        "cache",
        "performance engineer",
        "Profile the product page: which calls dominate latency, and what hit rate a cache would "
        "need to matter. Use the load tests in k6/.",
    ),
    (
        "cache",
        "reliability engineer",
        "Focus on staleness and invalidation: what happens to cached prices when a flash sale "
        "starts, and what happens when Redis is down.",
    ),
    (
        "cache",
        "cost analyst",
        "Compare the monthly cost of a managed Redis cluster with what the pricing service currently costs us to run at peak.",
    ),
    (
        "queue",
        "reliability engineer",
        "Focus on failure modes: what happens today when the worker host is down, and what "
        "delivery guarantees a queue would give us.",
    ),
    (
        "queue",
        "test engineer",
        "How would we test retries and redelivery? Look for existing tests of jobs/invoices.py and "
        "what a duplicate message would do.",
    ),
    (
        "queue",
        "security analyst",
        "Focus on data exposure: what customer data the jobs touch today and what a broker would store, and who can read it.",
    ),
]


def _leak_prompt(ref: str, cases: dict) -> str:
    persona, body = cases[ref]
    return research_prompt(TOPIC_OF[ref], persona, body)


def _run(cases: dict) -> "tuple[int, int]":
    """(hits, wrong other refs flagged) over the leak cases."""
    hits = wrong = 0
    for ref in cases:
        topic = TOPIC_OF[ref]
        found = check_prompt(_leak_prompt(ref, cases), RECORDED, shared(topic))
        hits += ref in found
        wrong += len([r for r in found if r != ref])
    return hits, wrong


def test_detector_rates_on_crafted_cases():
    assert len(VERBATIM) == len(PARAPHRASED) == len(CLEAN) == 12
    v_hits, v_wrong = _run(VERBATIM)
    p_hits, p_wrong = _run(PARAPHRASED)
    alarms = [
        (topic, persona)
        for topic, persona, body in CLEAN
        if check_prompt(research_prompt(topic, persona, body), RECORDED, shared(topic))
    ]
    print(
        f"\nisolation detector (threshold 0.5): verbatim hit rate {v_hits}/12 = {v_hits / 12:.0%}, "
        f"paraphrased hit rate {p_hits}/12 = {p_hits / 12:.0%}, "
        f"false alarms on clean prompts {len(alarms)}/12 = {len(alarms) / 12:.0%}, "
        f"other findings wrongly named in leak prompts {v_wrong + p_wrong}"
    )
    assert v_hits == 12
    assert p_hits / 12 >= 0.75
    assert alarms == []
    assert v_wrong + p_wrong == 0


def test_score_margins_printed():
    """Deterministic margins: lowest leak scores versus the highest clean score."""

    def best(prompt, topic):
        return max(leak_score(prompt, c, e, shared(topic)) for _, c, e in RECORDED)

    v = min(
        leak_score(_leak_prompt(r, VERBATIM), *next((c, e) for rr, c, e in RECORDED if rr == r), shared(TOPIC_OF[r]))
        for r in VERBATIM
    )
    p = sorted(
        leak_score(_leak_prompt(r, PARAPHRASED), *next((c, e) for rr, c, e in RECORDED if rr == r), shared(TOPIC_OF[r]))
        for r in PARAPHRASED
    )
    c = max(best(research_prompt(t, per, b), t) for t, per, b in CLEAN)
    print(f"\nleak scores: verbatim min {v:.2f}; paraphrased {[round(x, 2) for x in p]}; clean max {c:.2f}")
    assert v == 1.0
    assert c < 0.5


def test_shared_context_is_allowed():
    # a "finding" that only restates the question and README is not a leak: all of it is L1
    topic = "cache"
    question, readme = TOPICS[topic]
    restated = [("cost-analyst:F9", question, readme)]
    prompt = research_prompt(topic, "cost analyst", "Answer from the cost perspective.")
    assert check_prompt(prompt, restated, shared(topic)) == []
    # without the shared context the same prompt would be flagged
    assert check_prompt(prompt, restated) == ["cost-analyst:F9"]


def test_reformatting_does_not_hide_a_verbatim_leak():
    claim = "Refresh tokens are never rotated, so a stolen refresh token stays valid for its full 30-day lifetime"
    for form in (
        claim.upper(),
        "- " + claim.replace(", ", "\n- "),
        "> " + claim.replace(" ", "\n> ", 3),
        "**" + claim + "**",
        "```\n" + claim + "\n```",
    ):
        assert leak_score(form, claim) == 1.0, form


def test_short_finding_judged_on_wording_only():
    # two content tokens: both appear in a clean prompt, but not as the finding's word sequence
    assert leak_score("Which queue should we use, and should Redis be it?", "Use Redis queue") == 0.0
    assert leak_score("Earlier: use Redis queue.", "Use Redis queue") == 1.0


def test_empty_inputs():
    assert check_prompt("", RECORDED) == []
    assert check_prompt("anything", []) == []
    assert leak_score("a prompt", "", "") == 0.0


@pytest.mark.parametrize("threshold, expected", [(0.99, []), (0.0, [r for r, _, _ in RECORDED])])
def test_threshold_is_honoured(threshold, expected):
    assert check_prompt("x", RECORDED, threshold=threshold) == expected


def test_leak_reason_names_ids_and_what_to_do():
    reason = leak_reason(["security-analyst:F1", "test-engineer:F1"], RECORDED)
    assert reason.startswith(
        "Context isolation: this RESEARCH prompt carries 2 findings of other agents: "
        'security-analyst:F1 ("Storing JWT access tokens in localStorage exposes them to a…"); '
        "test-engineer:F1 ("
    )
    assert (
        "remove other agents' findings from this research prompt; give only the question and shared "
        "project context; findings are shared in DELIBERATION"
    ) in reason
    assert "1 finding of other agents: cost-analyst:F9." in leak_reason(["cost-analyst:F9"], RECORDED)


def test_known_limit_synonym_paraphrase_passes():
    """Documented blind spot: a paraphrase that swaps the content words for synonyms is missed."""
    _, claim, evidence = RECORDED[0]
    disguised = "The browser app saves the bearer credential in persistent web storage, where injected script can grab it."
    assert leak_score(disguised, claim, evidence, shared("auth")) == 0.0


def test_recorded_findings_from_agent_records():
    from deliberation.state.agent_report import AgentReport, Finding
    from deliberation.state.models import AgentRecord

    def rec(key, persona, findings, **kw):
        rep = AgentReport(phase="research", findings=[Finding(id=i, claim=c, evidence=e) for i, c, e in findings])
        return AgentRecord(
            key=key, persona=persona, kind="persona", stage="research", status="reported", spawned_at=0.0, report=rep, **kw
        )

    agents = [
        rec("a", "security-analyst", [("F1", "tokens in localStorage", "store.ts:42")]),
        rec("b", "cost-analyst", [("F1", "backfill costs 2300 dollars", ""), ("F2", "x", "")]),
        rec("c", "ux-advocate", [("F1", "old", "")], superseded=True),
        AgentRecord(key="d", persona="test-engineer", kind="persona", stage="research", status="invalid", spawned_at=0.0),
    ]
    assert recorded_findings(agents) == [
        ("security-analyst:F1", "tokens in localStorage", "store.ts:42"),
        ("cost-analyst:F1", "backfill costs 2300 dollars", ""),
        ("cost-analyst:F2", "x", ""),
    ]
    assert [r for r, _, _ in recorded_findings(agents, exclude_persona="cost-analyst")] == ["security-analyst:F1"]
