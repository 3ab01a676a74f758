"""`deliberation doctor`: is this project's deliberation setup sound, in whichever form it is
installed? (docs/CLI.md, "`doctor` in each form", lists the checks.)

`run` finds the form, then checks the install, the settings, the config and the state, each
problem on its own line, exit 1 on any (`--json` for machines). Read-only: every project file is
read through safe_read, and an interpreter inside the project or named by a relative path (the
install manifest is a project file too) is never run.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass

from deliberation import SCHEMA_VERSION
from deliberation.names import inert, quoted
from deliberation.cli import install_settings as ins
from deliberation import plugin_root
from deliberation.runtime import plugin_env as penv
from deliberation.state.paths import Layout

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable

PLUGIN_OF_THIS_CODE = plugin_root()
DEPENDENCIES = ("pydantic", "orjson", "jsonschema")
MAX_ERRORS_PER_FILE = 20
SKIPPED_DIRS = ("records", "cache")
SKIPPED_FILES = ("install-manifest.json", ".gitignore", "errors.log")


@dataclass(frozen=True)
class Finding:
    area: str  # install | settings | config | state
    status: str  # ok | problem | note
    message: str


def ok(area: str, message: str) -> Finding:
    return Finding(area, "ok", message)


def problem(area: str, message: str) -> Finding:
    return Finding(area, "problem", message)


def note(area: str, message: str) -> Finding:
    return Finding(area, "note", message)


# ---------------------------------------------------------------------------------------------
# install


def config_dir(environ: "dict[str, str]") -> str:
    """The client's configuration folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    return environ.get("CLAUDE_CONFIG_DIR") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".claude")


def plugin_data_dir(plugin: str, environ: "dict[str, str]") -> "str | None":
    """The data folder of the plugin form that runs `plugin`: $CLAUDE_PLUGIN_DATA, else the
    folder under <config>/plugins/data/ whose `root` (written at every session start) names
    this plugin's lib/, else — for a copy in the client's cache — the folder of its marketplace."""
    if environ.get("CLAUDE_PLUGIN_DATA"):
        return environ["CLAUDE_PLUGIN_DATA"]
    data = os.path.join(config_dir(environ), "plugins", "data")
    lib = os.path.normpath(os.path.join(plugin, "lib"))
    try:
        names = sorted(n for n in os.listdir(data) if n.startswith("deliberation-"))
    except OSError:
        names = []
    for name in names:
        try:
            with open(os.path.join(data, name, penv.ROOT), encoding="utf-8") as fh:
                if fh.readline().strip() == lib:
                    return os.path.join(data, name)
        except (OSError, ValueError):
            continue
    cached = in_client_cache(plugin, environ)
    return os.path.join(data, f"deliberation-{cached}") if cached else None


def ran_from(data: "str | None") -> "str | None":
    """The plugin folder whose hooks the client's last session start ran, as that start recorded
    it in the data folder's `root` (its lib/), or None when none is recorded."""
    if not data:
        return None
    try:
        with open(os.path.join(data, penv.ROOT), encoding="utf-8") as fh:
            lib = fh.readline(4096).strip()
    except (OSError, ValueError):
        return None
    return os.path.dirname(os.path.normpath(lib)) if os.path.isabs(lib) and os.path.basename(lib) == "lib" else None


def in_client_cache(plugin: str, environ: "dict[str, str]") -> "str | None":
    """The marketplace's name when `plugin` is a copy in the client's plugin cache
    (<config>/plugins/cache/<marketplace>/<plugin>/<version>/), else None."""
    cache = os.path.normpath(os.path.join(config_dir(environ), "plugins", "cache")) + os.sep
    path = os.path.normpath(os.path.abspath(plugin))
    if not path.startswith(cache):
        return None
    parts = path[len(cache) :].split(os.sep)
    return parts[0] if len(parts) >= 3 and parts[0] else None


def plugin_form(plugin: str, environ: "dict[str, str]") -> "str | None":
    """'marketplace' or 'plugin-dir' when the client loads `plugin` as a plugin (its copy sits
    in the client's cache, or a session of it has run: $CLAUDE_PLUGIN_ROOT, or a data folder
    names it), else None."""
    if in_client_cache(plugin, environ):
        return "marketplace"
    root = environ.get("CLAUDE_PLUGIN_ROOT")
    if root and os.path.normpath(os.path.abspath(root)) == os.path.normpath(plugin):
        return "plugin-dir"
    data = plugin_data_dir(plugin, environ)
    if data and not environ.get("CLAUDE_PLUGIN_DATA") and os.path.isfile(os.path.join(data, penv.ROOT)):
        return "plugin-dir"
    return None


def plugin_python(plugin: str, data: "str | None", environ: "dict[str, str]") -> "tuple[str | None, str]":
    """(interpreter, where it comes from) as hooks/run.sh chooses it in the plugin form."""
    current = penv.read_current(data) if data else None
    if data and current and os.access(penv.env_python(data, current), os.X_OK):
        return penv.env_python(data, current), f"the plugin's environment in {data}"
    venv = os.path.join(plugin, ".venv", "bin", "python")
    if os.access(venv, os.X_OK):
        return venv, "the plugin folder's .venv"
    import shutil

    found = shutil.which("python3", path=environ.get("PATH"))
    return found, "python3 from PATH"


def _in_project(path: str, project: "str | None") -> bool:
    """A relative path, or one inside the project: written by whoever wrote the repository."""
    if not os.path.isabs(path):
        return True
    if not project:
        return False
    root = os.path.realpath(project) + os.sep
    return os.path.realpath(path).startswith(root) or os.path.abspath(path).startswith(os.path.abspath(project) + os.sep)


def find_plugin(manifest: dict, explicit: "str | None" = None, project: "str | None" = None) -> str:
    """The plugin folder: --plugin, else the one install recorded (unless it lies in the project),
    else the one holding this code."""
    if explicit:
        return os.path.abspath(explicit)
    recorded = manifest.get("plugin")
    if isinstance(recorded, str) and os.path.isdir(recorded) and not _in_project(recorded, project):
        return recorded
    return PLUGIN_OF_THIS_CODE


def hook_python(plugin: str, manifest: dict) -> str:
    recorded = manifest.get("python")
    return recorded if isinstance(recorded, str) and recorded else os.path.join(plugin, ".venv", "bin", "python")


def missing_dependencies(python: str) -> "str | None":
    """None when `python` imports every dependency, else one line saying what failed."""
    code = (
        "import importlib, sys\nbad = []\n"
        f"for m in {DEPENDENCIES!r}:\n"
        "    try:\n        importlib.import_module(m)\n"
        "    except Exception as exc:\n        bad.append(f'{m} ({type(exc).__name__})')\n"
        "print(', '.join(bad)); sys.exit(1 if bad else 0)"
    )
    try:
        proc = subprocess.run(
            [python, "-I", "-c", code], capture_output=True, cwd="/", text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run {python}: {exc}"
    if proc.returncode == 0:
        return None
    what = proc.stdout.strip() or (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
    return f"missing in {python}: {what}"


def check_plugin_install(plugin: str, form: str, environ: "dict[str, str]", project: "str | None" = None) -> "list[Finding]":
    """The install check of the plugin form: the interpreter hooks/run.sh picks, and the
    plugin's own environment (set up at session start) when that one is not ready."""
    if not os.path.isfile(os.path.join(plugin, "hooks", "hooks.json")):
        return [problem("install", f"plugin folder {plugin} has no hooks/hooks.json: reinstall the plugin")]
    data = plugin_data_dir(plugin, environ)
    python, where = plugin_python(plugin, data, environ)
    status = (penv.read_json(os.path.join(data, penv.STATUS)) or {}) if data else {}
    ran = ran_from(data)
    if ran and ran != os.path.normpath(os.path.abspath(plugin)):
        # a marketplace added from a local folder: the client runs the hooks of that folder, not
        # of its cache copy (measured on 2.1.332), and each session start records which
        out = [
            note(
                "install",
                f"{form} form: the client's last session ran hooks/hooks.json of {ran}, not of this copy "
                f"({plugin}); `{os.path.join(ran, 'bin', 'deliberation')} doctor` checks that one",
            )
        ]
    else:
        out = [note("install", f"{form} form: the client runs hooks/hooks.json of {plugin}")]
    if python is None:
        return out + [problem("install", "no python3 on PATH: install Python 3.10 or newer")]
    if _in_project(python, project):
        return out + [
            problem(
                "install",
                f"the hooks' interpreter {python} lies in the project: not run (put a python3 outside the project first on PATH)",
            )
        ]
    missing = missing_dependencies(python)
    if missing is None:
        return out + [ok("install", f"interpreter {python} ({where}) imports {', '.join(DEPENDENCIES)}")]
    log = os.path.join(data, penv.LOG) if data else "the plugin's data folder"
    if data and penv.set_up_running(data):
        return out + [
            problem(
                "install",
                f"the plugin's environment is being set up now (see {log}); "
                f"until it is ready the hooks use {python}, which lacks: {missing}",
            )
        ]
    if status.get("state") == "failed":
        return out + [
            problem("install", f"the plugin's environment could not be set up: {status.get('reason') or 'see ' + log}; {missing}")
        ]
    return out + [
        problem(
            "install",
            f"{missing}: the plugin's environment is not set up yet; it is set up at the "
            "start of a Claude Code session with the plugin enabled",
        )
    ]


def _installer(plugin: str, project: "str | None") -> str:
    """The install step as it runs from anywhere: install.sh by its path, with the project named
    (run without one in the plugin's own folder, install.sh refuses)."""
    words = [os.path.join(plugin, "install.sh")] + ([project] if project else [])
    return " ".join(shlex.quote(w) for w in words)


def check_install(plugin: str, manifest: dict, project: "str | None" = None) -> "list[Finding]":
    out: list[Finding] = []
    template = os.path.join(plugin, "settings.example.json")
    if not os.path.isfile(template) or not os.path.isdir(os.path.join(plugin, "hooks")):
        return [problem("install", f"plugin folder {plugin} is incomplete (no settings.example.json or hooks/)")]
    python = hook_python(plugin, manifest)
    if _in_project(python, project):
        return [
            problem(
                "install",
                f"the install manifest names the hook interpreter {python!r}, which lies in the "
                f"project (or is a relative path): not run — re-run {_installer(plugin, project)}",
            )
        ]
    if not manifest:
        out.append(
            note(
                "install",
                "no install manifest (.claude/deliberation/install-manifest.json): install.sh has not run for this project",
            )
        )
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        out.append(problem("install", f"hook interpreter {python} does not exist: run {_installer(plugin, project)}"))
        return out
    missing = missing_dependencies(python)
    if missing:
        out.append(problem("install", f"dependencies {missing}: run {_installer(plugin, project)}"))
    else:
        out.append(ok("install", f"interpreter {python} imports {', '.join(DEPENDENCIES)}"))
    return out


# ---------------------------------------------------------------------------------------------
# settings


def expected_wiring(plugin: str) -> "list[tuple[str, str | None, str]]":
    """(event, matcher, script file name) for every handler of settings.example.json."""
    hooks = ins.load_template(plugin)
    return [
        (event, group.get("matcher"), os.path.basename(shlex.split(h["command"])[-1]))
        for event, groups in hooks.items()
        for group in groups
        for h in group.get("hooks", [])
    ]


def _our_handlers(settings: dict, pred: "Callable[[dict], bool]") -> "list[tuple[str, str | None, list[str]]]":
    """(event, matcher, command tokens) of every handler of ours in settings."""
    found = []
    for event, groups in (settings.get("hooks") or {}).items():
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for h in group["hooks"]:
                if pred(h):
                    try:
                        found.append((event, group.get("matcher"), shlex.split(h["command"])))
                    except ValueError:
                        continue
    return found


def check_plugin_settings(project: str, plugin: str, form: str) -> "list[Finding]":
    """The plugin form wires its hooks itself: settings.json must not wire them again."""
    rel = ins.SETTINGS_REL
    try:
        settings, _ = ins.read_settings(ins.Project(project))
    except ins.SettingsError as exc:
        return [problem("settings", str(exc).replace(" Nothing was changed.", ""))]
    wired = len(expected_wiring(plugin))
    if settings is not None:
        theirs = _our_handlers(settings, _runs_our_scripts(plugin))
        if theirs:
            return [
                problem(
                    "settings",
                    f"{rel} wires {len(theirs)} deliberation hook handler(s) as well as the "
                    f"{form} form's hooks/hooks.json: every hook runs twice; remove them "
                    f"with install.sh --uninstall {project}",
                )
            ]
    return [ok("settings", f"the plugin's hooks/hooks.json wires the hooks ({wired} handler(s)); {rel} needs none")]


def _runs_our_scripts(plugin: str) -> "Callable[[object], bool]":
    """A handler that runs one of the plugin's hook scripts, from any copy of the plugin."""
    scripts = {script for _e, _m, script in expected_wiring(plugin)}

    def pred(handler: object) -> bool:
        command = handler.get("command") if isinstance(handler, dict) else None
        if not isinstance(command, str):
            return False
        try:
            tokens = shlex.split(command)
        except ValueError:
            return False
        return any(os.path.basename(t) in scripts and os.path.basename(os.path.dirname(t)) == "hooks" for t in tokens)

    return pred


def check_settings(project: str, plugin: str, manifest: dict) -> "list[Finding]":
    proj = ins.Project(project)
    rel = ins.SETTINGS_REL
    try:
        settings, _ = ins.read_settings(proj)
    except ins.SettingsError as exc:
        return [problem("settings", str(exc).replace(" Nothing was changed.", ""))]
    if settings is None:
        return [
            problem(
                "settings",
                f"no {rel}: the hooks are not installed (install the plugin from its "
                f"marketplace, or load it with claude --plugin-dir {plugin}, or run "
                f"{plugin}/install.sh {project} — one of the three)",
            )
        ]
    msettings = got if isinstance(got := manifest.get("settings"), dict) else {}
    known = [c for c in msettings.get("commands", []) if isinstance(c, str)]
    pred = ins.ours_predicate(plugin, known)
    handlers = _our_handlers(settings, pred)
    if not handlers:
        return [
            problem(
                "settings",
                f"{rel} has no deliberation hooks: run {plugin}/install.sh {project} "
                "(or load the plugin with claude --plugin-dir)",
            )
        ]
    out: list[Finding] = []
    for event, matcher, script in expected_wiring(plugin):
        hits = [t for e, m, t in handlers if e == event and m == matcher and os.path.basename(t[-1]) == script]
        where = f"{event}" + (f" (matcher '{matcher}')" if matcher else "")
        if not hits:
            out.append(problem("settings", f"{rel}: no {where} hook runs hooks/{script}: re-run {_installer(plugin, project)}"))
        elif len(hits) > 1:
            out.append(
                problem("settings", f"{rel}: {where} runs hooks/{script} {len(hits)} times: re-run {_installer(plugin, project)}")
            )
    for event, _matcher, tokens in handlers:
        for path in (tokens[0], tokens[-1]):
            if os.path.isabs(path) and not os.path.exists(path):
                out.append(
                    problem(
                        "settings",
                        f"{rel}: the {event} hook uses {path}, which does not exist: re-run {_installer(plugin, project)}",
                    )
                )
    if not out:
        out.append(ok("settings", f"{rel} wires {len(handlers)} hook handler(s) to existing scripts"))
    return out


# ---------------------------------------------------------------------------------------------
# config and state files


def check_config(layout: Layout) -> "list[Finding]":
    from deliberation.state import consent
    from deliberation.state.config import read_config_file
    from deliberation.text import consent as words

    off = consent.env_item(layout)  # the project's settings env switching the plugin off waits too
    held = (
        [problem("config", words.doctor_line(off.name, off.value, layout.project))]
        if off and not consent.env_off_approved(layout)
        else []
    )
    if not os.path.lexists(layout.config):
        return held or [ok("config", "no config.json: every default applies")]
    from deliberation.app.probes import validate_probes

    config, problems = read_config_file(layout.config, layout.project)
    problems = problems + validate_probes(config.escalation)
    out = [problem("config", p) for p in problems]
    waiting = [i for i in consent.pending(layout) if i.name != consent.ENV_OFF]
    out += held
    for item in waiting:
        out.append(problem("config", words.doctor_line(item.name, item.value, layout.project)))
    if not out:
        approved = consent.requested_all(layout)
        extra = f" ({', '.join(i.name for i in approved)} approved by you)" if approved else ""
        return [ok("config", f"config.json is valid{extra}")]
    return out


def _errors(validator: "Any", doc: object) -> "list[str]":
    from deliberation.state.schemas import explain

    errs = [f"at {line}" for line in explain(validator, doc)]
    if isinstance(doc, dict):
        v = doc.get("schema_version")
        if isinstance(v, int) and not isinstance(v, bool) and v > SCHEMA_VERSION:
            errs.append(f"schema_version {v} is newer than this plugin's {SCHEMA_VERSION}: upgrade the plugin")
    return errs


NOT_OURS = (
    "not written by this user's plugin (no valid seal: committed to the repository, copied from "
    "elsewhere, or damaged); the hooks ignore it"
)


def validate_state_file(path: str, rel: str, validator: "Any", jsonl: bool, key: "bytes | None" = None) -> "list[Finding]":
    """One problem per schema violation or missing seal (capped), or one ok. `key` None: the
    seals are not checked (a shared file, or this user's key is not available)."""
    from deliberation.state import safe_read, seal
    from deliberation.state.store import STATE_LIMIT

    root = path[: -len(rel)].rstrip(os.sep)
    try:
        raw = safe_read.read_bytes(path, STATE_LIMIT * 16 if jsonl else STATE_LIMIT, root=root)
    except safe_read.Refused as exc:
        return [problem("state", f"{rel}: not read — {exc.why}")]
    except OSError as exc:
        return [problem("state", f"{rel}: unreadable ({exc.strerror})")]
    problems: list[str] = []
    if key is not None and not jsonl and not seal.is_sealed_by(key, rel, raw):
        problems.append(f"{rel}: {NOT_OURS}")
    if jsonl:
        foreign = 0
        for n, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            if key is not None and not seal.is_sealed_by(key, rel, line):
                foreign += 1
                if foreign == 1:
                    problems.append(f"{rel} line {n}: {NOT_OURS}")
            try:
                doc = json.loads(line)
            except ValueError as exc:
                problems.append(f"{rel} line {n}: not valid JSON ({exc})")
                continue
            problems += [f"{rel} line {n}: {e}" for e in _errors(validator, doc)]
    else:
        try:
            doc = json.loads(raw)
        except ValueError as exc:
            return [problem("state", f"{rel}: not valid JSON ({exc})")]
        problems += [f"{rel}: {e}" for e in _errors(validator, doc)]
    if not problems:
        return [ok("state", f"{rel} matches its schema")]
    shown = [problem("state", p) for p in problems[:MAX_ERRORS_PER_FILE]]
    if len(problems) > MAX_ERRORS_PER_FILE:
        shown.append(problem("state", f"{rel}: … and {len(problems) - MAX_ERRORS_PER_FILE} more"))
    return shown


def state_files(root: str) -> "list[str]":
    """Every file under the state dir, relative, sorted ('/' separated)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return out


def check_state(layout: Layout) -> "list[Finding]":
    from deliberation.state import schemas

    if not os.path.isdir(layout.root):
        return [ok("state", f"no state dir yet ({os.path.relpath(layout.root, layout.project)})")]
    from deliberation.state import seal, user_data
    from deliberation.state.paths import hook_env

    out: list[Finding] = []
    try:
        key: "bytes | None" = user_data.key(hook_env(), layout.project)
    except user_data.Unavailable as exc:
        key = None
        out.append(problem("state", f"the seals of the runtime files cannot be checked: {exc}"))
    validators: dict = {}
    checked = 0
    for rel in state_files(layout.root):
        base = rel.rsplit("/", 1)[-1]
        if ".corrupt-" in base:
            out.append(problem("state", f"{rel}: quarantined after it failed to parse or validate; inspect it, then delete it"))
            continue
        if (
            base.endswith(".lock") or rel in SKIPPED_FILES or rel.split("/", 1)[0] in SKIPPED_DIRS or rel == "config.json"
        ):  # config: check_config names each key
            continue
        if ".tmp-" in base:
            out.append(note("state", f"{rel}: temp file left by an interrupted write; safe to delete"))
            continue
        found = schemas.schema_for_path(rel)
        if found is None:
            out.append(note("state", f"{rel}: not a file the plugin knows; not checked"))
            continue
        name, jsonl = found
        if name not in validators:
            validators[name] = schemas.validator(name)
        results = validate_state_file(
            os.path.join(layout.root, rel), rel, validators[name], jsonl, None if rel in seal.SHARED else key
        )
        checked += 1
        out += [f for f in results if f.status != "ok"]
    cache = layout.config_cache
    if key is not None and os.path.lexists(cache):
        from deliberation.state import safe_read

        try:
            sealed_ok = seal.is_sealed_by(key, seal.rel_of(layout, cache), safe_read.read_bytes(cache, 4 << 20))
        except OSError:
            sealed_ok = False
        if not sealed_ok:
            out.append(problem("state", f"cache/config.resolved.json: {NOT_OURS} and rebuild it from config.json"))
    if not any(f.status == "problem" for f in out):
        out.append(ok("state", f"{checked} state file(s) match their schemas"))
    errors_log = layout.errors_log
    if os.path.exists(errors_log):
        out.append(note("state", f"errors.log holds internal errors ({os.path.getsize(errors_log)} bytes): see {errors_log}"))
    return out


# ---------------------------------------------------------------------------------------------
# command


def diagnose(
    project: "str | None" = None, plugin: "str | None" = None, environ: "dict[str, str] | None" = None
) -> "tuple[str, str, list[Finding]]":
    """(project, plugin, findings) — every check, in order, for the install form found: the
    install.sh form when install.sh recorded this project (or its hooks are in settings.json),
    else the plugin form when the client loads this plugin folder, else neither (a problem)."""
    environ = dict(os.environ) if environ is None else environ
    layout = Layout(project)
    try:
        manifest = ins.load_manifest(ins.Project(layout.project))
        findings: list[Finding] = []
    except ins.SettingsError as exc:
        manifest = {}
        findings = [problem("install", str(exc).replace(" Nothing was changed.", ""))]
    plugin_dir = find_plugin(manifest, plugin, layout.project)
    form = None if manifest or _settings_wire_us(layout.project, plugin_dir) else plugin_form(plugin_dir, environ)
    if form:
        findings += check_plugin_install(plugin_dir, form, environ, layout.project)
        findings += check_plugin_settings(layout.project, plugin_dir, form)
    else:
        findings += check_install(plugin_dir, manifest, layout.project)
        findings += check_settings(layout.project, plugin_dir, manifest)
    findings.append(check_command(plugin_dir, environ))
    findings += check_names(layout, "deliberation:" if form else "")
    findings += check_config(layout)
    findings += check_state(layout)
    return layout.project, plugin_dir, findings


def check_names(layout: Layout, prefix: str) -> "list[Finding]":
    """Every file that answers one of the plugin's names instead of the plugin (core/shadows.py):
    a command, the workflow, and in the install.sh form an agent file that takes a shipped
    agent's name and is not the shipped file."""
    from deliberation.app import shadowed, vouch
    from deliberation.text import shadows as words

    found = [
        problem("names", words.doctor_line(kind, name, files)) for kind, name, files in shadowed.at_session_start(layout, prefix)
    ]
    for slug, files in vouch.foreign_definitions(vouch.session_vouch(layout, prefix)).items():
        found.append(problem("names", words.doctor_line("agent", slug, [vouch.shown(p, layout.project) for p in files])))
    return found or [ok("names", "no file of the project takes a name of the plugin's (commands, workflow, agents)")]


def check_command(plugin: str, environ: "dict[str, str]") -> Finding:
    """Whether a terminal with this PATH has a `deliberation` of its own, else the one step
    that gives it one, with this machine's paths (runtime/command_path.py)."""
    from deliberation.runtime import command_path

    found = command_path.on_path(environ)
    if found:
        return ok("install", f"command: `deliberation` in a terminal runs {found}")
    line = command_path.path_line(command_path.default_bin(environ), environ)
    return note(
        "install",
        "command: no `deliberation` on this PATH outside a plugin folder (Claude Code's Bash "
        f"tool has the plugin's own): {command_path.advice(plugin, environ)}" + (f"; then {line}" if line else ""),
    )


def _settings_wire_us(project: str, plugin: str) -> bool:
    """True when the project's settings.json runs this plugin folder's hook scripts."""
    try:
        settings, _ = ins.read_settings(ins.Project(project))
    except ins.SettingsError:
        return False
    return settings is not None and bool(_our_handlers(settings, ins.ours_predicate(plugin)))


def add_arguments(parser: "argparse.ArgumentParser", name: str) -> None:
    parser.add_argument("--plugin", metavar="DIR", help="plugin folder (default: the one install.sh recorded, else this code's)")


LABEL = {"ok": "ok     ", "problem": "PROBLEM", "note": "note   "}


def is_plugin_folder(folder: str) -> bool:
    """`folder` is a copy of the plugin itself (its clone): its code and its installer, which
    refuses to install into it."""
    return os.path.isfile(os.path.join(folder, "lib", "deliberation", "__init__.py")) and os.path.isfile(
        os.path.join(folder, "install.sh")
    )


def demo_projects(tmp: "str | None" = None) -> "list[str]":
    """The projects `./install.sh --demo` left in the temporary folder, newest first."""
    import glob
    import tempfile

    found = glob.glob(os.path.join(tmp or tempfile.gettempdir(), "deliberation-demo-*", "project"))

    def age(path: str) -> float:
        try:
            return -os.path.getmtime(path)
        except OSError:
            return 0.0

    return sorted(found, key=age)


def run_in_plugin_folder(args: "argparse.Namespace", project: str) -> int:
    """`doctor` in the plugin's own folder: nothing to check (exit 0), and what to check instead."""
    from deliberation.runtime.command_path import terminal_command
    from deliberation.text import terminal

    cmd = terminal_command(PLUGIN_OF_THIS_CODE, dict(os.environ))
    lines = terminal.clone_doctor(project, cmd, demo_projects())
    if getattr(args, "json", False):
        print(
            json.dumps(
                {
                    "project": project,
                    "plugin": project,
                    "plugin_folder": True,
                    "ok": True,
                    "problems": 0,
                    "findings": [asdict(note("install", " ".join(line.strip() for line in lines)))],
                },
                indent=2,
            )
        )
    else:
        print("\n".join(lines))
    return 0


def run(args: "argparse.Namespace") -> int:
    here = os.path.abspath(getattr(args, "project", None) or os.getcwd())
    if not getattr(args, "plugin", None) and is_plugin_folder(here):
        return run_in_plugin_folder(args, here)
    project, plugin, findings = diagnose(getattr(args, "project", None), getattr(args, "plugin", None))
    problems = [f for f in findings if f.status == "problem"]
    if getattr(args, "json", False):
        print(
            json.dumps(
                {
                    "project": project,
                    "plugin": plugin,
                    "ok": not problems,
                    "problems": len(problems),
                    "findings": [asdict(f) for f in findings],
                },
                indent=2,
            )
        )
    else:
        print(f"deliberation doctor: project {quoted(project)}, plugin {quoted(plugin)}")
        for f in findings:  # a name from the project reaches the terminal inert (names.py)
            print(f"{LABEL[f.status]} {f.area:<8} {inert(f.message, None)}")
        print(f"{len(problems)} problem(s)" if problems else "no problems found")
    return 1 if problems else 0


if __name__ == "__main__":
    import argparse

    _parser = argparse.ArgumentParser(prog="deliberation doctor")
    _parser.add_argument("--project")
    _parser.add_argument("--json", action="store_true")
    add_arguments(_parser, "doctor")
    sys.exit(run(_parser.parse_args()))
