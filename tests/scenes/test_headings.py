"""A scene's running heading names what is on screen: a new part under its own heading
(``NarratedScene.retitle``), not the one the scene opened with. The 1080p review read the
hook's puzzle heading over the Q/K/V cards, and the party's over the sentence's words."""

from __future__ import annotations

import pytest

from narration.numfmt import LANGS
from scenes.registry import discover

BY_ID = {s.scene_id: s for s in discover(cut=None)}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("scene_id", "key"), [("hook", "qkv_title"),
                                               ("ov_question", "qkv_title"),
                                               ("blind_date", "bridge_title")])
def test_the_last_part_of_a_scene_is_under_its_own_heading(scene_id, key, lang,
                                                           shipped_scene) -> None:
    scene = shipped_scene(BY_ID[scene_id], lang)
    assert scene.header_mob.text == scene.s(key).replace(" ", "")  # .text drops spaces
    assert scene.s(key) != scene.script.title
