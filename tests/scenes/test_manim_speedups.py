"""Manim, quicker where a scene spends its time: mobject copies (``scenes.fast_copy``) are the
copies Manim's own ``__deepcopy__`` makes, a shape's subpaths (``scenes.subpaths``) the
ones Manim finds, and a share bar reshaped in place the bar made anew."""

from __future__ import annotations

import copy
import enum

import numpy as np
import pytest
from manim import Circle, Mobject, VGroup, always_redraw

from scenes import fast_copy, theme


def _same(a: object, b: object, seen: set[int]) -> None:
    """``a`` and ``b`` hold equal values, in the same shape, recursively through mobjects."""
    assert type(a) is type(b)
    if isinstance(a, Mobject):
        if id(a) in seen:
            return
        seen.add(id(a))
        assert a.__dict__.keys() == b.__dict__.keys()
        for k in a.__dict__:
            if k != "original_id":
                _same(a.__dict__[k], b.__dict__[k], seen)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y, seen)
    elif hasattr(a, "__dict__") and not callable(a):
        _same(vars(a), vars(b), seen)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k], seen)
    else:
        assert a == b or a is b


def _manims(m: Mobject) -> Mobject:
    fast_copy.uninstall()
    try:
        return copy.deepcopy(m)
    finally:
        fast_copy.install()


@pytest.fixture
def things() -> VGroup:
    text = theme.text("除以 √d：份额", theme.BODY_SIZE, color=theme.Q_COLOR)
    ring = Circle(radius=0.5, color=theme.K_COLOR).set_fill(theme.V_COLOR, 0.4)
    follower = always_redraw(lambda: Circle(radius=0.2).next_to(ring))
    return VGroup(text, ring, follower)


def test_a_copy_holds_what_manims_copy_holds(things: VGroup) -> None:
    import scenes.base  # noqa: F401  (a scene's copies are the fast ones)

    assert Mobject.__deepcopy__ is fast_copy._deepcopy
    ours, theirs = copy.deepcopy(things), _manims(things)
    _same(ours, theirs, set())
    assert ours.original_id == str(id(things))


def test_a_copy_shares_nothing_it_can_change_with_the_original(things: VGroup) -> None:
    ours = copy.deepcopy(things)
    for a, b in zip(things.get_family(), ours.get_family(), strict=True):
        assert a is not b
        for k, v in vars(a).items():
            if isinstance(v, np.ndarray | list | dict) or type(v).__name__ == "ManimColor":
                assert vars(b)[k] is not v, k
    ours[1].set_color(theme.Q_COLOR).shift([1, 0, 0])
    assert np.array_equal(things[1].get_center(), [0, 0, 0])
    assert things[1].get_stroke_color().to_hex().lower() == theme.K_COLOR.lower()


def test_what_the_original_shares_its_copy_shares_too() -> None:
    a, b = Circle(), Circle()
    b.points = a.points  # one array held twice, one mobject held in two groups
    group = VGroup(VGroup(a, b), VGroup(a))
    ours = copy.deepcopy(group)
    (x, y), (z,) = ours[0], ours[1]
    assert x.points is y.points and x is z
    theirs = _manims(group)
    assert theirs[0][0].points is theirs[0][1].points and theirs[0][0] is theirs[1][0]


class _Tagged(int):
    """A number that carries a note: ``copy.deepcopy`` copies it (only exact ints are kept)."""


def test_a_subclass_of_a_number_is_copied_as_manims_copy_copies_it() -> None:
    class Side(enum.Enum):
        LEFT = 1

    fast_copy.install()  # as scenes.base installs it
    m = Circle()
    m.tagged, m.side, m.scale_kept = _Tagged(3), Side.LEFT, np.float64(0.5)
    m.tagged.notes = ["a"]
    ours, theirs = copy.deepcopy(m), _manims(m)
    assert theirs.tagged is not m.tagged and ours.tagged is not m.tagged
    ours.tagged.notes.append("b")
    assert m.tagged.notes == ["a"] and ours.tagged == 3 and type(ours.tagged) is _Tagged
    assert ours.side is Side.LEFT is theirs.side  # an enum member is itself in every copy
    assert ours.scale_kept == 0.5


def test_a_shapes_subpaths_are_manims_and_follow_its_points() -> None:
    """``scenes.subpaths`` gives Manim's answer, and a new one once the points change, even
    in place (the same array, other numbers)."""
    from manim import Square

    from scenes import subpaths

    subpaths.install()
    shape = Circle()
    shape.append_points(Square().shift([3, 0, 0]).points)  # a second piece, apart

    def theirs() -> np.ndarray:
        return subpaths._MANIMS(shape, shape.points, n_dims=2)

    first = shape.get_subpath_split_indices_from_points(shape.points, n_dims=2)
    assert np.array_equal(first, theirs()) and len(first) == 2
    again = shape.get_subpath_split_indices_from_points(shape.points, n_dims=2)
    assert np.array_equal(again, first)
    shape.points[-4:] = shape.points[:4]  # in place: the last curve now joins nothing
    moved = shape.get_subpath_split_indices_from_points(shape.points, n_dims=2)
    assert np.array_equal(moved, theirs()) and not np.array_equal(moved, first)


@pytest.mark.parametrize(("share", "label"), [(0.62, "62%"), (0.0, "0%"), (1.0, "100%")])
def test_a_share_bar_reshaped_in_place_is_the_bar_made_anew(share: float, label: str) -> None:
    """A chart that follows a value every frame reshapes its bars (``widgets.reshape_share_bar``)
    instead of making them again: the result is where and what a new bar would be, scaled
    and placed as the first one was, and a label whose text did not change is not set
    again."""
    from scenes import widgets

    scale, left = 1.4, np.array([-2.0, 1.0, 0.0])

    def placed(bar: VGroup) -> VGroup:
        return bar.scale(scale).shift(left - bar[0].get_left())

    bar = placed(widgets.share_bar(0.3, "30%", 2.5))
    kept_label = bar[1]
    widgets.reshape_share_bar(bar, share, label, 2.5, scale)
    fresh = placed(widgets.share_bar(share, label, 2.5))
    assert bar[1] is kept_label  # the same mobject, reshaped: checks see one label change
    assert np.allclose(bar[0].points, fresh[0].points, atol=1e-6)
    assert np.allclose(bar[0].get_fill_rgbas(), fresh[0].get_fill_rgbas())
    # The label takes the new text's shape as ``become`` gives it: the same outlines, their
    # curves possibly cut into more pieces (to match the old text's count), so every anchor
    # of the new text is one of the label's, and the label has no ink outside the new text.
    def anchors(m):
        return np.concatenate([sm.get_anchors() for sm in m.get_family() if len(sm.points)])

    got, want = anchors(bar[1]), anchors(fresh[1])
    assert all(np.min(np.linalg.norm(got - p, axis=1)) < 1e-6 for p in want)
    lo, hi = want.min(axis=0) - 1e-6, want.max(axis=0) + 1e-6
    assert ((got >= lo) & (got <= hi)).all()
    # the same label again: its shape is kept, only moved with its bar
    before = [m.points.copy() for m in bar[1].get_family()]
    widgets.reshape_share_bar(bar, share, label, 2.5, scale)
    assert all(np.allclose(a, m.points) for a, m in zip(before, bar[1].get_family(),
                                                         strict=True))
