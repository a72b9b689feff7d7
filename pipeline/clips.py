"""Scene clips for slides: one MP4 per scene with its own voice and both subtitle tracks,
posters of its first and last frame, and a PowerPoint deck embedding them.

Clips are each scene's own picture, scaled and encoded once (and cached), so their
durations add up to the video's, with the voice cut at the scene's start; ``CLIP_HEIGHT``
by default: large
PowerPoint decks stop playing full-HD video (manim-slides #392).

Posters: a scene opens on an empty frame (its title is being written) and closes with a
fade to empty, so its literal first and last frames show nothing. The "first" poster is
therefore the frame where the first beat ends (title and opening content in place) and
the "last" poster the frame where the last beat ends, just before the closing fade.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from narration import subtitle_files
from narration.types import Cue
from pipeline import media

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


def _shift(cues: Sequence[Cue], start: float, end: float) -> list[Cue]:
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


def write_clips(out_dir: Path, work: Path, voice: Path, fps: int,
                scenes: Sequence[SceneSpan], tracks: Sequence[tuple[str, Sequence[Cue]]],
                pictures: Sequence[Path], silent: bool = False) -> list[SceneClip]:
    """One clip per scene from its encoded, scaled ``pictures`` (one per scene); ``tracks``
    are (lang, cues), the first being the clip's own language. Returns what was written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    made = []
    for k, (span, picture) in enumerate(zip(scenes, pictures, strict=True), 1):
        scene_id, title, start, end = span.scene_id, span.title, span.start, span.end
        stem = f"{k:02d}_{scene_id}"
        frames = max(1, round((end - start) * fps))
        subs = []
        for lang, cues in tracks:
            path = work / f"{stem}.{lang}.srt"
            subtitle_files.write(_shift(cues, start, end) or [Cue(0.0, 0.001, (" ",))],
                                 path, "srt")
            subs.append(media.SubtitleTrack(path, lang, not subs))
        video = out_dir / f"{stem}.mp4"
        media.mux_clip(picture, voice, start, frames, fps, subs, video)
        first, last = out_dir / f"{stem}.first.png", out_dir / f"{stem}.last.png"
        frame = 1 / fps
        media.frame_png(video, max(0.0, span.first_beat_end - start - frame), first)
        media.frame_png(video, max(0.0, span.last_beat_end - start - frame), last)
        quiet = None
        if silent:
            quiet = out_dir / f"{stem}.silent.mp4"
            media.mux_clip(picture, None, start, frames, fps, subs, quiet)
        made.append(SceneClip(k, scene_id, title, start, end, span.narration, video, first,
                              last, quiet))
    return made


def write_deck(clips: Sequence[SceneClip], title: str, out: Path) -> None:
    """slides.pptx: a title slide, then one slide per scene with its clip (poster shown,
    plays on click), the scene title, and its narration as speaker notes."""
    from pptx import Presentation
    from pptx.util import Emu, Pt

    deck = Presentation()
    deck.slide_width, deck.slide_height = Emu(12192000), Emu(6858000)  # 16:9
    cover = deck.slides.add_slide(deck.slide_layouts[0])
    cover.shapes.title.text = title
    cover.placeholders[1].text = f"{len(clips)} scenes"
    w, h = deck.slide_width, deck.slide_height
    for c in clips:
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
        slide.shapes.title.text = c.title
        slide.shapes.title.text_frame.paragraphs[0].font.size = Pt(28)
        top = int(h * 0.2)
        movie_h = int(h * 0.76)
        movie_w = int(movie_h * 16 / 9)
        slide.shapes.add_movie(str(c.video), int((w - movie_w) / 2), top, movie_w, movie_h,
                               poster_frame_image=str(c.poster_first), mime_type="video/mp4")
        slide.notes_slide.notes_text_frame.text = c.narration
    from narration.atomic import atomic_path

    with atomic_path(out) as tmp:
        deck.save(str(tmp))
