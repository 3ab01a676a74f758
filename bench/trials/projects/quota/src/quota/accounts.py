import hashlib
import logging
from contextlib import contextmanager
from dataclasses import dataclass

from psycopg2.pool import ThreadedConnectionPool

from . import config

log = logging.getLogger(__name__)

_pool = None
_keys = {}


@dataclass(frozen=True)
class KeyInfo:
    key_id: str
    account_id: int
    plan: str


def init_pool():
    global _pool
    _pool = ThreadedConnectionPool(
        config.DB_POOL_MIN,
        config.DB_POOL_MAX,
        dsn=config.DATABASE_URL,
        options=f"-c statement_timeout={config.DB_STATEMENT_TIMEOUT_MS}",
    )


@contextmanager
def cursor():
    conn = _pool.getconn()
    try:
        with conn:
            with conn.cursor() as cur:
                yield cur
    finally:
        _pool.putconn(conn)


def _hash_key(raw_key):
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def load_keys():
    """Load active API keys and their account plan into memory."""
    with cursor() as cur:
        cur.execute(
            """
            SELECT k.key_hash, k.public_id, a.id, a.plan
              FROM api_keys k
              JOIN accounts a ON a.id = k.account_id
             WHERE k.revoked_at IS NULL
               AND a.suspended_at IS NULL
            """
        )
        rows = cur.fetchall()
    _keys.clear()
    for key_hash, public_id, account_id, plan in rows:
        _keys[key_hash] = KeyInfo(key_id=public_id, account_id=account_id, plan=plan)
    log.info("loaded %d api keys", len(_keys))


def lookup_key(raw_key):
    if not raw_key:
        return None
    return _keys.get(_hash_key(raw_key))


def record_account_request(account_id, window_start):
    """Count one request for the account in the given window; return the new total."""
    with cursor() as cur:
        cur.execute(
            """
            INSERT INTO account_usage (account_id, window_start, requests)
            VALUES (%s, to_timestamp(%s), 1)
            ON CONFLICT (account_id, window_start)
            DO UPDATE SET requests = account_usage.requests + 1
            RETURNING requests
            """,
            (account_id, window_start),
        )
        return cur.fetchone()[0]
