"""Data that flows between the narration stages (voice, cache, subtitles, timeline)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WordTiming:
    """One spoken word: seconds from the start of its clip, and its span in the text.

    ``char_start``/``char_end`` are 0-based Python ``str`` indices (end exclusive) into the
    text that was given to the engine (or, after mapping, into the displayed text).
    """

    start: float
    end: float
    char_start: int
    char_end: int


@dataclass(frozen=True)
class Cue:
    """One subtitle: absolute seconds in the video and its display lines."""

    start: float
    end: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class SpeechClip:
    """A synthesized narration clip: a 48 kHz mono 16-bit WAV file and its word timings."""

    path: Path
    duration: float
    words: tuple[WordTiming, ...]
    engine: str
    voice: str


class TTSError(RuntimeError):
    """Synthesis failed; no partial output was left behind."""


class TTSUnavailable(TTSError):
    """The engine cannot be reached (no network, timeout, refused connection)."""
