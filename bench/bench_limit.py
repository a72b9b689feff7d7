"""The limit of a publish run's picture: drawing and encoding only the distinct frames.

For one build's scene pictures (``CACHE/scenes/<scene>/<lang>-<quality>/<key>/picture.mp4``,
each the master's own H.264 segment) this decodes every frame, keeps the distinct ones (a
frame equal to the one before it is a held frame's repeat) and encodes only those, each
once, with the master's x264 settings (``common.h264``, x264's own threads as the scenes'
writer has them). The encode's CPU seconds are this process's CPU time for decoding,
comparing and encoding, less the same decoding and comparing without the encode.

The drawing's CPU seconds are read from a py-spy profile of the build that made the
pictures, sampled with its scene processes (``bench_build.py --profile`` records
``--subprocesses``): the samples inside Manim's camera (``Camera.capture_mobjects``), the
cairo drawing of each frame Manim draws. The limit, on two cores, is half their sum: what
a run would take that did nothing but draw each distinct frame and encode it once.

    .venv/bin/python bench/bench_limit.py CACHE --lang zh --quality low [--profile P --rate 20]
"""

from __future__ import annotations

import argparse
import re
import resource
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common.h264 import x264_options  # noqa: E402

DRAW = re.compile(r"capture_mobjects \(.*manim/camera/camera\.py")


@dataclass
class Picture:
    scene: str
    frames: int
    distinct: int
    decode_cpu: float
    encode_cpu: float


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _distinct(path: Path, encode: bool) -> tuple[int, int, float]:
    """Frames, distinct frames, CPU seconds (decode and compare; with ``encode``, also the
    distinct frames' encode)."""
    t0 = _cpu()
    frames = distinct = 0
    prev: list[np.ndarray] | None = None
    with av.open(str(path)) as src:
        stream = src.streams.video[0]
        fps = round(float(stream.average_rate))
        cc = None
        if encode:
            cc = av.CodecContext.create("libx264", "w")
            cc.width, cc.height = stream.codec_context.width, stream.codec_context.height
            cc.pix_fmt = "yuv420p"
            cc.framerate = fps
            cc.time_base = Fraction(1, fps)
            cc.options = x264_options(fps)
            cc.thread_count = 0
        for frame in src.decode(stream):
            frames += 1
            planes = [np.frombuffer(p, np.uint8).copy() for p in frame.planes]
            if prev is not None and all(
                    np.array_equal(a, b) for a, b in zip(planes, prev, strict=True)):
                continue
            prev = planes
            if cc is not None:
                frame.pts = distinct
                frame.pict_type = av.video.frame.PictureType.NONE
                cc.encode(frame)
            distinct += 1
        if cc is not None:
            cc.encode(None)
    return frames, distinct, _cpu() - t0


def measure(cache: Path, lang: str, quality: str) -> list[Picture]:
    out = []
    for path in sorted(cache.glob(f"scenes/*/{lang}-{quality}/*/picture.mp4")):
        scene = path.parent.parent.parent.name
        frames, distinct, dec = _distinct(path, encode=False)
        _f, _d, both = _distinct(path, encode=True)
        out.append(Picture(scene, frames, distinct, dec, max(0.0, both - dec)))
        print(f"  {scene}: {frames} frames, {distinct} distinct, encode {both - dec:.1f} CPU s",
              file=sys.stderr)
    return out


def draw_seconds(profile: Path, rate: float) -> float:
    """CPU seconds inside Manim's camera in a collapsed-stack py-spy profile."""
    n = 0
    for line in profile.read_text("utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit() and DRAW.search(stack):
            n += int(count)
    return n / rate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cache", type=Path)
    ap.add_argument("--lang", default="zh")
    ap.add_argument("--quality", default="low")
    ap.add_argument("--profile", type=Path, help="py-spy raw profile of the build")
    ap.add_argument("--rate", type=float, default=20.0, help="the profile's samples per s")
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args()
    t0 = time.monotonic()
    pics = measure(args.cache, args.lang, args.quality)
    if not pics:
        ap.error(f"{args.cache}: no scene pictures for {args.lang}-{args.quality}")
    frames = sum(p.frames for p in pics)
    distinct = sum(p.distinct for p in pics)
    encode = sum(p.encode_cpu for p in pics)
    print(f"{len(pics)} scenes: {frames} frames, {distinct} distinct "
          f"({distinct / frames:.0%}); encoding only the distinct frames: {encode:.1f} CPU s")
    if args.profile:
        draw = draw_seconds(args.profile, args.rate)
        print(f"drawing (Manim's camera, from {args.profile.name}): {draw:.1f} CPU s")
        print(f"limit on {args.cores} cores: ({draw:.1f} + {encode:.1f}) / {args.cores} = "
              f"{(draw + encode) / args.cores:.1f} s")
    print(f"(measured in {time.monotonic() - t0:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
