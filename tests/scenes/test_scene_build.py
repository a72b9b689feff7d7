"""Every scene builds all its beats in both languages, in script order, inside the frame."""

from __future__ import annotations

import pytest

from narration.numfmt import LANGS
from narration.scripts import check_parity
from scenes.registry import discover

SCENES = discover(cut=None)  # both cuts


def test_scene_ids_are_unique_and_ordered():
    ids = [s.scene_id for s in SCENES]
    assert len(ids) == len(set(ids))
    assert "worked_example" in ids


def test_every_scene_has_parallel_scripts():
    check_parity([s.scene_id for s in SCENES])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("info", SCENES, ids=[s.scene_id for s in SCENES])
def test_scene_builds_every_beat_inside_the_frame(info, lang, shipped_scene):
    """... and clean: no text over text, touching another or a box's edge, or garbled in a
    transition, at any animation's end (``scenes.overlap``); no Q, K or V lit in another
    colour (``scenes.role_colours``)."""
    scene = shipped_scene(info, lang)
    played = [b.id for b in scene._times]
    assert played == [b.id for b in scene.script.beats]
    assert scene.layout_issues == []
    assert scene.overlaps == []
    assert [w for w in scene.warnings if "out of its role's colour" in w] == []


def test_plain_manim_cli_builds_a_scene_without_a_plan(tmp_path):
    """Authors iterate on visuals with the plain Manim CLI; durations are then estimated."""
    import os
    import subprocess
    import sys

    info = next(s for s in SCENES if s.scene_id == "worked_example")
    env = os.environ | {"QKV_LANG": "en"}
    p = subprocess.run(
        [sys.executable, "-m", "manim", "render", "-ql", "--dry_run", "--media_dir",
         str(tmp_path), str(info.path), info.class_name],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert "durations estimated" in p.stderr
