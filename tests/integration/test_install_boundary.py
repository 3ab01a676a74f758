"""install.sh acts only inside its target, and the target is someone else's input.

A cloned repository can commit `.claude/deliberation/install-manifest.json` (the list of what
install wrote, which uninstall removes), symlinked `.claude/agents` or `.claude/deliberation`
folders, agent files that are links to devices, and Python modules that shadow the standard
library for a `python -m` run in the project directory. Each is tried here against the real
install.sh."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from tests.helpers.project import PREFIX, copy_plugin, install
from tests.helpers.reliability import summary


def manifest_listing(project: Path, files: dict, dirs: "list[str]" = ()) -> None:
    state = project / ".claude" / "deliberation"
    state.mkdir(parents=True, exist_ok=True)
    (state / "install-manifest.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "written_by": "deliberation install.sh",
                "plugin": "/nowhere",
                "settings": {"path": ".claude/settings.json", "created_file": True, "created_keys": [], "commands": []},
                "files": files,
                "created_dirs": list(dirs),
            }
        )
    )


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_committed_manifest_deletes_nothing_outside_what_install_ships(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins")
    project = tmp_path / "cloned"
    (project / "src").mkdir(parents=True)
    own = project / "src" / "app.py"
    own.write_text("print('the project's own code')\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("a file of the user's, next to the project\n")
    absolute = tmp_path / "elsewhere" / "notes.txt"
    absolute.parent.mkdir()
    absolute.write_text("an absolute path the manifest names\n")
    manifest_listing(
        project,
        {
            str(absolute): sha(absolute),
            "../outside.txt": sha(outside),
            "src/app.py": sha(own),
            ".claude/agents/../../src/app.py": sha(own),
        },
    )
    proc = install(plugin, project)
    assert proc.returncode == 0, proc.stderr
    survived = [p.exists() for p in (own, outside, absolute)]
    assert survived == [True, True, True], proc.stdout
    assert "ignored" in proc.stdout and "not a file install.sh writes" in proc.stdout, proc.stdout
    proc = install(plugin, "--uninstall", project)
    assert proc.returncode == 0 and [p.exists() for p in (own, outside, absolute)] == [True, True, True]
    summary(
        f"hostile/install manifest: 4 entries outside what install ships (absolute, ../, the project's "
        f"src/app.py) → {3 - sum(survived)} deleted (before: 3)"
    )


def test_uninstall_removes_no_folder_outside_the_project(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins")
    project = tmp_path / "cloned"
    project.mkdir()
    outside_empty = tmp_path / "empty-outside"
    outside_empty.mkdir()
    inside_empty = project / "build"
    inside_empty.mkdir()
    assert install(plugin, project).returncode == 0
    doc = json.loads((project / ".claude" / "deliberation" / "install-manifest.json").read_text())
    doc["created_dirs"] += ["../empty-outside", str(outside_empty), "build"]
    (project / ".claude" / "deliberation" / "install-manifest.json").write_text(json.dumps(doc))
    proc = install(plugin, "--uninstall", project)
    assert proc.returncode == 0, proc.stderr
    assert outside_empty.is_dir() and inside_empty.is_dir(), proc.stdout


def test_symlinked_target_folders_are_refused_and_nothing_is_written_outside(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins")
    for folder in (".claude/agents", ".claude/deliberation", ".claude"):
        project = tmp_path / folder.replace("/", "_")
        outside = tmp_path / ("outside" + folder.replace("/", "_"))
        outside.mkdir()
        (project / folder).parent.mkdir(parents=True, exist_ok=True)
        (project / folder).symlink_to(outside)
        proc = install(plugin, project)
        assert proc.returncode != 0, (folder, proc.stdout)
        assert "symbolic link" in proc.stderr and "Nothing was changed" in proc.stderr, proc.stderr
        assert list(outside.iterdir()) == [], (folder, list(outside.iterdir()))


def test_an_agent_file_that_is_a_link_to_a_device_does_not_hang_the_installer(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins")
    project = tmp_path / "cloned"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "red-team.md").symlink_to("/dev/ptmx")
    t0 = time.monotonic()
    proc = install(plugin, project)
    took = time.monotonic() - t0
    assert took < 60 and proc.returncode != 0, (took, proc.stdout)
    assert "red-team.md" in proc.stderr and "symbolic link" in proc.stderr, proc.stderr
    summary(
        f"hostile/install: .claude/agents/red-team.md → /dev/ptmx: refused with a message in {took:.1f} s "
        "(before: the installer hung)"
    )


def test_install_run_inside_the_project_imports_nothing_of_it(tmp_path):
    plugin = copy_plugin(tmp_path / "plugins")
    project = tmp_path / "cloned"
    project.mkdir()
    for name in ("argparse.py", "hashlib.py", "json.py", "pydantic.py", "pip.py"):
        (project / name).write_text(f"open({str(project / 'RAN')!r}, 'a').write('{name}\\n')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DELIBERATION_")}
    if PREFIX:
        env["DELIBERATION_VENV"] = PREFIX
    import subprocess

    proc = subprocess.run(
        ["bash", str(plugin / "install.sh")],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(project),
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (project / "RAN").exists(), (project / "RAN").read_text()
    assert (project / ".claude" / "settings.json").is_file()
