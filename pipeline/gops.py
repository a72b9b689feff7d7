"""A held-frame picture encoded at a constant frame rate, each held frame encoded once.

The master (and each deck clip) is made of closed GOPs of at most ``g`` frames, each
starting on an IDR and referring to nothing outside it. Here a GOP starts wherever a hold
(a frame shown for ``min_hold`` frames or more) starts or ends, and every ``g`` frames in
between. A GOP inside a hold shows one picture ``g`` times, and x264 would analyse every
repeat (about 5 ms a frame at 1080p); instead:

- x264 encodes the moving stretches frame by frame, and each hold's picture once, as a
  one-frame GOP (every GOP start is a forced IDR);
- after them, in the same session, it encodes a black picture as one GOP of each length the
  holds need: every frame after its IDR is all "skip" macroblocks, which copy the reference
  picture whatever it shows;
- each GOP of a hold is written as that hold's IDR followed by the skip frames of a black
  GOP of its length, re-timed.

A skip frame decodes to its reference exactly: no residual, zero motion (all neighbours are
skips), no deblocking between skip blocks; so the hold decodes to its IDR's picture for
every frame. Everything comes from one encoder session (one SPS/PPS).

Written here rather than found in a library: no tool we know writes coded frames this way;
the muxing itself is libavformat's (PyAV).
"""

from __future__ import annotations

import itertools
import math
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

from pipeline.media import (
    MediaError,
    frame_size,
    gop_frames,
    run_ffmpeg,
    scaled_width,
    subtitles_filter,
    x264_args,
)


@dataclass(frozen=True)
class Gop:
    start: int  # first frame
    length: int  # frames
    hold: int | None  # the hold whose picture fills it; None: encoded frame by frame


@dataclass(frozen=True)
class GopPlan:
    """Where the GOPs of a constant-rate picture start, and which a hold fills."""

    frames: int
    gops: tuple[Gop, ...]

    @property
    def holds(self) -> list[int]:
        """The first frame of each hold used, in order."""
        return [g.start for g in self.gops if g.hold == g.start]

    @property
    def templates(self) -> list[int]:
        """The lengths of the black GOPs to encode (those of the holds' GOPs)."""
        return sorted({g.length for g in self.gops if g.hold is not None})

    def kept(self) -> list[tuple[int, int]]:
        """The frames x264 encodes, as inclusive (first, last) ranges, merged: every frame
        of the moving GOPs and each hold's first frame."""
        out: list[tuple[int, int]] = []
        for g in self.gops:
            if g.hold is None:
                a, b = g.start, g.start + g.length - 1
            elif g.hold == g.start:  # a hold's first GOP
                a = b = g.start
            else:
                continue
            if out and out[-1][1] + 1 == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
        return out

    def reduced_gops(self) -> list[int]:
        """The frames of each GOP x264 writes, in order: the moving GOPs, a one-frame GOP
        per hold, then the black GOPs."""
        return [g.length if g.hold is None else 1 for g in self.gops
                if g.hold in (None, g.start)] + self.templates

    @property
    def encoded_frames(self) -> int:
        return sum(self.reduced_gops())


def held_runs(picture: Path, fps: int) -> tuple[list[int], int]:
    """The first frame of each stored (distinct) frame of a held-frame picture at ``fps``,
    in order, and its length in frames; read from the packets (nothing decoded). At a rate
    below the picture's, both frames a stored frame's time falls between are given (a
    superset of the changes is safe; a change left out is not)."""
    with av.open(str(picture)) as c:
        stream = c.streams.video[0]
        starts: set[int] = set()
        end = 0
        for p in c.demux(stream):
            if p.pts is None or p.size == 0:
                continue
            at = p.pts * stream.time_base * fps
            starts.update((math.floor(at), math.ceil(at)))
            stop = (p.pts + (p.duration or 0)) * stream.time_base * fps
            end = max(end, math.floor(at) + 1, round(stop))
    return sorted(s for s in starts if s < end), end


def plan_gops(starts: list[int], frames: int, gop: int, min_hold: int | None = None
              ) -> GopPlan:
    """GOPs of at most ``gop`` frames; a run between consecutive ``starts`` of at least
    ``min_hold`` frames (default half a GOP) is a hold: its GOPs start with it and it fills
    them, and the next GOP starts where it ends."""
    min_hold = max(2, gop // 2) if min_hold is None else min_hold
    bounds = [*sorted(set(starts) | {0}), frames]
    out: list[Gop] = []
    moving_from: int | None = None

    def cut(a: int, b: int, hold: int | None) -> None:
        for s in range(a, b, gop):
            out.append(Gop(s, min(gop, b - s), hold))

    for a, b in itertools.pairwise(bounds):
        if b <= a:
            continue
        if b - a >= min_hold:
            if moving_from is not None:
                cut(moving_from, a, None)
                moving_from = None
            cut(a, b, a)
        elif moving_from is None:
            moving_from = a
    if moving_from is not None:
        cut(moving_from, frames, None)
    return GopPlan(frames, tuple(out))


def encode_held_picture(picture: Path, fps: int, out: Path, crf: int = 18,
                        gop_seconds: float = 0.5, height: int | None = None,
                        subtitles: tuple[Path, Path] | None = None,
                        changes: list[int] = ()) -> GopPlan:
    """``picture`` (a scene's held-frame picture) as H.264 at a constant ``fps``, no sound;
    scaled to ``height`` and with the ASS ``subtitles`` (file, fonts folder) drawn in if
    given, their cue times in ``changes`` (frames where the drawing may change). Returns
    the plan it followed."""
    starts, frames = held_runs(picture, fps)
    plan = plan_gops(sorted(set(starts) | {c for c in changes if 0 < c < frames}), frames,
                     gop_frames(fps, gop_seconds))
    width, full = frame_size(picture)
    if height is not None and height != full:
        width = scaled_width(width, full, height)
    else:
        height = None
    size = f"{width}x{height or full}"

    keep = "+".join(f"between(n,{a},{b})" for a, b in plan.kept())
    # Padded, then cut to the planned length: the plan and the frames agree to the frame.
    chain = [f"fps={fps}", "tpad=stop_mode=clone:stop=4", f"trim=end_frame={frames}",
             f"select='{keep}'"]
    if height:
        chain.append(f"scale=-2:{height}:flags=lanczos")
    if subtitles:  # after select: the frames keep their times, so the right cues show
        chain.append(subtitles_filter(*subtitles))
    chain += ["format=yuv420p", "setsar=1", f"setpts=N/({fps}*TB)"]
    black = sum(plan.templates)
    graph = f"[0:v]{','.join(chain)}[moving]"
    if black:
        graph += (f";color=c=black:s={size}:r={fps},format=yuv420p,setsar=1,"
                  f"trim=end_frame={black},setpts=N/({fps}*TB)[black];"
                  f"[moving][black]concat=n=2:v=1:a=0,setpts=N/({fps}*TB)")
    else:
        graph += ";[moving]null"
    # Every GOP start forced (x264's own cadence of ``g`` never adds one: no GOP is longer).
    keys = itertools.accumulate(plan.reduced_gops()[:-1], initial=0)
    times = ",".join(f"{max(0.0, (k - 0.25) / fps):.6f}" for k in keys)
    with tempfile.TemporaryDirectory(prefix=".gops-", dir=out.parent) as tmp:
        script = Path(tmp) / "graph.txt"
        script.write_text(graph, "utf-8")
        reduced = Path(tmp) / "reduced.mp4"
        run_ffmpeg(["-i", str(picture), "-/filter_complex", str(script),
                    *x264_args(fps, crf, gop_seconds), "-forced-idr", "1",
                    "-force_key_frames", times, "-an", str(reduced)])
        _expand(reduced, plan, fps, out)
    return plan


def _expand(reduced: Path, plan: GopPlan, fps: int, out: Path) -> None:
    """Write every GOP of ``plan`` into ``out``: the moving ones from ``reduced`` in order,
    each of a hold as the hold's IDR and a black GOP's skip frames, re-timed."""
    with av.open(str(reduced)) as src:
        stream = src.streams.video[0]
        gops: list[list[av.Packet]] = []
        for p in src.demux(stream):
            if p.size == 0:
                continue
            if p.is_keyframe or not gops:
                gops.append([])
            gops[-1].append(p)
        sizes, want = [len(g) for g in gops], plan.reduced_gops()
        if sizes != want:
            bad = next((i for i, (a, b) in enumerate(zip(sizes, want, strict=False)) if a != b),
                       min(len(sizes), len(want)))
            raise MediaError(f"{reduced.name}: GOP {bad} of {len(sizes)} has "
                             f"{sizes[bad] if bad < len(sizes) else 'no'} frame(s), "
                             f"{want[bad] if bad < len(want) else 'none'} expected "
                             f"(x264 did not start GOPs where asked)")
        per_frame = Fraction(1, fps) / stream.time_base
        if per_frame.denominator != 1:
            raise MediaError(f"{reduced.name}: time base {stream.time_base} is not a whole "
                             f"number of ticks per frame at {fps} fps")
        tick = int(per_frame)
        moving = iter(gops[:len(want) - len(plan.templates)])
        black = dict(zip(plan.templates, gops[len(want) - len(plan.templates):],
                         strict=True))
        idr: dict[int, av.Packet] = {}
        last_dts: int | None = None
        with av.open(str(out), "w", format="mp4") as dst:
            ost = dst.add_stream_from_template(stream)
            for g in plan.gops:
                if g.hold in (None, g.start):  # in the reduced file: moving, or a hold's IDR
                    source = next(moving)
                    if g.hold is not None:
                        idr[g.hold] = source[0]
                if g.hold is None:
                    packets = [(p, bytes(p)) for p in source]
                else:  # the hold's IDR, then the black GOP's skip frames
                    t = black[g.length]
                    packets = [(t[0], bytes(idr[g.hold]))] + [(p, bytes(p)) for p in t[1:]]
                shift = g.start * tick - min(p.pts for p, _ in packets)
                for p, data in packets:
                    q = av.Packet(data)
                    q.pts, q.dts, q.duration = p.pts + shift, p.dts + shift, p.duration
                    if last_dts is not None and q.dts <= last_dts:
                        raise MediaError(f"{reduced.name}: decode times out of order at "
                                         f"frame {g.start} (GOPs could not be joined)")
                    last_dts = q.dts
                    q.is_keyframe = p is packets[0][0]
                    q.time_base = stream.time_base
                    q.stream = ost
                    dst.mux(q)
