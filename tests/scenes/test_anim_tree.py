"""Groups opened for the scene checks: nested groups, in play order."""

from __future__ import annotations

from manim import AnimationGroup, Circle, FadeIn, FadeOut, LaggedStart, Square, Succession

from scenes.anim_tree import leaves


def test_nested_groups_open_to_their_animations_in_order() -> None:
    a, b, c, d = (FadeIn(Circle()), FadeOut(Square()), FadeIn(Square()), FadeOut(Circle()))
    played = [a, AnimationGroup(LaggedStart(b, c), Succession(d))]
    assert list(leaves(played)) == [a, b, c, d]

