"""Database helpers for the payouts tables."""
import contextlib
import os

import psycopg2
import psycopg2.extras


@contextlib.contextmanager
def connect():
    conn = psycopg2.connect(os.environ["LEDGER_DSN"])
    try:
        yield conn
    finally:
        conn.close()


PENDING_SQL = """
SELECT p.id, p.merchant_id, p.amount_cents, p.currency,
       m.iban, m.bic, m.legal_name
FROM payouts p
JOIN merchants m ON m.id = p.merchant_id
WHERE p.status = 'pending'
  AND p.currency = 'EUR'
  AND m.payouts_enabled
ORDER BY p.id
"""


def pending_payouts(cur) -> list[dict]:
    cur.execute(PENDING_SQL)
    return list(cur.fetchall())


def available_balance(cur, merchant_id: int) -> int:
    cur.execute(
        "SELECT coalesce(sum(amount_cents), 0) FROM balance_entries WHERE merchant_id = %s",
        (merchant_id,),
    )
    return cur.fetchone()["coalesce"]


def mark_sent(cur, payout_id: int, file_name: str) -> None:
    cur.execute(
        "UPDATE payouts SET status = 'sent', sent_at = now(), bank_file = %s WHERE id = %s",
        (file_name, payout_id),
    )
    cur.execute(
        "INSERT INTO balance_entries (merchant_id, amount_cents, kind, ref) "
        "SELECT merchant_id, -amount_cents, 'payout', id FROM payouts WHERE id = %s",
        (payout_id,),
    )


def mark_held(cur, payout_id: int, reason: str) -> None:
    cur.execute(
        "UPDATE payouts SET status = 'held', hold_reason = %s WHERE id = %s",
        (reason, payout_id),
    )


def dict_cursor(conn):
    return conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
