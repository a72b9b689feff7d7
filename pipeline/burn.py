"""Subtitles drawn into the picture: the burned copy of the master, and the drawing (ASS in the
bundled font, inside the subtitle band) the deck's clips use too."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common.h264 import CRF, GOP_SECONDS
from narration import style, subtitle_files
from narration.types import Cue
from pipeline import gops, media
from pipeline.clips import shift_cues
from pipeline.keys import pipeline_code, versions
from pipeline.placement import LanguageParts
from pipeline.segments import SegmentStore
from pipeline.subtitle_tracks import soft_tracks


def burn(parts: LanguageParts, store: SegmentStore, sound: Path, meta: Path,
         cues: Sequence[Cue], workers: int) -> None:
    """video.burned.mp4: the master with this language's subtitles drawn in the band.

    Each scene's picture is encoded again with its part of the cues drawn in, each held
    frame once (``pipeline.gops``, as the deck's clips are), cached under the picture and
    those cues, ``workers`` scenes at a time; the scenes are joined by copy and muxed with
    the master's sound, subtitle tracks and chapters. Drawing the subtitles into every
    frame of the master instead took about 700 s a language at 1080p60, every run."""
    lang, fps = parts.lang, parts.fps
    work = parts.work / "burn"

    def one(k: int) -> Path:
        entry, chapter = parts.jobs[k].entry, parts.chapters[k]
        assert entry is not None
        mine = shift_cues(cues, chapter.start, chapter.end)
        key = [entry.video.sha256, list(entry.video.starts),
               [(c.start, c.end, c.lines) for c in mine], lang, fps,
               media.x264_args(fps), "held-gops", style.FONT, pipeline_code(), versions()]
        return store.get("burned-picture", key, lambda out: burn_picture(
            entry.picture, entry.video.starts, mine, lang, work, f"{k:02d}", fps, out))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        pictures = list(pool.map(one, range(len(parts.jobs))))
    video = parts.work / "burned-only.mp4"
    media.concat_videos([(p, t) for p, (_seg, t) in zip(pictures, parts.timed_segments,
                                                         strict=True)], video)
    media.mux_master(video, sound,
                     soft_tracks(parts.staged, lang),
                     meta, parts.staged / "video.burned.mp4")


def burn_picture(picture: Path, starts: Sequence[int], cues: Sequence[Cue], lang: str,
                 work: Path, name: str, fps: int, out: Path, rate: int | None = None,
                 height: int | None = None, crf: int = CRF,
                 gop_seconds: float = GOP_SECONDS) -> None:
    """A scene's picture (its distinct frames starting at ``starts``, at ``fps``; a
    ``scenes.held_frames`` segment or a clip of one) with ``cues`` (timed from its start)
    drawn in, encoded at ``rate`` (default ``fps``), scaled to ``height`` if given, each
    held frame (between cue changes) encoded once (``pipeline.gops``); no sound."""
    rate = rate or fps
    width, full = media.frame_size(picture)
    ass, fonts = subtitle_drawing(cues, lang, work, name,
                                  media.scaled_width(width, full, height or full),
                                  height or full)
    held = work / f"{name}-held.mp4"
    try:
        gops.thin(picture, starts, fps, held)  # each held frame decoded once
        gops.encode_held_picture(held, rate, out, crf=crf, gop_seconds=gop_seconds,
                                 height=height, subtitles=(ass, fonts),
                                 changes=cue_changes(cues, rate))
    finally:
        held.unlink(missing_ok=True)


def subtitle_drawing(cues: Sequence[Cue], lang: str, work: Path, name: str, width: int,
                     height: int) -> tuple[Path, Path]:
    """The ASS file drawing ``cues`` inside the subtitle band of a ``width`` x ``height``
    picture, in the bundled font, and the fonts folder libass reads it with."""
    work.mkdir(parents=True, exist_ok=True)
    ass = work / f"{name}.ass"
    if lang == "en":
        # The bundled CJK font draws curly quotes full-width, with wide gaps in English.
        table = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
        cues = [Cue(c.start, c.end, tuple(line.translate(table) for line in c.lines))
                for c in cues]
    subtitle_files.write_burn_ass(cues, ass, width, height, style.SUBTITLE_BAND_SHARE,
                                  style.FONT)
    fonts = work / "fonts"  # libass wants a folder holding only font files
    fonts.mkdir(parents=True, exist_ok=True)
    link = fonts / style.FONT_FILE.name
    with contextlib.suppress(FileExistsError):  # deck clips are burned side by side
        link.symlink_to(style.FONT_FILE)
    return ass, fonts


def cue_changes(cues: Sequence[Cue], fps: int) -> list[int]:
    """The frames at ``fps`` where the drawn cues may change: both frames around each cue's
    start and end, widened by the ASS file's centisecond rounding."""
    out: set[int] = set()
    for c in cues:
        for t in (c.start, c.end):
            out.update(range(math.floor((t - 0.01) * fps), math.ceil((t + 0.01) * fps) + 1))
    return sorted(f for f in out if f > 0)
