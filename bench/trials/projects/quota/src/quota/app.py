import logging
from datetime import datetime

from flask import Flask, abort, g, jsonify, request

from . import accounts, config, middleware


def _page_size():
    try:
        size = int(request.args.get("page_size", config.DEFAULT_PAGE_SIZE))
    except ValueError:
        abort(400, "page_size must be an integer")
    return max(1, min(size, config.MAX_PAGE_SIZE))


def _parse_since(value):
    if not value:
        abort(400, "since is required")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        abort(400, "since must be an ISO-8601 timestamp")


def _record_json(row):
    record_id, sku, location, quantity, updated_at = row
    return {
        "id": record_id,
        "sku": sku,
        "location": location,
        "quantity": quantity,
        "updated_at": updated_at.isoformat(),
    }


def create_app():
    logging.basicConfig(level=config.LOG_LEVEL)
    app = Flask(__name__)

    accounts.init_pool()
    accounts.load_keys()
    middleware.install(app)

    @app.get("/healthz")
    def healthz():
        return {"ok": True}

    @app.get("/readyz")
    def readyz():
        with accounts.cursor() as cur:
            cur.execute("SELECT 1")
        return {"ok": True}

    @app.get("/v1/records/<int:record_id>")
    def get_record(record_id):
        with accounts.cursor() as cur:
            cur.execute(
                """
                SELECT id, sku, location, quantity, updated_at
                  FROM records
                 WHERE account_id = %s AND id = %s AND deleted_at IS NULL
                """,
                (g.api_key.account_id, record_id),
            )
            row = cur.fetchone()
        if row is None:
            abort(404)
        return jsonify(_record_json(row))

    @app.get("/v1/changes")
    def list_changes():
        since = _parse_since(request.args.get("since"))
        after_id = int(request.args.get("after_id", 0))
        size = _page_size()
        with accounts.cursor() as cur:
            cur.execute(
                """
                SELECT id, updated_at
                  FROM records
                 WHERE account_id = %s
                   AND (updated_at, id) > (%s, %s)
                 ORDER BY updated_at, id
                 LIMIT %s
                """,
                (g.api_key.account_id, since, after_id, size),
            )
            rows = cur.fetchall()
        changes = [{"id": r[0], "updated_at": r[1].isoformat()} for r in rows]
        next_cursor = None
        if len(rows) == size:
            next_cursor = {"since": rows[-1][1].isoformat(), "after_id": rows[-1][0]}
        return jsonify({"changes": changes, "next": next_cursor})

    @app.post("/v1/records/<int:record_id>/quantity")
    def set_quantity(record_id):
        body = request.get_json(silent=True) or {}
        if not isinstance(body.get("quantity"), int):
            abort(400, "quantity must be an integer")
        with accounts.cursor() as cur:
            cur.execute(
                """
                UPDATE records SET quantity = %s, updated_at = now()
                 WHERE account_id = %s AND id = %s AND deleted_at IS NULL
                RETURNING id, sku, location, quantity, updated_at
                """,
                (body["quantity"], g.api_key.account_id, record_id),
            )
            row = cur.fetchone()
        if row is None:
            abort(404)
        return jsonify(_record_json(row))

    return app
