"""slides.pptx: a deck a teacher can present, drawn from the same numbers as the video.

16:9, on the video's dark theme. A cover; one slide per scene with its clip (the video frame
already carries the scene's title, so the slide has none), its speaker notes one paragraph
per beat with the beat's start time in the clip; and static slides after the scenes they
sum up: the formula and its four steps, the fill-in-the-blank scores and shares, the worked
example's table (real PowerPoint tables, not pictures) and each quiz question with its
answer on the next slide. python-pptx writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from common.atomic import atomic_path
from narration import numfmt, style
from narration.scripts import SceneScript
from qkv_math import Derived, Numbers

SLIDE_W, SLIDE_H = 12192000, 6858000  # EMU: 13.333 x 7.5 inches, 16:9
BG, FG, MUTED, ACCENT = "10131A", "E8E8EE", "8A90A0", "7AA2F7"
Q_COLOR, K_COLOR, V_COLOR, SHARE, GOOD = "F4C542", "2EC4B6", "EF6F6C", "C39BD3", "8BD17C"
FONT = style.FONT  # the bundled Noto Sans CJK: the video's font
FORMULA = "Attention(Q, K, V) = softmax(QKᵀ / √d) · V"

# Table headings and labels the scripts do not carry, per language.
WORDS = {
    "zh": {"word": "词", "key": "键 k", "score": "分数", "share": "注意力份额",
           "query": "空格的 q", "formula": "注意力的一行公式"},
    "en": {"word": "word", "key": "key k", "score": "score", "share": "share of attention",
           "query": "the blank's q", "formula": "Attention in one line"},
}


@dataclass(frozen=True)
class Beat:
    start: float  # seconds from the clip's start
    text: str


@dataclass(frozen=True)
class MovieSlide:
    video: Path
    poster: Path
    beats: tuple[Beat, ...]


@dataclass(frozen=True)
class TextSlide:
    title: str
    lines: tuple[tuple[str, str], ...]  # (text, colour)
    notes: str
    big: str = ""  # a line set large under the title (the formula)


@dataclass(frozen=True)
class TableSlide:
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    colors: tuple[str, ...]  # one per column
    notes: str
    caption: str = ""


Slide = MovieSlide | TextSlide | TableSlide


@dataclass(frozen=True)
class Deck:
    title: str
    subtitle: str
    notes: str
    slides: tuple[Slide, ...] = field(default_factory=tuple)


def _clock(t: float) -> str:
    """m:ss, to the nearest second."""
    t = max(0, round(t))
    return f"{t // 60}:{t % 60:02d}"


def static_slides(script: SceneScript, lang: str, numbers: Numbers, derived: Derived,
                  scripts: dict[str, SceneScript]) -> list[Slide]:
    """The slides that follow the scene ``script``: what it computed, as a table or text."""
    w, sid = WORDS[lang], script.scene_id
    beats = {b.id: b.text.display for b in script.beats}
    pct = lambda x: numfmt.percent(float(x), lang).display  # noqa: E731
    num = lambda x, d=None: numfmt.number(float(x), lang, d).display  # noqa: E731
    vec = lambda v, d=None: numfmt.vector(v, lang, d).display  # noqa: E731
    if sid == "softmax":
        fb = numbers.fill_blank
        rows = tuple((tok, vec(k), num(s), pct(p)) for tok, k, s, p in
                     zip(fb.tokens[lang], fb.K, derived.fill_scores, derived.fill_weights,
                         strict=True))
        return [TableSlide(script.title, (w["word"], w["key"], w["score"], w["share"]), rows,
                           (FG, K_COLOR, FG, SHARE), " ".join(beats.values()),
                           f"{w['query']} = {vec(fb.query)}")]
    if sid == "worked_example":
        we, att = numbers.worked_example, derived.worked
        s = script.s
        rows = tuple((tok, vec(q), vec(k), vec(v), num(sc), num(x, 2), num(e, 2), pct(p))
                     for tok, q, k, v, sc, x, e, p in
                     zip(we.tokens[lang], we.Q, we.K, we.V, att.scores, att.scaled,
                         derived.worked_exp, att.weights, strict=True))
        header = (s("token"), "Q", "K", "V", s("score"), s("scaled"), s("exp"), s("weight"))
        return [TableSlide(script.title, header, rows,
                           (FG, Q_COLOR, K_COLOR, V_COLOR, FG, ACCENT, FG, SHARE),
                           " ".join(beats.values()),
                           f"{s('result')} = {vec(att.output, 2)}")]
    if sid == "formula" and "recap_quiz" in scripts:
        recap = scripts["recap_quiz"]
        lines = tuple((f"{m}  {st}: {g}", FG) for m, st, g in
                      zip(recap.items("marks"), recap.items("steps"), recap.items("glosses"),
                          strict=True))
        return [TextSlide(w["formula"], lines, " ".join(beats.values()), big=FORMULA)]
    if sid == "recap_quiz":
        out: list[Slide] = []
        for k, (label, q) in enumerate(zip(script.items("qlabel"), script.items("q"),
                                           strict=True), 1):
            out.append(TextSlide(label, ((q, Q_COLOR),),
                                 f"{beats.get(f'q{k}', q)} {beats.get(f'think{k}', '')}".strip()))
            answer = tuple((line, GOOD) for line in script.items(f"a{k}"))
            out.append(TextSlide(f"{label} · {script.s('answer')}", answer,
                                 beats.get(f"a{k}", "")))
        return out
    return []


def _font(run, size: int, color: str, bold: bool = False) -> None:
    """The run in the video's font, for Latin and for Chinese (PowerPoint picks the
    East Asian typeface for CJK characters), at ``size`` points."""
    from pptx.dml.color import RGBColor
    from pptx.oxml.ns import qn
    from pptx.util import Pt

    run.font.size, run.font.bold, run.font.name = Pt(size), bold, FONT
    run.font.color.rgb = RGBColor.from_string(color)
    rpr = run._r.get_or_add_rPr()
    ea = rpr.find(qn("a:ea"))
    if ea is None:
        ea = rpr.makeelement(qn("a:ea"), {})
        latin = rpr.find(qn("a:latin"))
        (latin.addnext if latin is not None else rpr.append)(ea)
    ea.set("typeface", FONT)


def _background(slide) -> None:
    from pptx.dml.color import RGBColor

    fill = slide.background.fill
    fill.solid()
    fill.fore_color.rgb = RGBColor.from_string(BG)


def _text(slide, text: str, left: int, top: int, width: int, height: int, size: int,
          color: str, bold: bool = False, align: str = "center") -> None:
    from pptx.enum.text import PP_ALIGN

    box = slide.shapes.add_textbox(left, top, width, height)
    frame = box.text_frame
    frame.word_wrap = True
    for k, line in enumerate(text.split("\n")):
        p = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        p.alignment = PP_ALIGN.CENTER if align == "center" else PP_ALIGN.LEFT
        run = p.add_run()
        run.text = line
        _font(run, size, color, bold)


def _notes(slide, paragraphs: Sequence[str]) -> None:
    frame = slide.notes_slide.notes_text_frame
    frame.text = paragraphs[0] if paragraphs else ""
    for p in paragraphs[1:]:
        frame.add_paragraph().text = p


def write_deck(deck: Deck, out: Path) -> None:
    """Write ``deck`` to ``out`` (atomically)."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor
    from pptx.util import Emu

    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(SLIDE_H)
    blank = prs.slide_layouts[6]
    margin = int(SLIDE_W * 0.04)
    cover = prs.slides.add_slide(blank)
    _background(cover)
    # a long title (about 26 Chinese characters) at 40 pt would leave its last one alone
    title_size = 40 if len(deck.title) <= 20 else 32
    _text(cover, deck.title, margin, int(SLIDE_H * 0.32), SLIDE_W - 2 * margin,
          int(SLIDE_H * 0.2), title_size, FG, bold=True)
    _text(cover, deck.subtitle, margin, int(SLIDE_H * 0.55), SLIDE_W - 2 * margin,
          int(SLIDE_H * 0.12), 26, ACCENT)
    _notes(cover, [deck.notes])
    for s in deck.slides:
        slide = prs.slides.add_slide(blank)
        _background(slide)
        if isinstance(s, MovieSlide):
            movie_w = SLIDE_W - 2 * int(SLIDE_W * 0.02)
            movie_h = movie_w * 9 // 16
            slide.shapes.add_movie(str(s.video), (SLIDE_W - movie_w) // 2,
                                   (SLIDE_H - movie_h) // 2, movie_w, movie_h,
                                   poster_frame_image=str(s.poster), mime_type="video/mp4")
            _notes(slide, [f"[{_clock(b.start)}] {b.text}" for b in s.beats])
            continue
        _text(slide, s.title, margin, int(SLIDE_H * 0.05), SLIDE_W - 2 * margin,
              int(SLIDE_H * 0.12), 32, MUTED)
        if isinstance(s, TextSlide):
            top = int(SLIDE_H * 0.22)
            if s.big:
                _text(slide, s.big, margin, top, SLIDE_W - 2 * margin, int(SLIDE_H * 0.14),
                      34, FG, bold=True)
                top += int(SLIDE_H * 0.2)
            body = "\n".join(t for t, _c in s.lines)
            color = s.lines[0][1] if s.lines else FG
            _text(slide, body, margin * 2, top, SLIDE_W - 4 * margin, SLIDE_H - top - margin,
                  28, color, align="left" if s.big or len(s.lines) > 1 else "center")
        else:
            n_rows, n_cols = len(s.rows) + 1, len(s.header)
            width = SLIDE_W - 2 * margin
            row_h = int(SLIDE_H * 0.09)
            table = slide.shapes.add_table(n_rows, n_cols, margin, int(SLIDE_H * 0.22),
                                           width, row_h * n_rows).table
            for r, values in enumerate((s.header, *s.rows)):
                for c, value in enumerate(values):
                    cell = table.cell(r, c)
                    cell.fill.solid()
                    cell.fill.fore_color.rgb = RGBColor.from_string("1C2230" if r else "2A3142")
                    cell.text = value
                    _font(cell.text_frame.paragraphs[0].runs[0], 22 if r else 18,
                          s.colors[c] if r else MUTED)
            if s.caption:
                _text(slide, s.caption, margin, int(SLIDE_H * 0.24) + row_h * n_rows,
                      width, int(SLIDE_H * 0.1), 24, GOOD)
        _notes(slide, [s.notes])
    with atomic_path(out) as tmp:
        _save(prs, tmp)


# Parts stored as they are: compressed media gain nothing from deflate.
_STORED = {"mp4", "m4v", "mov", "png", "jpg", "jpeg"}


def _save(prs, path: Path) -> None:
    """Save ``prs`` to ``path`` as ``Presentation.save`` does, but with its media stored
    rather than deflated. python-pptx deflates every part, and deflating the deck's clips
    (incompressible MP4) was a fifth of the main process's time in a run where one number
    changed (BENCHMARKS.md). Its own package writer writes the parts, content types and
    relationships; only the zip entries' compression differs. python-pptx has no public
    hook for this, so if its internals move, the deck is saved the usual way."""
    import zipfile

    try:
        from pptx.opc.serialized import PackageWriter, _ZipPkgWriter

        class _Writer(_ZipPkgWriter):
            def write(self, pack_uri, blob: bytes) -> None:
                stored = pack_uri.ext.lower() in _STORED
                self._zipf.writestr(pack_uri.membername, blob, compress_type=(
                    zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED))

        package = prs.part.package
        writer = PackageWriter(str(path), package._rels, tuple(package.iter_parts()))
        with _Writer(str(path)) as zipped:
            writer._write_content_types_stream(zipped)
            writer._write_pkg_rels(zipped)
            writer._write_parts(zipped)
    except (ImportError, AttributeError, TypeError):  # python-pptx internals moved
        prs.save(str(path))
