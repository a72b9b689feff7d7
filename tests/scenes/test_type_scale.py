"""The type scale and its measure: sizes in px at 1080p, read from the mobjects."""

from __future__ import annotations

import pytest
from manim import VGroup

from narration.numfmt import LANGS
from scenes import legibility, theme
from scenes.registry import discover


def test_the_scale_meets_the_phone_minimums() -> None:
    px = theme.text_px
    assert px(theme.BODY_SIZE) >= theme.MIN_BODY_PX
    assert px(theme.NUM_SIZE) >= px(theme.BODY_SIZE)  # numbers as large as body text
    assert px(theme.HEAD_SIZE) >= theme.MIN_BODY_PX
    assert px(theme.LABEL_SIZE) >= theme.MIN_LABEL_PX
    assert theme.TITLE_SIZE >= 1.5 * theme.BODY_SIZE


def test_a_digit_at_body_size_measures_its_height_in_pixels() -> None:
    t = theme.text("0", theme.BODY_SIZE)
    [size] = legibility.measure([t])
    assert size.px == pytest.approx(legibility.units_to_px(t.height), rel=0.01)


def test_scaled_text_is_measured_at_its_scale_and_hidden_text_not_at_all() -> None:
    label = theme.text("share", theme.LABEL_SIZE)
    fitted = theme.text("a long row of numbers", theme.NUM_SIZE).scale(0.5)
    hidden = theme.text("not yet shown", 10).set_opacity(0)
    sizes = {t.text: t.px for t in legibility.measure([VGroup(label, fitted, hidden)])}
    assert set(sizes) == {"share", "a long row of numbers"}
    assert sizes["share"] == pytest.approx(theme.text_px(theme.LABEL_SIZE), rel=0.01)
    assert sizes["a long row of numbers"] == pytest.approx(
        0.5 * theme.text_px(theme.NUM_SIZE), rel=0.01)
    assert legibility.smallest(legibility.measure([fitted, label])).text == (
        "a long row of numbers")


def test_row_text_radicals_and_formulas_are_measured() -> None:
    row = theme.row_text("French", theme.LABEL_SIZE)
    root = theme.text("÷ √d", theme.BODY_SIZE)
    sizes = {t.text: t.px for t in legibility.measure([row, root])}
    assert sizes["French"] == pytest.approx(theme.text_px(theme.LABEL_SIZE), rel=0.01)
    assert sizes["÷ √d"] == pytest.approx(theme.text_px(theme.BODY_SIZE), rel=0.01)
    f = theme.formula("0 + 1", size=40)
    [fs] = legibility.measure([f])
    assert fs.px == pytest.approx(legibility.units_to_px(theme.formula("0", 40).height),
                                  rel=0.02)


SCENES = discover(cut=None)  # both cuts


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("info", SCENES, ids=[s.scene_id for s in SCENES])
def test_every_scene_shows_every_text_at_32_px_or_more(info, lang, shipped_scene):
    """On a phone at 1080p: no label under 32 px, in any beat of any scene."""
    scene = shipped_scene(info, lang)
    px, what, beat = scene.smallest_text
    assert px >= theme.MIN_LABEL_PX - 0.05, f"{what!r} is {px:.1f} px in beat {beat}"
