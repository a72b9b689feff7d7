"""Where a language's beats and scenes landed in its video, and what its outputs after the
soundtrack are made from (:class:`LanguageParts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from narration.placeholders import Resolved
from narration.scripts import SceneScript
from narration.types import SpeechClip
from pipeline.kit import Chapter
from pipeline.scene_jobs import SceneJob


@dataclass(frozen=True)
class PlacedBeat:
    scene_id: str
    beat_id: str
    text: Resolved
    start: float  # absolute seconds in the video
    end: float
    clip: SpeechClip


@dataclass(frozen=True)
class LanguageParts:
    """What one language's outputs after the soundtrack are made from: its scenes (scripts
    and rendered jobs, in video order), where each beat and scene landed, and its folders."""

    lang: str
    cut: str
    title: str
    scripts: Sequence[SceneScript]
    jobs: Sequence[SceneJob]
    placed: Sequence[PlacedBeat]
    chapters: Sequence[Chapter]
    fps: int
    staged: Path  # the language's outputs, published whole at the end
    work: Path  # its scratch files

    @property
    def segments(self) -> list[Path]:
        """Each scene's picture: its master segment."""
        return [job.entry.picture for job in self.jobs if job.entry]

    @property
    def timed_segments(self) -> list[tuple[Path, float]]:
        """Each scene's segment and its exact length in seconds."""
        return [(job.entry.picture, job.entry.video.frames / self.fps)
                for job in self.jobs if job.entry]


def place_beats(scripts: Sequence[SceneScript], jobs: Sequence[SceneJob],
                clips: dict[tuple[str, str], SpeechClip], fps: int
                ) -> tuple[list[PlacedBeat], list[Chapter]]:
    """Where every beat landed, from the scenes' own reports, and each scene's chapter;
    scene lengths are whole frames."""
    placed: list[PlacedBeat] = []
    chapters: list[Chapter] = []
    offset = 0.0
    for script, job in zip(scripts, jobs, strict=True):
        entry = job.entry
        assert entry is not None
        length = entry.video.frames / fps
        for beat, bt in zip(script.beats, entry.times.beats, strict=True):
            placed.append(PlacedBeat(script.scene_id, beat.id, beat.text,
                                     offset + bt.start, offset + bt.end,
                                     clips[(script.scene_id, beat.id)]))
        chapters.append(Chapter(offset, offset + length, script.title))
        offset += length
    return placed, chapters
