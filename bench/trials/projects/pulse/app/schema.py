"""Table definitions and the registry of known event types."""

EVENTS_DDL = """
CREATE TABLE IF NOT EXISTS events (
    id           BIGSERIAL PRIMARY KEY,
    account_id   BIGINT      NOT NULL,
    user_id      BIGINT,
    event_type   TEXT        NOT NULL,
    occurred_at  TIMESTAMPTZ NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    props        JSONB       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX IF NOT EXISTS events_occurred_at_idx ON events (occurred_at);
CREATE INDEX IF NOT EXISTS events_account_type_idx ON events (account_id, event_type, occurred_at);
"""

DAILY_COUNTS_DDL = """
CREATE TABLE IF NOT EXISTS daily_counts (
    day         DATE   NOT NULL,
    account_id  BIGINT NOT NULL,
    event_type  TEXT   NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (day, account_id, event_type)
);
"""

# Event types accepted by ingest. Anything else is rejected with 422.
# Prefixes group types for dashboards; see docs/compliance/ for retention classes.
EVENT_TYPES = {
    # product usage
    "page.view",
    "feature.used",
    "search.performed",
    "export.created",
    # authentication
    "auth.login",
    "auth.login_failed",
    "auth.logout",
    "auth.mfa_challenge",
    # administrative actions (written by the admin console, not SDKs)
    "audit.role_changed",
    "audit.user_invited",
    "audit.user_removed",
    "audit.api_key_created",
    "audit.api_key_revoked",
    "audit.settings_changed",
}


def is_known(event_type: str) -> bool:
    return event_type in EVENT_TYPES
