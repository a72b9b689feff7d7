"""Beat and scene timing: how long each beat lasts, and where it sits in the video."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BEAT_GAP = 0.45  # seconds of quiet after each beat's speech, before the next beat
SCENE_TAIL = 0.6  # the closing fade of each scene, no speech
BEAT_GRID = 1 / 15
"""Beats end on multiples of this (a frame at 15 fps, two at 30, four at 60): the preview
and the master then have the same timeline, so the voice, the subtitles, the chapters and
the picture's still stretches fall at the same times in both. (Ending each beat on its own
frame rate's grid made a 60 fps master 0.1-0.25 s longer per scene than its 15 fps
preview: 2.4 s over the whole video.)"""
# Estimated speaking rates for previews without synthesized audio (offline voice, measured):
_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_CHARS_PER_S = 4.2
_EN_CHARS_PER_S = 14.0


def beat_grid(fps: float) -> float:
    """The grid beats end on at ``fps``: :data:`BEAT_GRID` where it is a whole number of
    frames, else one frame."""
    frames = BEAT_GRID * fps
    return BEAT_GRID if abs(frames - round(frames)) < 1e-9 and round(frames) >= 1 else 1 / fps


def grid_end(t: float, grid: float) -> float:
    """The first multiple of ``grid`` at or after ``t`` (seconds)."""
    return math.ceil(t / grid - 1e-6) * grid


def estimate_speech(text: str, lang: str) -> float:
    """A rough speech duration for ``text``; used when no audio was synthesized."""
    if lang == "zh":
        cjk = len(_CJK.findall(text))
        rest = len(re.sub(r"\s", "", _CJK.sub("", text)))
        return max(1.0, cjk / _ZH_CHARS_PER_S + rest / (_EN_CHARS_PER_S * 0.8))
    return max(1.0, len(text) / _EN_CHARS_PER_S)


def beat_slot(speech: float) -> float:
    """How long a beat lasts on screen for ``speech`` seconds of narration."""
    return speech + BEAT_GAP


@dataclass(frozen=True)
class BeatTime:
    id: str
    start: float  # seconds from the start of its scene, as rendered
    end: float


@dataclass(frozen=True)
class SmallestText:
    """The smallest text a scene shows: its size in px at 1080p (a digit's height), what it
    says and the beat it shows in."""

    px: float
    text: str
    beat: str

    def to_json(self) -> dict:
        return {"px": round(self.px, 1), "text": self.text, "beat": self.beat}

    @classmethod
    def from_json(cls, data: dict | None) -> SmallestText | None:
        if data is None:
            return None
        return cls(float(data["px"]), str(data["text"]), str(data["beat"]))


@dataclass(frozen=True)
class SceneTimes:
    """What a rendered scene reports: its beats' actual times and its total length.

    ``holds`` are the stretches (scene seconds) in which the scene only waited, so nothing
    on screen moved; ``warnings`` are animation overruns and cue marks reached late;
    ``layout`` lists elements outside the frame margins or inside the subtitle band;
    ``smallest_text`` is the smallest text the scene shows (``scenes.legibility``);
    ``lopsided`` the stretches over 3 s in which its content sits in the top half of the
    safe area or leaves more than half its width empty on one side (``scenes.composition``);
    ``overlaps`` text drawn over text or across a filled shape (``scenes.overlap``).
    """

    scene_id: str
    beats: tuple[BeatTime, ...]
    duration: float
    holds: tuple[tuple[float, float], ...] = ()
    warnings: tuple[str, ...] = ()
    layout: tuple[str, ...] = ()
    smallest_text: SmallestText | None = None
    lopsided: tuple[str, ...] = ()
    overlaps: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "scene_id": self.scene_id,
            "duration": self.duration,
            "beats": [{"id": b.id, "start": b.start, "end": b.end} for b in self.beats],
            "holds": [list(h) for h in self.holds],
            "warnings": list(self.warnings),
            "layout": list(self.layout),
            "smallest_text": None if self.smallest_text is None
            else self.smallest_text.to_json(),
            "lopsided": list(self.lopsided),
            "overlaps": list(self.overlaps),
        }

    @classmethod
    def read(cls, path: Path) -> SceneTimes:
        """The report a scene wrote to ``path``."""
        return cls.from_json(json.loads(Path(path).read_text("utf-8")))

    @classmethod
    def from_json(cls, data: dict) -> SceneTimes:
        return cls(
            data["scene_id"],
            tuple(BeatTime(b["id"], float(b["start"]), float(b["end"])) for b in data["beats"]),
            float(data["duration"]),
            tuple((float(a), float(b)) for a, b in data.get("holds", [])),
            tuple(str(w) for w in data.get("warnings", [])),
            tuple(str(w) for w in data.get("layout", [])),
            SmallestText.from_json(data.get("smallest_text")),
            tuple(str(w) for w in data.get("lopsided", [])),
            tuple(str(w) for w in data.get("overlaps", [])),
        )


def still_while_speaking(holds: Sequence[tuple[float, float]],
                         speech: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Parts of ``holds`` that overlap ``speech`` intervals, one span per hold.

    Each result runs from the first to the last spoken moment inside the hold, so a hold
    that covers the end of one beat's speech and the start of the next counts as one.
    """
    out = []
    for a, b in holds:
        inside = [(max(a, s), min(b, e)) for s, e in speech if min(b, e) > max(a, s)]
        if inside:
            out.append((inside[0][0], inside[-1][1]))
    return out
