"""How far Piper's derived word onsets fall from the audio's own, and its speed.

Run: .venv/bin/python bench/bench_piper_timing.py

For every pause inside a clip (at least 150 ms below 3% of the clip's peak energy, 10 ms
frames: shorter silences are stop closures inside words), the audio's own onset is the
first loud frame after it, and the figure is the distance from it to the nearest word
start the engine reports. Also prints load time, real-time factor and words per minute.
"""

from __future__ import annotations

import re
import statistics
import time

import numpy as np

from narration.tts import piper
from narration.tts.base import narration_rate

SENTENCES = [
    "Raise e to each score. Then divide by the total, and the shares add up to one.",
    "The blank's query is compared with every key: France scores 2, Beijing 1, and I "
    "scores minus 3.",
    "Softmax turns scores into shares. Every share is positive, and together they make "
    "one.",
    "Divide by the square root of d. However big d gets, the spread stays near one.",
    "Q asks, K gets matched, and V is handed over. That is all of attention.",
]
FRAME = 0.01
MIN_PAUSE = 0.15


def onsets_after_pauses(x: np.ndarray, rate: int) -> list[tuple[float, float]]:
    """(pause start, onset) pairs, seconds."""
    n = int(rate * FRAME)
    env = np.array([np.sqrt(np.mean(x[i:i + n] ** 2)) for i in range(0, len(x) - n, n)])
    loud = env > 0.03 * env.max()
    out, quiet_from = [], None
    for k, is_loud in enumerate(loud):
        if not is_loud and quiet_from is None:
            quiet_from = k
        elif is_loud and quiet_from is not None:
            if (k - quiet_from) * FRAME >= MIN_PAUSE and quiet_from > 0:
                out.append((quiet_from * FRAME, k * FRAME))
            quiet_from = None
    return out


def main() -> None:
    t0 = time.monotonic()
    piper._voice()
    print(f"load: {time.monotonic() - t0:.2f} s")
    scale = piper.length_scale(narration_rate("en"))
    errors, audio_s, wall, words = [], 0.0, 0.0, 0
    for text in SENTENCES:
        t0 = time.monotonic()
        pcm, timings, rate = piper.synthesize_pcm(text, scale)
        wall += time.monotonic() - t0
        x = pcm.astype(float) / 32768
        audio_s += len(x) / rate
        words += len(re.findall(r"[A-Za-z0-9']+", text))
        for _pause, onset in onsets_after_pauses(x, rate):
            if timings:
                errors.append(min((w.start - onset for w in timings), key=abs))
    abs_ms = [abs(e) * 1000 for e in errors]
    print(f"length scale {scale:.3f}: {words / audio_s * 60:.0f} words per minute, "
          f"real-time factor {wall / audio_s:.3f}")
    print(f"word onsets after {len(errors)} pauses: derived minus audio onset, median "
          f"{statistics.median(e * 1000 for e in errors):+.0f} ms, median |error| "
          f"{statistics.median(abs_ms):.0f} ms, max |error| {max(abs_ms):.0f} ms")


if __name__ == "__main__":
    main()
