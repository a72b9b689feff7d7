"""The projection scene: its working stays on screen long enough to read."""

from __future__ import annotations

import pytest

from narration.numfmt import LANGS
from scenes.registry import discover

SHIPPED_SCENE = "projections"  # the dry run these tests read (tests/conftest.py groups by it)
PROJECTIONS = next(s for s in discover() if s.scene_id == SHIPPED_SCENE)


@pytest.mark.parametrize("lang", LANGS)
def test_each_working_line_stays_two_seconds_after_the_voice_says_its_result(shipped_scene,
                                                                            lang):
    scene = shipped_scene(PROJECTIONS, lang)
    lines = scene.working
    q = scene.numbers.fill_blank.query
    assert [w.mark for w in lines] == [f"r{j}" for j in range(len(q))]  # one per entry of q
    beats = {b.id: b for b in scene._times}
    marks = scene.ctx.marks["multiply_q"]
    for w in lines:
        # the voice reaches the result at the beat's start plus the mark's time
        assert w.said_at == pytest.approx(beats[w.beat].start + marks[w.mark])
        assert w.gone_at is not None, f"{w.mark} never leaves"
        assert w.gone_at - w.said_at >= 2.0, (w.mark, w.said_at, w.gone_at)
    assert scene.layout_issues == []
