"""The project side of install.sh: what it writes into a project and how uninstall undoes it
(docs/INSTALL.md, "Into one project's settings", says what is written; docs/SECURITY.md why the
project is treated as someone else's input). Stdlib only: install.sh runs it with any Python
≥ 3.10 as `python -m deliberation.cli.install_settings install|uninstall|check …`.

A pure core (render_hooks, is_ours, strip_ours, merge, created_keys, unmerge, plan_copies,
plan_removals, restore_choice, shipped) plans every change; a thin shell reads and applies it.
Only manifest entries install itself writes count (`shipped`); a symlinked `.claude` folder or a
target that is a link, FIFO or device is refused before anything changes (`check_target`); every
project file is read through safe_read. A file whose new content equals the old is not touched.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable

from deliberation import plugin_root
from deliberation.state import atomic
from deliberation.core import shadows
from deliberation.state import client_files
from deliberation.state import safe_read
from deliberation.state.safe_read import kind_of
from deliberation.state.paths import GITIGNORE, make_dirs
from deliberation.names import inert, quoted
from deliberation.text import commands as command_texts

PYTHON_PLACEHOLDER = "@PYTHON@"
PLUGIN_PLACEHOLDER = "@PLUGIN@"
SETTINGS_REL = os.path.join(".claude", "settings.json")
BACKUP_SUFFIX = ".deliberation-backup"
STATE_REL = os.path.join(".claude", "deliberation")
MANIFEST_REL = os.path.join(STATE_REL, "install-manifest.json")
GITIGNORE_REL = os.path.join(STATE_REL, ".gitignore")
COPIED_DIRS = {"agents": ".md", "commands": ".md", "workflows": ".js"}  # folder → the files of it copied
MANIFEST_VERSION = 1
# the folders install may create (and uninstall remove when empty), shallowest first
SHIPPED_DIRS = (".claude", *(os.path.join(".claude", sub) for sub in COPIED_DIRS), STATE_REL)
READ_LIMIT = 16 << 20  # a settings file, a manifest, an agent file: far below this
AGENTS_PREFIX = os.path.join(".claude", "agents") + os.sep


class SettingsError(ValueError):
    """settings.json cannot be merged safely; the message says what to fix. Nothing was changed."""


Handler = dict
Predicate = Callable[[Handler], bool]


# ---------------------------------------------------------------------------------------------
# pure core: settings


def render_command(command: str, python: str, plugin: str) -> str:
    """Substitute the placeholders token by token and shell-quote the result (paths may hold
    spaces or quotes)."""
    tokens = shlex.split(command)
    out = [t.replace(PYTHON_PLACEHOLDER, python).replace(PLUGIN_PLACEHOLDER, plugin) for t in tokens]
    return " ".join(shlex.quote(t) for t in out)


def render_hooks(template_hooks: dict, python: str, plugin: str) -> dict:
    """The `hooks` object of settings.example.json with every command rendered."""
    hooks = copy.deepcopy(template_hooks)
    for groups in hooks.values():
        for group in groups:
            for handler in group.get("hooks", []):
                if isinstance(handler.get("command"), str):
                    handler["command"] = render_command(handler["command"], python, plugin)
    return hooks


def is_ours(handler: object, plugin: str, known_commands: Iterable[str] = ()) -> bool:
    """True when a hook handler was written by this plugin's installer."""
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    if command in set(known_commands):
        return True
    try:
        tokens = shlex.split(command)
    except ValueError:
        return False
    hooks_dir = os.path.normpath(os.path.join(plugin, "hooks")) + os.sep
    return any(os.path.isabs(t) and os.path.normpath(t).startswith(hooks_dir) for t in tokens)


def ours_predicate(plugin: str, known_commands: Iterable[str] = ()) -> Predicate:
    known = frozenset(known_commands)
    return lambda handler: is_ours(handler, plugin, known)


def check_shape(settings: object) -> None:
    """Refuse a settings document we cannot merge into without guessing."""
    if not isinstance(settings, dict):
        raise SettingsError(f"settings.json holds a JSON {type(settings).__name__}, not an object")
    hooks = settings.get("hooks")
    if hooks is None and "hooks" not in settings:
        return
    if not isinstance(hooks, dict):
        raise SettingsError(f"'hooks' in settings.json is a JSON {type(hooks).__name__}, not an object")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsError(f"'hooks.{event}' in settings.json is a JSON {type(groups).__name__}, not a list")


def _strip_groups(groups: list, pred: Predicate) -> list:
    """Groups with our handlers removed; a group left with no handler is dropped."""
    kept = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            kept.append(group)
            continue
        remaining = [h for h in handlers if not pred(h)]
        if len(remaining) == len(handlers):
            kept.append(group)
        elif remaining:
            kept.append({**group, "hooks": remaining})
    return kept


def strip_ours(hooks: dict, pred: Predicate) -> dict:
    """Every event's groups without our handlers; event keys are kept, even when emptied."""
    return {event: _strip_groups(groups, pred) if isinstance(groups, list) else groups for event, groups in hooks.items()}


def _our_groups(groups: list, pred: Predicate) -> list:
    return [g for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(pred(h) for h in g["hooks"])]


def merge(settings: dict, ours: dict, pred: Predicate) -> dict:
    """`settings` with our hook groups (`ours`: event → groups) in place of any earlier ones.

    Everything that is not ours is kept, in order. When an event already carries exactly our
    groups it is left as it is (so a second install changes nothing); otherwise our old
    handlers are removed and the new groups appended after the user's.
    """
    check_shape(settings)
    new = copy.deepcopy(settings)
    hooks = new.setdefault("hooks", {})
    for event, groups in list(hooks.items()):
        if event not in ours and _our_groups(groups, pred):
            hooks[event] = _strip_groups(groups, pred)  # stale: an event we no longer use
    for event, groups in ours.items():
        current = hooks.get(event, [])
        if _our_groups(current, pred) == groups:  # a mixed group never equals one of ours
            continue
        hooks[event] = _strip_groups(current, pred) + copy.deepcopy(groups)
    return new


def created_keys(settings: dict, ours: dict) -> "list[str]":
    """The keys merge() adds to `settings`: 'hooks' and 'hooks.<Event>'."""
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else None
    keys = [] if "hooks" in settings else ["hooks"]
    keys += [f"hooks.{event}" for event in ours if hooks is None or event not in hooks]
    return keys


def unmerge(settings: dict, pred: Predicate, created: Iterable[str] = ()) -> dict:
    """`settings` without our handlers; a key emptied by that goes only if install created it."""
    check_shape(settings)
    created = set(created)
    new = copy.deepcopy(settings)
    hooks = new.get("hooks")
    if not isinstance(hooks, dict):
        return new
    stripped = strip_ours(hooks, pred)
    for event in list(stripped):
        if stripped[event] == [] and f"hooks.{event}" in created:
            del stripped[event]
    if stripped or "hooks" not in created:
        new["hooks"] = stripped
    else:
        del new["hooks"]
    return new


def commands_of(hooks: dict) -> "list[str]":
    """Every command string in a hooks object, in order, without repeats."""
    seen: list[str] = []
    for groups in hooks.values():
        for group in groups:
            for handler in group.get("hooks", []):
                cmd = handler.get("command")
                if isinstance(cmd, str) and cmd not in seen:
                    seen.append(cmd)
    return seen


def dumps(settings: object) -> bytes:
    """How we write settings.json: 2-space indent, UTF-8, trailing newline."""
    return (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def restore_choice(
    current: dict, pred: Predicate, created: Iterable[str], created_file: bool, backup: "object | None"
) -> "tuple[str, dict]":
    """What uninstall does with settings.json: ('restore-backup' | 'delete' | 'write' | 'keep', doc).

    restore-backup — what remains equals the backed-up original: put its bytes back;
    delete — install created the file and nothing else is in it;
    write — the user changed other things since: write what remains, keep the backup;
    keep — nothing of ours is in the file.
    """
    remaining = unmerge(current, pred, created)
    if backup is not None and remaining == backup:
        return "restore-backup", remaining
    if created_file and remaining == {}:
        return "delete", remaining
    if remaining == current:
        return "keep", remaining
    return "write", remaining


# ---------------------------------------------------------------------------------------------
# pure core: what install may touch


def shipped(rel: object) -> bool:
    """A path install itself writes: `.claude/agents/<name>.md`, `.claude/commands/<name>.md`,
    `.claude/workflows/<name>.js` or the state dir's .gitignore — relative, normalised, no '..'.
    Nothing else of a manifest counts."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or os.path.normpath(rel) != rel:
        return False
    if rel == GITIGNORE_REL:
        return True
    parts = rel.split(os.sep)
    return (
        len(parts) == 3
        and parts[0] == ".claude"
        and parts[1] in COPIED_DIRS
        and parts[2].endswith(COPIED_DIRS[parts[1]])
        and not parts[2].startswith(".")
        and ".." not in parts
    )


def shipped_dir(rel: object) -> bool:
    return isinstance(rel, str) and rel in SHIPPED_DIRS


# ---------------------------------------------------------------------------------------------
# pure core: copied files


@dataclass(frozen=True)
class FileAction:
    kind: str  # copy | update | unchanged | keep-user | present | remove | forget
    path: str  # relative to the project
    detail: str = ""


def plan_copies(
    sources: "dict[str, str]", dests: "dict[str, str | None]", managed: "dict[str, str]"
) -> "tuple[list[FileAction], dict[str, str]]":
    """Decide each copy. `sources`: rel path → sha256 of the plugin's file; `dests`: rel path →
    sha256 of the file in the project (None when absent), for every path in sources or managed;
    `managed`: rel path → sha256 we wrote last time. Returns actions and the new managed map."""
    actions: list[FileAction] = []
    new_managed: dict[str, str] = {}
    for rel in sorted(sources):
        src, dest, ours = sources[rel], dests.get(rel), managed.get(rel)
        if dest is None:
            actions.append(FileAction("copy", rel))
            new_managed[rel] = src
        elif ours is not None and dest == ours:
            actions.append(FileAction("unchanged" if dest == src else "update", rel))
            new_managed[rel] = src
        elif ours is not None:
            actions.append(FileAction("keep-user", rel, "changed since install; not overwritten"))
            new_managed[rel] = ours
        elif dest == src:
            actions.append(FileAction("present", rel, "an identical file was already there; left as yours"))
        else:
            actions.append(FileAction("keep-user", rel, "exists and differs; not overwritten"))
    for rel in sorted(set(managed) - set(sources)):  # the plugin no longer ships it
        actions.extend(_removal(rel, dests.get(rel), managed[rel]))
    return actions, new_managed


def plan_removals(dests: "dict[str, str | None]", managed: "dict[str, str]") -> "list[FileAction]":
    """Uninstall: remove every managed file that is still exactly what we wrote."""
    actions: list[FileAction] = []
    for rel in sorted(managed):
        actions.extend(_removal(rel, dests.get(rel), managed[rel]))
    return actions


def _removal(rel: str, dest: "str | None", ours: str) -> "list[FileAction]":
    if dest is None:
        return []
    if dest == ours:
        return [FileAction("remove", rel)]
    return [FileAction("forget", rel, "changed since install; left in place")]


# ---------------------------------------------------------------------------------------------
# shell: reading and writing the project


def _read_project_file(path: str, root: "str | None") -> bytes:
    """A file of the target project through safe_read; a link, a FIFO, a device or a huge file
    is refused with a SettingsError naming it (nothing was changed)."""
    try:
        return safe_read.read_bytes(path, READ_LIMIT, root=root)
    except safe_read.Refused as exc:
        raise SettingsError(
            f"{path} is {exc.why}: install reads and replaces only regular files inside the "
            f"project; remove it (or replace it with a regular file), then re-run. "
            f"Nothing was changed."
        ) from None


def sha256_file(path: str, root: "str | None" = None) -> "str | None":
    try:
        return hashlib.sha256(_read_project_file(path, root)).hexdigest()
    except FileNotFoundError:
        return None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_json_file(path: str, what: str, root: "str | None" = None) -> "tuple[object, bytes] | None":
    """(document, raw bytes), None when absent; SettingsError when it is not valid JSON, or not
    a regular file (with `root`: read only from inside it, see _read_project_file)."""
    try:
        raw = _read_project_file(path, root)
    except FileNotFoundError:
        return None
    try:
        return json.loads(raw.decode("utf-8-sig")), raw
    except (UnicodeDecodeError, ValueError) as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}); fix or remove it, then re-run. Nothing was changed.") from None


def write_atomic(path: str, data: bytes, mode: "int | None" = None) -> None:
    """Temp file in the same directory, fsync, rename; keeps the old file's permissions."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    atomic.write(path, data, mode=mode, make_parent=None, exact_mode=True)


@dataclass
class Project:
    """Paths of what install touches in one project."""

    root: str

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    @property
    def settings(self) -> str:
        return self.path(SETTINGS_REL)

    @property
    def backup(self) -> str:
        return self.settings + BACKUP_SUFFIX

    @property
    def manifest(self) -> str:
        return self.path(MANIFEST_REL)


def load_manifest(project: Project) -> dict:
    found = read_json_file(project.manifest, "install manifest", project.root)
    if found is None or not isinstance(found[0], dict):
        return {}
    return found[0]


def manifest_files(manifest: dict, plan: "Plan | None" = None) -> "dict[str, str]":
    """The manifest's files install itself writes (`shipped`); any other entry is said and ignored."""
    files = got if isinstance(got := manifest.get("files"), dict) else {}
    out = {}
    for rel, digest in files.items():
        if shipped(rel) and isinstance(digest, str):
            out[rel] = digest
        elif plan is not None:
            plan.say(
                f"manifest: ignored entry {quoted(rel)}: not a file install.sh writes (only .claude/agents/*.md, "
                f".claude/commands/*.md and {GITIGNORE_REL}); left alone"
            )
    return out


def manifest_dirs(manifest: dict, plan: "Plan | None" = None) -> "list[str]":
    dirs = got if isinstance(got := manifest.get("created_dirs"), list) else []
    for d in dirs:
        if not shipped_dir(d) and plan is not None:
            plan.say(f"manifest: ignored folder {quoted(d)}: not one install.sh creates; left alone")
    return [d for d in dirs if shipped_dir(d)]


def _lstat_mode(path: str) -> "int | None":
    """The mode of `path` itself (a link is not followed), None when nothing is there."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None


def check_target(project: Project) -> None:
    """Refuse a target whose folders install writes into are links (or not folders), or whose
    files install reads or replaces are links, FIFOs or devices: SettingsError, nothing changed."""
    for rel in SHIPPED_DIRS:
        path = project.path(rel)
        if (mode := _lstat_mode(path)) is None:
            continue
        if stat.S_ISLNK(mode):
            raise SettingsError(
                f"{path} is a symbolic link (to {os.readlink(path)}): install writes only inside "
                "the project, not through links; make it a real folder (or remove it), then re-run. "
                "Nothing was changed."
            )
        if not stat.S_ISDIR(mode):
            raise SettingsError(f"{path} is not a folder; move it away, then re-run. Nothing was changed.")
    names = [SETTINGS_REL, SETTINGS_REL + BACKUP_SUFFIX, MANIFEST_REL, GITIGNORE_REL]
    for sub in COPIED_DIRS:
        folder = project.path(os.path.join(".claude", sub))
        try:
            names += [os.path.join(".claude", sub, n) for n in sorted(os.listdir(folder)) if n.endswith(COPIED_DIRS[sub])]
        except OSError:
            pass
    for rel in names:
        path = project.path(rel)
        if (mode := _lstat_mode(path)) is not None and not stat.S_ISREG(mode):
            raise SettingsError(
                f"{path} is {kind_of(mode)}: install reads and replaces only regular files inside "
                "the project; remove it (or replace it with a regular file), then re-run. "
                "Nothing was changed."
            )


def load_template(plugin: str) -> dict:
    path = os.path.join(plugin, "settings.example.json")
    found = read_json_file(path, "template")
    if found is None:
        raise SettingsError(f"{path} is missing: the plugin folder is incomplete")
    doc = found[0]
    if not isinstance(doc, dict) or not isinstance(doc.get("hooks"), dict):
        raise SettingsError(f"{path} has no 'hooks' object")
    return doc["hooks"]


def read_settings(project: Project) -> "tuple[dict | None, bytes | None]":
    found = read_json_file(project.settings, "settings", project.root)
    if found is None:
        return None, None
    doc, raw = found
    check_shape(doc)
    return doc, raw  # type: ignore[return-value]  # check_shape refused any doc that is not a dict


def installed_name(sub: str, name: str) -> str:
    """The file name a copied file gets in a project (text/commands.installed_name for a command)."""
    return command_texts.installed_name(name) if sub == "commands" else name


def plugin_files(plugin: str) -> "dict[str, bytes]":
    """rel path in the project → content, for every file install copies."""
    files: dict[str, bytes] = {}
    for sub, ext in COPIED_DIRS.items():
        src_dir = os.path.join(plugin, sub)
        if not os.path.isdir(src_dir):
            continue
        for name in sorted(os.listdir(src_dir)):
            src = os.path.join(src_dir, name)
            if name.endswith(ext) and os.path.isfile(src):
                with open(src, "rb") as fh:
                    data = fh.read()
                # a command says what is true where it runs: here /<command>, hooks wired by install.sh
                worded = command_texts.body(name, "project") if sub == "commands" else None
                files[os.path.join(".claude", sub, installed_name(sub, name))] = (
                    data if worded is None else worded.encode("utf-8")
                )
    files[GITIGNORE_REL] = GITIGNORE.encode("utf-8")
    return files


def _missing_dirs(project: Project, rels: Iterable[str]) -> "list[str]":
    """Directories (relative) that writing these files would create, shallowest first."""
    out: list[str] = []
    for rel in rels:
        parts = rel.split(os.sep)[:-1]
        for i in range(1, len(parts) + 1):
            d = os.sep.join(parts[:i])
            if d not in out and not os.path.isdir(project.path(d)):
                out.append(d)
    return sorted(out, key=lambda d: (d.count(os.sep), d))


@dataclass
class Plan:
    """Everything install or uninstall is about to do; `lines` describe it for a person."""

    lines: list[str] = field(default_factory=list)
    writes: "dict[str, bytes]" = field(default_factory=dict)  # rel → content
    deletes: list[str] = field(default_factory=list)  # rel files
    rmdirs: list[str] = field(default_factory=list)  # rel dirs, if empty
    mkdirs: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)


Ask = Callable[[str, str], bool]


def agent_conflicts(project: Project, contents: "dict[str, bytes]", kept: "set[str]") -> "dict[str, list[str]]":
    """{slug: the files (relative when inside the project) that take a shipped agent's name and
    are not the shipped file} — what the client would run for that bare type instead of the
    plugin's agent, once this install has written what it writes (`kept`: the shipped paths it
    leaves as they are). core/shadows.py decides; state/client_files.py finds the files."""
    planned = {project.path(rel): data for rel, data in contents.items() if rel.startswith(AGENTS_PREFIX) and rel not in kept}

    def files() -> "list[tuple[str, bytes | None]]":
        found = client_files.agent_files(project.root, client_files.home_of(os.environ))
        seen = {path for path, _data in found}
        return [(p, planned.get(p, d)) for p, d in found] + [(p, d) for p, d in planned.items() if p not in seen]

    def shipped_agent(slug: str) -> "bytes | None":
        return contents.get(os.path.join(AGENTS_PREFIX, f"{slug}.md"))

    judge = shadows.Vouch("", files, shipped_agent)
    out = {}
    for rel in sorted(contents):
        if rel.startswith(AGENTS_PREFIX) and not os.path.basename(rel).startswith(shadows.RENAMED):
            slug = os.path.basename(rel)[: -len(".md")]
            ok, bad = judge.judge(slug)
            if not ok:
                out[slug] = [
                    b if os.path.relpath(b, project.root).startswith("..") else os.path.relpath(b, project.root) for b in bad
                ]
    return out


def plan_install(project: Project, plugin: str, python: str, ask: "Ask | None" = None) -> Plan:
    plan = Plan()
    manifest = load_manifest(project)
    msettings = manifest.get("settings", {}) if isinstance(manifest.get("settings"), dict) else {}
    known = [c for c in msettings.get("commands", []) if isinstance(c, str)]
    pred = ours_predicate(plugin, known)
    ours = render_hooks(load_template(plugin), python, plugin)
    current, raw = read_settings(project)

    # settings.json
    base = current if current is not None else {}
    merged = merge(base, ours, pred)
    created_file = current is None or bool(msettings.get("created_file"))
    keys = sorted(set(msettings.get("created_keys", [])) | set(created_keys(base, ours)))
    if current is None:
        plan.writes[SETTINGS_REL] = dumps(merged)
        plan.say(f"settings: create {SETTINGS_REL} with the deliberation hooks")
    elif merged != current:
        if not created_file and not os.path.exists(project.backup):
            plan.writes[SETTINGS_REL + BACKUP_SUFFIX] = raw  # type: ignore[assignment]  # read with `current`: bytes
            plan.say(f"settings: back up the original to {SETTINGS_REL}{BACKUP_SUFFIX}")
        plan.writes[SETTINGS_REL] = dumps(merged)
        plan.say(f"settings: merge the deliberation hooks into {SETTINGS_REL} (other keys and hooks kept)")
    else:
        plan.say(f"settings: {SETTINGS_REL} already has the deliberation hooks; unchanged")

    # copied files and the state dir's .gitignore
    contents = plugin_files(plugin)
    managed = manifest_files(manifest, plan)
    dests = {rel: sha256_file(project.path(rel), project.root) for rel in set(contents) | set(managed)}
    sources = {rel: sha256_bytes(data) for rel, data in contents.items()}
    actions, new_managed = plan_copies(sources, dests, managed)
    replaced = _resolve_agent_conflicts(project, contents, actions, plan, ask)
    if replaced is not None:  # the plugin's own agents under their own names, or over the user's files
        sources = {rel: sha256_bytes(data) for rel, data in contents.items()}
        dests = {rel: sha256_file(project.path(rel), project.root) for rel in set(contents) | set(managed)}
        taken = {rel: digest for rel in replaced if (digest := dests.get(rel))}  # written over, as if ours
        actions, new_managed = plan_copies(sources, dests, {**managed, **taken})
    for a in actions:
        if a.kind in ("copy", "update"):
            plan.writes[a.path] = contents[a.path]
            plan.say(f"files: {a.kind} {a.path}")
        elif a.kind == "remove":
            plan.deletes.append(a.path)
            plan.say(f"files: remove {a.path} (no longer shipped)")
        elif a.kind in ("keep-user", "present", "forget"):
            plan.say(f"files: keep your {a.path} ({a.detail})")
    n_unchanged = sum(a.kind == "unchanged" for a in actions)
    if n_unchanged:
        plan.say(f"files: {n_unchanged} installed file(s) already up to date")

    # the manifest: what uninstall will remove
    new_dirs = _missing_dirs(project, list(plan.writes) + [MANIFEST_REL])
    plan.mkdirs = new_dirs
    dirs = list(dict.fromkeys(manifest_dirs(manifest, plan) + [d for d in new_dirs if shipped_dir(d)]))
    doc = {
        "schema_version": MANIFEST_VERSION,
        "written_by": "deliberation install.sh",
        "plugin": plugin,
        "python": python,
        "settings": {
            "path": SETTINGS_REL,
            "created_file": created_file,
            "created_keys": keys,
            "commands": commands_of(ours),
            "backup": None if created_file else SETTINGS_REL + BACKUP_SUFFIX,
        },
        "files": dict(sorted(new_managed.items())),
        "created_dirs": dirs,
    }
    data = (json.dumps(doc, indent=2) + "\n").encode("utf-8")
    try:
        same = _read_project_file(project.manifest, project.root) == data
    except FileNotFoundError:
        same = False
    if not same:
        plan.writes[MANIFEST_REL] = data
        plan.say(f"manifest: record what was installed in {MANIFEST_REL}")
    for d in new_dirs:
        plan.say(f"dirs: create {d}/")
    return plan


def _resolve_agent_conflicts(
    project: Project, contents: "dict[str, bytes]", actions: "list[FileAction]", plan: Plan, ask: "Ask | None"
) -> "list[str] | None":
    """Files that take a shipped agent's name and are not the shipped file: the plugin vouches
    only for its own agents, so such a file's reports would never count. For the one at the
    shipped path, the person is asked (on a terminal) whether the plugin's replaces it (theirs
    kept beside it as .deliberation-backup); otherwise — declined, no terminal, or a file
    elsewhere that claims the name — the plugin's own goes in as `deliberation-<slug>.md`
    (`name: deliberation-<slug>`), which the plugin's refusals name. Returns the shipped paths
    to write over the user's file ([] if none), or None when nothing conflicts."""
    kept = {a.path for a in actions if a.kind == "keep-user"}
    conflicts = agent_conflicts(project, contents, kept)
    if not conflicts:
        return None
    replaced: "list[str]" = []
    for slug, files in conflicts.items():
        rel = os.path.join(AGENTS_PREFIX, f"{slug}.md")
        others = [f for f in files if f != rel]
        if rel in files and ask is not None and ask(rel, slug):
            original = _read_project_file(project.path(rel), project.root)
            plan.writes[rel + BACKUP_SUFFIX] = original
            replaced.append(rel)
            plan.say(f"agents: replace {quoted(rel)} with the plugin's {slug} (yours kept as {quoted(rel + BACKUP_SUFFIX)})")
            if not others:
                continue
        renamed = os.path.join(AGENTS_PREFIX, f"{shadows.RENAMED}{slug}.md")
        contents[renamed] = shadows.renamed_content(contents[rel], slug)
        plan.say(
            f"agents: {', '.join(quoted(f) for f in (others if rel in replaced else files))} take(s) the name of the plugin's "
            f"{slug} and is not the plugin's file: the plugin vouches only for its own agents, so its reports never count; "
            f"the plugin's is installed as {quoted(renamed)} (subagent_type {shadows.RENAMED}{slug})"
        )
    return replaced


def plan_uninstall(project: Project, plugin: str) -> Plan:
    plan = Plan()
    manifest = load_manifest(project)
    if not manifest:
        plan.say(f"manifest: none at {MANIFEST_REL}; removing only hook handlers that run files in {plugin}/hooks/")
    msettings = manifest.get("settings", {}) if isinstance(manifest.get("settings"), dict) else {}
    known = [c for c in msettings.get("commands", []) if isinstance(c, str)]
    recorded = manifest.get("plugin") if isinstance(manifest.get("plugin"), str) else None
    pred = ours_predicate(recorded or plugin, known)
    if recorded and recorded != plugin:
        pred = (lambda a, b: lambda h: a(h) or b(h))(pred, ours_predicate(plugin))

    current, _raw = read_settings(project)
    if current is not None:
        backup_doc = None
        backup_raw = None
        found = None
        if os.path.exists(project.backup):
            try:
                found = read_json_file(project.backup, "backup", project.root)
            except SettingsError:
                found = None
        if found is not None:
            backup_doc, backup_raw = found
        choice, remaining = restore_choice(
            current, pred, msettings.get("created_keys", []), bool(msettings.get("created_file")), backup_doc
        )
        if choice == "restore-backup":
            plan.writes[SETTINGS_REL] = backup_raw  # type: ignore[assignment]  # a restore choice needs a backup read
            plan.deletes.append(SETTINGS_REL + BACKUP_SUFFIX)
            plan.say(f"settings: restore {SETTINGS_REL} byte for byte from its backup, remove the backup")
        elif choice == "delete":
            plan.deletes.append(SETTINGS_REL)
            plan.say(f"settings: remove {SETTINGS_REL} (install created it; nothing else is in it)")
        elif choice == "write":
            plan.writes[SETTINGS_REL] = dumps(remaining)
            extra = (
                f"; the original stays in {SETTINGS_REL}{BACKUP_SUFFIX} since the file changed since"
                if backup_doc is not None
                else ""
            )
            plan.say(f"settings: remove the deliberation hooks from {SETTINGS_REL}{extra}")
        else:
            plan.say(f"settings: no deliberation hooks in {SETTINGS_REL}; unchanged")
    else:
        plan.say(f"settings: no {SETTINGS_REL}; nothing to remove")

    managed = manifest_files(manifest, plan)
    for a in plan_removals({rel: sha256_file(project.path(rel), project.root) for rel in managed}, managed):
        if a.kind == "remove":
            plan.deletes.append(a.path)
            plan.say(f"files: remove {a.path}")
        else:
            plan.say(f"files: keep {a.path} ({a.detail})")
    if GITIGNORE_REL in plan.deletes and _state_left(project, plan.deletes):
        plan.deletes.remove(GITIGNORE_REL)
        plan.say(f"files: keep {GITIGNORE_REL} (the folder still holds the plugin's runtime state, which it keeps out of git)")
    if manifest:
        plan.deletes.append(MANIFEST_REL)
        plan.say(f"manifest: remove {MANIFEST_REL}")
    dirs = manifest_dirs(manifest, plan)
    plan.rmdirs = sorted(dirs, key=lambda d: -d.count(os.sep))
    return plan


def _state_left(project: Project, deletes: "list[str]") -> bool:
    """Whether the state folder keeps anything once `deletes`, the manifest and its .gitignore go."""
    going = {os.path.normpath(rel) for rel in deletes} | {MANIFEST_REL, GITIGNORE_REL}
    try:
        names = os.listdir(project.path(STATE_REL))
    except OSError:
        return False
    return any(os.path.join(STATE_REL, name) not in going for name in names)


def apply(project: Project, plan: Plan) -> None:
    if any(rel.startswith(STATE_REL + os.sep) for rel in plan.writes):
        os.makedirs(project.path(os.path.dirname(STATE_REL)), exist_ok=True)
        make_dirs(project.path(STATE_REL))  # the one place that creates the state folder (and its .gitignore)
    for rel, data in plan.writes.items():
        path = project.path(rel)
        mode = None
        if rel.endswith(BACKUP_SUFFIX):
            try:
                mode = os.stat(project.settings).st_mode & 0o7777
            except FileNotFoundError:
                pass
        write_atomic(path, data, mode)
    for rel in plan.deletes:
        try:
            os.unlink(project.path(rel))
        except FileNotFoundError:
            pass
    for rel in plan.rmdirs:
        try:
            os.rmdir(project.path(rel))
        except OSError:
            pass  # not empty (the user's or runtime files) or already gone: keep it


# ---------------------------------------------------------------------------------------------
# CLI for install.sh


def ask_replace(rel: str, slug: str) -> bool:
    """On a terminal: may the plugin's agent replace the project's file of its name?"""
    try:
        answer = input(
            f"install.sh: {quoted(rel)} takes the name of the plugin's {slug} agent but is not the plugin's file, so "
            f"its reports would never count. Replace it with the plugin's (yours is kept as {quoted(rel + BACKUP_SUFFIX)})? "
            f"[y/N] (N installs the plugin's as {slug} under the name deliberation-{slug}) "
        )
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deliberation.cli.install_settings", description="project side of install.sh")
    parser.add_argument("action", choices=("install", "uninstall", "check"))
    parser.add_argument("--project", required=True)
    parser.add_argument("--plugin", default=plugin_root())
    parser.add_argument("--python", help="interpreter the hook commands use (install)")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    project = Project(os.path.abspath(args.project))
    plugin = os.path.abspath(args.plugin)
    try:
        check_target(project)
        if args.action == "check":
            read_settings(project)
            load_template(plugin)
            return 0
        if args.action == "install":
            if not args.python:
                parser.error("install needs --python")
            asks = not args.dry_run and sys.stdin.isatty() and sys.stdout.isatty()
            plan = plan_install(project, plugin, args.python, ask_replace if asks else None)
        else:
            plan = plan_uninstall(project, plugin)
    except SettingsError as exc:
        print(f"install.sh: refusing: {exc}", file=sys.stderr)
        return 1
    if args.dry_run:
        print(f"  dry run: nothing is changed; {args.action} would do this:")
    for line in plan.lines:
        print(f"  {inert(line, None)}")
    if not args.dry_run:
        apply(project, plan)
    return 0


if __name__ == "__main__":
    sys.exit(main())
