"""A picture encoded through ffmpeg's filters at a constant frame rate, each held frame
encoded once (the GOP plan and the expansion are ``common.gops``'s): the deck's captioned
clips, scaled and subtitled on the frames x264 encodes."""

from __future__ import annotations

import itertools
import math
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import av

from common.gops import GopPlan, expand, plan_gops, read_gops, ticks_per_frame
from common.h264 import MediaError
from pipeline.media import (
    frame_size,
    gop_frames,
    run_ffmpeg,
    scaled_width,
    subtitles_filter,
    x264_args,
)


def thin(segment: Path, starts: Sequence[int], fps: int, out: Path) -> None:
    """``segment``'s video (a scene's picture, written by ``scenes.held_frames``; its
    distinct frames start at ``starts``, at ``fps``) with each hold as its IDR alone,
    lasting the whole hold: a variable-rate picture of its distinct frames, as
    :func:`held_runs` reads them. Packets are copied (nothing decoded), so what reads it
    decodes each held frame once instead of once per frame."""
    with av.open(str(segment)) as src:
        stream = src.streams.video[0]
        tick = ticks_per_frame(stream, fps, segment.name)
        gops = read_gops(src)
        plan = plan_gops(list(starts), sum(len(g) for g in gops), gop_frames(fps))
        if [len(g) for g in gops] != [g.length for g in plan.gops]:
            raise MediaError(f"{segment.name}: its GOPs are not the ones its frame starts "
                             f"plan (was it written by scenes.held_frames?)")
        held: Counter[int] = Counter()  # each hold's length in frames
        for g in plan.gops:
            if g.hold is not None:
                held[g.hold] += g.length
        with av.open(str(out), "w", format="mp4") as dst:
            ost = dst.add_stream_from_template(stream)
            for g, packets in zip(plan.gops, gops, strict=True):
                if g.hold is None:
                    keep = packets
                elif g.hold == g.start:
                    keep = packets[:1]
                    keep[0].duration = held[g.hold] * tick
                else:
                    continue
                for p in keep:
                    p.stream = ost
                    dst.mux(p)


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


EXPR_TERMS = 50
"""Terms summed at one level of a filter expression: ffmpeg's parser refuses more than
100 in a row ("Error while parsing expression"), which a long scene's kept frames reached
(the burned copy's half-second GOPs)."""


def any_of(terms: Sequence[str]) -> str:
    """An ffmpeg expression true where any of ``terms`` is (their sum), in parenthesised
    groups of at most ``EXPR_TERMS``, nested as deep as needed."""
    if len(terms) <= EXPR_TERMS:
        return "+".join(terms)
    size = max(EXPR_TERMS, -(-len(terms) // EXPR_TERMS))
    return any_of([f"({any_of(terms[i:i + size])})" for i in range(0, len(terms), size)])


def encode_held_picture(picture: Path, fps: int, out: Path, crf: int = 18,
                        gop_seconds: float = 0.5, height: int | None = None,
                        subtitles: tuple[Path, Path] | None = None,
                        changes: Sequence[int] = ()) -> GopPlan:
    """``picture``'s video as H.264 at a constant ``fps``, no sound; scaled to ``height``
    and with the ASS ``subtitles`` (file, fonts folder) drawn in if given, their cue times
    in ``changes`` (frames where the drawing may change). ``picture`` holds each distinct
    frame once, for as long as it lasts (:func:`held_runs`). Returns the plan it
    followed."""
    starts, frames = held_runs(picture, fps)
    plan = plan_gops(sorted(set(starts) | {c for c in changes if 0 < c < frames}), frames,
                     gop_frames(fps, gop_seconds))
    width, full = frame_size(picture)
    if height is not None and height != full:
        width = scaled_width(width, full, height)
    else:
        height = None
    size = f"{width}x{height or full}"

    keep = any_of([f"between(n,{a},{b})" for a, b in plan.kept()])
    # Padded, then cut to the planned length: the plan and the frames agree to the frame.
    chain = [f"fps={fps}", "tpad=stop_mode=clone:stop=4", f"trim=end_frame={frames}",
             f"select='{keep}'"]
    if height:
        chain.append(f"scale=-2:{height}:flags=area")
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
                    *x264_args(fps, crf, gop_seconds),
                    "-force_key_frames", times, "-an", str(reduced)])
        expand(reduced, plan, fps, out)
    return plan


