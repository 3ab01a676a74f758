"""Session store: one row per session in Postgres."""

import secrets
from datetime import datetime, timedelta, timezone

IDLE_LIMIT = timedelta(hours=12)  # SR-3


def create(db, user_id: int) -> str:
    sid = secrets.token_urlsafe(32)
    db.execute(
        "INSERT INTO sessions (id, user_id, last_seen, revoked) VALUES (%s, %s, %s, false)",
        (sid, user_id, datetime.now(timezone.utc)),
    )
    return sid


def lookup(db, sid: str):
    row = db.fetchone("SELECT user_id, last_seen, revoked FROM sessions WHERE id = %s", (sid,))
    if row is None or row.revoked:
        return None
    if datetime.now(timezone.utc) - row.last_seen > IDLE_LIMIT:
        return None
    db.execute("UPDATE sessions SET last_seen = %s WHERE id = %s", (datetime.now(timezone.utc), sid))
    return row.user_id


def revoke_user(db, user_id: int) -> int:
    """Logout everywhere / password change / admin lockout."""
    return db.execute("UPDATE sessions SET revoked = true WHERE user_id = %s", (user_id,)).rowcount
