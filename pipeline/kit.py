"""Publishing kit: the description, with chapters in the "00:00 Title" form (the cover is
``pipeline.cover``).

Platforms parse a chapter list from the description when the first chapter is at 00:00,
there are at least three, and each lasts at least 10 s; shorter chapters are merged into
the one before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from common.atomic import atomic_write_text
from narration.scripts import SCRIPTS_DIR, video_cover, video_summary, video_title
from pipeline import media
from pipeline.cover import draw_cover

MIN_CHAPTER_S = 10.0


class Chapter(NamedTuple):
    """One scene's chapter: where it starts and ends in the video (s) and its title. A
    tuple still, for the formats that take (start, end, title)."""

    start: float
    end: float
    title: str


def stamp(seconds: float) -> str:
    """"MM:SS", or "H:MM:SS" from an hour on."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def chapter_lines(chapters: Sequence[tuple[float, float, str]]) -> list[str]:
    """One "00:00 Title" line per chapter; chapters under 10 s join the previous one."""
    kept: list[tuple[float, float, str]] = []
    for start, end, title in chapters:
        if kept and (end - start < MIN_CHAPTER_S or kept[-1][1] - kept[-1][0] < MIN_CHAPTER_S):
            kept[-1] = (kept[-1][0], end, kept[-1][2])
        else:
            kept.append((start, end, title))
    if kept:
        kept[0] = (0.0, kept[0][1], kept[0][2])
    return [f"{stamp(start)} {title}" for start, _end, title in kept]


def description(title: str, summary: str, chapters: Sequence[tuple[float, float, str]],
                lang: str) -> str:
    heading = "章节" if lang == "zh" else "Chapters"
    return "\n".join([title, "", summary.strip(), "", f"{heading}:",
                      *chapter_lines(chapters), ""])


def write_description(path: Path, title: str, summary: str,
                      chapters: Sequence[tuple[float, float, str]], lang: str) -> None:
    atomic_write_text(path, description(title, summary, chapters, lang))


def container_chapters(master: Path, chapters: Sequence[Chapter]
                       ) -> list[Chapter]:
    """``chapters`` with the times the master's container holds (milliseconds), so the
    description lists what a player shows."""
    held = media.probe(master).chapters
    if len(held) != len(chapters):
        raise media.MediaError(f"{master.name} holds {len(held)} chapter(s), "
                               f"expected {len(chapters)}")
    starts = [t for t, _title in held]
    ends = [*starts[1:], chapters[-1].end] if chapters else []
    return [Chapter(s, e, c.title) for s, e, c in zip(starts, ends, chapters, strict=True)]


def write_kit(staged: Path, lang: str, chapters: list[Chapter],
              cut: str = "full", scripts: Path = SCRIPTS_DIR) -> None:
    """description.txt (title, summary, chapter list at the master's own chapter times) and
    thumbnail.png (the cut's cover, ``pipeline.cover``), their words from ``scripts``."""
    title = video_title(lang, scripts, cut)
    write_description(staged / "description.txt", title, video_summary(lang, scripts, cut),
                          container_chapters(staged / "video.mp4", chapters), lang)
    draw_cover(video_cover(lang, scripts, cut), staged / "thumbnail.png")
