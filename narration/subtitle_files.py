"""Subtitle files in every form platforms and players take, written with ``pysubs2``.

SRT and WebVTT carry plain text (what YouTube and Bilibili ask for); ASS carries the style
used to burn subtitles into the picture. Every file is written atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pysubs2

from common.atomic import atomic_write_text
from narration.types import Cue

FORMATS = {"srt": "srt", "vtt": "vtt", "ass": "ass"}


def to_ssafile(cues: Sequence[Cue]) -> pysubs2.SSAFile:
    subs = pysubs2.SSAFile()
    for c in cues:
        subs.append(pysubs2.SSAEvent(start=round(c.start * 1000), end=round(c.end * 1000),
                                     text=r"\N".join(line.replace("\\", "＼")
                                                     for line in c.lines)))
    return subs


def write(cues: Sequence[Cue], path: Path, fmt: str,
          subs: pysubs2.SSAFile | None = None) -> None:
    """Write ``cues`` to ``path`` in ``fmt`` ("srt", "vtt", "ass"); ``subs`` may bring
    styles (for "ass")."""
    data = (subs or to_ssafile(cues)).to_string(FORMATS[fmt])
    atomic_write_text(Path(path), data)


def read(path: Path) -> list[Cue]:
    """Cues of an SRT, WebVTT or ASS file."""
    subs = pysubs2.load(str(path), encoding="utf-8")
    return [Cue(e.start / 1000, e.end / 1000,
                tuple(line.strip() for line in e.plaintext.splitlines() if line.strip()))
            for e in subs if not e.is_comment]


def write_burn_ass(cues: Sequence[Cue], path: Path, width: int, height: int,
                   band_share: float, font: str) -> None:
    """An ASS file that draws two lines of subtitles inside the bottom band of a
    ``width`` x ``height`` picture (``band_share`` of its height), in ``font``."""
    band = band_share * height
    subs = to_ssafile(cues)
    subs.info["PlayResX"], subs.info["PlayResY"] = str(width), str(height)
    subs.info["WrapStyle"] = "2"  # our lines are already broken: never rewrap
    subs.styles["Default"] = pysubs2.SSAStyle(
        fontname=font, fontsize=round(band * 0.34), primarycolor=pysubs2.Color(240, 240, 245),
        outlinecolor=pysubs2.Color(0, 0, 0), backcolor=pysubs2.Color(0, 0, 0, 96),
        bold=False, outline=max(1, round(band * 0.015)), shadow=0,
        alignment=pysubs2.Alignment.BOTTOM_CENTER, marginv=round(band * 0.1),
        marginl=round(width * 0.04), marginr=round(width * 0.04))
    write(cues, path, "ass", subs)
