"""What a held frame costs in the master's segment encode, and the options to cut it
(prints figures; nothing here asserts a timing).

    .venv/bin/python bench/bench_master.py [--scene formula] [--quality high] [--work DIR]

Renders one scene's held-frame picture (beat durations estimated from its text), then
encodes it as the master's segment is encoded, with each option below, and prints for each:
wall time, size, frames, and the PSNR against the lossless picture sampled once a second
(the master must stay at or above 45 dB).

- ``cfr``: every frame of the constant-rate master through x264 (the pipeline until
  2026-12-02);
- ``held frames once`` (the pipeline now, ``pipeline.gops``): GOPs start where each hold
  starts and ends; x264 encodes the moving frames and each hold's picture once, and every
  GOP of a hold is written as that picture's IDR and shared skip frames;
- ``distinct only``: the same settings on the distinct frames alone (variable rate): what
  the held frames' repeats cost is the difference;
- ``superfast`` / ``ultrafast``: x264 presets that skip more analysis on every frame;
- ``static-skip``: veryfast with the analysis a repeated frame does not need cut down
  (one reference, diamond search, no trellis; mbtree off), as x264 options.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from narration.timeline import beat_slot  # noqa: E402
from pipeline.gops import encode_held_picture  # noqa: E402
from pipeline.media import FFMPEG, x264_args  # noqa: E402
from qkv_math.numbers import DEFAULT_NUMBERS  # noqa: E402
from scenes.context import load_context  # noqa: E402
from scenes.contract import BeatPlan, ScenePlan, SceneReport  # noqa: E402


def picture(scene: str, quality: str, work: Path) -> tuple[Path, int, int]:
    """The scene's held-frame picture; its path, frames and stored (distinct) frames."""
    ctx = load_context(scene, None)
    beats = tuple(BeatPlan(b.id, beat_slot(ctx.speech[b.id]), ctx.speech[b.id],
                           ctx.marks[b.id]) for b in ctx.script.beats)
    plan = ScenePlan(uuid.uuid4().hex, scene, "zh", DEFAULT_NUMBERS, quality, beats,
                     work / "picture.mp4", work / "report.json", work / "media")
    plan.write(work / "plan.json")
    subprocess.run([sys.executable, "-m", "scenes.run", str(work / "plan.json")], cwd=ROOT,
                   check=True, capture_output=True)
    rep = SceneReport.read_for(plan)
    assert rep.video is not None
    return plan.video, rep.video.frames, rep.video.stored


def psnr(encoded: Path, reference: Path, fps: int) -> float:
    """The lowest PSNR (dB) of frames sampled once a second, against the lossless picture
    expanded to the constant rate."""
    sel = f"select='not(mod(n\\,{fps}))'"
    p = subprocess.run(
        [FFMPEG, "-hide_banner", "-i", str(encoded), "-i", str(reference), "-lavfi",
         f"[0:v]fps={fps},{sel}[a];[1:v]fps={fps},{sel}[b];[a][b]psnr=stats_file=-",
         "-f", "null", "-"], capture_output=True, text=True)
    values = [float("inf") if x == "inf" else float(x)
              for x in re.findall(r"psnr_avg:([\d.]+|inf)", p.stdout)]
    return min(values) if values else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scene", default="formula")
    ap.add_argument("--quality", default="high")
    ap.add_argument("--work", type=Path)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-master-"))
    work.mkdir(parents=True, exist_ok=True)
    from scenes.contract import QUALITIES

    fps = QUALITIES[args.quality][2]
    t0 = time.monotonic()
    pic, frames, stored = picture(args.scene, args.quality, work)
    print(f"{args.scene} at {args.quality}: {frames} frames, {stored} distinct "
          f"({100 * (1 - stored / frames):.0f}% held repeats); rendered in "
          f"{time.monotonic() - t0:.1f} s", flush=True)
    base = x264_args(fps)
    fast_static = ["-x264-params", "colorprim=bt709:transfer=bt709:colormatrix=bt709:"
                   "ref=1:me=dia:subme=2:trellis=0:mbtree=0:rc-lookahead=10"]
    options = {
        "cfr (every frame)": base,
        "held frames once (the pipeline)": None,
        "distinct only (vfr)": _vfr(base),
        "superfast": [*base, "-preset", "superfast"],
        "ultrafast": [*base, "-preset", "ultrafast"],
        "static-skip": [*base[:-2], *fast_static],
    }
    print("| option | wall | size | frames encoded | min PSNR (1/s) |")
    print("|---|---|---|---|---|")
    for name, opts in options.items():
        out = work / (re.sub(r"\W+", "_", name) + ".mp4")
        t = time.monotonic()
        encoded = None
        if opts is None:
            plan = encode_held_picture(pic, fps, out)
            encoded = plan.encoded_frames
        else:
            subprocess.run([FFMPEG, "-v", "error", "-y", "-i", str(pic), "-map", "0:v:0",
                            *opts, "-an", str(out)], check=True)
        wall = time.monotonic() - t
        n = encoded if encoded is not None else _count(out)
        print(f"| {name} | {wall:.1f} s | {out.stat().st_size / 1e6:.1f} MB | {n} | "
              f"{psnr(out, pic, fps):.1f} dB |", flush=True)
    return 0


def _vfr(args: list[str]) -> list[str]:
    """The master's x264 settings, without the constant rate: only the distinct frames."""
    out = list(args)
    i = out.index("-fps_mode")
    out[i + 1] = "passthrough"
    j = out.index("-r")
    del out[j:j + 2]
    return out


def _count(video: Path) -> int:
    import av

    with av.open(str(video)) as c:
        return sum(1 for p in c.demux(c.streams.video[0]) if p.size)


if __name__ == "__main__":
    raise SystemExit(main())
