"""Every scene builds all its beats in both languages, in script order, inside the frame."""

from __future__ import annotations

import pytest

from narration.numfmt import LANGS
from narration.scripts import check_parity
from scenes.registry import discover

SCENES = discover()


def test_scene_ids_are_unique_and_ordered():
    ids = [s.scene_id for s in SCENES]
    assert len(ids) == len(set(ids))
    assert "worked_example" in ids


def test_every_scene_has_parallel_scripts():
    check_parity([s.scene_id for s in SCENES])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("info", SCENES, ids=[s.scene_id for s in SCENES])
def test_scene_builds_every_beat_inside_the_frame(info, lang, dry_run_scene):
    scene = dry_run_scene(info, lang)
    played = [b.id for b in scene._times]
    assert played == [b.id for b in scene.script.beats]
    assert scene.layout_issues == []
