"""Files the plugin did not write are not believed: every state file the plugin reads back is
sealed (seal.SEALED) or one of the team's shared files, with the reason it may be (seal.SHARED).

- Every file `paths.Layout` names is in exactly one of SEALED, SHARED (with its reason) or
  UNREAD (written for people, never read back, with its reason): a new state file must be placed.
- Every read in lib/deliberation/ of a file `Layout` names — through the state readers, safe_read
  or the store, the path passed directly or through a variable or attribute it was assigned to —
  is of a SEALED or SHARED file: reading back an UNREAD one, or a file of no kind, fails here.
- The two files sealed last (the off switch, the prune's stamp) are written sealed and a planted
  copy is not believed.
"""

from __future__ import annotations

import ast
import fnmatch
import inspect
import json
import os

from deliberation.state import seal
from deliberation.state.paths import Layout
from tests.conftest import ROOT
from tests.helpers.factories import write_state

PKG = ROOT / "lib" / "deliberation"
MODULES = {
    os.path.relpath(os.path.join(folder, name), PKG.parent)[:-3].replace(os.sep, "."): os.path.join(folder, name)
    for folder, _dirs, names in os.walk(PKG)
    if "__pycache__" not in folder
    for name in names
    if name.endswith(".py")
}

# the functions that read a file's content (a stat or an existence check reads none)
READERS = {
    "state_json",
    "believed_json",
    "read_runtime",
    "read_bytes",
    "open_file",
    "lines_backwards",
    "sealed_lines_backwards",
    "turn_records",
    "find_event",
    "load",
    "unseal_file",
    "read_config_file",
}


def kind(rel: str) -> "str | None":
    found = [
        name
        for name, patterns in (("sealed", seal.SEALED), ("shared", seal.SHARED), ("unread", seal.UNREAD))
        if any(fnmatch.fnmatchcase(rel, p) for p in patterns)
    ]
    assert len(found) <= 1, f"{rel} is in {found}: one kind only"
    return found[0] if found else None


def layout_files() -> "dict[str, str]":
    """{Layout attribute: the place of its file in the state folder} (folders left out)."""
    lay = Layout("/p")
    out = {}
    for name, member in inspect.getmembers(Layout):
        if (
            name.startswith("_")
            or name.endswith("_dir")
            or name in ("checked", "checked_parent", "link_on_the_way", "check_root")
        ):
            continue
        if isinstance(member, property):
            path = getattr(lay, name)
        elif inspect.isfunction(member) and len(inspect.signature(member).parameters) >= 2:
            path = getattr(lay, name)("s1")
        else:
            continue
        out[name] = seal.rel_of(lay, path)
    out["record(html)"] = seal.rel_of(lay, lay.record("s1", "html"))
    return out


def test_every_state_file_has_one_kind_and_each_exception_its_reason():
    files = layout_files()
    assert {"switch", "retention_stamp", "events", "record", "config"} <= set(files)  # the walk finds them
    unplaced = sorted(f"{name} ({rel})" for name, rel in files.items() if kind(rel) is None)
    assert unplaced == [], f"state files of no kind (add each to seal.SEALED, SHARED or UNREAD): {unplaced}"
    for table in (seal.SHARED, seal.UNREAD):
        assert all(isinstance(why, str) and len(why) > 40 for why in table.values()), table


def _layout_attr(node: ast.AST) -> "str | None":
    """`X` of an expression `…layout.X` or `…layout.X(…)` (also inside layout.checked(…))."""
    for sub in ast.walk(node):
        target = sub.func if isinstance(sub, ast.Call) else sub
        if isinstance(target, ast.Attribute) and target.attr not in ("checked", "checked_parent", "root", "project"):
            owner = target.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
            if name in ("layout", "lay"):
                return target.attr
    return None


def _key(node: ast.AST) -> "str | None":
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def read_backs() -> "dict[str, set[str]]":
    """{Layout attribute: the modules that read its file back}. A path goes to a reader directly
    or through a name assigned in the same function, or an attribute (`self._journal_path`)
    assigned anywhere in the module."""
    found: "dict[str, set[str]]" = {}
    for module, path in MODULES.items():
        tree = ast.parse(open(path, encoding="utf-8").read())
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        attrs: "dict[str, str]" = {}  # self.x = …layout.X… anywhere in the module
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and (attr := _layout_attr(node.value)) is not None:
                attrs.update({t.attr: attr for t in node.targets if isinstance(t, ast.Attribute)})
        for fn in functions:
            local = {
                t.id: attr
                for node in ast.walk(fn)
                if isinstance(node, ast.Assign) and (attr := _layout_attr(node.value)) is not None
                for t in node.targets
                if isinstance(t, ast.Name)
            }
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call) or _key(node.func) not in READERS:
                    continue
                for arg in node.args[:2]:
                    attr = _layout_attr(arg)
                    if attr is None:
                        key = _key(arg) or ""
                        attr = local.get(key) if isinstance(arg, ast.Name) else attrs.get(key)
                    if attr is not None:
                        found.setdefault(attr, set()).add(module)
    return found


def kind_of_read(attr: str, files: "dict[str, str]") -> "str | None":
    """The kind of what a read of `attr` reads: its file's, or for a folder (`…_dir`) the one kind
    all of the folder's files share (None when they differ)."""
    if attr in files:
        return kind(files[attr])
    folder = seal.rel_of(Layout("/p"), getattr(Layout("/p"), attr))
    kinds = {kind(rel) for rel in files.values() if rel.startswith(folder + "/")}
    return kinds.pop() if len(kinds) == 1 else None


def test_every_file_the_plugin_reads_back_is_sealed_or_shared_with_a_reason():
    files = layout_files()
    reads = read_backs()
    # the scan sees the reads it must see (else it could pass by seeing nothing)
    assert {
        "switch",
        "retention_stamp",
        "escalations",
        "events",
        "config_cache",
        "session_state",
        "pending_prompt",
        "journal",
        "deliberation",
        "lineage",
        "reversals",
        "config",
    } <= set(reads), sorted(reads)
    bad = sorted(
        f"{attr} ({files.get(attr, 'a folder')}) read by {sorted(mods)}"
        for attr, mods in reads.items()
        if kind_of_read(attr, files) not in ("sealed", "shared")
    )
    assert bad == [], f"read back but neither sealed nor one of the team's shared files: {bad}"


def test_the_off_switch_is_sealed_and_a_planted_one_is_not_believed(tmp_path):
    from deliberation.state.session_switch import read_switch, write_switch

    lay = Layout(str(tmp_path))
    write_switch(lay, "s1", "off", "command", 5.0)
    raw = open(lay.switch("s1"), "rb").read()
    assert seal.unseal_file(lay, lay.switch("s1"), raw) and json.loads(raw)["checks"] == "off"
    assert read_switch(lay, "s1") == {"schema_version": 1, "checks": "off", "by": "command", "at": 5.0}
    for planted in (
        {"schema_version": 1, "checks": "off", "by": "command", "at": 1.0},  # would switch the checks off
        {"schema_version": 1, "checks": "on", "by": "command", "at": 1.0},
    ):  # would override DELIBERATION=off
        with open(lay.switch("s1"), "w") as fh:
            json.dump(planted, fh)
        assert read_switch(lay, "s1") is None
    os.unlink(lay.switch("s1"))
    assert read_switch(lay, "s1") is None


def test_the_prune_stamp_is_sealed_and_a_planted_summary_is_not_shown(tmp_path):
    from deliberation.app import retention

    lay = Layout(str(tmp_path))
    write_state(lay.lineage("s-old"), {"schema_version": 1, "session_id": "s-old", "spawns": []})
    result = retention.at_session_start(lay, {}, "s-now", 1e10)
    assert result is not None and retention.last_run(lay)["at"] == 1e10
    assert seal.unseal_file(lay, lay.retention_stamp, open(lay.retention_stamp, "rb").read())
    with open(lay.retention_stamp, "w") as fh:
        json.dump({"schema_version": 1, "at": 1.0, "removed": 999, "freed_bytes": 1}, fh)
    assert retention.last_run(lay) is None
