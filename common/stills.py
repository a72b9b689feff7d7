"""Still stretches of a picture: where no frame differs visibly from the stretch's first.

One algorithm for both places that need it: the scenes' picture writer, which sees every
distinct frame as it is stored (``scenes.held_frames``), and the quality report's check on
a decoded video (``pipeline.quality.still_frames``).
"""

from __future__ import annotations

import numpy as np

THRESHOLD = 12
"""A 4x4-pixel block counts as changed when its mean brightness moves by more than this
(of 255): encoder noise does not, a glyph or an outline that moves does."""


def luma(frame) -> np.ndarray:
    """A PyAV frame's brightness as int16 (the Y plane itself for YUV video)."""
    if frame.format.name.startswith(("yuv", "yuvj")):
        plane = frame.planes[0]
        rows = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)
        return rows[:, :plane.width].astype(np.int16)
    return frame.to_ndarray(format="gray").astype(np.int16)


def same(img: np.ndarray, ref: np.ndarray, threshold: int = THRESHOLD) -> bool:
    """Whether ``img`` looks like ``ref``: no 4x4 block's mean differs by more than
    ``threshold``."""
    diff = img - ref
    if not np.any(np.abs(diff) > threshold):  # fast path: nothing at all
        return True
    h, w = (diff.shape[0] // 4) * 4, (diff.shape[1] // 4) * 4
    # Block sums by strided adds (numpy's reshape-sum is 7x slower here).
    sums = sum(diff[i:h:4, j:w:4].astype(np.int32) for i in range(4) for j in range(4))
    return not np.any(np.abs(sums) > threshold * 16)


class StillSpans:
    """Feed the frames in order (:meth:`add` with each frame's index; a frame held for
    several frames is added once); :meth:`finish` gives the still stretches, in frames.

    Each frame is compared with the first frame of the stretch it may extend, not with the
    frame before: a slow fade, a little change per frame, is not still."""

    def __init__(self, threshold: int = THRESHOLD) -> None:
        self.threshold = threshold
        self.spans: list[tuple[int, int]] = []
        self._ref: np.ndarray | None = None
        self._ref_at = 0

    def add(self, img: np.ndarray, at: int) -> None:
        if self._ref is None:
            self._ref, self._ref_at = img, at
        elif not same(img, self._ref, self.threshold):
            if at - self._ref_at > 1:
                self.spans.append((self._ref_at, at))
            self._ref, self._ref_at = img, at

    def finish(self, end: int) -> list[tuple[int, int]]:
        """The stretches of more than one frame, the last one ending at frame ``end``."""
        if self._ref is not None and end - self._ref_at > 1:
            self.spans.append((self._ref_at, end))
            self._ref = None
        return self.spans
