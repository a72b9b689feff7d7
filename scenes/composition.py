"""Does a frame use the screen? Where the content sits in the safe area, and for how long.

The safe area is the frame inside the side margins, between the header band and the
subtitle band. A frame is *lopsided* when all its content (everything shown but the header)
sits in the top half of the safe area, or leaves more than half the safe width empty on one
side. A scene records the state after each animation; :func:`stretches` finds the spans in
which a frame stays lopsided for over ``limit`` seconds, after each beat's first second.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from manim import Mobject, VMobject
from manim.mobject.types.image_mobject import AbstractImageMobject

from scenes.overlap import boxes

__all__ = ["Box", "Stretch", "content_box", "lopsided", "stretches"]

LIMIT = 3.0  # seconds a lopsided frame may last
GRACE = 1.0  # a beat's first second, while its content comes in, is not counted


@dataclass(frozen=True)
class Box:
    left: float
    right: float
    bottom: float
    top: float


@dataclass(frozen=True)
class Stretch:
    """A lopsided span of a scene: why (``top half``, ``left half``, ``right half``), from
    when to when (scene seconds) and in which beat it starts."""

    why: str
    start: float
    end: float
    beat: str

    def line(self, scene_id: str) -> str:
        return (f"{scene_id}.{self.beat}: content in the {self.why} for "
                f"{self.end - self.start:.1f} s from {self.start:.1f} s")


def _image_box(m: AbstractImageMobject) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) of an image: its corners as Manim gives them."""
    return (m.get_left()[0], m.get_bottom()[1], m.get_right()[0], m.get_top()[1])


def content_box(mobjects: Iterable[Mobject], header_bottom: float) -> Box | None:
    """The box around everything shown below ``header_bottom`` (None: nothing shown)."""
    shapes, images = [], []
    for top in mobjects:
        for m in top.family_members_with_points():
            if not isinstance(m, VMobject):
                if isinstance(m, AbstractImageMobject):
                    images.append(_image_box(m))
                # else a ValueTracker and the like: points, nothing drawn
            elif m.get_fill_opacity() >= 0.05 or m.get_stroke_opacity() >= 0.05:
                shapes.append(m)
    b = np.vstack([boxes(shapes), np.array(images, dtype=float).reshape(-1, 4)])
    left, bottom, right, top = b.T
    keep = ~((left == right) & (bottom == top)) & (bottom < header_bottom)  # not the header
    if not keep.any():
        return None
    b = b[keep]
    return Box(float(b[:, 0].min()), float(b[:, 2].max()), float(b[:, 1].min()),
               float(b[:, 3].max()))


def lopsided(box: Box | None, safe: Box) -> str | None:
    """Why a frame with content in ``box`` does not use the ``safe`` area, or None."""
    if box is None:
        return None
    mid_y = (safe.top + safe.bottom) / 2
    half_w = (safe.right - safe.left) / 2
    if box.bottom > mid_y:
        return "top half"
    if box.left - safe.left > half_w:
        return "right half"
    if safe.right - box.right > half_w:
        return "left half"
    return None


def stretches(samples: Sequence[tuple[float, str | None, str, float]], end: float,
              limit: float = LIMIT, grace: float = GRACE) -> list[Stretch]:
    """The lopsided spans over ``limit`` s. ``samples``: (time, why or None, beat, the
    beat's start) in time order, each state holding until the next sample (or ``end``)."""
    out: list[Stretch] = []
    run: list = []  # [why, start, beat]

    def close(at: float) -> None:
        if run and at - run[1] > limit:
            out.append(Stretch(run[0], run[1], at, run[2]))
        run.clear()

    for i, (t, why, beat, beat_start) in enumerate(samples):
        until = samples[i + 1][0] if i + 1 < len(samples) else end
        if run and run[2] != beat:
            close(min(t, beat_start))  # a new beat: its first second does not count
        if why is None or (run and run[0] != why):
            close(t)
        if why is None:
            continue
        start = max(t, beat_start + grace)
        if not run and start < until:
            run[:] = [why, start, beat]
    close(end)
    return out
