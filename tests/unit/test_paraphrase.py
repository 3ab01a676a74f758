"""paraphrase: restatement of a tier-1 finding vs a new finding on the same topic.

The detector is measured on crafted pairs (tier-1 finding, tier-2 text). PARAPHRASES restate the
finding (reworded, reordered, passive/active, synonyms, hedged, shortened); NEW_FINDINGS stay on
the same topic and reuse its words but add something: another cause, consequence, component,
figure, or the opposite claim. Every candidate is compared with ALL tier-1 findings of the set
(as in depth-aware synthesis), not only its own.

Run with `pytest -s` to see the hit and false-alarm rates.
"""

from __future__ import annotations

import pytest

from deliberation.core.depth.paraphrase import THRESHOLD, concepts, is_paraphrase, pair_score, paraphrase_score

PARAPHRASES = [
    (
        "The session cache has no eviction policy, so memory grows without bound under load.",
        "Under heavy load the session cache's memory grows unbounded because it has no eviction policy.",
    ),
    (
        "Events are lost when the message bus is down because the publish is not retried.",
        "When the bus is down, events get lost: the publish is never retried.",
    ),
    (
        "The migration locks the orders table for the whole backfill.",
        "For the entire backfill, the orders table is locked by the migration.",
    ),
    (
        "The retry loop has no backoff and hammers the payment API during an outage.",
        "During a payment API outage the retry loop hammers it, since there is no backoff.",
    ),
    (
        "User passwords are logged in plain text by the debug middleware.",
        "The debug middleware writes users' passwords to the log in plain text.",
    ),
    (
        "The N+1 query in the order list endpoint makes it slow for large accounts.",
        "For big accounts the order list endpoint is slow because of an N+1 query.",
    ),
    (
        "The relay worker is a single point of failure: if it stops, no events are delivered.",
        "If the relay worker stops, no events get delivered; it is a single point of failure.",
    ),
    ("The API key is stored unencrypted in the config file.", "The config file stores the API key without encryption."),
    (
        "Dual write can publish events for orders whose transaction was rolled back.",
        "Events may be published for orders whose transaction rolled back, because of the dual write.",
    ),
    (
        "The cron job and the web handler update the same row concurrently without a lock.",
        "Without a lock, the web handler and the cron job concurrently update the same row.",
    ),
    (
        "The CDC connector adds operational cost: another cluster to run and monitor.",
        "Running and monitoring another cluster for the CDC connector is an added operational cost.",
    ),
    (
        "The integration tests do not cover the failure path of the publish step.",
        "The failure path of the publish step is not covered by the integration tests.",
    ),
    (
        "The webhook handler blocks the request thread while it waits for the bus.",
        "While waiting for the bus, the webhook handler blocks the request thread.",
    ),
    (
        "Consumers receive duplicate events after a relay restart.",
        "After the relay restarts, consumers get events more than once.",
    ),
    (
        "The event store makes simple queries on current order state expensive.",
        "Querying the current state of an order becomes costly with the event store, even for simple queries.",
    ),
    (
        "The upload endpoint accepts files of unlimited size, which exhausts disk space.",
        "Disk space is exhausted because the upload endpoint accepts files of unbounded size.",
    ),
    (
        "Tokens are validated only at login, so a revoked token keeps working until it expires.",
        "A revoked token keeps working until expiry, since tokens are only validated at login.",
    ),
    (
        "The nightly reconciliation job misses events that arrive after midnight.",
        "Events arriving after midnight are missed by the nightly reconciliation job.",
    ),
    (
        "The outbox table is never cleaned up and grows indefinitely.",
        "Nobody ever cleans up the outbox table, so it grows without limit.",
    ),
    ("Ordering across partitions is not guaranteed by the bus.", "The bus does not guarantee ordering across partitions."),
    (
        "The schema change is not backward compatible with the old consumers.",
        "Old consumers are not backward compatible with the schema change.",
    ),
    ("The admin endpoint has no authentication check.", "There is no authentication check on the admin endpoint."),
    (
        "Publishing inside the transaction holds database locks during a network call.",
        "Database locks are held during a network call when publishing inside the transaction.",
    ),
    (
        "The feature flag service is called on every request, adding latency.",
        "Calling the feature flag service for each request adds latency.",
    ),
]

NEW_FINDINGS = [
    (
        "The session cache has no eviction policy, so memory grows without bound under load.",
        "The session cache evicts entries only at startup, so revoked sessions stay valid until a restart.",
    ),
    (
        "Events are lost when the message bus is down because the publish is not retried.",
        "Events are also lost when the bus is up: the producer acknowledges before the broker replicates.",
    ),
    (
        "The migration locks the orders table for the whole backfill.",
        "The migration's backfill can run online in batches of 10000 rows with no table lock on Postgres 14.",
    ),
    (
        "The retry loop has no backoff and hammers the payment API during an outage.",
        "The retry loop has backoff, but the payment API rate limit counts retries, so refunds are throttled.",
    ),
    (
        "User passwords are logged in plain text by the debug middleware.",
        "The debug middleware is disabled in production builds by the release flag, so no passwords reach production logs.",
    ),
    (
        "The N+1 query in the order list endpoint makes it slow for large accounts.",
        "The order list endpoint's N+1 query is already batched by the ORM's prefetch; the real delay is JSON serialisation.",
    ),
    (
        "The relay worker is a single point of failure: if it stops, no events are delivered.",
        "Two relay workers can run with leader election through an advisory lock, which removes the failover gap.",
    ),
    (
        "The API key is stored unencrypted in the config file.",
        "The API key in the config file has admin scope and is shared by staging and production.",
    ),
    (
        "Dual write can publish events for orders whose transaction was rolled back.",
        "Dual write can also skip the publish entirely when the process is killed between the commit and the send.",
    ),
    (
        "The cron job and the web handler update the same row concurrently without a lock.",
        "The cron job and the web handler use optimistic versioning on that row, so a conflicting update is rejected and retried.",
    ),
    (
        "The CDC connector adds operational cost: another cluster to run and monitor.",
        "The CDC connector needs logical replication, which our managed database plan does not offer.",
    ),
    (
        "The integration tests do not cover the failure path of the publish step.",
        "The integration tests mock the bus client, so serialisation errors in the publish step never surface.",
    ),
    (
        "The webhook handler blocks the request thread while it waits for the bus.",
        "The webhook handler's thread pool has only 8 threads, so 8 slow bus calls stall every other request.",
    ),
    (
        "Consumers receive duplicate events after a relay restart.",
        "Consumers deduplicate by event id already, so a relay restart is harmless for them.",
    ),
    (
        "The event store makes simple queries on current order state expensive.",
        "The event store needs snapshots every 500 events to keep order rehydration under 50 ms.",
    ),
    (
        "The upload endpoint accepts files of unlimited size, which exhausts disk space.",
        "The upload endpoint trusts the client's content type, so an HTML file is served as an image and runs script.",
    ),
    (
        "Tokens are validated only at login, so a revoked token keeps working until it expires.",
        "Tokens carry the user's role claims, so a demoted admin keeps admin rights until the token expires.",
    ),
    (
        "The nightly reconciliation job misses events that arrive after midnight.",
        "The nightly reconciliation job takes 3 hours on the full table and overlaps the morning traffic peak.",
    ),
    (
        "The outbox table is never cleaned up and grows indefinitely.",
        "The outbox table is cleaned up hourly, but the cleanup deletes rows the relay has not yet sent.",
    ),
    (
        "Ordering across partitions is not guaranteed by the bus.",
        "Ordering across partitions is guaranteed by the bus when every order id hashes to one partition key.",
    ),
    (
        "The schema change is not backward compatible with the old consumers.",
        "The schema change is backward compatible with the old consumers because the new field is optional.",
    ),
    (
        "The admin endpoint has no authentication check.",
        "The admin endpoint checks authentication but not authorisation: any logged-in customer can call it.",
    ),
    (
        "Publishing inside the transaction holds database locks during a network call.",
        "Publishing inside the transaction makes the commit depend on the bus, so a bus outage rolls back paid orders.",
    ),
    (
        "The feature flag service is called on every request, adding latency.",
        "The feature flag service caches flags locally for 30 seconds, so a flag switch takes effect late on some nodes.",
    ),
]

# Written after the synonym/phrase tables were tuned on the pairs above, and not tuned on since:
# their rates are printed separately as the honest out-of-sample figure.
HELD_OUT_PARAPHRASES = [
    (
        "The health check only pings the process and never touches the database.",
        "The health check never touches the database; it only pings the process.",
    ),
    (
        "Large exports run synchronously in the request and time out after 30 seconds.",
        "Big exports time out after 30 seconds because they run synchronously inside the request.",
    ),
    (
        "The queue consumer acknowledges a message before processing it, so a crash loses the message.",
        "A crash loses the message because the queue consumer acknowledges it before processing.",
    ),
    (
        "Feature branches are deployed to a shared staging database that tests overwrite.",
        "Tests overwrite the shared staging database that feature branches are deployed to.",
    ),
    ("The password reset link does not expire.", "Password reset links never expire."),
    (
        "Image resizing runs on the web servers and saturates their CPU during uploads.",
        "During uploads the web servers' CPU is saturated by image resizing running on them.",
    ),
    ("The client SDK retries non-idempotent POST requests.", "Non-idempotent POST requests are retried by the client SDK."),
    (
        "Audit logs are stored in the same database they audit, so an attacker with write access can erase them.",
        "An attacker with write access can erase the audit logs, since they are stored in the same database they audit.",
    ),
    (
        "The scheduler uses local time, so jobs run twice when daylight saving time ends.",
        "When daylight saving time ends, jobs run twice because the scheduler uses local time.",
    ),
    (
        "The mobile app caches the user's profile indefinitely, showing stale data after edits.",
        "After edits, the mobile app shows stale profile data because it caches the user's profile forever.",
    ),
]
HELD_OUT_NEW = [
    (
        "The health check only pings the process and never touches the database.",
        "The health check pings the process every 2 seconds, which keeps autoscaling from scaling down.",
    ),
    (
        "Large exports run synchronously in the request and time out after 30 seconds.",
        "Large exports load the whole result set into memory and were killed by the OOM killer twice in March.",
    ),
    (
        "The queue consumer acknowledges a message before processing it, so a crash loses the message.",
        "The queue consumer processes messages in a single thread, so one poisoned message blocks the whole partition.",
    ),
    (
        "Feature branches are deployed to a shared staging database that tests overwrite.",
        "Feature branch deployments share one staging API key, so revoking it for one branch breaks all of them.",
    ),
    (
        "The password reset link does not expire.",
        "The password reset link expires after 24 hours but can be reused any number of times within that window.",
    ),
    (
        "Image resizing runs on the web servers and saturates their CPU during uploads.",
        "Image resizing strips EXIF data except GPS coordinates, which leak users' home locations.",
    ),
    (
        "The client SDK retries non-idempotent POST requests.",
        "The client SDK sends an idempotency key, but the server ignores it on the payments route.",
    ),
    (
        "Audit logs are stored in the same database they audit, so an attacker with write access can erase them.",
        "Audit log entries omit the acting service account, so automated changes cannot be traced to a deploy.",
    ),
    (
        "The scheduler uses local time, so jobs run twice when daylight saving time ends.",
        "The scheduler holds its job list in memory, so a restart forgets jobs added since the last deploy.",
    ),
    (
        "The mobile app caches the user's profile indefinitely, showing stale data after edits.",
        "The mobile app sends the profile cache to crash reports, exposing email addresses to the vendor.",
    ),
]

TIER1 = sorted({o for o, _ in PARAPHRASES} | {o for o, _ in NEW_FINDINGS} | {o for o, _ in HELD_OUT_PARAPHRASES})


def _rates(paraphrases=PARAPHRASES + HELD_OUT_PARAPHRASES, new_findings=NEW_FINDINGS + HELD_OUT_NEW):
    hits = [(paraphrase_score(c, TIER1)[0], c) for _, c in paraphrases]
    alarms = [(paraphrase_score(c, TIER1)[0], c) for _, c in new_findings]
    hit_rate = sum(s >= THRESHOLD for s, _ in hits) / len(hits)
    false_alarm = sum(s >= THRESHOLD for s, _ in alarms) / len(alarms)
    return hit_rate, false_alarm, hits, alarms


def test_crafted_pairs_are_enough():
    assert len(PARAPHRASES) >= 20 and len(NEW_FINDINGS) >= 20
    assert {o for o, _ in PARAPHRASES} == {o for o, _ in NEW_FINDINGS}  # same topics on both sides


def test_hit_rate_and_false_alarm_rate_on_crafted_pairs():
    hit_rate, false_alarm, hits, alarms = _rates()
    print(
        f"\nparaphrase detector (threshold {THRESHOLD}): hit rate {hit_rate:.1%} "
        f"({round(hit_rate * len(hits))}/{len(hits)} restatements caught), false-alarm rate "
        f"{false_alarm:.1%} ({round(false_alarm * len(alarms))}/{len(alarms)} new findings taken for restatements)"
    )
    for s, c in hits:
        if s < THRESHOLD:
            print(f"  missed restatement  {s:.2f}  {c}")
    for s, c in alarms:
        if s >= THRESHOLD:
            print(f"  false alarm         {s:.2f}  {c}")
    held_hit, held_false, _, _ = _rates(HELD_OUT_PARAPHRASES, HELD_OUT_NEW)
    print(
        f"  of which held out (written after tuning): hit rate {held_hit:.1%} of {len(HELD_OUT_PARAPHRASES)}, "
        f"false-alarm rate {held_false:.1%} of {len(HELD_OUT_NEW)}"
    )
    assert hit_rate >= 0.80
    assert false_alarm <= 0.10


def test_each_paraphrase_matches_its_own_original():
    """When a restatement is caught, it is caught against the finding it restates."""
    for original, candidate in PARAPHRASES + HELD_OUT_PARAPHRASES:
        score, at = paraphrase_score(candidate, TIER1)
        if score >= THRESHOLD:
            assert TIER1[at] == original, candidate


def test_identical_text_scores_one_and_empty_scores_zero():
    text = "The relay worker is a single point of failure."
    assert pair_score(text, text) == 1.0
    assert pair_score("", text) == 0.0
    assert paraphrase_score(text, []) == (0.0, -1)
    assert not is_paraphrase(text, [])


def test_negation_flip_is_not_a_restatement():
    original = "The bus guarantees ordering within a partition."
    assert is_paraphrase("Within a partition, ordering is guaranteed by the bus.", [original])
    assert not is_paraphrase("The bus does not guarantee ordering within a partition.", [original])
    # hand-computed: every concept is shared (coverage 1.0), polarity differs → 1.0 × 0.5
    assert pair_score("The bus does not guarantee ordering within a partition.", original) == 0.5


def test_a_new_figure_is_a_new_finding():
    original = "The relay lags behind under load."
    assert is_paraphrase("Under load, the relay lags behind.", [original])
    # concepts {relay, lag, behind, load, 40}: 4 of weight 1 shared, the number weighs 2 →
    # 4 / 6 = 0.6667, then × 0.5 for the new figure = 0.3333
    assert pair_score("Under load the relay lags 40 behind.", original) == pytest.approx(0.3333, abs=1e-4)


def test_synonyms_and_phrases_fold_onto_one_concept():
    assert concepts("memory grows without bound") == concepts("RAM increases unbounded")
    assert concepts("the eviction") == concepts("evicts")
