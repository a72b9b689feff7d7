"""The quiz can be answered: time to think after each question, and a closing card."""

from __future__ import annotations

import pytest

from scenes.registry import discover

QUIZ = next(s for s in discover() if s.scene_id == "recap_quiz")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_question_leaves_at_least_eight_seconds_to_think(dry_run_scene, lang):
    scene = dry_run_scene(QUIZ, lang)
    times = {b.id: b for b in scene._times}
    thinks = [k for k in times if k.startswith("think")]
    assert len(thinks) == 4
    for k in thinks:  # silence after the spoken prompt, before the answer
        assert times[k].end - times[k].start - scene.ctx.speech[k] >= 8.0, k
    # every think beat tells the viewer to pause (on screen: the prompt; in the voice too)
    assert scene.s("pause")
    said = {b.id: b.text.display for b in scene.script.beats}
    assert sum(("暂停" in said[k]) or ("ause" in said[k]) for k in thinks) >= 2
    # the video ends on a closing card after the last answer, not on the answer's fade
    assert [b.id for b in scene._times][-2:] == ["a4", "outro"]
