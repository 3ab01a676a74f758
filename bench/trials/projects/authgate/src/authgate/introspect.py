"""POST /introspect — called by every service on every request."""

from . import sessions


def introspect(db, request):
    sid = request.json.get("session")
    user_id = sessions.lookup(db, sid) if sid else None
    if user_id is None:
        return {"active": False}, 200
    return {"active": True, "user_id": user_id}, 200
