"""The layout check itself: it must notice text in the subtitle band or off the frame."""

from __future__ import annotations

import pytest
from manim import DOWN, RIGHT, UP, FadeIn

from scenes import theme
from scenes.registry import discover
from tests.scenes.conftest import load_scene_class


def _worked_example():
    return next(s for s in discover() if s.scene_id == "worked_example")


def _first_beat_does(monkeypatch, first) -> object:
    """The worked example's scene info, its class replaced by one whose beats keep their
    timing and whose first beat only runs ``first(scene)``."""
    info = _worked_example()
    base = load_scene_class(info)

    class Altered(base):  # type: ignore[misc, valid-type]
        def narrate(self) -> None:
            for i, beat in enumerate(self.script.beats):
                with self.beat(beat.id):
                    if i == 0:
                        first(self)

    monkeypatch.setattr("tests.scenes.conftest.load_scene_class", lambda _info: Altered)
    return info


def test_text_in_the_subtitle_band_or_off_frame_is_reported(dry_run_scene, monkeypatch):
    def misplaced(scene) -> None:
        low = theme.text("subtitle band")
        low.to_edge(DOWN, buff=0.1)
        wide = theme.text("off the right edge").to_edge(RIGHT, buff=-1.0)
        scene.add(low, wide)

    scene = dry_run_scene(_first_beat_does(monkeypatch, misplaced), "en")
    first = scene.script.beats[0].id
    assert any(f"{first}: " in m and "subtitle band" in m for m in scene.layout_issues)
    assert any("right edge" in m for m in scene.layout_issues)


def test_reference_scene_has_no_layout_issues(dry_run_scene):
    scene = dry_run_scene(_worked_example(), "zh")
    assert scene.layout_issues == []
    assert scene.smallest_text[0] >= theme.MIN_LABEL_PX
    assert [b.id for b in scene._times] == [b.id for b in scene.script.beats]


def test_a_label_under_32_px_is_reported_with_its_size(dry_run_scene, monkeypatch):
    def too_small(scene) -> None:
        scene.add(theme.text("readable", theme.LABEL_SIZE).shift(UP))
        tiny = theme.text("tiny label", theme.LABEL_SIZE).scale(0.8)
        scene.play(FadeIn(tiny))

    scene = dry_run_scene(_first_beat_does(monkeypatch, too_small), "en")
    small = [m for m in [*scene.layout_issues, *scene.warnings] if " px at 1080p" in m]
    assert len(small) == 1 and "'tiny label'" in small[0], small
    px, what, beat = scene.smallest_text
    assert what == "tiny label" and beat == scene.script.beats[0].id
    assert px == pytest.approx(0.8 * theme.text_px(theme.LABEL_SIZE), rel=0.01)
    assert scene.times.smallest_text.px == pytest.approx(px)
