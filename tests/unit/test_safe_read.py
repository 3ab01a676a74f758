"""The one read primitive for project files: no link followed, regular files only, bounded, never
blocking (a FIFO, /dev/ptmx, /dev/zero)."""

from __future__ import annotations

import os

import pytest

from deliberation.state import safe_read
from deliberation.state.safe_read import Refused


def test_a_regular_file_is_read_whole(tmp_path):
    (tmp_path / "a.json").write_bytes(b'{"x": 1}')
    assert safe_read.read_bytes(str(tmp_path / "a.json"), 100) == b'{"x": 1}'
    assert safe_read.read_bytes(str(tmp_path / "a.json"), 100, root=str(tmp_path)) == b'{"x": 1}'


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        safe_read.read_bytes(str(tmp_path / "nope"), 100)
    with pytest.raises(FileNotFoundError):
        safe_read.read_bytes(str(tmp_path / "no" / "such" / "file"), 100, root=str(tmp_path))


@pytest.mark.parametrize("target", ["/dev/ptmx", "/dev/zero", "/dev/null"])
def test_a_link_to_a_device_is_refused_without_opening_it(tmp_path, target):
    link = tmp_path / "config.json"
    link.symlink_to(target)
    with pytest.raises(Refused, match="symbolic link"):
        safe_read.read_bytes(str(link), 1 << 20)


def test_a_fifo_is_refused_and_never_blocks(tmp_path):
    fifo = tmp_path / "x.meta.json"
    os.mkfifo(fifo)
    with pytest.raises(Refused, match="FIFO"):
        safe_read.read_bytes(str(fifo), 1 << 20)
    with pytest.raises(Refused, match="FIFO"):
        safe_read.open_file(str(fifo))


def test_a_file_over_the_limit_is_refused_before_a_byte_is_read(tmp_path):
    big = tmp_path / "config.json"
    with open(big, "wb") as fh:
        fh.truncate(2 << 30)  # 2 GiB, sparse: as large as a file git inflates from 2 MB
    with pytest.raises(Refused, match="more than the 1 MiB") as info:
        safe_read.read_bytes(str(big), 1 << 20)
    assert isinstance(info.value, OSError)  # callers that only know OSError treat it as unreadable


def test_a_link_to_another_project_s_file_is_refused(tmp_path):
    other = tmp_path / "other" / ".claude" / "deliberation"
    other.mkdir(parents=True)
    (other / "escalations.json").write_text('{"open": []}')
    here = tmp_path / "here" / ".claude" / "deliberation"
    here.mkdir(parents=True)
    (here / "escalations.json").symlink_to("../../../other/.claude/deliberation/escalations.json")
    with pytest.raises(Refused, match="symbolic link"):
        safe_read.read_bytes(str(here / "escalations.json"), 1 << 20, root=str(tmp_path / "here"))


def test_a_linked_folder_below_the_root_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.json").write_text("{}")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "deliberation").symlink_to(elsewhere)
    path = project / ".claude" / "deliberation" / "config.json"
    assert safe_read.read_bytes(str(path), 100) == b"{}"  # without a root only the file itself is checked
    with pytest.raises(Refused, match="'deliberation' on the way is a symbolic link"):
        safe_read.read_bytes(str(path), 100, root=str(project))


def test_a_path_outside_the_root_is_refused(tmp_path):
    (tmp_path / "x").write_text("x")
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(Refused, match="outside"):
        safe_read.read_bytes(str(root / ".." / "x"), 100, root=str(root))


def test_a_file_on_the_way_is_file_not_found(tmp_path):
    (tmp_path / "sessions").write_text("not a folder")
    with pytest.raises(FileNotFoundError):
        safe_read.read_bytes(str(tmp_path / "sessions" / "s" / "session.json"), 100, root=str(tmp_path))


def test_open_file_streams_a_regular_file(tmp_path):
    (tmp_path / "events.jsonl").write_bytes(b"a\nb\n")
    fh, size = safe_read.open_file(str(tmp_path / "events.jsonl"), root=str(tmp_path))
    with fh:
        assert size == 4 and fh.read() == b"a\nb\n"
