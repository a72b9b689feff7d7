"""A held-frame picture encoded at a constant frame rate, each repeated GOP encoded once.

The master is made of closed GOPs of ``g`` frames (an IDR every half second, no frame
referring across). Inside a held frame every whole GOP shows the same picture, and x264
would encode each again: about 5 ms a frame at 1080p60, half of the formula scene's segment
(``bench/bench_master.py``). Here the picture is encoded without those repeats, and each is
written as the packets of the first whole GOP of its hold, re-timed. A closed GOP refers to
nothing outside it and every GOP comes from one encoder session (one SPS/PPS), so the file
decodes to the same frames, at the same constant rate and GOP structure, as if x264 had
encoded them all.

Written here rather than found in a library: no tool we know repeats coded GOPs; the
muxing itself is libavformat's (PyAV).
"""

from __future__ import annotations

import bisect
import math
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

from pipeline.media import MediaError, gop_frames, run_ffmpeg, x264_args


@dataclass(frozen=True)
class GopPlan:
    """Which GOPs of a constant-rate picture are encoded, and which repeat another."""

    gop: int  # frames in a GOP
    frames: int  # frames in the picture
    source: tuple[int, ...]  # for each GOP, the GOP whose packets it carries (itself: encoded)

    @property
    def encoded(self) -> list[int]:
        return [k for k, s in enumerate(self.source) if s == k]

    def dropped_ranges(self) -> list[tuple[int, int]]:
        """The frames not encoded, as inclusive (first, last) ranges, merged."""
        out: list[tuple[int, int]] = []
        for k, s in enumerate(self.source):
            if s == k:
                continue
            first, last = k * self.gop, k * self.gop + self.gop - 1
            if out and out[-1][1] + 1 == first:
                out[-1] = (out[-1][0], last)
            else:
                out.append((first, last))
        return out


def held_runs(picture: Path, fps: int) -> tuple[list[int], int]:
    """The first frame of each stored (distinct) frame of a held-frame picture, in order,
    and its length in frames; read from the packets (nothing decoded)."""
    with av.open(str(picture)) as c:
        stream = c.streams.video[0]
        starts: list[int] = []
        end = 0
        for p in c.demux(stream):
            if p.pts is None or p.size == 0:
                continue
            at = round(p.pts * stream.time_base * fps)
            starts.append(at)
            end = max(end, at + max(1, round((p.duration or 0) * stream.time_base * fps)))
    return sorted(starts), end


def plan_gops(starts: list[int], frames: int, gop: int) -> GopPlan:
    """A GOP that is whole and inside one held frame repeats the first such GOP of that
    hold; every other GOP is encoded."""
    def run_of(frame: int) -> int:
        return bisect.bisect_right(starts, frame) - 1

    source: list[int] = []
    first_of_run: dict[int, int] = {}
    for k in range(math.ceil(frames / gop)):
        first, end = k * gop, (k + 1) * gop
        if end <= frames and run_of(first) == run_of(end - 1):
            source.append(first_of_run.setdefault(run_of(first), k))
        else:
            source.append(k)
    return GopPlan(gop, frames, tuple(source))


def encode_held_picture(picture: Path, fps: int, out: Path) -> GopPlan:
    """``picture`` (a scene's held-frame picture) as the master's H.264 at a constant
    ``fps``, no sound; returns the plan it followed."""
    starts, frames = held_runs(picture, fps)
    plan = plan_gops(starts, frames, gop_frames(fps))
    dropped = plan.dropped_ranges()
    if not dropped:  # nothing repeats: the plain constant-rate encode
        run_ffmpeg(["-i", str(picture), "-map", "0:v:0", *x264_args(fps), "-an", str(out)])
        return plan
    with tempfile.TemporaryDirectory(prefix=".gops-", dir=out.parent) as tmp:
        graph = Path(tmp) / "graph.txt"
        keep = "+".join(f"between(n,{a},{b})" for a, b in dropped)
        # The constant-rate frames, the repeated GOPs' frames left out, the rest re-timed
        # back to back: x264 then cuts GOPs at the same frames as in the whole picture.
        graph.write_text(f"fps={fps},select='not({keep})',setpts=N/({fps}*TB)", "utf-8")
        reduced = Path(tmp) / "reduced.mp4"
        run_ffmpeg(["-i", str(picture), "-map", "0:v:0", "-/filter:v", str(graph),
                    *x264_args(fps), "-an", str(reduced)])
        _expand(reduced, plan, fps, out)
    return plan


def _expand(reduced: Path, plan: GopPlan, fps: int, out: Path) -> None:
    """Write every GOP of ``plan`` into ``out``: the encoded ones from ``reduced`` in order,
    each repeat as its source's packets shifted to its own place."""
    encoded = plan.encoded
    with av.open(str(reduced)) as src:
        stream = src.streams.video[0]
        gops: list[list[av.Packet]] = []
        for p in src.demux(stream):
            if p.size == 0:
                continue
            if p.is_keyframe or not gops:
                gops.append([])
            gops[-1].append(p)
        sizes = [len(g) for g in gops]
        want = [min(plan.gop, plan.frames - k * plan.gop) for k in encoded]
        if sizes != want:
            raise MediaError(f"{reduced.name}: GOPs of {sizes[:8]}... frames, expected "
                             f"{want[:8]}... (x264 did not cut every {plan.gop} frames)")
        per_frame = Fraction(1, fps) / stream.time_base
        if per_frame.denominator != 1:
            raise MediaError(f"{reduced.name}: time base {stream.time_base} is not a whole "
                             f"number of ticks per frame at {fps} fps")
        at = {k: i for i, k in enumerate(encoded)}
        with av.open(str(out), "w", format="mp4") as dst:
            ost = dst.add_stream_from_template(stream)
            for k, s in enumerate(plan.source):
                i = at[s]
                shift = (k - i) * plan.gop * int(per_frame)
                for p in gops[i]:
                    q = av.Packet(bytes(p))
                    q.pts, q.dts, q.duration = p.pts + shift, p.dts + shift, p.duration
                    q.is_keyframe = p.is_keyframe
                    q.time_base = stream.time_base
                    q.stream = ost
                    dst.mux(q)
