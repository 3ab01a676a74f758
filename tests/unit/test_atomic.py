"""state.atomic: the one writer of whole files — old or new content, never half; modes; leftovers."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from deliberation.state import atomic


def test_a_file_is_replaced_whole_and_its_folders_are_made_private(tmp_path):
    path = tmp_path / "a" / "b" / "f.json"
    atomic.write(str(path), b"one")
    atomic.write(str(path), b"two")
    assert path.read_bytes() == b"two"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "a").st_mode) == 0o700  # every level it created
    assert os.listdir(path.parent) == ["f.json"]  # no temp file left


def test_exact_mode_is_set_before_the_rename_whatever_the_umask(tmp_path):
    path = tmp_path / "settings.json"
    old = os.umask(0o077)
    try:
        atomic.write(str(path), b"{}", mode=0o644, make_parent=None, exact_mode=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_write_many_syncs_each_folder_once_and_names_them(tmp_path):
    items = [(str(tmp_path / "x" / f"{i}.json"), b"%d" % i) for i in range(3)] + [(str(tmp_path / "y" / "z"), b"z")]
    folders = atomic.write_many(items)
    assert folders == {str(tmp_path / "x"): ["0.json", "1.json", "2.json"], str(tmp_path / "y"): ["z"]}


def test_a_dead_writers_temp_file_is_swept_a_live_ones_is_not(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f"f.json.tmp-{dead.pid}-1").write_bytes(b"half")
    (tmp_path / f"f.json.tmp-{os.getppid()}-1").write_bytes(b"a live writer's")
    atomic.sweep_temps(str(tmp_path), ["f.json"])
    assert sorted(os.listdir(tmp_path)) == [f"f.json.tmp-{os.getppid()}-1"]
