"""The composition measure: content in the top half or on one side, and for how long."""

from __future__ import annotations

from manim import LEFT, UP, Square

from scenes import composition, theme
from scenes.base import SAFE


def _why(*mobs) -> str | None:
    return composition.lopsided(composition.content_box(mobs, theme.CONTENT_TOP), SAFE)


def test_where_content_sits() -> None:
    centre = Square(2).move_to(theme.CONTENT_CENTER)
    assert _why(centre) is None
    assert _why(Square(1).move_to(theme.CONTENT_CENTER + UP * 2)) == "top half"
    assert _why(Square(1).move_to(theme.CONTENT_CENTER + LEFT * 4)) == "left half"
    header = theme.text("Title").to_edge(UP, buff=0.3)  # the header does not count
    assert _why(header, centre) is None
    assert _why(header) is None and _why(Square(1).set_opacity(0)) is None


def test_stretches_over_3_s_after_each_beats_first_second() -> None:
    samples = [(0.0, "top half", "a", 0.0), (5.0, None, "a", 0.0),
               (6.0, "left half", "b", 6.0), (8.0, "left half", "b", 6.0),
               (9.0, "right half", "b", 6.0), (9.5, "top half", "c", 9.5)]
    got = composition.stretches(samples, end=12.0)
    assert [(s.why, s.start, s.end, s.beat) for s in got] == [("top half", 1.0, 5.0, "a")]
    # a lopsided frame held across a beat boundary: the new beat's first second is not counted
    held = [(0.0, "left half", "a", 0.0), (3.0, "left half", "b", 3.0)]
    assert [(s.start, s.end) for s in composition.stretches(held, end=9.0)] == [(4.0, 9.0)]
