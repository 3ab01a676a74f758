"""Build per-user login features for the account-takeover model."""
import argparse
import datetime as dt
import os

import psycopg2

LOOKBACK_DAYS = 180

FEATURES_SQL = """
INSERT INTO risk.login_features
    (as_of, user_id, logins_180d, failed_180d, distinct_countries_180d,
     distinct_devices_180d, first_seen, last_seen)
SELECT %(as_of)s,
       user_id,
       count(*) FILTER (WHERE event_type = 'auth.login'),
       count(*) FILTER (WHERE event_type = 'auth.login_failed'),
       count(DISTINCT props->>'country'),
       count(DISTINCT props->>'device_id'),
       min(occurred_at),
       max(occurred_at)
FROM events
WHERE event_type IN ('auth.login', 'auth.login_failed', 'auth.mfa_challenge')
  AND occurred_at >= %(as_of)s::date - %(lookback)s
  AND occurred_at <  %(as_of)s::date
  AND user_id IS NOT NULL
GROUP BY user_id
ON CONFLICT (as_of, user_id) DO NOTHING
"""


def build(as_of: dt.date) -> int:
    with psycopg2.connect(os.environ["PULSE_DSN"]) as conn, conn.cursor() as cur:
        cur.execute(FEATURES_SQL, {"as_of": as_of, "lookback": LOOKBACK_DAYS})
        return cur.rowcount


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--as-of", type=dt.date.fromisoformat, default=dt.date.today())
    a = p.parse_args()
    print(f"job=risk_login_features status=ok as_of={a.as_of} rows={build(a.as_of)}")
