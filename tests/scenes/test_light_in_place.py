"""Lighting a column, row or bar keeps every part where it is: one Indicate on a whole
column grew it about the column's centre and its end cells left their rows (softmax's
e-powers, issue 32), and a long bar grown about its centre crossed its chart's axis."""

from __future__ import annotations

import numpy as np
from manim import DOWN, Indicate, VGroup
from manim.animation.animation import prepare_animation

from scenes import theme, widgets


def _peak(animations) -> None:
    """Each animation at its strongest (Indicate and the kit's pulses go there and back)."""
    for a in map(prepare_animation, animations):  # Scene.play takes `.animate` builders
        a.begin()
        a.interpolate(0.5)


def _column() -> VGroup:
    return VGroup(*[theme.text(s, theme.NUM_SIZE) for s in ("7.39", "2.72", "1", "0.05")]
                  ).arrange(DOWN, buff=0.4)


def test_each_cell_of_a_lit_column_keeps_its_row() -> None:
    col = _column()
    before = [c.get_center().copy() for c in col]
    _peak(widgets.light(col, theme.SHARE_COLOR, 1.2))
    assert all(np.allclose(c.get_center(), b, atol=1e-6) for c, b in zip(col, before,
                                                                         strict=True))
    # what it replaces: the whole column grown about its centre moves its end cells
    whole = _column()
    top = whole[0].get_center().copy()
    _peak([Indicate(whole, scale_factor=1.2)])
    assert abs(whole[0].get_center()[1] - top[1]) > 0.2


def test_a_lit_bar_keeps_its_ends_on_the_axis() -> None:
    bar = widgets.share_bar(1.0, "100%", 5.0)
    left, right = bar[0].get_left()[0], bar[0].get_right()[0]
    _peak(widgets.light_bar(bar, theme.GOOD))
    assert abs(bar[0].get_left()[0] - left) < 1e-6
    assert abs(bar[0].get_right()[0] - right) < 1e-6
    assert bar[0].height > 0.34 * 1.2  # it does show: thicker at its peak
