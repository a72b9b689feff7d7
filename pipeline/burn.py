"""Subtitles drawn into the picture: the burned copy of the master, and the drawing (ASS in the
bundled font, inside the subtitle band) the deck's clips use too."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from pathlib import Path

from common import atomic
from narration import style, subtitle_files
from narration.types import Cue
from pipeline import media


def burn(staged: Path, work: Path, lang: str, cues: list[Cue], fps: int) -> None:
    """video.burned.mp4: the master with this language's subtitles drawn in the band."""
    burn_cues(staged / "video.mp4", cues, lang, work, "burn", fps, staged / "video.burned.mp4")


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


def burn_cues(video: Path, cues: Sequence[Cue], lang: str, work: Path, name: str, fps: int,
              out: Path) -> None:
    """``video`` (the master) with ``cues`` drawn into the picture, every frame encoded
    again (its burned copy)."""
    width, height = media.frame_size(video)
    ass, fonts = subtitle_drawing(cues, lang, work, name, width, height)
    with atomic.atomic_path(out) as tmp:
        media.burn_subtitles(video, ass, fonts, fps, tmp.with_suffix(".mp4"))
        tmp.with_suffix(".mp4").replace(tmp)


def cue_changes(cues: Sequence[Cue], fps: int) -> list[int]:
    """The frames at ``fps`` where the drawn cues may change: both frames around each cue's
    start and end, widened by the ASS file's centisecond rounding."""
    out: set[int] = set()
    for c in cues:
        for t in (c.start, c.end):
            out.update(range(math.floor((t - 0.01) * fps), math.ceil((t + 0.01) * fps) + 1))
    return sorted(f for f in out if f > 0)
