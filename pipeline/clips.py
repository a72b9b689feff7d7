"""Scene clips for slides: one MP4 per scene with its own voice and both subtitle tracks,
and posters of its first and last frame (pipeline/deck.py embeds them in the deck).

Clips are the master's own segments and each scene's sound, copied (no second encode), so
their durations add up to the video's. The deck embeds them re-encoded at ``CLIP_HEIGHT``
with the captions drawn in (``pipeline.deck_clips``): large PowerPoint decks stop
playing full-HD video (manim-slides #392).

Posters: a scene opens on an empty frame (its title is being written) and closes with a
fade to empty, so its literal first and last frames show nothing. The "first" poster is
therefore the frame where the first beat ends (title and opening content in place) and
the "last" poster the frame where the last beat ends, just before the closing fade: the
scene's fullest frame, which the deck's movies and the page's clip players show.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common.digests import FileContent
from narration import subtitle_files
from narration.types import Cue
from pipeline import media
from pipeline.keys import versions
from pipeline.segments import SegmentStore

CLIP_HEIGHT = 720


@dataclass(frozen=True)
class SceneClip:
    index: int
    scene_id: str
    title: str
    start: float  # seconds in the video
    end: float
    narration: str  # the scene's narration, for speaker notes
    video: Path
    poster_first: Path
    poster_last: Path
    silent: Path | None = None


def shift_cues(cues: Sequence[Cue], start: float, end: float) -> list[Cue]:
    """The cues of ``start``..``end`` of the video, timed from ``start`` (as its clip is)."""
    out = []
    for c in cues:
        if c.end <= start + 1e-6 or c.start >= end - 1e-6:
            continue
        out.append(Cue(max(0.0, c.start - start), min(end, c.end) - start, c.lines))
    return out


@dataclass(frozen=True)
class SceneSpan:
    scene_id: str
    title: str
    start: float  # seconds in the video
    end: float
    narration: str
    first_beat_end: float  # seconds in the video
    last_beat_end: float


def write_clips(out_dir: Path, work: Path, sounds: Sequence[Path], fps: int,
                scenes: Sequence[SceneSpan], tracks: Sequence[tuple[str, Sequence[Cue]]],
                pictures: Sequence[Path], silent: bool = False,
                store: SegmentStore | None = None, workers: int = 1) -> list[SceneClip]:
    """One clip per scene from its encoded ``pictures`` and its encoded ``sounds`` (one of
    each per scene, both copied); ``tracks`` are (lang, cues), the first being the clip's
    own language. The posters are kept in ``store``, if given, under the picture's content
    and the time. The scenes are written ``workers`` at a time (each is a few short ffmpeg
    runs). Returns what was written, in scene order."""
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(k: int, span: SceneSpan, picture: Path, sound: Path) -> SceneClip:
        scene_id, title, start, end = span.scene_id, span.title, span.start, span.end
        stem = f"{k:02d}_{scene_id}"
        subs = []
        for lang, cues in tracks:
            path = work / f"{stem}.{lang}.srt"
            subtitle_files.write(shift_cues(cues, start, end) or [Cue(0.0, 0.001, (" ",))],
                                 path, "srt")
            subs.append(media.SubtitleTrack(path, lang, not subs))
        video = out_dir / f"{stem}.mp4"
        media.mux_clip(picture, sound, subs, video)
        first, last = out_dir / f"{stem}.first.png", out_dir / f"{stem}.last.png"
        frame = 1 / fps
        _poster(store, picture, max(0.0, span.first_beat_end - start - frame), first)
        _poster(store, picture, max(0.0, span.last_beat_end - start - frame), last)
        quiet = None
        if silent:
            quiet = out_dir / f"{stem}.silent.mp4"
            media.mux_clip(picture, None, subs, quiet)
        return SceneClip(k, scene_id, title, start, end, span.narration, video, first, last,
                         quiet)

    items = list(zip(range(1, len(scenes) + 1), scenes, pictures, sounds, strict=True))
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda item: one(*item), items))


def _poster(store: SegmentStore | None, picture: Path, at: float, out: Path) -> None:
    """The frame of ``picture`` (a scene's segment, the clip's picture) at ``at`` s."""
    if store is None:
        media.frame_png(picture, at, out)
        return
    kept = store.get("poster", [FileContent.of(picture), round(at, 6), versions()],
                     lambda p: media.frame_png(picture, at, p), ".png")
    shutil.copyfile(kept, out)
