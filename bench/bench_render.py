"""Render-time figures: one scene through the whole pipeline at each quality (prints only).

    .venv/bin/python bench/bench_render.py [--scenes ID[,ID]] [--qualities low,high]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--scenes", default="worked_example")
    p.add_argument("--qualities", default="low,high")
    p.add_argument("--lang", default="zh")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for quality in args.qualities.split(","):
            out = Path(tmp) / quality
            t0 = time.monotonic()
            subprocess.run([sys.executable, str(ROOT / "render.py"), "--lang", args.lang,
                            "--quality", quality, "--scenes", args.scenes, "--tts", "offline",
                            "--out", str(out), "--cache", str(Path(tmp) / "cache")],
                           check=True, capture_output=True)
            wall = time.monotonic() - t0
            manifest = json.loads((out / args.lang / "manifest.json").read_text("utf-8"))
            size = (out / args.lang / "video.mp4").stat().st_size / 1e6
            dur = manifest["duration"]
            print(f"{args.lang} {quality:<6} scenes={args.scenes}: video {dur:.1f} s, "
                  f"wall {wall:.1f} s ({wall / dur:.2f} s per video second), "
                  f"{size:.1f} MB")


if __name__ == "__main__":
    main()
