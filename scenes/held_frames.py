"""A Manim file writer that stores each run of identical frames once, with its duration.

Plain Manim converts and encodes every frame it is given, including each repeat of a held
frame (a beat waiting out its speech): at 1080p60 its encoder thread cost more than all the
drawing (py-spy: 1179 of 1759 samples in ``VideoSegmentEncoder.write_frame``, against 500
in the scene's own drawing, for the formula scene). This writer instead:

- compares each frame with the one before (on its own thread) and extends the previous
  frame's duration when nothing changed, so a held frame is converted and encoded once;
- encodes the distinct frames losslessly with x264's fastest preset into one file per
  scene, with true timestamps (variable frame rate), instead of Manim's per-animation
  segments that it then concatenates.

The master is encoded from these files once, at the end, at a constant frame rate
(``pipeline.media``), so no picture is lossily encoded twice.
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
from manim.scene.scene_file_writer import SceneFileWriter

from common.stills import StillSpans, luma

# Lossless (qp 0) at x264's fastest preset: the intermediate costs little to write and
# nothing in quality; the master's single lossy encode happens later.
CODEC_OPTIONS = {"preset": "ultrafast", "qp": "0"}
PIX_FMT = "yuv420p"  # Manim's own conversion, so the picture matches a plain render


class HeldFrameEncoder:
    """Encodes frames on a worker thread, merging consecutive identical ones."""

    def __init__(self, target: Path, width: int, height: int, fps: int) -> None:
        self.target, self.fps = target, fps
        self.frames = 0  # frames represented (what a constant-rate video would hold)
        self.stored = 0  # frames actually encoded
        self._container = av.open(str(target), mode="w", format="mp4")
        self._stream = self._container.add_stream("libx264", rate=fps,
                                                  options=dict(CODEC_OPTIONS))
        self._stream.pix_fmt = PIX_FMT
        self._stream.width, self._stream.height = width, height
        self._tb = Fraction(1, fps)
        self._pending: np.ndarray | None = None
        self._pending_at = 0
        self._pending_n = 0
        self._durations: dict[int, int] = {}  # pts (frames) -> duration (frames)
        self._stills = StillSpans()  # the still stretches, seen as the frames are stored
        self.stills: list[tuple[int, int]] = []  # (first frame, end frame), once closed
        self._queue: queue.Queue[tuple[np.ndarray | None, int]] = queue.Queue(maxsize=8)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="held-frame-encoder",
                                        daemon=True)
        self._thread.start()

    def put(self, pixels: np.ndarray, repeat: int) -> None:
        if self._error is not None:
            raise RuntimeError(f"encoding {self.target} failed: {self._error}")
        self._queue.put((pixels, repeat))

    def close(self) -> None:
        """Flush everything and close the file (raises if encoding failed)."""
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
                if self._pending is not None and np.array_equal(pixels, self._pending):
                    self._pending_n += repeat
                    continue
                self._flush()
                self._pending, self._pending_at, self._pending_n = (
                    pixels, self._pending_at + self._pending_n, repeat)
            self._flush()
            self._mux(self._stream.encode())
            self._container.close()
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

    def _flush(self) -> None:
        if self._pending is None:
            return
        # Converted here, as the encoder would: its brightness is then exactly what a
        # decoder of the (lossless) picture sees, for the still stretches.
        frame = av.VideoFrame.from_ndarray(self._pending, format="rgba").reformat(
            format=PIX_FMT)
        self._stills.add(luma(frame), self._pending_at)
        frame.pts = self._pending_at
        frame.time_base = self._tb
        self._durations[self._pending_at] = self._pending_n
        self.frames = self._pending_at + self._pending_n
        self.stored += 1
        self._mux(self._stream.encode(frame))
        self._pending = None

    def _mux(self, packets) -> None:
        for packet in packets:
            # Each sample lasts as long as its frame was held; the last one too, so the
            # file's length is exactly ``frames / fps``.
            at = round(packet.pts * packet.time_base * self.fps)
            packet.duration = round(self._durations.pop(at, 1) / (packet.time_base * self.fps))
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

