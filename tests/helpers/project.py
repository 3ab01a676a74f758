"""A test project: its state folder, its config, its deliberations and registry; a plugin copy and its install.sh run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

STATE = Path(".claude") / "deliberation"


def state_dir(project) -> Path:
    return Path(project) / STATE


def write_config(project, cfg: dict, approve: bool = True) -> None:
    """`.claude/deliberation/config.json` = `cfg`, this user's own: approved as written (`deliberation
    trust`), since a committed setting that is not known to tighten waits for that (state/consent.py).
    `approve=False`: a config the repository committed, nobody approved."""
    d = state_dir(project)
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(cfg))
    if approve:
        from deliberation.state import consent
        from deliberation.state.paths import Layout

        consent.approve(Layout(str(project)))


def load_delib(project, did: "str | None" = None) -> dict:
    """The deliberation `did`, or the newest one (a test that expects exactly one uses
    `only_delib`)."""
    folder = state_dir(project) / "deliberations"
    if did is not None:
        return json.loads((folder / f"{did}.json").read_text())
    files = sorted(folder.glob("*.json"))
    assert files, "no deliberation file"
    return json.loads(files[-1].read_text())


def only_delib(project) -> dict:
    """The project's one deliberation (fails when there are none or several)."""
    files = sorted((state_dir(project) / "deliberations").glob("*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def reverse_class(project, task_type: str) -> None:
    """The decision class is reversal-prone (a person reversed one before): T2 routes to a person."""
    from deliberation import SCHEMA_VERSION

    path = state_dir(project) / "reversals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "classes": {
                    task_type: {
                        "decision_class": task_type,
                        "reversals": 1,
                        "decisions": ["d-00000000-1"],
                        "reasons": ["rolled back after a stale-price incident"],
                    }
                },
            }
        )
    )


def validate_schemas(project) -> int:
    """Every state file validates against its generated schema; returns how many were checked."""
    import os

    from deliberation.state import schemas

    root = state_dir(project)
    checked = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            found = schemas.schema_for_path(rel)
            if not found:
                continue
            schema, jsonl = found
            v = schemas.validator(schema)
            text = open(os.path.join(dirpath, name), encoding="utf-8").read()
            docs = [json.loads(line) for line in text.splitlines() if line.strip()] if jsonl else [json.loads(text)]
            for doc in docs:
                assert not schemas.explain(v, doc), (rel, schemas.explain(v, doc))
                checked += 1
    return checked


# what a copy of the plugin holds (an install from a folder, the plugin cache)
PLUGIN_PARTS = (
    "lib",
    "hooks",
    "bin",
    ".claude-plugin",
    "agents",
    "commands",
    "workflows",
    "settings.example.json",
    "install.sh",
    "pyproject.toml",
    "README.md",
)


def copy_plugin(dest_parent: Path, name: str = "deliberation 0.1.0") -> Path:
    dest = dest_parent / name
    dest.mkdir(parents=True)
    for part in PLUGIN_PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", ".venv"))
        elif src.exists():
            shutil.copy2(src, dest / part)
    for sub in ("agents", "commands"):
        (dest / sub).mkdir(exist_ok=True)
    return dest


# The interpreter prefix install.sh is pointed at (DELIBERATION_VENV): this test run's own venv.
PREFIX = sys.prefix if (Path(sys.prefix) / "bin" / "python").exists() else None


def install(plugin: Path, *args, venv: "str | None" = PREFIX, env=None) -> subprocess.CompletedProcess:
    """Run the plugin copy's install.sh with `args`, without this process's DELIBERATION_* variables.
    Without `venv` install.sh makes its own, outside the plugin folder: under XDG_DATA_HOME, which
    is then a folder beside the plugin copy (never this user's ~/.local/share)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("DELIBERATION_")}
    if venv:
        full_env["DELIBERATION_VENV"] = venv
    else:
        full_env["XDG_DATA_HOME"] = str(plugin.parent / "xdg-data")
    full_env.update(env or {})
    return subprocess.run(
        ["bash", str(plugin / "install.sh"), *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
