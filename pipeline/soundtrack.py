"""The narration track: every beat's clip placed at the time its beat starts in the video.

Built with numpy rather than pydub's overlay: placement is sample-accurate and the cost is
linear in the track length (pydub copies the whole track for every overlay).
"""

from __future__ import annotations

import wave
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from common.atomic import atomic_path

RATE = 48_000


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getframerate() != RATE or w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise ValueError(f"{path}: expected 48 kHz mono 16-bit WAV")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)


def build(placements: Sequence[tuple[float, Path]], samples: int, out: Path) -> None:
    """Write a mono 48 kHz WAV of ``samples`` samples with each clip starting at its time
    (seconds)."""
    track = np.zeros(samples, dtype=np.int32)
    for start, path in placements:
        clip = read_wav(path).astype(np.int32)
        i = round(start * RATE)
        n = max(0, min(len(clip), len(track) - i))
        track[i : i + n] += clip[:n]
    write_wav(np.clip(track, -32768, 32767).astype(np.int16), out)


def write_wav(pcm: np.ndarray, out: Path) -> None:
    """Write ``pcm`` (48 kHz mono int16) as a WAV, atomically (``common.atomic``)."""
    with atomic_path(out) as tmp, wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
