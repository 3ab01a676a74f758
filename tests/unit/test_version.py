"""One version: plugin.json, the package, pyproject.toml, the marketplace entry and the
changelog agree; scripts/set_version.py changes them together."""

from __future__ import annotations

import datetime
import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

import deliberation

ROOT = Path(__file__).resolve().parents[2]


def load_set_version():
    spec = importlib.util.spec_from_file_location("set_version", ROOT / "scripts" / "set_version.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest() -> dict:
    return json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))


def marketplace() -> dict:
    return json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))


def newest_release(changelog: str) -> str:
    headings = re.findall(r"(?m)^## \[?(\d+\.\d+\.\d+[^\]\s]*)\]?", changelog)
    assert headings, "CHANGELOG.md has no release heading"
    return headings[0]


def test_plugin_json_the_package_pyproject_and_the_changelog_agree():
    version = manifest()["version"]
    assert load_set_version().SEMVER.match(version), version
    assert deliberation.__version__ == version
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # pyproject.toml has no version of its own: it reads the package's
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "deliberation.__version__"}
    assert newest_release((ROOT / "CHANGELOG.md").read_text(encoding="utf-8")) == version


def test_the_marketplace_lists_this_plugin_without_a_second_version():
    entries = [p for p in marketplace()["plugins"] if p["name"] == manifest()["name"]]
    assert len(entries) == 1, marketplace()
    entry = entries[0]
    assert entry["source"] == "./"
    # plugin.json's version is the one the client installs by; a second copy could only drift
    assert entry.get("version", manifest()["version"]) == manifest()["version"]
    assert "version" not in entry


def test_set_version_writes_every_place(tmp_path):
    sv = load_set_version()
    root = tmp_path / "repo"
    for rel in (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "lib/deliberation/__init__.py", "CHANGELOG.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, root / rel)
    changelog = root / "CHANGELOG.md"
    # the copy starts without pending changes (the repository's own may have an Unreleased section)
    changelog.write_text(re.sub(r"(?ms)^## Unreleased\n.*?(?=^## )", "", changelog.read_text()))
    with pytest.raises(ValueError, match="neither a '## Unreleased' heading"):
        sv.set_version(root, "0.9.0")
    text = changelog.read_text()
    changelog.write_text(text.replace("\n## ", "\n## Unreleased\n\n- A change.\n\n## ", 1))
    day = datetime.date(2027, 1, 2)
    assert sv.set_version(root, "0.9.0", today=day) == [
        ".claude-plugin/plugin.json",
        "lib/deliberation/__init__.py",
        "CHANGELOG.md",
    ]
    assert json.loads((root / ".claude-plugin" / "plugin.json").read_text())["version"] == "0.9.0"
    assert '__version__ = "0.9.0"' in (root / "lib" / "deliberation" / "__init__.py").read_text()
    assert newest_release(changelog.read_text()) == "0.9.0"
    assert "## 0.9.0 - 2027-01-02\n\n- A change." in changelog.read_text()
    # the rest of plugin.json is kept
    assert {k: v for k, v in json.loads((root / ".claude-plugin" / "plugin.json").read_text()).items() if k != "version"} == {
        k: v for k, v in manifest().items() if k != "version"
    }
    assert sv.set_version(root, "0.9.0") == []
    with pytest.raises(ValueError, match="not a semantic version"):
        sv.set_version(root, "1.0")


def test_the_license_file_is_the_one_plugin_json_and_pyproject_name():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text
    assert manifest()["license"] == "MIT"
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == {"text": "MIT"}


def test_plugin_json_links_are_real_addresses_or_absent():
    # a homepage/repository field is only worth having with a real address in it
    for key in ("homepage", "repository"):
        value = manifest().get(key)
        if value is not None:
            url = value if isinstance(value, str) else value.get("url", "")
            assert re.match(r"https://[^<>\s]+$", url) and "owner" not in url and "example" not in url, (key, value)
