"""Ingest endpoint: validate a batch of events and insert it in one statement."""
import datetime as dt
import json
import logging
import os

import psycopg2
import psycopg2.extras
from flask import Flask, jsonify, request

from app.schema import is_known

log = logging.getLogger("pulse.ingest")
app = Flask(__name__)

MAX_BATCH = 500
MAX_SKEW = dt.timedelta(days=2)


def _conn():
    return psycopg2.connect(os.environ["PULSE_DSN"])


def _validate(ev: dict, now: dt.datetime) -> tuple:
    if not is_known(ev.get("type", "")):
        raise ValueError(f"unknown event type: {ev.get('type')!r}")
    occurred = dt.datetime.fromisoformat(ev["ts"])
    if occurred.tzinfo is None:
        raise ValueError("ts must include a timezone offset")
    if abs(now - occurred) > MAX_SKEW:
        raise ValueError("ts too far from server time")
    return (
        int(ev["account_id"]),
        ev.get("user_id"),
        ev["type"],
        occurred,
        json.dumps(ev.get("props", {})),
    )


@app.post("/v1/events")
def ingest():
    body = request.get_json(force=True)
    events = body.get("events", [])
    if not events or len(events) > MAX_BATCH:
        return jsonify(error=f"batch must have 1..{MAX_BATCH} events"), 400
    now = dt.datetime.now(dt.timezone.utc)
    try:
        rows = [_validate(ev, now) for ev in events]
    except (KeyError, ValueError) as exc:
        return jsonify(error=str(exc)), 422
    with _conn() as conn, conn.cursor() as cur:
        psycopg2.extras.execute_values(
            cur,
            "INSERT INTO events (account_id, user_id, event_type, occurred_at, props) "
            "VALUES %s",
            rows,
            template="(%s, %s, %s, %s, %s::jsonb)",
        )
    log.info("ingested n=%d", len(rows))
    return jsonify(accepted=len(rows)), 202
