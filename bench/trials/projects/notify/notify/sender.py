"""Build, sign and POST a single webhook delivery."""
import hashlib
import hmac
import json
import logging
import time

import requests

from notify import retry

log = logging.getLogger("notify.sender")

TIMEOUT_S = 10
USER_AGENT = "notify-webhooks/2.3"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    msg = f"{timestamp}.".encode() + body
    return hmac.new(secret.encode(), msg, hashlib.sha256).hexdigest()


def build_request(d) -> tuple[dict, bytes]:
    body = json.dumps(d.payload, separators=(",", ":"), sort_keys=True).encode()
    ts = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Notify-Event-Type": d.event_type,
        "X-Notify-Timestamp": str(ts),
        "X-Notify-Signature": f"v1={sign(d.secret, ts, body)}",
        "X-Notify-Attempt": str(d.attempt),
    }
    return headers, body


def send(d) -> tuple[bool, int | None]:
    """Returns (done, status). done is True on success or on a non-retryable status."""
    headers, body = build_request(d)
    try:
        resp = requests.post(d.url, data=body, headers=headers, timeout=TIMEOUT_S)
    except requests.RequestException as exc:
        log.info("delivery error event_id=%s url=%s err=%s", d.event_id, d.url, exc)
        return False, None
    if 200 <= resp.status_code < 300:
        return True, resp.status_code
    if not retry.should_retry(resp.status_code):
        log.info("non-retryable status=%d event_id=%s", resp.status_code, d.event_id)
        return True, resp.status_code
    return False, resp.status_code
