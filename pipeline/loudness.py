"""Loudness for platforms: −14 LUFS integrated, true peak at or below −1 dBTP.

Measured with ffmpeg's ``ebur128`` filter (EBU R 128 / ITU-R BS.1770, true peak at 4x
oversampling). ``loudnorm`` cannot reach −14 LUFS here: the offline voices peak at full scale
and narration has little loudness range, so its dynamic mode stops short (−15.6 LUFS on the
Chinese worked example). Instead a gain is found by measurement and a look-ahead limiter
at 192 kHz keeps the true peak under the ceiling; the gain is corrected for what the limiter
takes away until the measured loudness is on target (two or three passes).
"""

from __future__ import annotations

import re
import subprocess
import wave
from dataclasses import dataclass
from pathlib import Path

from pipeline.media import FFMPEG, MediaError, run_ffmpeg

TARGET_LUFS = -14.0
TOLERANCE_LU = 0.3
CEILING_DBTP = -2.0
"""Limiter ceiling: 1 dB below the −1 dBTP platforms ask for, room for the AAC encoder."""
SILENCE_LUFS = -60.0
"""A scene quieter than this (a silent one measures -inf) is left as it is."""
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


def normalize(src: Path, out: Path, target: float = TARGET_LUFS) -> Loudness:
    """Write ``src`` (a WAV) to ``out`` (48 kHz 16-bit WAV) at ``target`` LUFS under the
    true-peak ceiling; return the measured loudness. The true peak is not measured here
    (NaN): the limiter holds it under the ceiling, and the master's is measured."""
    before = measure(src, true_peak=False)
    if not before.integrated_lufs > SILENCE_LUFS:  # nothing to bring up (or -inf): as is
        run_ffmpeg(["-i", str(src), "-c:a", "pcm_s16le", "-ar", "48000", str(out)])
        return before
    gain = target - before.integrated_lufs
    result = Loudness(float("nan"), float("nan"))
    limit = 10 ** (CEILING_DBTP / 20)
    with wave.open(str(src), "rb") as w:
        samples = w.getnframes()  # the output keeps exactly as many: sync with the picture
    for _ in range(4):
        chain = (f"volume={gain:.2f}dB,aresample=192000,"
                 f"alimiter=limit={limit:.4f}:level=false:attack=1:release=50:asc=1:latency=1,"
                 f"aresample=48000,apad=whole_len={samples},atrim=end_sample={samples}")
        proc = subprocess.run(
            [FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", str(src),
             "-af", chain, "-c:a", "pcm_s16le", "-ar", "48000", str(out)],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise MediaError(f"loudness normalisation failed: {proc.stderr.strip()[-400:]}")
        result = measure(out, true_peak=False)
        miss = target - result.integrated_lufs
        if abs(miss) <= TOLERANCE_LU:
            break
        gain += miss
    return result
