"""Loudness for platforms: −14 LUFS integrated, true peak at or below −1 dBTP.

The master is measured with ffmpeg's ``ebur128`` filter (EBU R 128 / ITU-R BS.1770, true
peak at 4x oversampling); a scene's narration, while it is brought to the target, in this
process with NumPy (the same measure, :func:`integrated`). ``loudnorm`` cannot reach −14
LUFS here: the offline voices peak at full scale and narration has little loudness range, so its
dynamic mode stops short (−15.6 LUFS on the Chinese worked example). Instead a gain is
found by measurement, a look-ahead limiter at 192 kHz keeps the true peak under the
ceiling, and what the limiter left above the target is turned down exactly to it: one
limiter pass, where there were two to four passes of limiter and measurement, each an
ffmpeg.
"""

from __future__ import annotations

import functools
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline import soundtrack
from pipeline.media import FFMPEG, MediaError

TARGET_LUFS = -14.0
TOLERANCE_LU = 0.1
"""How far a scene's narration may measure from the target with ``ebur128``: its display's
precision (normalize lands on the target to a hundredth by :func:`integrated`)."""
CEILING_DBTP = -2.0
"""Limiter ceiling: 1 dB below the −1 dBTP platforms ask for, room for the AAC encoder."""
SILENCE_LUFS = -60.0
"""A scene quieter than this (a silent one measures -inf) is left as it is."""
HEADROOM_DB = 2.0
"""The gain before the limiter is aimed this far above the target (see normalize): the
offline Chinese voice loses about 1.7 dB in the limiter, so at 1 dB every scene took a
second pass."""
MAX_PASSES = 4
"""Limiter passes at most; the offline voices need one (Chinese) or two (English)."""
GUESSED_SLOPE, GUESSED_MARGIN_LU = 0.5, 1.0
"""After one pass short of the target: loudness a dB of gain is taken to buy through the
limiter, and how far past the target the next pass aims (see next_gain)."""
MIN_SLOPE, MEASURED_MARGIN_LU = 0.25, 0.25
"""After two: the least slope believed, and the smaller aim past the target."""
_SUMMARY_I = re.compile(r"Integrated loudness:\s*I:\s*(-?[\d.]+|-inf) LUFS", re.S)
_SUMMARY_TP = re.compile(r"True peak:\s*Peak:\s*(-?[\d.]+|-inf) dBFS", re.S)


@dataclass(frozen=True)
class Loudness:
    integrated_lufs: float
    true_peak_dbtp: float


def measure(path: Path, true_peak: bool = True) -> Loudness:
    """Integrated loudness and true peak of the first audio stream of ``path``. Without
    ``true_peak`` only the loudness is measured (the peak is NaN): a third of the time, as
    the true peak needs the sound oversampled 4x."""
    proc = subprocess.run(
        [FFMPEG, "-hide_banner", "-nostats", "-nostdin", "-i", str(path), "-map", "0:a:0",
         "-af", "ebur128=peak=true" if true_peak else "ebur128", "-f", "null", "-"],
        capture_output=True, text=True)
    i, tp = _SUMMARY_I.search(proc.stderr), _SUMMARY_TP.search(proc.stderr)
    if proc.returncode != 0 or not i or (true_peak and not tp):
        raise MediaError(f"loudness measurement of {path} failed: {proc.stderr.strip()[-400:]}")
    return Loudness(float(i.group(1)), float(tp.group(1)) if tp else float("nan"))


# ITU-R BS.1770-4's K-weighting at 48 kHz (its tables 1 and 2): a high shelf (the head's
# effect) then a high-pass (RLB), each b0, b1, b2 over 1, a1, a2.
K_SHELF = ((1.53512485958697, -2.69169618940638, 1.19839281085285),
           (1.0, -1.69065929318241, 0.73248077421585))
K_HIGHPASS = ((1.0, -2.0, 1.0), (1.0, -1.99004745483398, 0.99007225036621))
K_TAIL = 1 << 13
"""Zeros after the sound when it is filtered (below): the high-pass's slowest pole, 0.995,
falls under 1e-17 in 8192 samples, so nothing wraps round."""
BLOCK_S, STEP_S = 0.4, 0.1  # gating blocks of 400 ms, 75% overlap
ABSOLUTE_GATE, RELATIVE_GATE = -70.0, -10.0


def _k_weighted(x: np.ndarray) -> np.ndarray:
    """``x`` (48 kHz) through the K-weighting filters, from silence: the two biquads'
    frequency response applied to the zero-padded sound's spectrum (what ``lfilter`` gives,
    to 1e-12). SciPy's ``lfilter`` (pyloudnorm's, and this module's until it) needed
    ``scipy.signal``, whose import took 1.2-1.4 CPU s of every run that normalised."""
    if soundtrack.RATE != 48_000:
        raise ValueError(f"K-weighting coefficients are for 48 kHz, not {soundtrack.RATE}")
    n = 1 << math.ceil(math.log2(x.size + K_TAIL))
    return np.fft.irfft(np.fft.rfft(x, n) * _k_response(n), n)[:x.size]


@functools.lru_cache(maxsize=4)
def _k_response(n: int) -> np.ndarray:
    """The K-weighting's frequency response at the bins of an ``n``-point real FFT (kept:
    a narration is measured before and after each limiter pass, at one length)."""
    z1 = np.exp(-2j * np.pi * np.arange(n // 2 + 1) / n)  # z^-1 at each bin
    response = np.ones_like(z1)
    for b, a in (K_SHELF, K_HIGHPASS):
        response *= (b[0] + z1 * (b[1] + z1 * b[2])) / (a[0] + z1 * (a[1] + z1 * a[2]))
    response.flags.writeable = False
    return response


def integrated(pcm: np.ndarray) -> float:
    """Integrated loudness (LUFS) of 48 kHz mono int16 samples, in this process: ITU-R
    BS.1770-4's gated measure (K-weighting, 400 ms blocks every 100 ms, the absolute gate
    at -70 LUFS and the relative one 10 LU under the blocks it kept), as ``ebur128`` reads
    it (within its 0.1 LU display) but to a hundredth, and no ffmpeg started. -inf for
    silence or less than a block."""
    x = _k_weighted(pcm.astype(np.float64) / 32768.0)
    block, step = round(BLOCK_S * soundtrack.RATE), round(STEP_S * soundtrack.RATE)
    if x.size < block:
        return float("-inf")
    sums = np.concatenate(([0.0], np.cumsum(x * x)))
    starts = np.arange(0, x.size - block + 1, step)
    power = (sums[starts + block] - sums[starts]) / block

    def lufs(p: np.ndarray | float) -> np.ndarray | float:
        with np.errstate(divide="ignore"):
            return -0.691 + 10 * np.log10(p)

    kept = power[lufs(power) > ABSOLUTE_GATE]
    if not kept.size:
        return float("-inf")
    kept = kept[lufs(kept) > lufs(kept.mean()) + RELATIVE_GATE]
    return float(lufs(kept.mean()))


def normalize(src: Path, out: Path, target: float = TARGET_LUFS) -> Loudness:
    """Write ``src`` (a 48 kHz mono 16-bit WAV) to ``out`` (the same format, as many
    samples) at ``target`` LUFS under the true-peak ceiling; return the loudness (the true
    peak is not measured here, NaN: the limiter holds it under the ceiling, and the
    master's is measured).

    The gain is aimed ``HEADROOM_DB`` above the target before the limiter, and what comes
    out too loud is turned down here, exactly to the target: turning down keeps the true
    peak under the ceiling, so one limiter pass is enough unless the limiter took more than
    the headroom. Then the gain is raised by what :func:`next_gain` reads from the passes
    so far, and the limiter runs again."""
    pcm = soundtrack.read_wav(src)
    before = integrated(pcm)
    if not before > SILENCE_LUFS:  # nothing to bring up (or -inf): as is
        soundtrack.write_wav(pcm, out)
        return Loudness(before, float("nan"))
    tried: list[tuple[float, float]] = []
    gain = target - before + HEADROOM_DB
    for _ in range(MAX_PASSES):
        limited = _limit(src, gain, len(pcm))
        level = integrated(limited)
        if level >= target:  # loud enough: turned down to the target, the peaks with it
            limited = np.round(limited * 10 ** ((target - level) / 20)).astype(np.int16)
            level = target
            break
        tried.append((gain, level))
        gain = next_gain(tried, target)
    soundtrack.write_wav(limited, out)
    return Loudness(level, float("nan"))


def next_gain(tried: list[tuple[float, float]], target: float) -> float:
    """The gain (dB) for the limiter's next pass, from the passes so far (gain, loudness),
    each short of ``target``: past the last gain by what the loudness lacks plus a margin,
    over how much loudness a dB of gain buys through the limiter (guessed after one pass,
    read from the last two after that; gains only rise). What the last pass overshoots is
    turned down, but the limiter took it first: the margin is small once the slope is
    measured. A dB of gain buys less the more the limiter takes (0.3 to 0.6 dB at the
    offline English voice's level), so stepping by the missing loudness alone fell short
    three passes in a row there, and the narration stayed 0.3 LU under the target."""
    g1, l1 = tried[-1]
    if len(tried) == 1:
        return g1 + (target - l1 + GUESSED_MARGIN_LU) / GUESSED_SLOPE
    g0, l0 = tried[-2]
    slope = min(1.0, max(MIN_SLOPE, (l1 - l0) / (g1 - g0)))
    return g1 + (target - l1 + MEASURED_MARGIN_LU) / slope


def _limit(src: Path, gain: float, samples: int) -> np.ndarray:
    """``src`` raised by ``gain`` dB through the true-peak limiter (ffmpeg's ``alimiter``
    at 192 kHz, 4x the rate, so peaks between samples are held too), ``samples`` long."""
    limit = 10 ** (CEILING_DBTP / 20)
    chain = (f"volume={gain:.3f}dB,aresample=192000,"
             f"alimiter=limit={limit:.4f}:level=false:attack=1:release=50:asc=1:latency=1,"
             f"aresample=48000,apad=whole_len={samples},atrim=end_sample={samples}")
    proc = subprocess.run(
        [FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(src),
         "-af", chain, "-f", "s16le", "-ac", "1", "-ar", "48000", "-"], capture_output=True)
    if proc.returncode != 0:
        raise MediaError("loudness normalisation failed: "
                         f"{proc.stderr.decode(errors='replace').strip()[-400:]}")
    return np.frombuffer(proc.stdout, dtype=np.int16)
