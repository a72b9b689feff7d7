"""Held frames are converted once and written as the master segment: every frame at a
constant rate, the still stretches recorded on the way."""

from __future__ import annotations

import av
import numpy as np
from av.video.reformatter import ColorRange, Colorspace

from pipeline.quality import still_frames
from scenes.held_frames import HeldFrameEncoder

W, H, FPS = 64, 36, 15


def _solid(rgb: tuple[int, int, int]) -> np.ndarray:
    img = np.zeros((H, W, 4), np.uint8)
    img[..., :3] = rgb
    img[..., 3] = 255
    return img


def _frames(path) -> list[np.ndarray]:
    """The decoded frames in RGB, read as the stream's BT.709 tag says."""
    with av.open(str(path)) as c:
        return [f.reformat(format="rgb24", src_colorspace=Colorspace.ITU709,
                           src_color_range=ColorRange.MPEG).to_ndarray()
                for f in c.decode(c.streams.video[0])]


def test_identical_frames_are_stored_once_and_expand_to_the_same_count(tmp_path):
    a, b, c = _solid((200, 40, 40)), _solid((40, 200, 40)), _solid((40, 40, 200))
    enc = HeldFrameEncoder(tmp_path / "held.mp4", W, H, FPS)
    for frame, repeat in [(a, 1), (a.copy(), 1), (b, 1), (b.copy(), 5), (c, 1)]:
        enc.put(frame, repeat)
    enc.close()
    assert (enc.frames, enc.stored, enc.starts) == (9, 3, [0, 2, 8])
    with av.open(str(tmp_path / "held.mp4")) as f:
        assert abs(f.duration / av.time_base - 9 / FPS) < 1e-3
        assert f.streams.video[0].average_rate == FPS

    # At a constant rate (the master's own segment) every frame is there, in order, in the
    # colours drawn (the stream is BT.709 and says so).
    frames = _frames(tmp_path / "held.mp4")
    assert len(frames) == 9
    means = [tuple(np.round(f.reshape(-1, 3).mean(0) / 80).astype(int)) for f in frames]
    want = [tuple(np.round(np.array(x[0, 0, :3], float) / 80).astype(int))
            for x in (a, a, b, b, b, b, b, b, c)]
    assert means == want
    assert all(np.abs(f.reshape(-1, 3).mean(0) - x[0, 0, :3]).max() < 4
               for f, x in zip(frames, (a, a, b, b, b, b, b, b, c), strict=True))

    # The still stretches the writer saw are the ones read from the decoded frames.
    held_spans = [(a / FPS, b / FPS) for a, b in enc.stills]
    cfr_spans, _ = still_frames(tmp_path / "held.mp4")
    assert held_spans == cfr_spans == [(0.0, 2 / FPS), (2 / FPS, 8 / FPS)]


def test_a_held_last_frame_keeps_its_length(tmp_path):
    enc = HeldFrameEncoder(tmp_path / "tail.mp4", W, H, FPS)
    enc.put(_solid((10, 10, 10)), 1)
    enc.put(_solid((250, 250, 250)), 30)
    enc.close()
    assert (enc.frames, enc.stored) == (31, 2)
    spans, _ = still_frames(tmp_path / "tail.mp4", fps=FPS)
    assert spans == [(1 / FPS, 31 / FPS)] == [(a / FPS, b / FPS) for a, b in enc.stills]
    with av.open(str(tmp_path / "tail.mp4")) as f:
        assert abs(f.duration / av.time_base - 31 / FPS) < 1e-3


def test_same_pixels_finds_a_single_changed_byte_in_any_layout():
    from scenes.held_frames import same_pixels

    a = np.zeros((90, 160, 4), np.uint8)
    b = a.copy()
    assert same_pixels(a, b)
    b[89, 159, 2] = 1  # the last 8-byte word
    assert not same_pixels(a, b)
    odd = np.zeros((3, 3, 4), np.uint8)  # 36 bytes: not whole words
    other = odd.copy()
    other[2, 2, 3] = 7
    assert same_pixels(odd, odd.copy()) and not same_pixels(odd, other)
    view = a[:, ::2]  # not contiguous
    assert same_pixels(view, view.copy()) and not same_pixels(view, b[:, ::2] + 1)
    assert not same_pixels(a, a[:, :80])
