"""Text drawn over other text or over a filled shape: what a viewer sees as a garble.

Each text the theme draws is a unit (``scenes.legibility.tag`` marks its root). Two checks,
both on boxes around the glyphs that show (opacity over 0.05):

* :func:`collisions`, on one state of the stage: two texts whose boxes share more than
  ``SHARE`` of the smaller one's area (but a word lit over the same word in its sentence),
  or a text that crosses the edge of a filled shape (a bar, a card) rather than sitting on
  it or beside it.
* :func:`overprints`, across one animation: a text that leaves (fades out, is replaced)
  where a text that comes in lands. While both are half visible, they read as one garbled
  word (an old label under a new one, digits settling over digits). A text moving to a new
  place as the same object, or replaced by a copy of itself, is not counted.

A scene calls them after every animation (``NarratedScene.play``); the report lists what
they find per scene.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from manim import Mobject, VMobject

from scenes.anim_tree import leaves

__all__ = ["Shown", "behind", "collisions", "crowding", "gap", "halves", "morphs",
           "overprints", "shown_texts"]

SHARE = 0.2  # of the smaller box's area: less is a touch, not an overlap
MIN_FILL = 0.5  # a shape filled at least this much hides what is under it
COVERED = 0.75  # a text this much on a shape sits on it (a label on a chip a little smaller)
_VISIBLE = 0.05
# Closer than this (scene units; 1080 px / 8 units: about 4 px at 1080p) a text touches its
# neighbour or a box's edge: legible at 1080p, one blur on a phone
TIGHT = 0.03
# A box's edge needs more room than a neighbour's text: its line is drawn on its points, half
# of a 4 px stroke inside, and at 390 px wide a digit boxed 5 px clear reads as "[1]" or "I".
TIGHT_BOX = 0.07


@dataclass(frozen=True)
class Shown:
    """A text on stage: what it says, its box (left, bottom, right, top) and its glyphs."""

    text: str
    box: tuple[float, float, float, float]
    glyphs: frozenset[int]
    root: int = 0  # id of the text's mobject
    glyph_boxes: tuple[tuple[float, float, float, float], ...] = ()


def _visible(m: VMobject) -> bool:
    return m.get_fill_opacity() >= _VISIBLE or m.get_stroke_opacity() >= _VISIBLE


def points_box(ms: Sequence[Mobject]) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) around the points of ``ms`` (each with points of its
    own): the box Manim's ``get_left`` and the rest give, from one pass over the points
    instead of four (the check runs after every animation)."""
    pts = np.concatenate([m.points for m in ms])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])



def boxes(ms: Sequence[Mobject]) -> np.ndarray:
    """One (left, bottom, right, top) row per mobject of ``ms`` (each with points of its
    own), around its own points: :func:`points_box` of each, from one pass over all their
    points (the checks run after every animation, over every glyph on stage; a NumPy call
    per glyph was a sixth of a dry run)."""
    if not ms:
        return np.empty((0, 4))
    pts = [m.points for m in ms]
    starts = np.cumsum([0] + [len(p) for p in pts[:-1]])
    xy = np.concatenate(pts)[:, :2]
    return np.hstack([np.minimum.reduceat(xy, starts, axis=0),
                      np.maximum.reduceat(xy, starts, axis=0)])


def shown_texts(mobjects: Iterable[Mobject]) -> list[Shown]:
    """Every tagged text among ``mobjects`` with at least one glyph showing (visible, and
    spanning some width or height)."""
    texts, seen = [], set()
    for top in mobjects:
        for m in top.get_family():
            if id(m) in seen or not getattr(m, "type_root", False):
                continue
            seen.add(id(m))
            glyphs = [g for g in m.family_members_with_points()
                      if isinstance(g, VMobject) and _visible(g)]
            if glyphs:
                texts.append((m, glyphs))
    every = boxes([g for _m, glyphs in texts for g in glyphs])
    out, k = [], 0
    for m, glyphs in texts:
        b = every[k:k + len(glyphs)]
        k += len(glyphs)
        sized = (b[:, 2] > b[:, 0]) | (b[:, 3] > b[:, 1])
        if not sized.any():
            continue
        b = b[sized]
        kept = [g for g, ok in zip(glyphs, sized, strict=True) if ok]
        box = (float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()),
               float(b[:, 3].max()))
        out.append(Shown(m.type_root_text, box, frozenset(id(g) for g in kept), id(m),
                         tuple(tuple(row) for row in b.tolist())))
    return out


def _filled_shapes(mobjects: Iterable[Mobject]) -> list[tuple[float, float, float, float]]:
    out = []
    for top in mobjects:
        for m in top.family_members_with_points():
            if (isinstance(m, VMobject) and not hasattr(m, "type_text")
                    and m.get_fill_opacity() >= MIN_FILL and m.width > 0 and m.height > 0):
                out.append(points_box([m]))
    return out


def _area(b: tuple[float, float, float, float]) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _shared(a, b) -> float:
    return _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def _inside(a, b, tol: float = 0.02) -> bool:
    return (a[0] >= b[0] - tol and a[1] >= b[1] - tol and a[2] <= b[2] + tol
            and a[3] <= b[3] + tol)


def _overlap(a, b) -> bool:
    small = min(_area(a), _area(b))
    return small > 0 and _shared(a, b) > SHARE * small


def _highlight(a: Shown, b: Shown) -> bool:
    """One text laid over the same words in the other (a word lit in its sentence)."""
    small, big = (a, b) if _area(a.box) <= _area(b.box) else (b, a)
    return small.text in big.text and _inside(small.box, big.box, 0.05)


def _badge(text, shape) -> bool:
    """A short text on a disc or tag of about its size, centred on it (①, a letter chip; a
    letter's square badge is up to about six times the letter's ink)."""
    cx, cy = (shape[0] + shape[2]) / 2, (shape[1] + shape[3]) / 2
    return (text[0] <= cx <= text[2] and text[1] <= cy <= text[3]
            and (_area(shape) <= 2.5 * _area(text)
                 or (_area(shape) <= 0.25 and _area(shape) <= 7 * _area(text))))


def collisions(mobjects: Sequence[Mobject], texts: Sequence[Shown] | None = None
               ) -> list[str]:
    """Texts over texts, and texts across a filled shape's edge, in one state of the stage
    (``texts``: its :func:`shown_texts`, when the caller has them)."""
    texts = shown_texts(mobjects) if texts is None else texts
    found = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a.glyphs & b.glyphs or not _overlap(a.box, b.box) or _highlight(a, b):
                continue
            found.append(f"{a.text!r} overlaps {b.text!r}")
    for shape in _filled_shapes(mobjects):
        for t in texts:
            covered = _shared(t.box, shape) / max(_area(t.box), 1e-9)
            if (covered == 0 or covered >= COVERED or _badge(t.box, shape)
                    or _inside(shape, t.box)):
                continue
            # across the text's box, or over a glyph of a long text (a small icon over one
            # word of a sentence covers little of the whole box but hides that word)
            if covered > SHARE or any(_shared(g, shape) > SHARE * _area(g)
                                      for g in t.glyph_boxes):
                found.append(f"{t.text!r} crosses the edge of a filled shape")
    return found


def behind(m: Mobject) -> Mobject:
    """Mark ``m`` as drawn behind an opaque shape (a stack's shadow copies): its edges are
    hidden where a text could meet them, so :func:`crowding` does not look at it."""
    m.behind = True
    return m


def _boxes(mobjects: Iterable[Mobject]) -> list[tuple[tuple[float, float, float, float], bool]]:
    """Boxes drawn around or behind things (cards, highlight frames, chips): each box and
    whether it is filled (an outline can cross a text; a filled box hides what it covers,
    which :func:`collisions` judges)."""
    from manim import Rectangle

    out = []
    for top in mobjects:
        for m in top.get_family():
            if not isinstance(m, Rectangle) or getattr(m, "behind", False):
                continue
            fill = m.get_fill_opacity()
            drawn = fill >= _VISIBLE or (m.get_stroke_width() > 0
                                         and m.get_stroke_opacity() >= _VISIBLE)
            # a tint (a cell's share shaded in) lies under its text, legible: not a box
            if (drawn and not _VISIBLE <= fill < MIN_FILL and m.has_points()
                    and m.width > 0 and m.height > 0):
                out.append((points_box([m]), fill >= MIN_FILL))
    return out


def _phrase(a, b) -> bool:
    """Two texts side by side on one line, of one size: a phrase set word by word (each
    word can be lit), which reads as one line however close its words are."""
    return (abs(a[1] - b[1]) < 0.05 and abs(a[3] - b[3]) < 0.05
            and max(a[1], b[1]) < min(a[3], b[3]))


def gap(a, b) -> float:
    """Distance between two boxes (0 when they meet or overlap)."""
    dx = max(a[0] - b[2], b[0] - a[2], 0.0)
    dy = max(a[1] - b[3], b[1] - a[3], 0.0)
    return float(np.hypot(dx, dy))


def crowding(mobjects: Sequence[Mobject], texts: Sequence[Shown] | None = None,
             tight: float = TIGHT, tight_box: float = TIGHT_BOX) -> list[str]:
    """Texts closer than ``tight`` to another text, and texts within ``tight_box`` of a
    box's edge (inside it or beside it) or across a drawn box's edge, in one state of the
    stage.
    What :func:`collisions` already counts as an overlap is not repeated."""
    texts = shown_texts(mobjects) if texts is None else texts
    found = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a.glyphs & b.glyphs or _overlap(a.box, b.box) or _highlight(a, b):
                continue
            if (gap(a.box, b.box) < tight and _shared(a.box, b.box) == 0
                    and not _phrase(a.box, b.box)):
                found.append(f"{a.text!r} touches {b.text!r}")
    for box, filled in _boxes(mobjects):
        for t in texts:
            if filled and _badge(t.box, box):
                continue
            # glyph by glyph: a frame drawn around one word of a sentence is clear of it
            for g in t.glyph_boxes or (t.box,):
                if _inside(g, box, 0.0):
                    margin = min(g[0] - box[0], box[2] - g[2], g[1] - box[1], box[3] - g[3])
                    if margin < tight_box:
                        found.append(f"{t.text!r} touches the edge of its box")
                        break
                elif _shared(g, box) > 0:
                    if not filled:
                        found.append(f"{t.text!r} crosses the edge of a box")
                        break
                elif gap(g, box) < tight_box:
                    found.append(f"{t.text!r} touches the edge of a box")
                    break
    return found


def overprints(before: Sequence[Shown], after: Sequence[Shown],
               apart: tuple[set[int], set[int]] = (set(), set())) -> list[str]:
    """Texts that left during an animation where texts that came in landed. ``apart``: ids
    of mobjects (families included) that are gone by the animation's middle and of those
    that only start to show after it (``widgets.out_then_in``): those never meet."""
    still = frozenset().union(*(t.glyphs for t in after)) if after else frozenset()
    was = frozenset().union(*(t.glyphs for t in before)) if before else frozenset()
    gone = [t for t in before if not (t.glyphs & still)]
    new = [t for t in after if not (t.glyphs & was)]
    gone_first, come_late = apart
    return [f"{old.text!r} fades out under {come.text!r}"
            for old in gone for come in new
            if old.text != come.text and _overlap(old.box, come.box)
            and not (old.root in gone_first and come.root in come_late)]


def halves(animations: Iterable[object]) -> tuple[set[int], set[int]]:
    """Ids of the mobjects (and their families) that ``animations`` take out in the first
    half of the play, and of those they bring in only in the second half."""
    first: set[int] = set()
    second: set[int] = set()
    for anim in leaves(animations):
        name = getattr(getattr(anim, "rate_func", None), "__name__", "")
        mob = getattr(anim, "mobject", None)
        if mob is None:
            continue
        if name == "_first_half":
            first |= {id(m) for m in mob.get_family()}
        elif name == "_second_half":
            second |= {id(m) for m in mob.get_family()}
    return first, second


def morphs(animations: Iterable[object]) -> list[str]:
    """Transforms that morph one text into a different one: the glyphs' outlines melt into
    each other for the whole animation. Moving or rescaling a text, or turning it into a
    copy of itself, is not counted."""
    from manim import Transform

    found = []
    for anim in leaves(animations):
        if not isinstance(anim, Transform) or anim.target_mobject is None:
            continue
        old = sorted(t.text for t in shown_texts([anim.mobject]))
        new = sorted(t.text for t in shown_texts([anim.target_mobject]))
        if old and new and old != new:
            found.append(f"{' '.join(map(repr, old))} morphs into {' '.join(map(repr, new))}")
    return found
