"""Small real engine subclasses used by the TTS tests (no mocks of whole engines)."""

from __future__ import annotations

import base64
import json
import wave
from pathlib import Path
from typing import Any

import numpy as np

from narration.tts.base import atomic_path
from narration.tts.edge import EdgeEngine
from narration.tts.espeak import EspeakEngine
from narration.types import TTSError, WordTiming

DATA = Path(__file__).resolve().parents[1] / "data" / "tts"


class CountingEspeak(EspeakEngine):
    """The real espeak engine, counting its syntheses."""

    def __init__(self) -> None:
        self.calls = 0

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        self.calls += 1
        return super().synthesize(text, voice, rate, out_wav)


class CountingEdge(EdgeEngine):
    """The real edge engine, counting its syntheses."""

    def __init__(self, timeout: float = 2.0) -> None:
        super().__init__(timeout=timeout)
        self.calls = 0

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        self.calls += 1
        return super().synthesize(text, voice, rate, out_wav)


class RecordedEdge(CountingEdge):
    """The edge engine with its network fetch replaced by a recorded stream."""

    def __init__(self, recordings: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__()
        self.recordings = recordings

    def _fetch(self, text: str, voice: str, rate: str) -> list[dict[str, Any]]:
        return self.recordings[text]


class MidWriteFailure(EspeakEngine):
    """Starts writing the WAV, then fails (as a crash in the middle of synthesis would)."""

    def __init__(self) -> None:
        self.calls = 0

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        self.calls += 1
        with atomic_path(out_wav) as tmp:
            tmp.write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt partial")
            raise TTSError("synthesis died half way")


def load_recordings() -> list[dict[str, Any]]:
    """The recorded (hand-constructed) edge-tts streams, with audio as bytes."""
    data = json.loads((DATA / "edge_stream_recording.json").read_text(encoding="utf-8"))
    out = []
    for rec in data["recordings"]:
        chunks = []
        for chunk in rec["chunks"]:
            chunk = dict(chunk)
            if "data_b64" in chunk:
                chunk["data"] = base64.b64decode(chunk.pop("data_b64"))
            chunks.append(chunk)
        out.append({**rec, "chunks": chunks})
    return out


def read_wav(path: Path) -> tuple[int, int, int, np.ndarray]:
    """(sample rate, channels, sample width in bytes, int16 samples) of a WAV file."""
    with wave.open(str(path), "rb") as w:
        frames = w.readframes(w.getnframes())
        return w.getframerate(), w.getnchannels(), w.getsampwidth(), np.frombuffer(frames, "<i2")


def rms(samples: np.ndarray) -> float:
    """Root mean square of int16 samples, as a fraction of full scale."""
    return float(np.sqrt(np.mean((samples.astype(np.float64) / 32768) ** 2)))
