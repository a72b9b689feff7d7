"""A scene's picture is written as its master segment with each hold's picture encoded
once: every frame shows the frame drawn for its time, at a constant rate, in closed GOPs of
at most ``g``; and a segment thins back to its distinct frames for the deck's encode."""

from __future__ import annotations

import av
import numpy as np

from common.gops import Gop, plan_gops
from pipeline.gops import held_runs, thin
from pipeline.media import gop_frames, probe
from scenes.held_frames import HeldFrameEncoder, to_yuv

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


# (distinct frame, frames it is held): a short move, a long hold, a move with a two-frame
# pause (too short to be a hold), a hold, a move longer than a GOP, a hold at the end.
SEQUENCE = [(0, 1), (1, 1), (2, 30), (3, 1), (4, 2), (5, 1), (6, 20),
            *[(i, 1) for i in range(7, 17)], (17, 4)]


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
    """Each decoded frame's yuv420p planes, stacked (no colour conversion)."""
    with av.open(str(path)) as c:
        return [f.to_ndarray().astype(int) for f in c.decode(video=0)]


def _drawn(i: int) -> np.ndarray:
    """Frame ``i`` as the writer hands it to x264 (yuv420p planes, stacked)."""
    return to_yuv(_frame(i)).to_ndarray().astype(int)


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


def test_the_plan_starts_gops_at_holds_and_fills_them_from_the_hold():
    # GOPs of 7, holds of 3 frames or more: frames 0-2 move; 3-19 are held (17 frames:
    # GOPs of 7, 7, 3); 20-21 move; 22-39 are held (7, 7, 4); 40-44 are held (5).
    plan = plan_gops([0, 1, 2, 3, 20, 21, 22, 40], 45, 7, min_hold=3)
    assert plan.gops == (Gop(0, 3, None), Gop(3, 7, 3), Gop(10, 7, 3), Gop(17, 3, 3),
                         Gop(20, 2, None), Gop(22, 7, 22), Gop(29, 7, 22), Gop(36, 4, 22),
                         Gop(40, 5, 40))
    assert plan.holds == [3, 22, 40]
    assert plan.kept() == [(0, 3), (20, 22), (40, 40)]
    # x264 writes: the moving GOPs and one frame per hold, in order, then a black GOP of
    # each length a hold's GOP has.
    assert plan.reduced_gops() == [3, 1, 2, 1, 1, 3, 4, 5, 7]
    # A move longer than a GOP is cut every GOP.
    assert [(g.start, g.length) for g in plan_gops(list(range(20)), 20, 7).gops] == [
        (0, 7), (7, 7), (14, 6)]


def test_the_scene_writer_encodes_its_segment_with_each_hold_encoded_once(tmp_path):
    segment = tmp_path / "picture.mp4"
    starts, frames = _picture(segment)
    g = gop_frames(FPS)
    plan = plan_gops(starts, frames, g)
    assert plan.encoded_frames < frames
    assert plan.holds == [2, 36, 66]

    # A constant rate: one frame at every frame time, in GOPs of at most g frames, each
    # starting where the plan says (and at every hold's start and end); H.264 High.
    got = _gops(segment)
    assert sorted(f for gop in got for _, f in gop) == list(range(frames))
    assert [gop[0][1] for gop in got] == [p.start for p in plan.gops]
    assert max(len(gop) for gop in got) == g
    assert {2, 32, 36, 56, 66} <= {gop[0][1] for gop in got}
    info = probe(segment)
    assert abs(info.duration - frames / FPS) < 1e-3
    with av.open(str(segment)) as c:
        assert c.streams.video[0].codec_context.profile == "High"

    # Every frame shows the frame drawn for its time (H.264 at CRF 18: close, not equal),
    # and every frame of a hold is its first frame exactly.
    expected = [_drawn(i) for i, n in SEQUENCE for _ in range(n)]
    decoded = _decoded(segment)
    assert len(decoded) == frames
    errors = [float(np.abs(d - e).mean()) for d, e in zip(decoded, expected, strict=True)]
    assert max(errors) < 3.0, errors
    for start, (_, n) in zip(starts, SEQUENCE, strict=True):
        if start in plan.holds:
            assert all(np.array_equal(decoded[start], decoded[start + k]) for k in range(n))

    # Each GOP of a hold is the hold's IDR, byte for byte, then skip frames shared by every
    # GOP of that length.
    by_start = {gop[0][1]: [b for b, _ in gop] for gop in got}
    for hold in plan.holds:
        mine = [p for p in plan.gops if p.hold == hold]
        assert len({by_start[p.start][0] for p in mine}) == 1
    fulls = [by_start[p.start][1:] for p in plan.gops if p.hold is not None and p.length == g]
    assert len(fulls) >= 2 and all(f == fulls[0] for f in fulls)


def test_a_segment_thins_to_its_distinct_frames(tmp_path):
    segment, thinned = tmp_path / "picture.mp4", tmp_path / "held.mp4"
    starts, frames = _picture(segment)
    thin(segment, starts, FPS, thinned)
    # Each hold is one frame lasting the hold; the moving frames stay one per frame time
    # (a short pause inside a move included), so the runs read back hold every start.
    runs, length = held_runs(thinned, FPS)
    assert length == frames and set(starts) <= set(runs)
    plan = plan_gops(starts, frames, gop_frames(FPS))
    moving = sum(p.length for p in plan.gops if p.hold is None)
    assert len(runs) == moving + len(plan.holds)
    # The frames decode exactly as the segment's at their times (the same packets).
    full, few = _decoded(segment), _decoded(thinned)
    assert len(few) == len(runs)
    assert all(np.array_equal(f, full[r]) for f, r in zip(few, runs, strict=True))
    # Read at twice the rate, it lasts twice as many frames.
    assert held_runs(thinned, 2 * FPS)[1] == 2 * frames


def test_a_picture_with_hundreds_of_kept_runs_is_selected_whole(tmp_path):
    """A long scene's kept frames as one ffmpeg expression: past 100 terms in a row the
    parser refused it (the burned copy failed on in_transformer); grouped, every run is
    selected."""
    from pipeline.gops import any_of
    from pipeline.media import run_ffmpeg

    runs = [(3 * i, 3 * i + 1) for i in range(300)]  # 600 of 900 frames
    out = tmp_path / "kept.mp4"
    keep = any_of([f"between(n,{a},{b})" for a, b in runs])
    run_ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x64:r=15:d=60", "-vf",
                f"select='{keep}',setpts=N/(15*TB)", "-c:v", "libx264", str(out)])
    with av.open(str(out)) as c:
        assert c.streams.video[0].frames == 600
