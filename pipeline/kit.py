"""Publishing kit: description with chapters in the "00:00 Title" form, and a thumbnail.

Platforms parse a chapter list from the description when the first chapter is at 00:00,
there are at least three, and each lasts at least 10 s; shorter chapters are merged into
the one before. The thumbnail is 1280x720: a frame of the video with the title drawn over
it, large enough to read when small.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from common.atomic import atomic_path, atomic_write_text
from narration import style
from narration.subtitles import line_width

MIN_CHAPTER_S = 10.0
THUMB_SIZE = (1280, 720)


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


def _font(size: int, weight: str = "Bold"):
    from PIL import ImageFont

    font = ImageFont.truetype(str(style.FONT_FILE), size, index=style.FONT_INDEX_SC)
    font.set_variation_by_name(weight)
    return font


def _title_lines(title: str, lang: str) -> list[str]:
    """The title in at most three short lines: after a colon first, then by width, never
    inside a Latin word."""
    parts = [p.strip() for p in title.replace("：", "：\n").replace(": ", ":\n").split("\n")]
    width = 12.0 if lang == "zh" else 24.0
    lines: list[str] = []
    for part in parts:
        line = ""
        for token in re.findall(r"[A-Za-z0-9']+\s*|\s+|.", part):
            if line and line_width((line + token).strip(), True) > width:
                lines.append(line.strip())
                line = ""
            line += token
        if line.strip():
            lines.append(line.strip())
    return lines[:3]


def thumbnail(frame: Path, title: str, lang: str, out: Path) -> None:
    """A 1280x720 PNG: ``frame`` darkened, the title in large bold type on top."""
    from PIL import Image, ImageDraw, ImageEnhance

    img = Image.open(frame).convert("RGB").resize(THUMB_SIZE, Image.LANCZOS)
    img = ImageEnhance.Brightness(img).enhance(0.45)
    draw = ImageDraw.Draw(img)
    lines = _title_lines(title, lang)
    size = 96 if lang == "zh" else 84
    font = _font(size)
    while size > 40 and max(draw.textlength(line, font=font) for line in lines) > 1160:
        size -= 4
        font = _font(size)
    gap = int(size * 0.25)
    height = len(lines) * size + (len(lines) - 1) * gap
    y = (THUMB_SIZE[1] - height) // 2
    colours = ["#f4c542", style.FG, style.FG]
    for line, colour in zip(lines, colours, strict=False):
        w = draw.textlength(line, font=font)
        x = (THUMB_SIZE[0] - w) / 2
        draw.text((x, y), line, font=font, fill=colour, stroke_width=max(2, size // 24),
                  stroke_fill="#000000")
        y += size + gap
    with atomic_path(out) as tmp:
        img.save(tmp, format="PNG", optimize=True)
