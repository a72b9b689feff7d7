"""Closed GOPs for a picture of held frames, each held frame encoded once.

A segment is made of closed GOPs of at most ``g`` frames, each starting on an IDR and
referring to nothing outside it. A GOP starts wherever a hold (a frame shown for
``min_hold`` frames or more) starts or ends, and every ``g`` frames in between. A GOP inside
a hold shows one picture ``g`` times, and x264 would analyse every repeat (about 5 ms a
frame at 1080p); instead:

- x264 encodes the moving stretches frame by frame, and each hold's picture once, as a
  one-frame GOP (every GOP start is a forced IDR): the "reduced" stream;
- after them, in the same session, it encodes a black picture as one GOP of each length the
  holds need: every frame after its IDR is all "skip" macroblocks, which copy the reference
  picture whatever it shows;
- :func:`expand` writes each GOP of a hold as that hold's IDR followed by the skip frames
  of a black GOP of its length, re-timed.

A skip frame decodes to its reference exactly: no residual, zero motion (all neighbours are
skips), no deblocking between skip blocks; so the hold decodes to its IDR's picture for
every frame. Everything comes from one encoder session (one SPS/PPS).

The scenes' writer (``scenes.held_frames``) feeds x264 this way as Manim draws, and
``pipeline.gops`` from a file through ffmpeg's filters (the deck's clips). Written here
rather than found in a library: no tool we know writes coded frames this way; the muxing
itself is libavformat's (PyAV).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

from common.h264 import MediaError


def default_min_hold(gop: int) -> int:
    """The shortest run of one frame planned as a hold: half a GOP (at least 2 frames)."""
    return max(2, gop // 2)


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


def plan_gops(starts: list[int], frames: int, gop: int, min_hold: int | None = None
              ) -> GopPlan:
    """GOPs of at most ``gop`` frames; a run between consecutive ``starts`` of at least
    ``min_hold`` frames (default half a GOP) is a hold: its GOPs start with it and it fills
    them, and the next GOP starts where it ends."""
    min_hold = default_min_hold(gop) if min_hold is None else min_hold
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


def read_gops(container: av.container.InputContainer) -> list[list[av.Packet]]:
    """The first video stream's packets, grouped by GOP (each starting on a keyframe)."""
    gops: list[list[av.Packet]] = []
    for p in container.demux(container.streams.video[0]):
        if p.size == 0:
            continue
        if p.is_keyframe or not gops:
            gops.append([])
        gops[-1].append(p)
    return gops


def ticks_per_frame(stream: av.video.stream.VideoStream, fps: int, name: str) -> int:
    """How many of ``stream``'s time-base ticks a frame at ``fps`` lasts (a whole number,
    or the file ``name`` cannot be re-timed frame by frame)."""
    tick = Fraction(1, fps) / stream.time_base
    if tick.denominator != 1:
        raise MediaError(f"{name}: time base {stream.time_base} is not a whole number of "
                         f"ticks per frame at {fps} fps")
    return int(tick)


def expand(reduced: Path, plan: GopPlan, fps: int, out: Path) -> None:
    """Write every GOP of ``plan`` into ``out``: the moving ones from ``reduced`` in order,
    each of a hold as the hold's IDR and a black GOP's skip frames, re-timed."""
    with av.open(str(reduced)) as src:
        stream = src.streams.video[0]
        gops = read_gops(src)
        sizes, want = [len(g) for g in gops], plan.reduced_gops()
        if sizes != want:
            bad = next((i for i, (a, b) in enumerate(zip(sizes, want, strict=False)) if a != b),
                       min(len(sizes), len(want)))
            raise MediaError(f"{reduced.name}: GOP {bad} of {len(sizes)} has "
                             f"{sizes[bad] if bad < len(sizes) else 'no'} frame(s), "
                             f"{want[bad] if bad < len(want) else 'none'} expected "
                             f"(x264 did not start GOPs where asked)")
        tick = ticks_per_frame(stream, fps, reduced.name)
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
