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


def test_changed_rows_finds_a_single_changed_byte_in_any_layout():
    from scenes.held_frames import changed_rows

    a = np.zeros((90, 160, 4), np.uint8)
    b = a.copy()
    assert changed_rows(a, b) == (0, 0)
    b[89, 159, 2] = 1  # the last 8-byte word
    assert changed_rows(a, b) == (89, 90)
    b[3, 0, 0] = 1
    assert changed_rows(a, b) == (3, 90)
    b[89, 159, 2] = 0
    b[40, 7, 1] = 9  # inside a block, seen from the bottom
    assert changed_rows(a, b) == (3, 41)
    odd = np.zeros((3, 3, 4), np.uint8)  # rows of 12 bytes: not whole words
    other = odd.copy()
    other[2, 2, 3] = 7
    assert changed_rows(odd, odd.copy()) == (0, 0) and changed_rows(odd, other) == (2, 3)
    view = a[:, ::2]  # not contiguous
    assert changed_rows(view, view.copy()) == (0, 0)
    assert changed_rows(view, b[:, ::2] + 1) == (0, 90)
    assert changed_rows(a, a[:, :80]) is None


def test_a_changed_band_converts_to_the_bytes_of_the_whole_frame():
    """Only the changed rows are converted again, and the picture is byte for byte the whole
    frame's conversion: at the frame's edges, across swscale's chroma rows and dither."""
    from scenes.held_frames import YuvConverter, to_yuv

    rng = np.random.default_rng(7)
    w, h = 320, 270  # not a multiple of the band
    frame = rng.integers(0, 256, (h, w, 4), np.uint8)
    convert = YuvConverter(w, h)
    convert(frame)
    for top, end in [(100, 101), (0, 3), (h - 2, h), (31, 33), (150, 200), (47, 48)]:
        frame = frame.copy()
        frame[top:end] = rng.integers(0, 256, (end - top, w, 4), np.uint8)
        got = convert(frame)
        want = to_yuv(frame)
        for g, x in zip(got.planes, want.planes, strict=True):
            rows = [np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width]
                    for p in (g, x)]
            assert np.array_equal(*rows), (top, end)
    assert convert.whole_frames == 1  # the first; the others by their bands
