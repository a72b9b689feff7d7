"""Outputs are written whole, with ordinary permissions, and replace old ones only at the end."""

from __future__ import annotations

import stat

import pytest

from common.atomic import atomic_path, atomic_write_text, replace_dir, write_json


def test_written_files_are_readable_by_others(tmp_path):
    write_json(tmp_path / "manifest.json", {"a": 1})
    mode = stat.S_IMODE((tmp_path / "manifest.json").stat().st_mode)
    assert mode & stat.S_IROTH and mode & stat.S_IRGRP


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "video.srt"
    atomic_write_text(target, "old")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise Boom
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["video.srt"]


def test_replace_dir_swaps_a_complete_directory(tmp_path):
    final = tmp_path / "zh"
    final.mkdir()
    (final / "video.mp4").write_text("old")
    staged = tmp_path / ".zh.staging"
    staged.mkdir()
    (staged / "video.mp4").write_text("new")
    replace_dir(staged, final)
    assert (final / "video.mp4").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zh"]
