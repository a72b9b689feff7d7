"""slides.pptx: a deck a teacher can present, drawn from the same numbers as the video.

16:9, on the video's dark theme. A cover; one slide per scene with its clip (the video frame
already carries the scene's title, so the slide's title placeholder sits just above the
visible area, where the outline, navigation and screen readers still find it), its poster
the scene's fullest frame and its speaker notes one paragraph per beat with the beat's start
time in the clip; and static slides after the scenes they sum up: the formula and its four
steps, the fill-in-the-blank scores and shares, the worked example's table (real PowerPoint
tables, not pictures) and each quiz question with its answer on the next slide, laid out as
the video's quiz card. Every slide has a title placeholder, every movie and table alt text,
every shape a name saying what it is. The text is set in fonts a Windows or macOS PowerPoint
and LibreOffice have or substitute (:data:`LATIN_FONT`, :data:`EA_FONT`). python-pptx writes it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from common.atomic import atomic_path
from common.text import columns
from narration import numfmt, style
from narration.scripts import SceneScript
from qkv_math import Derived, Numbers

SLIDE_W, SLIDE_H = 12192000, 6858000  # EMU: 13.333 x 7.5 inches, 16:9
BG, FG, MUTED = (c.lstrip("#").upper() for c in (style.BG, style.FG, style.MUTED))
Q_COLOR, K_COLOR, V_COLOR = (c.lstrip("#").upper() for c in style.ROLE_COLORS)
ACCENT, SHARE, GOOD = "7AA2F7", "C39BD3", "8BD17C"
# Fonts by script (a:latin, a:ea). Arial is on Windows and macOS, and LibreOffice shows it
# as the metric-compatible Liberation Sans; Microsoft YaHei is Windows' Chinese UI font. Its
# panose and GB2312 charset tell an application without it to substitute a Chinese sans
# (LibreOffice on Linux: Noto Sans CJK SC, measured in tests/test_deck_pdf.py).
LATIN_FONT = ("Arial", "020B0604020202020204", "34", "0")  # typeface, panose, pitch, charset
EA_FONT = ("Microsoft YaHei", "020B0503020204020204", "34", "-122")
RUN_LANG = {"zh": ("zh-CN", "en-US"), "en": ("en-US", "zh-CN")}  # lang, altLang
FORMULA = "Attention(Q, K, V) = softmax(QKᵀ / √d) · V"

# Table headings and labels the scripts do not carry, per language.
WORDS = {
    "zh": {"word": "词", "key": "键 k", "score": "分数", "share": "注意力份额",
           "query": "空格的 q", "formula": "注意力的一行公式", "video": "视频"},
    "en": {"word": "word", "key": "key k", "score": "score", "share": "share of attention",
           "query": "the blank's q", "formula": "Attention in one line", "video": "video"},
}


@dataclass(frozen=True)
class SlideBeat:
    """A beat as a slide shows it: its start in the clip and its text (the notes and captions)."""

    start: float  # seconds from the clip's start
    text: str


@dataclass(frozen=True)
class MovieSlide:
    video: Path
    poster: Path  # the scene's fullest frame (its last beat's end)
    beats: tuple[SlideBeat, ...]
    title: str = ""  # the scene's title: the slide's (off-screen) title and its alt text


@dataclass(frozen=True)
class TextSlide:
    title: str
    lines: tuple[tuple[str, str], ...]  # (text, colour)
    notes: str
    big: str = ""  # a line set large under the title (the formula)
    kind: str = "text"  # "question" or "answer": laid out as the video's quiz card
    question: str = ""  # on an answer slide, the question above the answer panel
    label: str = ""  # on an answer slide, the panel's label ("Answer")
    prompt: str = ""  # on a question slide, the prompt to pause and think


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
    lang: str = "zh"  # the language of its text (the runs' lang, for font fall-back)


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
            out.append(TextSlide(label, ((q, FG),),
                                 f"{beats.get(f'q{k}', q)} {beats.get(f'think{k}', '')}".strip(),
                                 kind="question", prompt=script.s("pause")))
            answer = tuple((line, FG) for line in script.items(f"a{k}"))
            out.append(TextSlide(f"{label} · {script.s('answer')}", answer,
                                 beats.get(f"a{k}", ""), kind="answer", question=q,
                                 label=script.s("answer")))
        return out
    return []


def _font(run, size: int, color: str, bold: bool = False, lang: str = "zh") -> None:
    """The run at ``size`` points in :data:`LATIN_FONT` for Latin text and :data:`EA_FONT`
    for Chinese (PowerPoint and LibreOffice pick the a:ea typeface for CJK characters), its
    language set so that a substitute is chosen for Chinese."""
    from pptx.dml.color import RGBColor
    from pptx.oxml.ns import qn
    from pptx.util import Pt

    run.font.size, run.font.bold = Pt(size), bold
    run.font.color.rgb = RGBColor.from_string(color)
    rpr = run._r.get_or_add_rPr()
    rpr.set("lang", RUN_LANG[lang][0])
    rpr.set("altLang", RUN_LANG[lang][1])
    for old in rpr.findall(qn("a:latin")) + rpr.findall(qn("a:ea")):
        rpr.remove(old)
    # a:latin and a:ea come after the fill in CT_TextCharacterProperties
    after = rpr.find(qn("a:solidFill"))
    for tag, (face, panose, pitch, charset) in (("a:latin", LATIN_FONT), ("a:ea", EA_FONT)):
        el = rpr.makeelement(qn(tag), {"typeface": face, "panose": panose,
                                       "pitchFamily": pitch, "charset": charset})
        after.addnext(el)
        after = el


def _theme_fonts(prs) -> None:
    """The theme's heading and body fonts (used by notes and anything not set per run):
    :data:`LATIN_FONT` and :data:`EA_FONT`, also for the simplified-Chinese script."""
    from lxml import etree
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT
    from pptx.oxml.ns import qn

    for master in (prs.slide_master, prs.notes_master):
        theme = master.part.part_related_by(RT.THEME)
        root = etree.fromstring(theme.blob)
        for scheme in root.iter(qn("a:majorFont"), qn("a:minorFont")):
            scheme.find(qn("a:latin")).set("typeface", LATIN_FONT[0])
            scheme.find(qn("a:ea")).set("typeface", EA_FONT[0])
            for f in scheme.findall(qn("a:font")):
                if f.get("script") == "Hans":
                    f.set("typeface", EA_FONT[0])
        theme._blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8",
                                     standalone=True)


def _describe(shape, name: str, alt: str = "") -> None:
    """Name ``shape`` for what it is and give it ``alt`` text (the selection pane and the
    accessibility checker read both)."""
    c_nv_pr = shape._element._nvXxPr.cNvPr
    c_nv_pr.set("name", name)
    if alt:
        c_nv_pr.set("descr", alt)


def _background(slide) -> None:
    from pptx.dml.color import RGBColor

    fill = slide.background.fill
    fill.solid()
    fill.fore_color.rgb = RGBColor.from_string(BG)


def _fill(frame, text: str, size: int, color: str, bold: bool = False,
          align: str = "center", lang: str = "zh",
          colors: Sequence[str] | None = None) -> None:
    """``text``'s lines as paragraphs of ``frame`` (each line its colour in ``colors``)."""
    from pptx.enum.text import MSO_ANCHOR, PP_ALIGN

    frame.word_wrap = True
    frame.vertical_anchor = MSO_ANCHOR.TOP
    frame.clear()
    for k, line in enumerate(text.split("\n")):
        p = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        p.alignment = PP_ALIGN.CENTER if align == "center" else PP_ALIGN.LEFT
        run = p.add_run()
        run.text = line
        _font(run, size, colors[k] if colors else color, bold, lang)


def _text(slide, name: str, text: str, left: int, top: int, width: int, height: int,
          size: int, color: str, bold: bool = False, align: str = "center",
          lang: str = "zh", colors: Sequence[str] | None = None):
    box = slide.shapes.add_textbox(left, top, width, height)
    _describe(box, name)
    _fill(box.text_frame, text, size, color, bold, align, lang, colors)
    return box


def _title(slide, text: str, left: int, top: int, width: int, height: int, size: int,
           color: str, bold: bool = False, align: str = "center", lang: str = "zh") -> None:
    """The slide's title placeholder, holding ``text``, placed and styled here."""
    from pptx.enum.text import MSO_ANCHOR

    shape = slide.shapes.title
    shape.left, shape.top, shape.width, shape.height = left, top, width, height
    _describe(shape, "Title")
    _fill(shape.text_frame, text, size, color, bold, align, lang)
    shape.text_frame.vertical_anchor = MSO_ANCHOR.MIDDLE


def _notes(slide, paragraphs: Sequence[str]) -> None:
    frame = slide.notes_slide.notes_text_frame
    frame.text = paragraphs[0] if paragraphs else ""
    for p in paragraphs[1:]:
        frame.add_paragraph().text = p


def _sentence(text: str) -> str:
    """The first sentence of ``text`` (up to its first full stop, in either language)."""
    for k, ch in enumerate(text):
        if ch in "。！？" or (ch in ".!?" and (k + 1 == len(text) or text[k + 1] == " ")):
            return text[:k + 1]
    return text


def movie_alt(s: MovieSlide) -> str:
    """A movie's alt text: the scene's title and the first sentence of its narration."""
    first = _sentence(s.beats[0].text) if s.beats else ""
    return f"{s.title}: {first}" if first else s.title


def table_alt(s: TableSlide) -> str:
    """A table's alt text: the slide's title, its columns and its caption."""
    alt = f"{s.title}: {', '.join(s.header)}"
    return f"{alt}; {s.caption}" if s.caption else alt


def _quiz(slide, s: TextSlide, lang: str) -> None:
    """A question or answer slide laid out as the video's quiz card: the question's label
    at the top left, the question centred under it, and (answer) a panel outlined in green
    with "Answer" on its top edge holding the answer's lines, left-aligned."""
    from pptx.dml.color import RGBColor
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Pt

    margin = int(SLIDE_W * 0.06)
    _title(slide, s.title, margin, int(SLIDE_H * 0.06), SLIDE_W - 2 * margin,
           int(SLIDE_H * 0.1), 26, ACCENT, bold=True, align="left", lang=lang)
    question = s.question if s.kind == "answer" else s.lines[0][0]
    q_top = int(SLIDE_H * (0.2 if s.kind == "answer" else 0.3))
    _text(slide, "Question", question, margin, q_top, SLIDE_W - 2 * margin,
          int(SLIDE_H * 0.16), 30 if s.kind == "answer" else 36, FG, lang=lang)
    if s.kind == "question":
        if s.prompt:
            _text(slide, "Prompt", s.prompt, margin, int(SLIDE_H * 0.62),
                  SLIDE_W - 2 * margin, int(SLIDE_H * 0.1), 24, ACCENT, lang=lang)
        return
    # the panel fits its lines (26 pt, 10 pt apart, a line that wraps counted twice) with
    # room above and below, as the video's does
    top, width = int(SLIDE_H * 0.42), int(SLIDE_W * 0.72)
    per_line = (width - 2 * int(SLIDE_W * 0.03)) / 12700 / 26 * 2 * 0.95  # columns of 26 pt
    rows = sum(max(1, math.ceil(columns(t) / per_line)) for t, _c in s.lines)
    height = min(int(SLIDE_H * 0.56), int(SLIDE_H * (0.1 + 0.075 * rows)))
    panel = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, (SLIDE_W - width) // 2, top,
                                   width, height)
    panel.adjustments[0] = 0.06
    panel.fill.solid()
    panel.fill.fore_color.rgb = RGBColor.from_string("1C2230")
    panel.line.color.rgb = RGBColor.from_string(GOOD)
    panel.line.width = Pt(2.5)
    panel.shadow.inherit = False
    _describe(panel, "Answer")
    frame = panel.text_frame
    frame.margin_left = frame.margin_right = int(SLIDE_W * 0.03)
    frame.margin_top = int(SLIDE_H * 0.05)
    _fill(frame, "\n".join(t for t, _c in s.lines), 26, FG, align="left", lang=lang,
          colors=[c for _t, c in s.lines])
    for p in frame.paragraphs:
        p.space_after = Pt(10)
    label = _text(slide, "Answer label", s.label, (SLIDE_W - width) // 2 + int(SLIDE_W * 0.02),
                  top - int(SLIDE_H * 0.03), int(SLIDE_W * 0.12), int(SLIDE_H * 0.06), 20,
                  GOOD, bold=True, lang=lang)
    label.fill.solid()
    label.fill.fore_color.rgb = RGBColor.from_string(BG)
    label.text_frame.margin_top = label.text_frame.margin_bottom = 0


def write_deck(deck: Deck, out: Path) -> None:
    """Write ``deck`` to ``out`` (atomically)."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor
    from pptx.util import Emu

    lang = deck.lang
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(SLIDE_H)
    _theme_fonts(prs)
    title_layout, title_only = prs.slide_layouts[0], prs.slide_layouts[5]
    margin = int(SLIDE_W * 0.04)
    cover = prs.slides.add_slide(title_layout)
    _background(cover)
    # a long title (about 26 Chinese characters) at 40 pt would leave its last one alone
    title_size = 40 if len(deck.title) <= 20 else 32
    _title(cover, deck.title, margin, int(SLIDE_H * 0.32), SLIDE_W - 2 * margin,
           int(SLIDE_H * 0.2), title_size, FG, bold=True, lang=lang)
    sub = cover.placeholders[1]
    sub.left, sub.top = margin, int(SLIDE_H * 0.55)
    sub.width, sub.height = SLIDE_W - 2 * margin, int(SLIDE_H * 0.12)
    _describe(sub, "Subtitle")
    _fill(sub.text_frame, deck.subtitle, 26, ACCENT, lang=lang)
    _notes(cover, [deck.notes])
    for s in deck.slides:
        slide = prs.slides.add_slide(title_only)
        _background(slide)
        if isinstance(s, MovieSlide):
            # the title sits just above the visible area: the clip's frame carries it (named
            # as the video, so that it differs from the title of a table slide after it)
            _title(slide, f"{s.title} · {WORDS[lang]['video']}", margin, -int(SLIDE_H * 0.14),
                   SLIDE_W - 2 * margin, int(SLIDE_H * 0.12), 32, MUTED, lang=lang)
            movie_w = SLIDE_W - 2 * int(SLIDE_W * 0.02)
            movie_h = movie_w * 9 // 16
            movie = slide.shapes.add_movie(str(s.video), (SLIDE_W - movie_w) // 2,
                                           (SLIDE_H - movie_h) // 2, movie_w, movie_h,
                                           poster_frame_image=str(s.poster),
                                           mime_type="video/mp4")
            _describe(movie, f"Movie: {s.title}", movie_alt(s))
            _notes(slide, [f"[{_clock(b.start)}] {b.text}" for b in s.beats])
            continue
        if isinstance(s, TextSlide) and s.kind in ("question", "answer"):
            _quiz(slide, s, lang)
            _notes(slide, [s.notes])
            continue
        _title(slide, s.title, margin, int(SLIDE_H * 0.05), SLIDE_W - 2 * margin,
               int(SLIDE_H * 0.12), 32, MUTED, lang=lang)
        if isinstance(s, TextSlide):
            top = int(SLIDE_H * 0.22)
            if s.big:
                _text(slide, "Formula", s.big, margin, top, SLIDE_W - 2 * margin,
                      int(SLIDE_H * 0.14), 34, FG, bold=True, lang=lang)
                top += int(SLIDE_H * 0.2)
            body = "\n".join(t for t, _c in s.lines)
            _text(slide, "Steps" if s.big else "Text", body, margin * 2, top,
                  SLIDE_W - 4 * margin, SLIDE_H - top - margin, 28, FG,
                  align="left" if s.big or len(s.lines) > 1 else "center", lang=lang,
                  colors=[c for _t, c in s.lines])
        else:
            n_rows, n_cols = len(s.rows) + 1, len(s.header)
            width = SLIDE_W - 2 * margin
            row_h = int(SLIDE_H * 0.09)
            frame = slide.shapes.add_table(n_rows, n_cols, margin, int(SLIDE_H * 0.22),
                                           width, row_h * n_rows)
            _describe(frame, f"Table: {s.title}", table_alt(s))
            table = frame.table
            for r, values in enumerate((s.header, *s.rows)):
                for c, value in enumerate(values):
                    cell = table.cell(r, c)
                    cell.fill.solid()
                    cell.fill.fore_color.rgb = RGBColor.from_string("1C2230" if r else "2A3142")
                    cell.text = value
                    _font(cell.text_frame.paragraphs[0].runs[0], 22 if r else 18,
                          s.colors[c] if r else MUTED, lang=lang)
            if s.caption:
                _text(slide, "Caption", s.caption, margin, int(SLIDE_H * 0.24) + row_h * n_rows,
                      width, int(SLIDE_H * 0.1), 24, GOOD, lang=lang)
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
