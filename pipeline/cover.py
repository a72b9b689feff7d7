"""The cover (thumbnail.png): drawn for it, not a frame of the video.

Three cards, Q yellow, K teal and V red, each with its letter and its word, and the cut's
title under them in balanced lines (``cover`` in the cut's ``_video.toml``/``_overview.toml``,
``narration.scripts.video_cover``). A frame of the video made a busy background: step labels
and half-faded formulas showed between the title's words. Sizes are chosen to stay readable
where platforms show covers, 320x180: the title at least 64 px tall here is 16 px there.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, pairwise
from pathlib import Path

from common.atomic import atomic_path
from narration import style
from narration.scripts import CoverText
from narration.wordseg import word_boundaries

SIZE = (1280, 720)
MARGIN = 60  # px kept clear on the left and right
BADGE_BAND = 96
"""px kept clear at the bottom: where Bilibili and YouTube lay the video's length (and
Bilibili its play count) over the cover."""
TITLE_MAX, TITLE_MIN = 96, 64  # the title's font size, largest and smallest
TITLE_GAP = 0.22  # between title lines, in font sizes
LETTERS = ("Q", "K", "V")
WORDS = ("Query", "Key", "Value")
_NO_LINE_START = set("，。、：；！？,.:;!?）)」』”’》")


@dataclass(frozen=True)
class CoverLayout:
    """Where the cover put things: the title's lines, font size and boxes (x0, y0, x1, y1),
    and the three cards' boxes."""

    lines: tuple[str, ...]
    title_size: int
    title_boxes: tuple[tuple[int, int, int, int], ...]
    cards: tuple[tuple[int, int, int, int], ...]


def _font(size: int, weight: str = "Bold"):
    from PIL import ImageFont

    font = ImageFont.truetype(str(style.FONT_FILE), size, index=style.FONT_INDEX_SC)
    font.set_variation_by_name(weight)
    return font


def break_points(title: str) -> list[int]:
    """Offsets where the title may break: between words (spaces in Latin text, jieba's word
    boundaries in Chinese), never inside a Latin word nor before punctuation."""
    out = []
    for p in sorted(word_boundaries(title)):
        if 0 < p < len(title) and title[p] not in _NO_LINE_START:
            a, b = title[p - 1], title[p]
            if (a.isascii() and a.isalnum() and b.isascii() and b.isalnum()) or a in "'’":
                continue  # inside a Latin word (jieba splits "Attention’s")
            out.append(p)
    return out


def balanced_lines(title: str, width_of, max_width: float, max_lines: int = 3
                   ) -> tuple[str, ...] | None:
    """The fewest lines, each at most ``max_width`` (``width_of`` measures a line), whose
    longest is as short as possible; None when no split of up to ``max_lines`` fits."""
    points = break_points(title)
    for n in range(1, max_lines + 1):
        best: tuple[float, tuple[str, ...]] | None = None
        for cut in combinations(points, n - 1):
            edges = (0, *cut, len(title))
            lines = tuple(title[a:b].strip() for a, b in pairwise(edges))
            widest = max(width_of(line) for line in lines)
            if widest <= max_width and (best is None or widest < best[0]):
                best = (widest, lines)
        if best is not None:
            return best[1]
    return None


def draw_cover(cover: CoverText, out: Path) -> CoverLayout:
    """Write the 1280x720 PNG cover to ``out`` (atomically) and say where things went."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", SIZE, style.BG)
    draw = ImageDraw.Draw(img)
    card_w, gap = 330, 44
    card_h = 318 if cover.roles else 262
    x0, y0 = (SIZE[0] - 3 * card_w - 2 * gap) // 2, 44
    letter_font, word_font, role_font = _font(156), _font(52), _font(46, "Regular")
    cards = []
    for i, colour in enumerate(style.ROLE_COLORS):
        x = x0 + i * (card_w + gap)
        box = (x, y0, x + card_w, y0 + card_h)
        draw.rounded_rectangle(box, radius=28, fill=style.PANEL, outline=colour, width=6)
        cx = x + card_w / 2
        # the letter's baseline leaves room for Q's tail above the word
        draw.text((cx, y0 + 150), LETTERS[i], font=letter_font, fill=colour, anchor="ms")
        draw.text((cx, y0 + 222), WORDS[i], font=word_font, fill=colour, anchor="ms")
        if cover.roles:
            draw.text((cx, y0 + 284), cover.roles[i], font=role_font, fill=style.FG,
                      anchor="ms")
        cards.append(box)
    top, bottom = y0 + card_h + 30, SIZE[1] - BADGE_BAND
    max_w = SIZE[0] - 2 * MARGIN
    size, lines, extent = TITLE_MAX, None, (0, 0)
    while size >= TITLE_MIN:
        font = _font(size)
        lines = balanced_lines(cover.title, lambda s, f=font: draw.textlength(s, font=f), max_w)
        if lines:
            # the glyphs' own extent, not the font size: CJK glyphs start well below the
            # ascender line the text is anchored on, and would sink into the badge strip
            step = int(size * (1 + TITLE_GAP))
            extent = (draw.textbbox((0, 0), lines[0], font=font, anchor="la")[1],
                      draw.textbbox((0, (len(lines) - 1) * step), lines[-1], font=font,
                                    anchor="la")[3])
            if extent[1] - extent[0] <= bottom - top:
                break
        size -= 4
    else:
        raise ValueError(f"cover title {cover.title!r} does not fit at {TITLE_MIN} px")
    assert lines is not None
    y = top + (bottom - top - (extent[1] - extent[0])) // 2 - extent[0]
    boxes = []
    for line in lines:
        w = draw.textlength(line, font=font)
        x = int((SIZE[0] - w) / 2)
        draw.text((x, y), line, font=font, fill=style.FG, anchor="la")
        boxes.append(tuple(int(v) for v in draw.textbbox((x, y), line, font=font, anchor="la")))
        y += step
    with atomic_path(out) as tmp:
        img.save(tmp, format="PNG", optimize=True)
    return CoverLayout(tuple(lines), size, tuple(boxes), tuple(cards))
