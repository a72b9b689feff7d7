"""Where a shape's outline breaks into separate pieces, worked out once per shape.

Manim's camera asks each shape drawn in a frame where its points break into subpaths
(``VMobject.get_subpath_split_indices_from_points``: a dozen NumPy calls on the curves'
anchors), every frame, for every glyph that is moving or fading: 18% of a scene process's
render (a profile of the worked example and the √d scene at 480p15). A glyph that fades
or changes colour keeps its points, so the answer is kept with the shape and given again
while its points are the same, compared byte for byte (nothing guessed from a hash). No
library does this: it wraps one Manim method.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from manim import VMobject

_MANIMS = VMobject.get_subpath_split_indices_from_points
# shape -> (its points' bytes and what they are compared with, the answer); weak, so a
# shape's entry goes with it and a copy (``copy.deepcopy``) starts without one
_LAST: weakref.WeakKeyDictionary[VMobject, tuple[tuple[Any, ...], np.ndarray]] = (
    weakref.WeakKeyDictionary())


def _split_indices(self: VMobject, points: Any, n_dims: int = 3) -> np.ndarray:
    pts = np.asarray(points)
    key = (pts.tobytes(), pts.shape, pts.dtype.str, n_dims, self.tolerance_for_point_equality,
           self.n_points_per_cubic_curve)
    last = _LAST.get(self)
    if last is not None and last[0] == key:
        return last[1].copy()
    found = _MANIMS(self, points, n_dims)
    _LAST[self] = (key, found.copy())
    return found


def install() -> None:
    """Keep each shape's last answer in this process (again: no change)."""
    VMobject.get_subpath_split_indices_from_points = _split_indices  # type: ignore[method-assign]


def uninstall() -> None:
    """Manim's own method again (for comparing the two)."""
    VMobject.get_subpath_split_indices_from_points = _MANIMS  # type: ignore[method-assign]
