"""Held frames are stored once with their duration, and expand back to every frame."""

from __future__ import annotations

import subprocess

import av
import numpy as np

from pipeline.media import FFMPEG, x264_args
from pipeline.quality import still_frames
from scenes.held_frames import HeldFrameEncoder

W, H, FPS = 64, 36, 15


def _solid(rgb: tuple[int, int, int]) -> np.ndarray:
    img = np.zeros((H, W, 4), np.uint8)
    img[..., :3] = rgb
    img[..., 3] = 255
    return img


def _frames(path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def test_identical_frames_are_stored_once_and_expand_to_the_same_count(tmp_path):
    a, b, c = _solid((200, 40, 40)), _solid((40, 200, 40)), _solid((40, 40, 200))
    enc = HeldFrameEncoder(tmp_path / "held.mp4", W, H, FPS)
    for frame, repeat in [(a, 1), (a.copy(), 1), (b, 1), (b.copy(), 5), (c, 1)]:
        enc.put(frame, repeat)
    enc.close()
    assert (enc.frames, enc.stored) == (9, 3)
    with av.open(str(tmp_path / "held.mp4")) as f:
        assert abs(f.duration / av.time_base - 9 / FPS) < 1e-3
    assert len(_frames(tmp_path / "held.mp4")) == 3

    # At a constant rate (as the master is encoded) every frame is back, in order.
    out = tmp_path / "cfr.mp4"
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", str(tmp_path / "held.mp4"),
                    *x264_args(FPS), str(out)], check=True)
    frames = _frames(out)
    assert len(frames) == 9
    means = [tuple(np.round(f.reshape(-1, 3).mean(0) / 80).astype(int)) for f in frames]
    want = [tuple(np.round(np.array(x[0, 0, :3], float) / 80).astype(int))
            for x in (a, a, b, b, b, b, b, b, c)]
    assert means == want

    # The still stretches read the same from the stored frames as from the expanded ones.
    held_spans, _ = still_frames(tmp_path / "held.mp4", fps=FPS)
    cfr_spans, _ = still_frames(out)
    assert held_spans == cfr_spans == [(0.0, 2 / FPS), (2 / FPS, 8 / FPS)]


def test_a_held_last_frame_keeps_its_length(tmp_path):
    enc = HeldFrameEncoder(tmp_path / "tail.mp4", W, H, FPS)
    enc.put(_solid((10, 10, 10)), 1)
    enc.put(_solid((250, 250, 250)), 30)
    enc.close()
    assert (enc.frames, enc.stored) == (31, 2)
    spans, _ = still_frames(tmp_path / "tail.mp4", fps=FPS)
    assert spans == [(1 / FPS, 31 / FPS)]
