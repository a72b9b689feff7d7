"""A held-frame picture encoded with each repeated GOP written once: the same frames, rate
and GOP structure as encoding every frame."""

from __future__ import annotations

import subprocess

import av
import numpy as np

from pipeline.gops import encode_held_picture, held_runs, plan_gops
from pipeline.media import FFMPEG, gop_frames, probe, x264_args
from scenes.held_frames import HeldFrameEncoder

W, H, FPS = 96, 64, 15


def _frame(i: int) -> np.ndarray:
    """A gradient with a square whose place depends on ``i``: each ``i`` a distinct frame."""
    img = np.zeros((H, W, 4), np.uint8)
    img[..., 0] = np.linspace(0, 255, W, dtype=np.uint8)[None, :]
    img[..., 1] = np.linspace(255, 0, H, dtype=np.uint8)[:, None]
    img[..., 3] = 255
    x, y = (7 * i) % (W - 16), (5 * i) % (H - 16)
    img[y:y + 16, x:x + 16, :3] = (250, 250, 40)
    return img


# (distinct frame, frames it is held): a short move, a long hold, a move, a hold at the end.
SEQUENCE = [(0, 1), (1, 1), (2, 30), (3, 1), (4, 2), (5, 1), (6, 20), (7, 4)]


def _picture(path) -> tuple[list[int], int]:
    enc = HeldFrameEncoder(path, W, H, FPS)
    for i, n in SEQUENCE:
        enc.put(_frame(i), n)
    enc.close()
    starts, at = [], 0
    for _, n in SEQUENCE:
        starts.append(at)
        at += n
    return starts, at


def _decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24").astype(int) for f in c.decode(video=0)]


def _gops(path) -> list[list[tuple[bytes, int]]]:
    """The coded GOPs: each packet's bytes and its frame number."""
    out: list[list[tuple[bytes, int]]] = []
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        for p in c.demux(s):
            if p.size == 0:
                continue
            if p.is_keyframe:
                out.append([])
            out[-1].append((bytes(p), round(p.pts * s.time_base * FPS)))
    return out


def test_the_plan_repeats_only_whole_gops_inside_one_hold():
    # Holds start at frames 0, 3 and 40; 50 frames; GOPs of 7: [0,7) spans two holds,
    # [7,14) .. [28,35) lie in the second (the first of them encoded, the rest repeat it),
    # [35,42) spans two, [42,49) is the third hold's only whole GOP, [49,50) is not whole.
    plan = plan_gops([0, 3, 40], 50, 7)
    assert plan.source == (0, 1, 1, 1, 1, 5, 6, 7)
    assert plan.encoded == [0, 1, 5, 6, 7]
    assert plan.dropped_ranges() == [(14, 34)]


def test_repeated_gops_decode_as_every_frame_encoded(tmp_path):
    picture = tmp_path / "picture.mp4"
    starts, frames = _picture(picture)
    assert held_runs(picture, FPS) == (starts, frames)

    out = tmp_path / "segment.mp4"
    plan = encode_held_picture(picture, FPS, out)
    g = gop_frames(FPS)
    assert plan.frames == frames and len(plan.encoded) < len(plan.source)

    whole = tmp_path / "every-frame.mp4"
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", str(picture), "-map", "0:v:0",
                    *x264_args(FPS), "-an", str(whole)], check=True)

    # Same length, frame rate, GOP starts and frame times as encoding every frame.
    got, ref = _gops(out), _gops(whole)
    assert [[f for _, f in gop] for gop in got] == [[f for _, f in gop] for gop in ref]
    assert [gop[0][1] for gop in got] == list(range(0, frames, g))
    assert abs(probe(out).duration - frames / FPS) < 1e-3

    # Every frame shows the picture's frame for its time (H.264 at CRF 18: close, not equal).
    expected = [_frame(i)[..., :3].astype(int) for i, n in SEQUENCE for _ in range(n)]
    decoded = _decoded(out)
    assert len(decoded) == frames
    errors = [float(np.abs(d - e).mean()) for d, e in zip(decoded, expected, strict=True)]
    assert max(errors) < 3.0, errors

    # The repeats are their source GOP's coded pictures byte for byte, only re-timed.
    for k, s in enumerate(plan.source):
        if s != k:
            assert [b for b, _ in got[k]] == [b for b, _ in got[s]]
