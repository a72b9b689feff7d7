"""A Manim file writer that encodes each scene straight into its master segment, each run of
identical frames encoded once.

Plain Manim converts and encodes every frame it is given, including each repeat of a held
frame (a beat waiting out its speech): at 1080p60 its encoder thread cost more than all the
drawing (py-spy: 1179 of 1759 samples in ``VideoSegmentEncoder.write_frame``, against 500
in the scene's own drawing, for the formula scene). This writer instead:

- compares each frame with the one before (on its own thread) and extends the previous
  frame's duration when nothing changed, so a held frame is converted once;
- feeds x264 as the master needs it (``common.gops``): the moving frames one by one, each
  hold's picture once, GOPs closed and started where holds start and end; then writes the
  segment at a constant frame rate, a hold's repeats as skip frames.

The picture a scene stores is therefore the master's own segment (H.264 High, CRF 18,
closed half-second GOPs): the master and the clips copy it, and no picture is encoded
twice. (It used to be a lossless intermediate, encoded again for the master: that second
encode, and the lossless one, cost more than a third of a 1080p60 publish run.)
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import av
import numpy as np
from av.video.frame import PictureType
from av.video.reformatter import ColorRange, Colorspace, VideoReformatter
from manim.scene.scene_file_writer import SceneFileWriter

from common.gops import default_min_hold, expand, plan_gops
from common.h264 import CRF, GOP_SECONDS, MediaError, gop_frames, x264_options
from common.stills import StillSpans, luma

PIX_FMT = "yuv420p"
ROW_BLOCK = 32
"""Rows compared at a time by :func:`changed_rows`."""


class YuvConverter:
    """RGBA frames as the segment stores them: yuv420p, BT.709 matrix, limited range (as the
    stream is tagged, so players show the colours Manim drew).

    One RGBA frame and one scaler, reused: ``VideoFrame.from_ndarray`` and a fresh scaler
    per frame cost 16 ms a 1080p frame, the larger part of the writer's thread; a copy into
    the kept frame and the kept scaler, 3 ms, for the same bytes.

    Most frames of a scene change in a band of rows (a label written, a bar growing), so
    only the rows that changed since the last frame are converted again: a band from a
    multiple of :data:`BAND` rows, with at least :data:`MARGIN` rows more each side than it
    pastes into the kept picture, so the bytes are those of converting the whole frame
    (swscale's chroma filter reaches 4 rows; the bands start on whole chroma rows and
    dither periods), in a third of the time for a band of a quarter of the frame.
    (swscale converts slices of rows itself, but PyAV does not expose them: the band is
    converted as a frame of its own.)

    The returned frame is the kept picture: valid until the next call (x264 copies what it
    is sent)."""

    BAND = 16
    MARGIN = 16
    WHOLE = 0.7
    """Convert the whole frame when the band would cover more than this share of it."""

    def __init__(self, width: int, height: int) -> None:
        self._rgba = av.VideoFrame(width, height, "rgba")
        plane = self._rgba.planes[0]
        self._rows = np.frombuffer(plane, np.uint8).reshape(height, plane.line_size)
        self._width, self._height = width, height
        self._scaler = VideoReformatter()
        self._last: np.ndarray | None = None  # the RGBA rows last converted
        self._out: av.VideoFrame | None = None
        self._planes: list[np.ndarray] = []  # the kept picture's planes, writable views
        self.whole_frames = 0  # frames converted whole (the others by their changed band)

    def __call__(self, pixels: np.ndarray, changed: tuple[int, int] | None = None
                 ) -> av.VideoFrame:
        """``pixels`` as yuv420p; ``changed``, when the caller compared them with the frame
        converted last (:func:`changed_rows`), saves comparing them again."""
        rows = pixels.reshape(pixels.shape[0], -1)
        last, self._last = self._last, rows
        if last is None:
            return self._whole(rows)
        span = changed if changed is not None else changed_rows(last, rows)
        if span is None:
            return self._whole(rows)
        first, end = span
        if first == end:
            return self._out
        step, h = self.BAND, self._height
        top = max(0, (first - self.MARGIN - step) // step * step)
        bottom = min(h, -(-(end + self.MARGIN + step) // step) * step)
        if bottom - top > self.WHOLE * h:
            return self._whole(rows)
        band = av.VideoFrame.from_ndarray(np.ascontiguousarray(pixels[top:bottom]),
                                          format="rgba")
        part = self._convert(band)
        keep_top = top + self.MARGIN if top else 0
        keep_end = bottom - self.MARGIN if bottom < h else h
        for k, (plane, dst) in enumerate(zip(part.planes, self._planes, strict=True)):
            s = 1 if k == 0 else 2  # chroma rows: one for two picture rows
            src = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)
            dst[keep_top // s:keep_end // s] = (
                src[(keep_top - top) // s:(keep_end - top) // s, :plane.width])
        return self._out

    def _whole(self, rows: np.ndarray) -> av.VideoFrame:
        self.whole_frames += 1
        self._rows[:, :self._width * 4] = rows
        self._out = self._convert(self._rgba)
        self._planes = [np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width]
                        for p in self._out.planes]
        return self._out

    def _convert(self, frame: av.VideoFrame) -> av.VideoFrame:
        return self._scaler.reformat(frame, format=PIX_FMT,
                                     dst_colorspace=Colorspace.ITU709,
                                     dst_color_range=ColorRange.MPEG)


def changed_rows(a: np.ndarray, b: np.ndarray) -> tuple[int, int] | None:
    """The rows of two frames from the first that differs to the last, as ``(first, end)``
    (``(0, 0)`` when the frames are identical; None when their shapes differ).

    Compared a block of :data:`ROW_BLOCK` rows at a time from the top, then from the bottom
    up to the first changed block, 8 bytes at a time where the layout allows: an identical
    1080p RGBA frame in 0.4 ms (a whole ``np.array_equal``, 0.5 ms), a changed band found
    in 0.7 ms (a row-wise ``any`` over the frame, 2.7 ms)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return None
    a, b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
    if a.flags.c_contiguous and b.flags.c_contiguous and a.nbytes % (8 * a.shape[0]) == 0:
        a, b = a.view(np.uint64), b.view(np.uint64)
    h, step = a.shape[0], ROW_BLOCK
    top = 0
    while top < h and np.array_equal(a[top:top + step], b[top:top + step]):
        top += step
    if top >= h:
        return (0, 0)
    end = h
    while np.array_equal(a[max(top, end - step):end], b[max(top, end - step):end]):
        end -= step
    low = max(top, end - step)
    first = top + int(np.flatnonzero((a[top:top + step] != b[top:top + step]).any(axis=1))[0])
    last = low + int(np.flatnonzero((a[low:end] != b[low:end]).any(axis=1))[-1])
    return (first, last + 1)


def to_yuv(pixels: np.ndarray) -> av.VideoFrame:
    """One RGBA frame as the segment stores it (:class:`YuvConverter`)."""
    return YuvConverter(pixels.shape[1], pixels.shape[0])(pixels)


class HeldFrameEncoder:
    """Encodes frames on a worker thread into ``target``, a constant-rate H.264 segment,
    merging consecutive identical ones (see the module's docstring)."""

    def __init__(self, target: Path, width: int, height: int, fps: int, crf: int = CRF,
                 gop_seconds: float = GOP_SECONDS) -> None:
        self.target, self.fps = target, fps
        self.width, self.height = width, height
        self.frames = 0  # frames represented (what a constant-rate video would hold)
        self.starts: list[int] = []  # the first frame of each run
        self.gop = gop_frames(fps, gop_seconds)
        self.min_hold = default_min_hold(self.gop)
        self._reduced = target.with_name(f".{target.name}.reduced.mp4")
        self._container = av.open(str(self._reduced), mode="w", format="mp4")
        self._stream = self._container.add_stream(
            "libx264", rate=fps, options=x264_options(fps, crf, gop_seconds))
        self._stream.pix_fmt = PIX_FMT
        self._stream.width, self._stream.height = width, height
        # x264's own frame threads (PyAV's default is one): the tail of a render, and a
        # lone scene, use every core. The bytes depend on the machine's core count, as the
        # pictures are stored by their inputs' key, not compared across machines.
        self._stream.codec_context.thread_count = 0
        self._to_yuv = YuvConverter(width, height)
        self._tb = Fraction(1, fps)
        self._sent = 0  # frames sent to x264
        self._moving_from: int | None = None  # first frame of the moving stretch, if in one
        self._pending: np.ndarray | None = None
        self._pending_at = 0
        self._pending_n = 0
        self._pending_rows: tuple[int, int] | None = None  # its change from the run before
        self._stills = StillSpans(fps)  # the still stretches, seen as the frames are stored
        self.stills: list[tuple[float, float]] = []  # (first frame, end frame), once closed
        self._queue: queue.Queue[tuple[np.ndarray | None, int]] = queue.Queue(maxsize=8)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="held-frame-encoder",
                                        daemon=True)
        self._thread.start()

    @property
    def stored(self) -> int:
        """Distinct frames (runs of identical frames)."""
        return len(self.starts)

    def put(self, pixels: np.ndarray, repeat: int) -> None:
        if self._error is not None:
            raise RuntimeError(f"encoding {self.target} failed: {self._error}")
        self._queue.put((pixels, repeat))

    def close(self) -> None:
        """Flush everything and write the segment (raises if encoding failed)."""
        self._queue.put((None, 0))
        self._thread.join()
        if self._error is not None:
            raise RuntimeError(f"encoding {self.target} failed: {self._error}")

    def _work(self) -> None:
        try:
            while True:
                pixels, repeat = self._queue.get()
                if pixels is None:
                    break
                rows = (None if self._pending is None
                        else changed_rows(self._pending, pixels))
                if rows == (0, 0):
                    self._pending_n += repeat
                    continue
                self._flush()
                self._pending, self._pending_at, self._pending_n = (
                    pixels, self._pending_at + self._pending_n, repeat)
                self._pending_rows = rows
            self._flush()
            self._finish()
            self.stills = self._stills.finish(self.frames)
        except BaseException as err:  # reported to the render thread by put/close
            self._error = err
            # Drain so the producer never blocks on a full queue after a failure.
            while True:
                try:
                    if self._queue.get_nowait()[0] is None:
                        break
                except queue.Empty:
                    break
            with contextlib.suppress(Exception):  # the first error is the one to report
                self._container.close()
            self._reduced.unlink(missing_ok=True)

    def _flush(self) -> None:
        """Send the pending run to x264 as ``common.gops.plan_gops`` plans it: a hold as
        one frame opening a GOP; a moving frame once per frame it lasts, a GOP opening
        every ``gop`` frames from where the moving stretch began."""
        if self._pending is None:
            return
        # Converted here, as the encoder would: its brightness is then exactly what a
        # decoder of the picture sees (up to the lossy encode), for the still stretches.
        frame = self._to_yuv(self._pending, self._pending_rows)
        at, n = self._pending_at, self._pending_n
        self._stills.add(luma(frame), at, at + n)
        self.starts.append(at)
        self.frames = at + n
        if n >= self.min_hold:
            self._moving_from = None
            self._send(frame, True)
        else:
            if self._moving_from is None:
                self._moving_from = at
            for f in range(at, at + n):
                self._send(frame, (f - self._moving_from) % self.gop == 0)
        self._pending = None

    def _send(self, frame: av.VideoFrame, opens_gop: bool) -> None:
        frame.pts = self._sent
        frame.time_base = self._tb
        frame.pict_type = PictureType.I if opens_gop else PictureType.NONE
        self._sent += 1
        self._mux(self._stream.encode(frame))

    def _finish(self) -> None:
        """The black GOPs the holds need, then the segment itself (``common.gops``)."""
        plan = plan_gops(self.starts, self.frames, self.gop, self.min_hold)
        if self._sent != plan.encoded_frames - sum(plan.templates):
            raise MediaError(f"{self.target.name}: {self._sent} frames sent to x264, the "
                             f"plan has {plan.encoded_frames - sum(plan.templates)}")
        if plan.templates:
            black = av.VideoFrame(self.width, self.height, PIX_FMT)
            for plane, value in zip(black.planes, (16, 128, 128), strict=True):
                np.frombuffer(plane, np.uint8)[:] = value  # limited-range black
            for length in plan.templates:
                for i in range(length):
                    self._send(black, i == 0)
        self._mux(self._stream.encode())
        self._container.close()
        try:
            expand(self._reduced, plan, self.fps, self.target)
        finally:
            self._reduced.unlink(missing_ok=True)

    def _mux(self, packets) -> None:
        for packet in packets:
            packet.duration = round(1 / (packet.time_base * self.fps))  # one frame each
            self._container.mux(packet)


class HeldFrameWriter(SceneFileWriter):
    """Manim file writer for one scene, configured by :meth:`for_target`."""

    target: ClassVar[Path]
    on_frames: ClassVar[Callable[[int], None] | None] = None

    @classmethod
    def for_target(cls, target: Path, on_frames: Callable[[int], None] | None = None
                   ) -> type[HeldFrameWriter]:
        return type("HeldFrameWriterFor", (cls,), {"target": target,
                                                   "on_frames": staticmethod(on_frames)})

    def __init__(self, settings) -> None:
        super().__init__(settings)
        self.encoder: HeldFrameEncoder | None = None
        self.frames_written = 0
        self.final_file_path = self.target

    def _open(self) -> HeldFrameEncoder:
        if self.encoder is None:
            enc = self.video_encoder
            self.target.parent.mkdir(parents=True, exist_ok=True)
            self.encoder = HeldFrameEncoder(self.target, enc.width, enc.height,
                                            int(enc.frame_rate))
        return self.encoder

    # Manim's per-animation segment files are not used: one stream for the whole scene.
    def add_partial_movie_file(self, hash_animation: str | None) -> None:
        self.partial_movie_files.append(None)

    def begin_animation(self, allow_write: bool = False, *, animation_index: int,
                        file_path=None) -> None:
        pass

    def end_animation(self, allow_write: bool = False) -> None:
        pass

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        if not self.output_spec.is_video:
            return
        self._open().put(pixels, repeat)
        self.frames_written += repeat
        if self.on_frames is not None:
            self.on_frames(self.frames_written)

    def finish(self) -> None:
        if self.encoder is not None:
            self.encoder.close()

    def abort_encode_jobs(self, reraise_encoder_failures: bool = False) -> None:
        if self.encoder is not None:
            try:
                self.encoder.close()
            finally:
                self.target.unlink(missing_ok=True)

