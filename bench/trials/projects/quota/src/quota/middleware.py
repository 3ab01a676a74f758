import logging

from flask import g, jsonify, request

from . import accounts, config
from .limiter import FixedWindowLimiter

log = logging.getLogger(__name__)

_limiter = FixedWindowLimiter(window_seconds=config.WINDOW_SECONDS)


def _bearer_token():
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        return None
    return header[7:].strip()


def _error(status, code, message):
    resp = jsonify({"error": code, "message": message})
    resp.status_code = status
    return resp


def enforce_limits():
    if request.path in config.OPEN_PATHS:
        return None

    key = accounts.lookup_key(_bearer_token())
    if key is None:
        return _error(401, "invalid_api_key", "Missing or unknown API key")

    limits = config.plan_limits(key.plan)

    decision = _limiter.hit(key.key_id, limits["per_key_per_minute"])
    if not decision.allowed:
        log.info("429 key=%s account=%s scope=key", key.key_id, key.account_id)
        return _error(429, "rate_limited", "Rate limit exceeded for this API key")

    window = _limiter.window_start()
    used = accounts.record_account_request(key.account_id, window)
    if used > limits["per_account_per_minute"]:
        log.info("429 key=%s account=%s scope=account used=%d", key.key_id, key.account_id, used)
        return _error(429, "account_limit_exceeded", "Request limit exceeded for this account")

    g.api_key = key
    g.rate_decision = decision
    return None


def add_rate_headers(response):
    decision = getattr(g, "rate_decision", None)
    if decision is not None:
        response.headers["X-RateLimit-Limit"] = str(decision.limit)
        response.headers["X-RateLimit-Remaining"] = str(decision.remaining)
    return response


def install(app):
    app.before_request(enforce_limits)
    app.after_request(add_rate_headers)
