"""Every line of working stays on screen at least 2 s after the voice reaches its result.

Each scene records its lines of working (products, sums, divisions, the weighted sum), the
cue mark by which the voice has said the result and when the line left the stage (noted by
the scene as the animation that took it off began). Built with Manim's dry run on the beat
timings; the times are checked against the scene's own marks.
"""

from __future__ import annotations

import pytest

from narration.numfmt import LANGS
from scenes.base import WORKING_HOLD
from scenes.registry import discover

# every scene that writes out working, in both cuts
WORKING_SCENES = ("projections", "dot_product", "softmax", "weighted_sum", "worked_example",
                  "ov_scores", "ov_softmax", "ov_weighted_sum")
INFOS = {s.scene_id: s for s in discover(cut=None)}


def test_two_seconds_is_the_hold():
    assert WORKING_HOLD == 2.0


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scene_id", WORKING_SCENES)
def test_each_working_line_stays_two_seconds_after_the_voice_says_its_result(
        shipped_scene, scene_id: str, lang: str) -> None:
    scene = shipped_scene(INFOS[scene_id], lang)
    assert scene.working, f"{scene_id} records no line of working"
    beats = {b.id: b for b in scene._times}
    for w in scene.working:
        # the result is said at the beat's start plus its mark (or the end of its speech)
        said = (scene.ctx.speech[w.beat] if w.mark == "end"
                else scene.ctx.marks[w.beat][w.mark])
        assert w.said_at == pytest.approx(beats[w.beat].start + said), (w.beat, w.mark)
        assert w.gone_at is not None, f"{w.beat}/{w.mark} never leaves"
        assert w.gone_at - w.said_at >= WORKING_HOLD, (w.beat, w.mark, w.said_at, w.gone_at)


@pytest.mark.parametrize("lang", LANGS)
def test_a_value_said_while_the_scores_must_still_show_appears_as_it_is_said(
        dry_run_scene, monkeypatch, lang: str) -> None:
    """The worked example's √d value, said before the scores' lines have shown their 2 s
    (Kokoro reads it 1.5 s into its beat): the division appears beside the lines as it is
    said, not after they go, and the lines still stay their 2 s."""
    import scenes.base

    real = scenes.base.load_context

    def early(scene_id, plan):
        ctx = real(scene_id, plan)
        ctx.marks["scale"]["about"] = min(ctx.marks["scale"]["about"], 1.0)
        return ctx

    monkeypatch.setattr(scenes.base, "load_context", early)
    scene = dry_run_scene(INFOS["worked_example"], lang)
    assert scene.ctx.marks["scale"]["about"] == 1.0
    assert not [w for w in scene.warnings if "{@about}" in w], scene.warnings
    for w in scene.working:
        assert w.gone_at is not None and w.gone_at - w.said_at >= WORKING_HOLD, w
