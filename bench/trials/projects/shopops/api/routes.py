"""Public HTTP API. v1 is deprecated since 2026-06 (see CHANGELOG); v2 is current."""

from flask import Blueprint, jsonify, request

v1 = Blueprint("v1", __name__, url_prefix="/v1")
v2 = Blueprint("v2", __name__, url_prefix="/v2")


@v1.get("/orders")
def v1_orders():
    return jsonify(list_orders(page=int(request.args.get("page", 1))))


@v1.get("/orders/<int:oid>")
def v1_order(oid):
    return jsonify(get_order(oid))


@v2.get("/orders")
def v2_orders():
    return jsonify(list_orders(cursor=request.args.get("cursor")))


@v2.get("/orders/<int:oid>")
def v2_order(oid):
    return jsonify(get_order(oid))


def list_orders(page=None, cursor=None):
    return {"orders": [], "page": page, "cursor": cursor}


def get_order(oid):
    return {"id": oid}
