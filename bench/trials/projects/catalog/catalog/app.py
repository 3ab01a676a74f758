from flask import Flask, jsonify, request

from catalog import search
from catalog.db import query


def create_app():
    app = Flask(__name__)

    @app.get("/v1/products/<int:product_id>")
    def product(product_id):
        rows = query("SELECT id, name, description, category_id FROM products WHERE id = %s", (product_id,))
        if not rows:
            return jsonify(error="not_found"), 404
        pid, name, description, category_id = rows[0]
        return jsonify(id=pid, name=name, description=description, category_id=category_id)

    @app.get("/v1/search")
    def search_products():
        q = (request.args.get("q") or "").strip()
        if len(q) < 2:
            return jsonify(results=[])
        page = max(int(request.args.get("page", 1)), 1)
        return jsonify(results=search.search(q, page=page))

    return app
