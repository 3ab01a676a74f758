"""notify-db access: endpoint registrations and the delivery attempt log."""
import dataclasses
import os

import psycopg2
from psycopg2.pool import ThreadedConnectionPool

_pool = ThreadedConnectionPool(1, 12, os.environ.get("NOTIFY_DSN", "postgresql:///notify"))


@dataclasses.dataclass
class Endpoint:
    id: int
    url: str
    secret: str


def _run(sql: str, params: tuple, fetch: bool = False):
    conn = _pool.getconn()
    try:
        with conn, conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall() if fetch else None
    finally:
        _pool.putconn(conn)


def endpoints_for(account_id: int, event_type: str) -> list[Endpoint]:
    rows = _run(
        "SELECT id, url, secret FROM endpoints "
        "WHERE account_id = %s AND enabled AND (%s = ANY(event_types) OR '*' = ANY(event_types))",
        (account_id, event_type),
        fetch=True,
    )
    return [Endpoint(*r) for r in rows]


def log_attempt(event_id: str, endpoint_id: int, attempt: int, status: int | None) -> None:
    _run(
        "INSERT INTO delivery_attempts (event_id, endpoint_id, attempt, status, at) "
        "VALUES (%s, %s, %s, %s, now())",
        (event_id, endpoint_id, attempt, status),
    )


def mark_failed(event_id: str, endpoint_id: int) -> None:
    _run(
        "INSERT INTO delivery_attempts (event_id, endpoint_id, attempt, status, at, final) "
        "VALUES (%s, %s, NULL, NULL, now(), 'failed')",
        (event_id, endpoint_id),
    )
