"""Nightly rollup: count yesterday's events per account and type into daily_counts."""
import argparse
import datetime as dt
import logging
import os
import time

import psycopg2

log = logging.getLogger("pulse.jobs.rollup_daily")

ROLLUP_SQL = """
INSERT INTO daily_counts (day, account_id, event_type, n)
SELECT %(day)s, account_id, event_type, count(*)
FROM events
WHERE occurred_at >= %(day)s AND occurred_at < %(day)s::date + 1
GROUP BY account_id, event_type
ON CONFLICT (day, account_id, event_type) DO UPDATE SET n = EXCLUDED.n
"""


def run(day: dt.date) -> int:
    with psycopg2.connect(os.environ["PULSE_DSN"]) as conn, conn.cursor() as cur:
        cur.execute("SET statement_timeout = '30min'")
        cur.execute(ROLLUP_SQL, {"day": day})
        return cur.rowcount


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    p = argparse.ArgumentParser()
    p.add_argument("--date", type=dt.date.fromisoformat,
                   default=dt.date.today() - dt.timedelta(days=1))
    args = p.parse_args()
    t0 = time.monotonic()
    n = run(args.date)
    log.info("job=rollup_daily status=ok day=%s rows=%d secs=%.1f",
             args.date, n, time.monotonic() - t0)


if __name__ == "__main__":
    main()
