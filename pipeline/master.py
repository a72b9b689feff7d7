"""video.mp4: the scenes' segments joined and muxed with the soundtrack, both subtitle tracks
and the chapters."""

from __future__ import annotations

from pathlib import Path

from pipeline import loudness, media
from pipeline.config import BuildConfig
from pipeline.placement import LanguageParts
from pipeline.progress import BuildProgress, Timer
from pipeline.subtitle_tracks import soft_tracks


def write_master(parts: LanguageParts, config: BuildConfig, sound: Path, meta: Path,
                 total: float, progress: BuildProgress) -> loudness.Loudness:
    """video.mp4: the scenes' segments joined and muxed with the soundtrack (``sound``,
    AAC), both subtitle tracks and the chapters (``meta``); checked, then measured."""
    lang, staged = parts.lang, parts.staged
    segs = parts.segments
    width, height = config.quality.width, config.quality.height
    with Timer(progress, "master") as t:
        video = parts.work / "video-only.mp4"
        media.concat_videos(parts.timed_segments, video)
        media.mux_master(video, sound,
                         soft_tracks(staged, lang),
                         meta, staged / "video.mp4")
        media.check_format(staged / "video.mp4", width, height, parts.fps, total, "the master")
    progress.say(f"[{lang}] master in {t.seconds:.1f} s ({len(segs)} scene segment(s) joined)")
    return loudness.measure(staged / "video.mp4")
