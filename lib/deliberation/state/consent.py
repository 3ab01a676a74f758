"""Settings a repository cannot switch on by itself: a committed config.json value that runs a
command, widens what runs, deletes this user's data sooner or switches a catch off waits for this
user's approval of that exact value (docs/SECURITY.md has the table and the reasons).

`GATED` lists each such setting with the test of the values that wait; `split` parts a committed
config into what takes effect and what is `pending`, and `effective` keeps the defaults of the
pending ones; every other setting takes effect as committed. `approve` (`deliberation trust`, by
a person in a terminal) stores per project (its real path) and per setting a SHA-256 of the
value in this user's own folder (trusted.json), so a changed value is a new question. text/
consent.py words what the person is told. Standard library only: the fast path stats the
approvals file (`stamp`) to know when the config cache is stale.
"""

import json
import os
import time

# the defaults of the settings above (a test holds them equal to state/config.py's)
DEFAULT_FORCE_MARKERS = ("/deliberate", "DELIBERATE")
DEFAULT_THRESHOLD = 0.70
DEFAULT_HIGH_DIMENSION = 0.6
DEFAULT_LIMITS = {
    "spawn_budget.max_active_children": 12,
    "spawn_budget.max_session_total": 60,
    "spawn_budget.max_depth": 3,
    "depth.agent_budget": 6,
    "depth.token_budget": 400_000,
}
DEFAULT_RETENTION = {"retention.max_age_days": 30, "retention.max_total_mb": 100}
CONFIG_LIMIT = 1 << 20  # config.json: a real one is a few KiB
TRUST_LIMIT = 8 << 20
TRUST_VERSION = 1


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _markers(v):
    return isinstance(v, list) and any(isinstance(m, str) and m and m not in DEFAULT_FORCE_MARKERS for m in v)


def _any_terms(v):
    return isinstance(v, dict) and any(isinstance(t, dict) and t for t in v.values())


def _above(limit):
    return lambda v: _number(v) and v > limit


def _below(limit):
    return lambda v: _number(v) and v < limit


# (dotted name, does this committed value run something, widen what runs, delete sooner or switch
# a catch off?) — why, in the person's words: text/consent.WHY
GATED = (
    ("escalation.probes", lambda v: isinstance(v, list) and len(v) > 0),
    ("trigger.force_markers", _markers),
    ("trigger.threshold", lambda v: _number(v) and v > DEFAULT_THRESHOLD),
    ("trigger.high_dimension", lambda v: _number(v) and v < DEFAULT_HIGH_DIMENSION),
    ("trigger.vocabularies", lambda v: v is not None),
    ("trigger.extra_terms", _any_terms),
    ("trigger.enabled", lambda v: v is False),
    ("trigger.self_rating", lambda v: v is False),
    ("trigger.tool_net", lambda v: v == "off"),
    ("strict", lambda v: v is True),
    ("spawn_budget.max_active_children", _above(DEFAULT_LIMITS["spawn_budget.max_active_children"])),
    ("spawn_budget.max_session_total", _above(DEFAULT_LIMITS["spawn_budget.max_session_total"])),
    ("spawn_budget.max_depth", _above(DEFAULT_LIMITS["spawn_budget.max_depth"])),
    ("depth.agent_budget", _above(DEFAULT_LIMITS["depth.agent_budget"])),
    ("depth.token_budget", _above(DEFAULT_LIMITS["depth.token_budget"])),
    ("models.diverse", lambda v: v is True),
    ("retention.max_age_days", _below(DEFAULT_RETENTION["retention.max_age_days"])),
    ("retention.max_total_mb", _below(DEFAULT_RETENTION["retention.max_total_mb"])),
)
GATED_NAMES = tuple(name for name, _widens in GATED)


class Item(object):
    """One committed setting that waits for (or has) approval: its name and value."""

    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __repr__(self):
        return "Item(%r, %r)" % (self.name, self.value)

    def pair(self):
        """(name, value): what the config cache keeps and the text layer words."""
        return (self.name, self.value)

    def digest(self):
        import hashlib

        text = json.dumps(self.value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(("%s=%s" % (self.name, text)).encode("utf-8", "surrogatepass")).hexdigest()


def get(raw, dotted):
    node = raw
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def requested(raw):
    """The settings of a raw config (config.json as parsed) that need approval."""
    if not isinstance(raw, dict):
        return []
    out = []
    for name, widens in GATED:
        value = get(raw, name)
        if value is not None and widens(value):
            if name == "models.diverse":
                value = {"diverse": True, "pool": get(raw, "models.pool")}
            out.append(Item(name, value))
    return out


def items_of(pairs):
    """The Items of what the config cache keeps ([[name, value], ...]); None when it is not that."""
    if not isinstance(pairs, list):
        return None
    out = []
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and p[0] in GATED_NAMES):
            return None
        out.append(Item(p[0], p[1]))
    return out


# -- the approvals, in this user's own folder -----------------------------------------------------


def _project_key(layout):
    return os.path.realpath(layout.project)


def _trust_path(environ, layout, create=False):
    from deliberation.state import user_data

    if create:
        return os.path.join(user_data.folder(environ, layout.project), user_data.TRUSTED)
    base, _note = user_data.location(environ, layout.project)
    return os.path.join(base, user_data.TRUSTED)


def _env(environ):
    if environ is not None:
        return environ
    from deliberation.state.paths import hook_env

    return hook_env()


def stamp(layout, environ=None):
    """What the config cache depends on besides config.json: the approvals file's identity."""
    try:
        st = os.lstat(_trust_path(_env(environ), layout))
    except OSError:
        return 0
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _read_trust(path):
    from deliberation.state import safe_read

    try:
        data = json.loads(safe_read.read_bytes(path, TRUST_LIMIT))
    except (OSError, ValueError):
        return {"schema_version": TRUST_VERSION, "projects": {}}
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        return {"schema_version": TRUST_VERSION, "projects": {}}
    return data


def approvals(layout, environ=None):
    """{setting: digest} this user approved for this project."""
    entry = _read_trust(_trust_path(_env(environ), layout)).get("projects", {}).get(_project_key(layout))
    settings = entry.get("settings") if isinstance(entry, dict) else None
    return {k: v.get("sha256") for k, v in settings.items() if isinstance(v, dict)} if isinstance(settings, dict) else {}


def split(raw, layout, environ=None):
    """(approved, pending) items of a raw config."""
    items = requested(raw)
    if not items:
        return [], []
    ok = approvals(layout, environ)
    approved = [i for i in items if ok.get(i.name) == i.digest()]
    return approved, [i for i in items if ok.get(i.name) != i.digest()]


def read_raw(layout):
    """config.json as parsed ({} when absent or unreadable: consent is about what is there)."""
    from deliberation.state import safe_read

    try:
        raw = json.loads(safe_read.read_bytes(layout.config, CONFIG_LIMIT, root=layout.project))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def pending(layout, environ=None):
    return split(read_raw(layout), layout, environ)[1]


def is_strict(layout, environ=None):
    """config.json asks for strict mode and this user approved it (read without the models: a
    hook that failed before its config was resolved decides with this)."""
    raw = read_raw(layout)
    if raw.get("strict") is not True:
        return False
    approved, _waiting = split(raw, layout, environ)
    return any(i.name == "strict" for i in approved)


def _write_trust(path, data):
    tmp = "%s.tmp-%d-%s" % (path, os.getpid(), os.urandom(4).hex())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _change(layout, environ, edit):
    import fcntl

    path = _trust_path(_env(environ), layout, create=True)
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = _read_trust(path)
        data["schema_version"] = TRUST_VERSION
        result = edit(data["projects"])
        _write_trust(path, data)
        return result
    finally:
        os.close(lock)


def approve(layout, environ=None, now=None):
    """Approve every setting the project's config.json asks for now, as it is now; returns them."""
    items = requested(read_raw(layout))
    at = time.time() if now is None else now

    def edit(projects):
        projects[_project_key(layout)] = {
            "approved_at": at,
            "settings": {i.name: {"sha256": i.digest(), "value": i.value} for i in items},
        }
        return items

    return _change(layout, environ, edit)


def revoke(layout, environ=None):
    """Forget this project's approvals (its settings wait again); True when there were some."""
    return _change(layout, environ, lambda projects: projects.pop(_project_key(layout), None) is not None)


def effective(cfg, defaults, items):
    """`cfg` (the validated config as a dict) with each pending item's setting at its default."""
    out = json.loads(json.dumps(cfg))
    for item in items:
        names = ["models.diverse", "models.pool"] if item.name == "models.diverse" else [item.name]
        for name in names:
            *parents, leaf = name.split(".")
            node, base = out, defaults
            for part in parents:
                node, base = node.setdefault(part, {}), base.get(part, {})
            if leaf in base:
                node[leaf] = base[leaf]
            else:
                node.pop(leaf, None)
    return out
