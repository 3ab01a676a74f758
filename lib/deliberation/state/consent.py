"""Committed settings apply without this user's consent only when they are known to tighten.

Every setting of config.json is classified here, per value where the direction matters: a value
TIGHTENS (the plugin checks more, keeps more or asks more, and runs and spends nothing more of
this user's), is NEUTRAL (the default, or a setting that changes no check — display only), or
LOOSENS (a check weaker or off, more run or spent, this user's data deleted sooner, the session
held more). A committed value that loosens — or a setting nobody classified — waits: its default
applies until this user approves that exact value (`deliberation trust`); every other value takes
effect as committed. tests/unit/test_consent.py fails when a setting of `Config` has no rule here,
so a new setting cannot slip in unclassified (docs/SECURITY.md, section 1, has the table).

`requested` lists what waits in a raw config, `split` parts it into approved and `pending`, and
`effective` keeps the defaults of the pending ones. `approve` (`deliberation trust`, by a person in
a terminal) stores per project (its real path) and per setting a SHA-256 of the value in this
user's own folder (trusted.json), so a changed value is a new question. The same approvals cover
a project's `.claude/settings.json` `env` that switches the plugin off (`ENV_OFF`). text/consent.py
words what the person is told. Standard library only: the fast path stats the approvals file
(`stamp`) to know when the config cache is stale.
"""

import json
import os
import time

from deliberation import defaults
from deliberation.wire import hookio

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, TypeVar

    from deliberation.state.paths import Layout

    T = TypeVar("T")
    Rule = Callable[[Any], "str | None"]  # a setting's rule: a committed value -> TIGHTENS | NEUTRAL | LOOSENS | None

CONFIG_LIMIT = 1 << 20  # config.json: a real one is a few KiB
TRUST_LIMIT = 8 << 20
TRUST_VERSION = 1
TIGHTENS, NEUTRAL, LOOSENS = "tightens", "neutral", "loosens"
# a project's settings env that switches the plugin off: approved like a setting (cheap_answers)
ENV_OFF = "env.DELIBERATION"


def default(dotted: str) -> "Any":
    node = defaults.CONFIG
    for part in dotted.split("."):
        node = node[part]
    return node


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# -- the rules: value -> TIGHTENS | NEUTRAL | LOOSENS, or None for a value this setting does not
# take (validation drops it, and nothing waits for it)


def fixed(name: str) -> "Rule":
    """Any other value than the default loosens: both ways cost this user (a threshold either
    way triggers less or spends more; a budget either way runs more or checks less)."""

    def rule(v: "Any") -> "str | None":
        base = default(name)
        if _number(base) and not _number(v) or isinstance(base, (list, dict)) and not isinstance(v, type(base)):
            return None  # not a value of this setting: validation drops it
        return NEUTRAL if v == base else LOOSENS

    return rule


def higher_tightens(name: str) -> "Rule":
    def rule(v: "Any") -> "str | None":
        if not _number(v):
            return None
        base = default(name)
        return NEUTRAL if v == base else TIGHTENS if v > base else LOOSENS

    return rule


def lower_tightens(name: str) -> "Rule":
    def rule(v: "Any") -> "str | None":
        if not _number(v):
            return None
        base = default(name)
        return NEUTRAL if v == base else TIGHTENS if v < base else LOOSENS

    return rule


def flag(name: str) -> "Rule":
    """A switch whose default is the stricter side: the other value loosens."""

    def rule(v: "Any") -> "str | None":
        if not isinstance(v, bool):
            return None
        return NEUTRAL if v == default(name) else LOOSENS

    return rule


def flag_tightens(name: str) -> "Rule":
    """A switch whose other value is the stricter side."""

    def rule(v: "Any") -> "str | None":
        if not isinstance(v, bool):
            return None
        return NEUTRAL if v == default(name) else TIGHTENS

    return rule


def choice(name: str, tightening: "tuple[str, ...]") -> "Rule":
    def rule(v: "Any") -> "str | None":
        if not isinstance(v, str):
            return None
        return NEUTRAL if v == default(name) else TIGHTENS if v in tightening else LOOSENS

    return rule


def unset(name: str) -> "Rule":
    """A replacement table (vocabularies, keywords, class tags): any table loosens."""

    def rule(v: "Any") -> "str | None":
        return NEUTRAL if v is None or v == default(name) else LOOSENS

    return rule


def neutral(_v: object) -> str:
    return NEUTRAL


def _markers(v: object) -> "str | None":
    if not isinstance(v, list):
        return None
    markers = {m for m in v if isinstance(m, str) and m}
    return NEUTRAL if markers == set(default("trigger.force_markers")) else LOOSENS


def _terms(v: object) -> "str | None":
    if not isinstance(v, dict):
        return None
    return NEUTRAL if not any(isinstance(t, dict) and t for t in v.values()) else LOOSENS


def _list_loosens(v: object) -> "str | None":
    if not isinstance(v, list):
        return None
    return LOOSENS if v else NEUTRAL


def _thresholds(v: object) -> "str | None":
    """Each task type's consensus bar: higher tightens, lower loosens."""
    if not isinstance(v, dict):
        return None
    base = default("task_types.thresholds")
    out = NEUTRAL
    for kind, bar in v.items():
        if not _number(bar) or kind not in base:
            return None
        if bar < base[kind]:
            return LOOSENS
        if bar > base[kind]:
            out = TIGHTENS
    return out


def _pairs(v: object) -> "str | None":
    """Conflicting persona pairs: adding pairs tightens (more to be suspicious of), dropping one loosens."""
    if not isinstance(v, list):
        return None
    have = {tuple(sorted(p)) for p in v if isinstance(p, list) and all(isinstance(x, str) for x in p)}
    base = {tuple(sorted(p)) for p in default("conformity.conflicting_pairs")}
    return NEUTRAL if have == base else TIGHTENS if have > base else LOOSENS


def _per_task_type(v: object) -> "str | None":
    """A task type dialled to depth "off" that the default deepens loosens; "on" tightens."""
    if not isinstance(v, dict):
        return None
    base = default("depth.per_task_type")
    if any(v.get(k) == "off" and base.get(k) != "off" for k in v):
        return LOOSENS
    return NEUTRAL if v == base else TIGHTENS


def _risky_tools(v: object) -> "str | None":
    """Tools held while a decision awaits a person: every default one still held (and more) tightens."""
    names = hookio.tool_names(v)
    if names is None:
        return None
    base = set(default("escalation.risky_tools").split("|"))
    held = set(names)
    covered = base <= held or any(n.endswith(".*") and all(b.startswith(n[:-2]) for b in base) for n in names)
    return NEUTRAL if held == base else TIGHTENS if covered else LOOSENS


RULES = {
    "schema_version": neutral,
    "strict": flag("strict"),  # true: the plugin's own errors would block and deny this user's session
    "lock_timeout_s": fixed("lock_timeout_s"),  # shorter: hooks give up (fail open); longer: hooks wait
    "trigger.enabled": flag("trigger.enabled"),
    "trigger.threshold": fixed("trigger.threshold"),
    "trigger.high_dimension": fixed("trigger.high_dimension"),
    "trigger.force_markers": _markers,
    "trigger.vocabularies": unset("trigger.vocabularies"),
    "trigger.extra_terms": _terms,
    "trigger.self_rating": flag("trigger.self_rating"),
    "trigger.tool_net": choice("trigger.tool_net", ("ask",)),
    "task_types.thresholds": _thresholds,
    "task_types.keywords": unset("task_types.keywords"),
    "ranking.dimensions": fixed("ranking.dimensions"),
    "deliberation.min_agents": higher_tightens("deliberation.min_agents"),
    "deliberation.min_distinct_personas": higher_tightens("deliberation.min_distinct_personas"),
    "deliberation.min_alternatives": higher_tightens("deliberation.min_alternatives"),
    "deliberation.max_report_bytes": lower_tightens("deliberation.max_report_bytes"),
    "deliberation.report_retries": lower_tightens("deliberation.report_retries"),
    "deliberation.quiet_waiting": flag_tightens("deliberation.quiet_waiting"),
    "deliberation.allow_read_only_agents": flag_tightens("deliberation.allow_read_only_agents"),
    "gates.stop_block_limit": higher_tightens("gates.stop_block_limit"),
    "gates.strong": higher_tightens("gates.strong"),
    "gates.moderate": higher_tightens("gates.moderate"),
    "gates.require_improvement": flag("gates.require_improvement"),
    "gates.acceptable_level": higher_tightens("gates.acceptable_level"),
    "conformity.clustering_window": higher_tightens("conformity.clustering_window"),
    "conformity.min_agents_for_clustering": lower_tightens("conformity.min_agents_for_clustering"),
    "conformity.near_threshold_margin": higher_tightens("conformity.near_threshold_margin"),
    "conformity.templated_similarity": lower_tightens("conformity.templated_similarity"),
    "conformity.same_reasoning_similarity": lower_tightens("conformity.same_reasoning_similarity"),
    "conformity.conflicting_pairs": _pairs,
    "conformity.blocking": flag_tightens("conformity.blocking"),
    "isolation.enabled": flag("isolation.enabled"),
    "isolation.leak_threshold": lower_tightens("isolation.leak_threshold"),
    "isolation.blind_ranking": flag("isolation.blind_ranking"),
    "isolation.complete_findings": flag("isolation.complete_findings"),
    "spawn_budget.max_active_children": lower_tightens("spawn_budget.max_active_children"),
    "spawn_budget.max_session_total": lower_tightens("spawn_budget.max_session_total"),
    "spawn_budget.max_depth": lower_tightens("spawn_budget.max_depth"),
    "spawn_budget.stale_after_s": higher_tightens("spawn_budget.stale_after_s"),
    "depth.posture": choice("depth.posture", ()),
    "depth.per_task_type": _per_task_type,
    "depth.max_lock": flag_tightens("depth.max_lock"),
    "depth.workers_per_wave": higher_tightens("depth.workers_per_wave"),
    "depth.agent_budget": fixed("depth.agent_budget"),
    "depth.token_budget": fixed("depth.token_budget"),
    "depth.max_hot_spots": higher_tightens("depth.max_hot_spots"),
    "escalation.policy": choice("escalation.policy", ("T1+D+T2+PROBE",)),
    "escalation.unanimous_confidence": lower_tightens("escalation.unanimous_confidence"),
    "escalation.risky_tools": _risky_tools,
    "escalation.probe_failure": choice("escalation.probe_failure", ("reject",)),
    "escalation.known_reversal": choice("escalation.known_reversal", ("reject",)),
    "escalation.probes": _list_loosens,  # a command, run on this machine as this user
    "escalation.probe_budget_s": lower_tightens("escalation.probe_budget_s"),
    "escalation.class_tags": unset("escalation.class_tags"),
    "cost.prices": neutral,  # what the record shows beside the token figures, nothing more
    "models.diverse": flag("models.diverse"),
    "models.pool": fixed("models.pool"),
    "retention.auto": flag_tightens("retention.auto"),
    "retention.max_age_days": higher_tightens("retention.max_age_days"),
    "retention.max_total_mb": higher_tightens("retention.max_total_mb"),
}


def settings() -> "list[str]":
    """Every setting of config.json, dotted: the defaults' leaves (a section's keys) and the
    config's own version."""
    out = ["schema_version"]
    for key, value in defaults.CONFIG.items():
        if isinstance(value, dict):
            out.extend(f"{key}.{sub}" for sub in value)
        else:
            out.append(key)
    return out


def verdict(name: str, value: object) -> "str | None":
    """TIGHTENS / NEUTRAL / LOOSENS for a committed value (None: not a value it takes); a
    setting with no rule loosens until classified."""
    rule = RULES.get(name)
    if rule is None:
        return LOOSENS
    return rule(value)


class Item(object):
    """One committed setting that waits for (or has) approval: its name and value."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: "Any") -> None:
        self.name, self.value = name, value

    def __repr__(self) -> str:
        return "Item(%r, %r)" % (self.name, self.value)

    def pair(self) -> "tuple[str, Any]":
        """(name, value): what the config cache keeps and the text layer words."""
        return (self.name, self.value)

    def digest(self) -> str:
        import hashlib

        text = json.dumps(self.value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(("%s=%s" % (self.name, text)).encode("utf-8", "surrogatepass")).hexdigest()


def get(raw: object, dotted: str) -> "Any":
    node = raw
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _present(raw: object, dotted: str) -> "tuple[bool, Any]":
    node = raw
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def requested(raw: object) -> "list[Item]":
    """The settings of a raw config (config.json as parsed) that wait for approval: every value
    that loosens, and every value of a setting no rule classifies."""
    if not isinstance(raw, dict):
        return []
    out = []
    for name in settings():
        there, value = _present(raw, name)
        if there and verdict(name, value) == LOOSENS:
            out.append(Item(name, value))
    return out


OFF_WORDS = frozenset({"off", "0", "false", "no"})  # core.off_switch.OFF_WORDS (state cannot import core)


def env_item(layout: "Layout") -> "Item | None":
    """The DELIBERATION off word a project's `.claude/settings.json` (or settings.local.json, which
    the client gives precedence) puts in its `env`, as an Item waiting like a setting; None when
    neither sets one."""
    from deliberation.state import project_env

    found = None
    for rel in project_env.SETTINGS_FILES:
        env, _problem = project_env.settings_env(layout.project, rel)
        value = env.get("DELIBERATION") if env else None
        if isinstance(value, str) and value.strip().lower() in OFF_WORDS:
            found = Item(ENV_OFF, value)
        elif value is not None:
            found = None
    return found


def env_off_approved(layout: "Layout", environ: "dict[str, str] | None" = None) -> bool:
    """Whether this user approved the project's settings switching the plugin off."""
    item = env_item(layout)
    return item is not None and approvals(layout, environ).get(ENV_OFF) == item.digest()


def requested_all(layout: "Layout") -> "list[Item]":
    """Every committed value that waits in this project: config.json's, and its settings' env off."""
    items = requested(read_raw(layout))
    off = env_item(layout)
    return items + ([off] if off is not None else [])


def items_of(pairs: object) -> "list[Item] | None":
    """The Items of what the config cache keeps ([[name, value], ...]); None when it is not that."""
    if not isinstance(pairs, list):
        return None
    known = set(settings())
    out = []
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and (p[0] in known or p[0] == ENV_OFF)):
            return None
        out.append(Item(p[0], p[1]))
    return out


# -- the approvals, in this user's own folder -----------------------------------------------------


def _project_key(layout: "Layout") -> str:
    return os.path.realpath(layout.project)


def _trust_path(environ: "dict[str, str]", layout: "Layout", create: bool = False) -> str:
    from deliberation.state import user_data

    if create:
        return os.path.join(user_data.folder(environ, layout.project), user_data.TRUSTED)
    base, _note = user_data.location(environ, layout.project)
    return os.path.join(base, user_data.TRUSTED)


def _env(environ: "dict[str, str] | None") -> "dict[str, str]":
    if environ is not None:
        return environ
    from deliberation.state.paths import hook_env

    return hook_env()


def stamp(layout: "Layout", environ: "dict[str, str] | None" = None) -> "int | list[int]":
    """What the config cache depends on besides config.json: the approvals file's identity."""
    try:
        st = os.lstat(_trust_path(_env(environ), layout))
    except OSError:
        return 0
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _read_trust(path: str) -> "dict[str, Any]":
    from deliberation.state import safe_read

    try:
        data = json.loads(safe_read.read_bytes(path, TRUST_LIMIT))
    except (OSError, ValueError):
        return {"schema_version": TRUST_VERSION, "projects": {}}
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        return {"schema_version": TRUST_VERSION, "projects": {}}
    return data


def approvals(layout: "Layout", environ: "dict[str, str] | None" = None) -> "dict[str, Any]":
    """{setting: digest} this user approved for this project."""
    entry = _read_trust(_trust_path(_env(environ), layout)).get("projects", {}).get(_project_key(layout))
    settings = entry.get("settings") if isinstance(entry, dict) else None
    return {k: v.get("sha256") for k, v in settings.items() if isinstance(v, dict)} if isinstance(settings, dict) else {}


def split(raw: object, layout: "Layout", environ: "dict[str, str] | None" = None) -> "tuple[list[Item], list[Item]]":
    """(approved, pending) items of a raw config."""
    items = requested(raw)
    if not items:
        return [], []
    ok = approvals(layout, environ)
    approved = [i for i in items if ok.get(i.name) == i.digest()]
    return approved, [i for i in items if ok.get(i.name) != i.digest()]


def read_raw(layout: "Layout") -> "dict[str, Any]":
    """config.json as parsed ({} when absent or unreadable: consent is about what is there)."""
    from deliberation.state import safe_read

    try:
        raw = json.loads(safe_read.read_bytes(layout.config, CONFIG_LIMIT, root=layout.project))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def pending(layout: "Layout", environ: "dict[str, str] | None" = None) -> "list[Item]":
    """What waits for this user's approval: config.json's settings and the settings' env off."""
    waiting = split(read_raw(layout), layout, environ)[1]
    off = env_item(layout)
    if off is not None and approvals(layout, environ).get(ENV_OFF) != off.digest():
        waiting.append(off)
    return waiting


def is_strict(layout: "Layout", environ: "dict[str, str] | None" = None) -> bool:
    """config.json asks for strict mode and this user approved it (read without the models: a
    hook that failed before its config was resolved decides with this)."""
    raw = read_raw(layout)
    if raw.get("strict") is not True:
        return False
    approved, _waiting = split(raw, layout, environ)
    return any(i.name == "strict" for i in approved)


def _write_trust(path: str, data: "dict[str, Any]") -> None:
    tmp = "%s.tmp-%d-%s" % (path, os.getpid(), os.urandom(4).hex())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _change(layout: "Layout", environ: "dict[str, str] | None", edit: "Callable[[dict[str, Any]], T]") -> "T":
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


def approve(layout: "Layout", environ: "dict[str, str] | None" = None, now: "float | None" = None) -> "list[Item]":
    """Approve every setting the project asks for now (config.json's, its settings' env off), as
    it is now; returns them."""
    items = requested_all(layout)
    at = time.time() if now is None else now

    def edit(projects: "dict[str, Any]") -> "list[Item]":
        projects[_project_key(layout)] = {
            "approved_at": at,
            "settings": {i.name: {"sha256": i.digest(), "value": i.value} for i in items},
        }
        return items

    return _change(layout, environ, edit)


def revoke(layout: "Layout", environ: "dict[str, str] | None" = None) -> bool:
    """Forget this project's approvals (its settings wait again); True when there were some."""
    return _change(layout, environ, lambda projects: projects.pop(_project_key(layout), None) is not None)


def effective(cfg: "dict[str, Any]", base: "dict[str, Any]", items: "Iterable[Item]") -> "dict[str, Any]":
    """`cfg` (the validated config as a dict) with each pending item's setting at its default."""
    out = json.loads(json.dumps(cfg))
    for item in items:
        *parents, leaf = item.name.split(".")
        node, here = out, base
        for part in parents:
            node, here = node.setdefault(part, {}), here.get(part, {})
        if leaf in here:
            node[leaf] = here[leaf]
        else:
            node.pop(leaf, None)
    return out
