"""Internal publish endpoint. Called by other services, not exposed publicly."""
import logging
import uuid

from flask import Flask, jsonify, request

from notify import dispatcher, store

log = logging.getLogger("notify.api")
app = Flask(__name__)


@app.post("/internal/publish")
def publish():
    body = request.get_json(force=True)
    event_type = body.get("type")
    account_id = body.get("account_id")
    data = body.get("data")
    if not event_type or account_id is None or data is None:
        return jsonify(error="type, account_id and data are required"), 400

    event_id = body.get("id") or f"evt_{uuid.uuid4().hex}"
    endpoints = store.endpoints_for(account_id, event_type)
    for ep in endpoints:
        dispatcher.enqueue(
            dispatcher.Delivery(
                event_id=event_id,
                event_type=event_type,
                endpoint_id=ep.id,
                url=ep.url,
                secret=ep.secret,
                payload={"type": event_type, "created": body.get("created"), "data": data},
            )
        )
    log.info("published event_id=%s type=%s endpoints=%d", event_id, event_type, len(endpoints))
    return jsonify(id=event_id, endpoints=len(endpoints)), 202


@app.get("/healthz")
def healthz():
    return jsonify(ok=True, queued=dispatcher.queue_depth())
