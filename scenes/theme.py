"""The shared look of every scene: colours, fonts, layout bands and small building blocks."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from functools import cache, lru_cache

import manimpango
import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    MarkupText,
    Mobject,
    Rectangle,
    RoundedRectangle,
    Text,
    VGroup,
    VMobject,
    config,
    tempconfig,
)

from common.text import (
    CLAUSE_MARKS,
    CLOSE_QUOTES,
    GROUP_CLOSERS,
    GROUP_OPENERS,
    OPEN_QUOTES,
    SENTENCE_ENDS,
    is_cjk,
)
from narration import style
from narration.breaks import NO_LINE_START, counted_break
from narration.wordseg import word_boundaries
from scenes import legibility, text_store

# Fonts: a bundled Noto Sans CJK so Chinese never renders as boxes, whatever the system has.
FONT_DIR, FONT_FILE, FONT = style.FONT_DIR, style.FONT_FILE, style.FONT
manimpango.register_font(str(FONT_FILE))

# Colours (Q yellow, K teal, V red-ish, kept throughout)
BG = style.BG
FG = style.FG
MUTED = style.MUTED
Q_COLOR, K_COLOR, V_COLOR = style.ROLE_COLORS
ACCENT = "#7aa2f7"
GOOD = "#8bd17c"
# A problem or a wrong step (a cross, "too big", a blocked word): orange, never V's red,
# which stays the Values' colour only.
WARN = "#ff9e64"
PANEL = style.PANEL
# Share colours, one per set in every scene (hook, softmax, scaling, overview, ...):
# SHARE_COLOR is the shares attention really uses, softmax of the scores ÷ √d
# (derived.fill_weights_scaled, the worked example's weights); never Q's yellow.
SHARE_COLOR = "#c39bd3"
# COMPARE_COLOR is every share set compared with those: the shares before ÷ √d
# (derived.fill_weights: the hook's bars, the softmax step's, the overview's until its ÷ √d
# step, the scaling scene's "no division" chart), amplified scores' shares, a hard choice.
# The one other colour shares are ever drawn in.
COMPARE_COLOR = "#7aa2f7"

# Layout (Manim units; the frame is 14.22 x 8): header at top, subtitles in the bottom band.
FRAME_W = config.frame_width
FRAME_H = config.frame_height
MARGIN = 0.45
HEADER_Y = FRAME_H / 2 - 0.5
CONTENT_TOP = FRAME_H / 2 - 1.05
SUBTITLE_BAND = style.SUBTITLE_BAND_UNITS  # the bottom band kept free for subtitles
CONTENT_BOTTOM = -FRAME_H / 2 + SUBTITLE_BAND
CONTENT_W = FRAME_W - 2 * MARGIN
CONTENT_H = CONTENT_TOP - CONTENT_BOTTOM
CONTENT_CENTER = (CONTENT_TOP + CONTENT_BOTTOM) / 2 * UP

# The type scale: every text size a scene uses, by role (Manim font sizes). Measured as a
# digit's height at 1080p (``scenes.legibility``), body text is at least 40 px and every
# label at least 32 px, as a phone held at 40 cm needs; titles are at least 1.5x body, and
# numbers in tables are as large as body text. Scenes name a role, never a number.
DISPLAY_SIZE = 72  # a single big letter or symbol (the Q, K and V of the role cards)
TITLE_SIZE = 48  # title cards: 68 px
EMPH_SIZE = 36  # a sentence or result in focus: 51 px
HEAD_SIZE = 30  # the scene's running header: 43 px
BODY_SIZE = 30  # text read as part of the explanation: 43 px
NUM_SIZE = 30  # numbers, in tables as anywhere: as large as body text
LABEL_SIZE = 24  # labels, column heads, chips, legends: 34 px, the smallest there is
SMALL_SIZE = LABEL_SIZE  # the old name of the label size
# Typst sets a formula's digits smaller than the text font's at the same size (0.68x):
FORMULA_DISPLAY_SIZE = 46  # the attention formula shown whole: 45 px
FORMULA_SIZE = 44  # a formula read as body text: 43 px
FORMULA_LABEL_SIZE = 36  # a matrix's name or a short formula label: 35 px
MIN_BODY_PX, MIN_LABEL_PX = style.MIN_BODY_PX, style.MIN_LABEL_PX  # px at 1080p


def _digit_px(make) -> float:
    """Pixels at 1080p per unit of font size, for texts made by ``make(size)``.

    Measured in a media folder of its own: Manim writes a text's SVG to
    ``<media_dir>/texts/<hash>.svg`` with a ``<hash>_.svg`` copy it deletes, so processes
    importing this module at once (parallel scene jobs, test workers) in one folder would
    delete each other's copy."""
    with tempfile.TemporaryDirectory(prefix="qkv-measure-") as tmp, \
            tempconfig({"media_dir": tmp}):
        return legibility.units_to_px(make(100).height) / 100


TEXT_PX = _digit_px(lambda size: Text("0", font=FONT, font_size=size))
"""A text's size in px at 1080p per unit of font size (28 -> 40 px)."""


def text_px(size: float) -> float:
    """The size in px at 1080p of text set at font size ``size``."""
    return size * TEXT_PX


_RADICAL = re.compile(r"√(\{[^}]*\}|[A-Za-z0-9.]+)")  # √d, √64, √{d_k}
_ROLE_LETTER = re.compile(r"(?<![A-Za-z])[QKVqkv](?![A-Za-z])")  # Q·K, q · k, the V's
ROLE_COLORS = {"q": Q_COLOR, "k": K_COLOR, "v": V_COLOR}


LATIN_QUOTES_FONT = "DejaVu Sans"
"""Curly quotes in English text: the CJK font draws them full-width, leaving a wide gap
on their outer side ("of  “chases”  now"); this face draws them proportional. Pango falls
back to the theme font where it is missing."""
_CURLY = OPEN_QUOTES + CLOSE_QUOTES


def latin_quotes(s: str) -> dict[str, str] | None:
    """``t2f`` for a Text of ``s``: in a text with no CJK character, its curly quotes set in
    a Latin face. Chinese text keeps its full-width quotes."""
    if any(is_cjk(c) for c in s) or not any(q in s for q in _CURLY):
        return None
    return {q: LATIN_QUOTES_FONT for q in _CURLY if q in s}


def role_colors(s: str) -> dict[str, str]:
    """``t2c`` for a Text of ``s``: each Q, K or V standing alone as a letter (Q·K, q · k,
    the V's; never the q of "quiz") in its role's colour."""
    return {f"[{m.start()}:{m.end()}]": ROLE_COLORS[m.group().lower()]
            for m in _ROLE_LETTER.finditer(s)}


class RadicalSign(VMobject):
    """The stroke drawn over a square root's radicand: an open line, never filled. Manim's
    ``set_opacity`` sets fill and stroke alike; writing a text letter by letter
    (``AddTextLetterByLetter``) then filled the line's corners into a wedge."""

    def set_opacity(self, opacity: float, family: bool = True) -> RadicalSign:
        self.set_stroke(opacity=opacity, family=family)
        return self


def shed_svg_paths(mob: Mobject) -> Mobject:
    """Drop the SVG path each glyph keeps after its points are made from it (Manim reads it
    only then). Every copy of a text deep-copied it, point by point: with it, copies (each
    ``Transform``, ``FadeIn`` and ``.animate`` makes some) took 6x as long, half a scene's
    build. A ``Text`` also keeps the SVG's groups by id (``id_to_vgroup_dict``: only
    ``Tex`` reads its own afterwards): some sixty more mobjects per copy, three quarters of
    a text's copy time."""
    for m in mob.get_family():
        if getattr(m, "path_obj", None) is not None:
            m.path_obj = None
        if isinstance(m, Text | MarkupText):
            m.id_to_vgroup_dict = {}
    return mob


def text(s: str, size: float = BODY_SIZE, color: str = FG, weight: str = "NORMAL",
         qkv: bool = False) -> Text:
    """Text in the theme font (CJK-capable); see :func:`_make_text`. A text already made
    with the same arguments is copied, not set again: Pango's SVG is parsed into paths on
    every ``Text``, which made scenes that redraw a table each frame (``always_redraw``)
    spend most of their time there. Copying is about 3x cheaper."""
    return _made_text(s, float(size), color, weight, qkv).copy()


@lru_cache(maxsize=4096)
def _made_text(s: str, size: float, color: str, weight: str, qkv: bool) -> Text:
    """The memo behind :func:`text`; what it returns is never handed out, only copies. A
    text another process made is read back from ``scenes.text_store`` (60x quicker)."""
    key = ("text", s, size, color, weight, qkv)
    made = text_store.load(key)
    if made is None:
        made = _make_text(s, size, color, weight, qkv)
        text_store.save(key, made)
    return made


def _make_text(s: str, size: float, color: str, weight: str, qkv: bool) -> Text:
    """Text in the theme font (CJK-capable). A square root (``√d``, ``√64``) gets a radical
    drawn over its whole radicand: the font's √ glyph has a stub of a bar that covers
    nothing ("√ d"). The radical is a submobject of the text, so it moves and fades with it.
    ``qkv``: the letters Q, K and V (and q, k, v) standing alone are drawn in their roles'
    colours, whatever the text's colour.
    """
    if "√" not in s:
        t = Text(s, font=FONT, font_size=size, color=color, weight=weight,
                 t2c=role_colors(s) if qkv else None, t2f=latin_quotes(s))
        return legibility.tag(shed_svg_paths(t), s, text_px(size))
    shown, spans, pos = "", [], 0
    for m in _RADICAL.finditer(s):
        before = s[pos:m.start()]
        if before.endswith(" "):
            before = before[:-1]  # the radical's own gap replaces the space before it
        shown += before + "\u2002\u2009"  # an en and a thin space: room for the sign
        radicand = m.group(1).strip("{}")
        spans.append((len(shown), len(shown) + len(radicand)))
        shown += radicand
        pos = m.end()
    shown += s[pos:]
    t = Text(shown, font=FONT, font_size=size, color=color, weight=weight,
             t2c=role_colors(shown) if qkv else None, t2f=latin_quotes(shown))
    glyph = {}  # character offset -> its glyph (whitespace has none)
    for i, ch in enumerate(shown):
        if not ch.isspace():
            glyph[i] = len(glyph)
    digit = Text("0", font=FONT, font_size=size).height  # the sign is at least this tall
    for a, b in spans:
        body = VGroup(*[t[glyph[i]] for i in range(a, b) if i in glyph])
        if not body.submobjects:
            continue
        left, right, bottom = body.get_left()[0], body.get_right()[0], body.get_bottom()[1]
        top = max(body.get_top()[1], bottom + digit) + 0.12 * digit
        h = top - bottom
        corners = [(left - 0.56 * h, bottom + 0.40 * h), (left - 0.46 * h, bottom + 0.48 * h),
                   (left - 0.28 * h, bottom - 0.02 * h), (left - 0.08 * h, top),
                   (right + 0.06 * h, top)]
        sign = RadicalSign(stroke_color=color, stroke_width=size / 14)
        sign.set_points_as_corners([np.array([x, y, 0.0]) for x, y in corners])
        t.add(sign)
    return legibility.tag(shed_svg_paths(t), s, text_px(size))


def glyph_text(s: str, size: float = BODY_SIZE, color: str = FG) -> Text:
    """Text with one glyph per character, spaces included (no ligatures), so a scene can
    find a word's glyphs in it."""
    t = Text(s, font=FONT, font_size=size, color=color, disable_ligatures=True,
             t2f=latin_quotes(s))
    return legibility.tag(shed_svg_paths(t), s, text_px(size))


def reveal(m: Mobject, shift: float = 0.12) -> FadeIn:
    """How text and formulas enter: faded in whole. ``Write`` draws glyph outlines first,
    which shows half-drawn characters for most of a second."""
    return FadeIn(m, shift=shift * UP)


def fit(m: Mobject, width: float = CONTENT_W, height: float = CONTENT_H) -> Mobject:
    """Scale ``m`` down (never up) to fit inside width x height."""
    if m.width > width:
        m.scale_to_fit_width(width)
    if m.height > height:
        m.scale_to_fit_height(height)
    return m


def place_in_content(m: Mobject, width: float = CONTENT_W, height: float = CONTENT_H) -> Mobject:
    """Fit ``m`` into the content area and centre it there."""
    fit(m, width, height)
    return m.move_to(CONTENT_CENTER)


def wrap(s: str, max_width: float, size: float = BODY_SIZE, color: str = FG,
         qkv: bool = False) -> VGroup:
    """Text broken into lines that fit ``max_width`` (CJK by character, Latin by word),
    never inside quotes or brackets (“grew up” stays on one line), and where the subtitles'
    reader rules allow when such a place fits (``narration.breaks``: not 「长大的 / 地方」,
    "a place / name" or "take / away"), in lines of even length ("gets matched: / what I
    am", not "gets matched: what I / am")."""
    s = s.strip()  # a text's outer spaces are no word ("not " broke at its end)
    if " " in s:
        sep, parts = " ", s.split(" ")
    elif any(is_cjk(c) for c in s):
        sep, parts = "", list(s)
    else:  # one Latin word: broken only after a hyphen ("Cross-" / "attention")
        sep, parts = "", re.findall(r"[^-]+-*|-+", s)
    words: list[str] = []
    depth = 0
    for w in parts:
        if depth > 0 and words:
            words[-1] += sep + w
        else:
            words.append(w)
        depth += sum(w.count(c) for c in GROUP_OPENERS) - sum(w.count(c) for c in GROUP_CLOSERS)
        depth = max(depth, 0)
    starts, pos = [], 0  # where each word starts in ``s``
    for w in words:
        starts.append(pos)
        pos += len(w) + len(sep)
    zh = any(is_cjk(c) for c in s)
    widths = [_advance(w, size) for w in words]
    gap = _advance(sep, size) if sep else 0.0

    @cache  # asked once per line start that reaches it, and again on each retry below
    def cost(k: int) -> float:  # a break before words[k]
        if _fine_break(s, starts[k], zh):
            before = s[:starts[k]].rstrip()[-1:]
            return 0.0 if before in _CLAUSE_END else 5.0 if before in ",，、" else _WRAP_PLAIN
        return _WRAP_WORD_END if _word_end(s, starts[k], zh) else _WRAP_INSIDE

    budget = max_width
    for _ in range(4):  # the estimate (words' widths summed) is checked against the text
        spans = _balanced(widths, gap, budget, cost, even_last=bool(sep))
        lines = [sep.join(words[i:j]) for i, j in spans]
        if all(j == i + 1 or _text_width(line, size) <= max_width
               for (i, j), line in zip(spans, lines, strict=True)):
            break
        budget *= 0.97
    group = VGroup(*[text(line, size, color, qkv=qkv) for line in lines])
    return group.arrange(DOWN, aligned_edge=LEFT, buff=0.14)


_WRAP_LINE = 100.0  # each line: as few lines as fit, unless a break is bad
_WRAP_SLACK = 10.0  # times (room left / width) ** 2 per line, the last included: balanced
_CLAUSE_END = SENTENCE_ENDS | CLAUSE_MARKS | {"."}
_WRAP_PLAIN = 15.0  # a fine break between words; after a clause's end costs 0, a comma 5
_WRAP_WORD_END = 60.0  # a break the subtitles' judge calls bad, at a word's end
_WRAP_INSIDE = 1000.0  # inside a word or before a closing mark: only if nothing else fits


@lru_cache(maxsize=4096)
def _text_width(s: str, size: float) -> float:
    return text(s, size).width


def _advance(s: str, size: float) -> float:
    """How far ``s`` moves the pen (a text's width is its ink's: 「正」 alone is narrower
    than its place in a line), measured between two bars."""
    return _text_width(f"|{s}|", size) - _text_width("||", size)


def _balanced(widths: list[float], gap: float, max_width: float,
              cost: Callable[[int], float], even_last: bool) -> list[tuple[int, int]]:
    """Lines as (first word, end word) by dynamic programming: few lines, good breaks, full
    lines; with ``even_last`` the last line counts too, so lines come out even (a greedy
    fill left "what I / am" and "grew / up" on cards; Chinese keeps 「空格拿到的 / 内容」)."""
    n = len(widths)
    best = [0.0] * (n + 1)
    nxt = [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        best[i] = float("inf")
        width = -gap
        for j in range(i + 1, n + 1):
            width += widths[j - 1] + gap
            if width > max_width and j > i + 1:
                break
            room = max(0.0, max_width - width) / max_width if j < n or even_last else 0.0
            c = _WRAP_LINE + _WRAP_SLACK * room ** 2 + best[j] + (cost(j) if j < n else 0.0)
            if c < best[i]:
                best[i], nxt[i] = c, j
    spans, i = [], 0
    while i < n:
        spans.append((i, nxt[i]))
        i = nxt[i]
    return spans


def _word_end(s: str, p: int, zh: bool) -> bool:
    """Whether a line may break before ``s[p]`` at all: between two words (jieba's, in
    Chinese) and not before a closing mark (「，」 or 」 never starts a line)."""
    return s[p] not in NO_LINE_START and (not zh or p in word_boundaries(s))


def _fine_break(s: str, p: int, zh: bool) -> bool:
    """Whether a reader would accept a line break before ``s[p]`` (the subtitles' rules)."""
    return _word_end(s, p, zh) and counted_break(s, p, zh) is None


def label(s: str, max_width: float, size: float = LABEL_SIZE, color: str = FG,
          qkv: bool = False) -> Mobject:
    """A label kept at its size within ``max_width``: one line when it fits, else broken
    into centred lines (never shrunk below the scale, unless one word alone is too wide)."""
    one = text(s, size, color, qkv=qkv)
    if one.width <= max_width:
        return one
    lines = VGroup(*wrap(s, max_width, size, color, qkv)).arrange(DOWN, buff=0.08)
    return fit(lines, max_width)


def panel(width: float, height: float, color: str = MUTED, fill: str = PANEL) -> RoundedRectangle:
    return RoundedRectangle(
        corner_radius=0.12, width=width, height=height, stroke_color=color,
        stroke_width=2, fill_color=fill, fill_opacity=1,
    )


def row_text(s: str, size: float, color: str = FG) -> VGroup:
    """Text that, centred on a row, shares its baseline with the numbers centred there:
    it is padded (invisibly) to be symmetric around where a digit's centre would be."""
    full = shed_svg_paths(Text(s + "0", font=FONT, font_size=size, color=color,
                               disable_ligatures=True, t2f=latin_quotes(s)))
    body = VGroup(*full.submobjects[: len(s)])  # no ligatures: one per char, spaces too
    mid = full.submobjects[len(s)].get_y()
    half = max(body.get_top()[1] - mid, mid - body.get_bottom()[1])
    pad = Rectangle(width=0.01, height=2 * half).set_stroke(width=0).set_fill(opacity=0)
    pad.move_to(RIGHT * body.get_right()[0] + UP * mid).align_to(body, RIGHT)
    legibility.tag(body, s, text_px(size))
    return VGroup(body, pad)


def formula(expr: str, size: float = 40, color: str = FG) -> Mobject:
    """A formula typeset by Typst (math mode), with the CJK font available to it."""
    global _FORMULA_PX
    from manim import MathTypst

    if _FORMULA_PX is None:
        _FORMULA_PX = _digit_px(lambda size: MathTypst("0", font_size=size,
                                                       font_paths=[str(FONT_DIR)]))
    f = MathTypst(expr, font_size=size, color=color, font_paths=[str(FONT_DIR)])
    return legibility.tag(shed_svg_paths(f), expr, size * _FORMULA_PX)


_FORMULA_PX: float | None = None  # a formula's px at 1080p per unit of font size


ATTENTION_EXPR = (
    '"Attention"({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = {{ "softmax" : sm }} '
    "( thin {{ {{ Q : q }} {{ K^T : k }} : qk }} / {{ sqrt(d) : sd }} thin ) "
    "{{ dot : dot }} {{ V : v }}"
)
"""softmax(QKᵀ/√d)·V with labelled parts: q1 k1 v1 (arguments), sm, qk (q, k), sd, dot, v."""


def attention_formula(size: float) -> Mobject:
    """The attention formula, its Q, K and V in their colours, fitted to the content width."""
    f = formula(ATTENTION_EXPR, size=size)
    for part, color in (("q1", Q_COLOR), ("q", Q_COLOR), ("k1", K_COLOR), ("k", K_COLOR),
                        ("v1", V_COLOR), ("v", V_COLOR)):
        f.select(part).set_color(color)
    fit(f, CONTENT_W)
    return f
