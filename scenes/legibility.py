"""How large every text on screen is, measured from the mobjects in pixels at 1080p.

A text's size is the height of a digit "0" set in its font at its current scale, in pixels
of a 1080-pixel-high frame (the figure a legibility guide gives for video text: body text
at least 40 px, labels at least 32 px on a phone). The theme tags every glyph it draws
(:func:`tag`) with the size it was made at and its height then; a glyph scaled since (a
table fitted to the width, a title moved to the header) is measured at its scale now.
Glyphs hidden (opacity 0) are not measured.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from manim import Mobject, config

from scenes.overlap import boxes

__all__ = ["FRAME_PX", "TextSize", "measure", "smallest", "tag"]

FRAME_PX = 1080
"""The frame height the sizes are given for."""

_MIN_H = 1e-3  # a glyph this flat (a dash, a dot) carries no size of its own


@dataclass(frozen=True)
class TextSize:
    """One text on screen: what it says and its size in px at 1080p."""

    text: str
    px: float


def units_to_px(height: float) -> float:
    """A height in Manim units as pixels of a 1080-pixel-high frame."""
    return height * FRAME_PX / config.frame_height


def tag(mob: Mobject, s: str, px: float) -> Mobject:
    """Record on each glyph of ``mob`` (text ``s``) its size ``px`` and its height now."""
    for g in mob.family_members_with_points():
        g.type_text, g.type_px0, g.type_h0 = s, px, g.height
    mob.type_root, mob.type_root_text = True, s  # one text, for scenes.overlap
    return mob


def _shows(g: Mobject) -> bool:
    """A glyph tagged with its size, tall enough to measure, and visible."""
    h0 = getattr(g, "type_h0", None)
    if h0 is None or h0 < _MIN_H:
        return False
    return not (g.get_fill_opacity() < 0.05 and g.get_stroke_opacity() < 0.05)


def measure(mobjects: Iterable[Mobject]) -> list[TextSize]:
    """Every tagged text among ``mobjects`` (and their families) that shows, with its size:
    the median of its glyphs' sizes (a radical sign or a squeezed glyph does not decide).
    A glyph's size is its size when made times its height now over its height then."""
    glyphs: list[tuple[int, Mobject]] = []
    seen: set[int] = set()
    for top in mobjects:
        for g in top.family_members_with_points():
            if id(g) in seen:
                continue
            seen.add(id(g))
            if _shows(g):
                glyphs.append((id(top), g))
    # the heights of glyphs without parts of their own from one pass (overlap.boxes);
    # Manim's ``height`` walks each glyph's family four times
    leaves = [g for _top, g in glyphs if not g.submobjects]
    b = boxes(leaves)
    leaf_h = dict(zip(map(id, leaves), (b[:, 3] - b[:, 1]).tolist(), strict=True))
    found: dict[tuple[int, str, float], list[float]] = {}
    for top, g in glyphs:
        h = leaf_h.get(id(g))
        if h is None:
            h = g.height
        # glyphs of one text share the text and the size they were made at
        found.setdefault((top, g.type_text, round(g.type_px0, 3)), []).append(
            g.type_px0 * h / g.type_h0)
    out = []
    for (_top, s, _px0), sizes in found.items():
        sizes.sort()
        out.append(TextSize(s, sizes[len(sizes) // 2]))
    return out


def smallest(sizes: Iterable[TextSize]) -> TextSize | None:
    """The smallest of ``sizes`` (None when there is none)."""
    return min(sizes, key=lambda t: t.px, default=None)
