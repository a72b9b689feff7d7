"""Kokoro's speed on the Chinese script: beats per second and real-time factor.

    .venv/bin/python bench/bench_kokoro.py [--beats N] [--threads 1,2]

Synthesizes the first N beats of the Chinese explainer (default: all of them) into a fresh
audio cache, through the voice stage's own code (``pipeline.voice.synthesize``), once per
thread count. Prints wall time, the process's CPU time, seconds of speech made, the
real-time factor (wall / speech, and CPU / speech: the latter hardly moves when other work
shares the machine) and beats per second. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narration.facts import build_facts
from narration.scripts import load_script
from narration.tts import kokoro
from narration.tts.cache import AudioCache
from pipeline import voice
from qkv_math.derived import derive
from qkv_math.numbers import load_numbers
from scenes.registry import discover


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--beats", type=int, default=0, help="first N beats (default: all)")
    p.add_argument("--threads", default="2", help="thread counts to run, e.g. 1,2")
    args = p.parse_args()
    numbers = load_numbers(None)
    facts = build_facts(numbers, derive(numbers))
    scripts = [load_script(i.scene_id, "zh", facts) for i in discover(cut="full")]
    if args.beats:
        left = args.beats
        cut = []
        for s in scripts:
            if left <= 0:
                break
            beats = s.beats[:left]
            left -= len(beats)
            cut.append(dataclasses.replace(s, beats=beats))
        scripts = cut
    engine = kokoro.KokoroEngine()
    t = time.monotonic()
    engine.load()
    print(f"model load: {time.monotonic() - t:.1f} s (once per process)")
    for threads in (int(x) for x in args.threads.split(",")):
        voice._voice_workers = lambda _e, _l, n=threads: n  # the stage's pool, n threads
        with tempfile.TemporaryDirectory() as tmp:
            cache = AudioCache(Path(tmp))
            w0, c0 = time.monotonic(), time.process_time()
            clips = voice.synthesize("zh", scripts, engine, cache, say=lambda _m: None)
            wall, cpu = time.monotonic() - w0, time.process_time() - c0
        speech = sum(c.duration for c in clips.values())
        print(f"threads {threads}: {len(clips)} beats, {speech:.1f} s of speech, wall "
              f"{wall:.1f} s, CPU {cpu:.1f} s; real-time factor {wall / speech:.2f} wall, "
              f"{cpu / speech:.2f} CPU; {len(clips) / wall:.2f} beats/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
