"""clips/ (each scene's segment with its sound, subtitle tracks and posters) and slides.pptx
(the clips captioned, and the static slides)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

from narration.scripts import video_summary
from narration.types import Cue
from pipeline import clips as scene_clips
from pipeline import deck, media
from pipeline.config import BuildConfig, Inputs
from pipeline.deck_clips import DeckItem, deck_movies, deck_pictures
from pipeline.placement import LanguageParts
from pipeline.progress import BuildProgress, Timer
from pipeline.segments import SegmentStore
from pipeline.subtitle_tracks import other_lang


def encode_deck_pictures(parts: LanguageParts, config: BuildConfig, segments: SegmentStore,
                         cues: Sequence[Cue]) -> list[Path]:
    """The pictures of the deck's movies: each scene's segment with its part of ``cues``
    (this language's) drawn in (``pipeline.deck_clips.deck_pictures``); on the Dask
    cluster when the build has one."""
    remote = None
    if config.scheduler:
        from pipeline.dask_pool import RemoteBurner  # distributed, only when asked

        remote = RemoteBurner(config.scheduler)
    items = []
    for job, c in zip(parts.jobs, parts.chapters, strict=True):
        assert job.entry is not None  # every scene is rendered or reused by now
        items.append(DeckItem(job.entry.picture, job.entry.video.sha256,
                              job.entry.video.starts, scene_clips.shift_cues(cues, c.start,
                                                                             c.end)))
    return deck_pictures(segments, items, parts.lang, parts.work / "deck", parts.fps,
                         min(config.clip_height, config.quality.height), config.jobs, remote)


def write_clips_and_deck(parts: LanguageParts, config: BuildConfig, inputs: Inputs,
                         segments: SegmentStore, clip_sounds: Sequence[Path],
                         tracks: tuple[Sequence[Cue], Sequence[Cue]],
                         progress: BuildProgress,
                         pictures: Future[list[Path]] | None = None) -> None:
    """clips/ (each scene's segment copied, with its sound, both subtitle tracks and
    posters) and slides.pptx (its movies captioned with ``tracks``' first, this language's
    cues: their pictures are ``pictures``' result, as :func:`encode_deck_pictures` makes
    them; None when the deck's movies are the clips, uncaptioned)."""
    lang, fps, staged = parts.lang, parts.fps, parts.staged
    other = other_lang(lang)
    cues, other_cues = tracks
    width, height = config.quality.width, config.quality.height
    with Timer(progress, "clips and deck") as t:
        spans = []
        for sc, c in zip(parts.scripts, parts.chapters, strict=True):
            mine = [p for p in parts.placed if p.scene_id == sc.scene_id]
            spans.append(scene_clips.SceneSpan(
                sc.scene_id, sc.title, c.start, c.end, " ".join(p.text.display for p in mine),
                mine[0].end, mine[-1].end))
        # The clips' pictures are the master's segments, copied: no second encode.
        made = scene_clips.write_clips(
            staged / "clips", parts.work / "clips",
            clip_sounds, fps, spans,
            [(lang, cues), (other, other_cues)], parts.segments, silent=config.silent_clips,
            store=segments, workers=config.jobs)
        for c in made:
            media.check_format(c.video, width, height, fps,
                               round((c.end - c.start) * fps) / fps, "the clip")
        videos = [clip.video for clip in made]
        if pictures is not None:  # captions drawn in: PowerPoint shows no soft subtitle track
            videos = deck_movies(segments, pictures.result(), videos, config.jobs)
        slides: list[deck.Slide] = []
        by_id = {sc.scene_id: sc for sc in parts.scripts}
        for sc, c, clip, video in zip(parts.scripts, parts.chapters, made, videos,
                                      strict=True):
            slides.append(deck.MovieSlide(video, clip.poster_last, tuple(
                deck.SlideBeat(p.start - c.start, p.text.display)
                for p in parts.placed if p.scene_id == sc.scene_id), sc.title))
            slides += deck.static_slides(sc, lang, inputs.numbers, inputs.derived, by_id)
        summary = video_summary(lang, inputs.script_root, parts.cut)
        deck.write_deck(deck.Deck(parts.title, deck.FORMULA, summary, tuple(slides), lang),
                        staged / "slides.pptx")
    size = (staged / "slides.pptx").stat().st_size / 1e6
    progress.say(f"[{lang}] {len(made)} scene clips and slides.pptx ({len(slides) + 1} "
                 f"slides, {size:.1f} MB) in {t.seconds:.1f} s")
