"""Still stretches of a picture: where no frame differs visibly from the stretch's first.

One algorithm for both places that need it: the scenes' picture writer, which sees every
distinct frame as it is stored (``scenes.held_frames``), and the quality report's check on
a decoded video (``pipeline.quality.still_frames``).
"""

from __future__ import annotations

import math

import numpy as np

THRESHOLD = 12
"""A cell (:data:`CELLS_TALL`) counts as changed when its mean brightness moves by more
than this (of 255): encoder noise does not, a glyph or an outline that moves does."""


def luma(frame) -> np.ndarray:
    """A PyAV frame's brightness, uint8 (a view of the Y plane itself for YUV video)."""
    if frame.format.name.startswith(("yuv", "yuvj")):
        plane = frame.planes[0]
        rows = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)
        return rows[:, :plane.width]
    return frame.to_ndarray(format="gray")


CELLS_TALL = 120
"""The frame is compared in square cells, this many from top to bottom at every resolution
(4 px at 480p, 9 px at 1080p, 18 px at 2160p): a cell covers the same part of the picture
at every quality, so a thin stroke changes a cell's mean by the same amount in the preview
and in the master, and both find the same still stretches."""


def cell_px(height: int) -> int:
    """The side of a comparison cell, in pixels, for a frame ``height`` pixels tall."""
    return max(1, round(height / CELLS_TALL))


def block_sums(img: np.ndarray, cell: int | None = None) -> np.ndarray:
    """The brightness summed over each whole ``cell`` x ``cell`` block (default:
    :func:`cell_px` of the frame), int32.

    Summed once per frame, so comparing two frames costs a cell's area less (the writer
    compares every distinct frame of a 1080p60 scene). By strided adds: numpy's reshape-sum
    is several times slower here."""
    b = cell or cell_px(img.shape[0])
    h, w = (img.shape[0] // b) * b, (img.shape[1] // b) * b
    rows = img[0:h:b, :w].astype(np.uint16)  # b x 255 fits in 16 bits for b < 257
    for i in range(1, b):
        rows += img[i:h:b, :w]
    sums = rows[:, 0::b].astype(np.int32)
    for j in range(1, b):
        sums += rows[:, j::b]
    return sums


def same_blocks(sums: np.ndarray, ref: np.ndarray, cell: int,
                threshold: int = THRESHOLD) -> bool:
    """Whether two frames' :func:`block_sums` (cells of ``cell`` px) agree: no cell's mean
    differs by more than ``threshold``."""
    return not np.any(np.abs(sums - ref) > threshold * cell * cell)


SAMPLE_RATE = 15
"""Frames compared per second, at every frame rate: the frame on screen at each 1/15 s
(every frame at 15 fps, every fourth at 60). A 60 fps master and its 15 fps preview are then
measured on the same moments, and a slow change, a little per frame, counts alike in both."""


class StillSpans:
    """Feed the frames in order (:meth:`add` with each frame's brightness and index at
    ``fps``; a frame held for several frames is added once); :meth:`finish` gives the still
    stretches, in frames.

    The picture is sampled :data:`SAMPLE_RATE` times a second; each sample is compared with
    the first sample of the stretch it may extend, not with the one before: a slow fade is
    not still."""

    def __init__(self, fps: float, threshold: int = THRESHOLD,
                 rate: float = SAMPLE_RATE) -> None:
        self.threshold = threshold
        self.step = max(1.0, fps / rate)  # frames from one sample to the next
        self.spans: list[tuple[float, float]] = []  # in samples
        self._ref: np.ndarray | None = None  # cell sums of the stretch's first sample
        self._ref_at = 0  # that sample's number
        self._pending: tuple[np.ndarray, int] | None = None  # a frame whose end is unknown
        self._cell = 1  # the frames' comparison cell, px

    def add(self, img: np.ndarray, at: int, until: int | None = None) -> None:
        """The frame shown from frame ``at`` to ``until`` (default: where the next added
        frame begins)."""
        if self._pending is not None:
            self._take(*self._pending, at)
            self._pending = None
        self._cell = cell_px(img.shape[0])
        if until is None:
            self._pending = (block_sums(img, self._cell), at)
        elif self._sampled(at, until) is not None:  # summed only when sampled
            self._take(block_sums(img, self._cell), at, until)

    def _sampled(self, at: int, until: float) -> int | None:
        """The first sample taken while a frame shows (``at`` to ``until``), if any."""
        k = math.ceil(at / self.step - 1e-9)
        return k if k * self.step < until else None

    def _take(self, sums: np.ndarray, at: int, until: float) -> None:
        k = self._sampled(at, until)
        if k is None:
            return
        if self._ref is None:
            self._ref, self._ref_at = sums, k
        elif not same_blocks(sums, self._ref, self._cell, self.threshold):
            if k - self._ref_at > 1:
                self.spans.append((self._ref_at, k))
            self._ref, self._ref_at = sums, k

    def finish(self, end: int) -> list[tuple[float, float]]:
        """The stretches of more than one sample, the last one ending at frame ``end``."""
        if self._pending is not None:
            self._take(*self._pending, end)
            self._pending = None
        last = end / self.step
        if self._ref is not None and last - self._ref_at > 1:
            self.spans.append((self._ref_at, last))
            self._ref = None
        return [(a * self.step, b * self.step) for a, b in self.spans]
