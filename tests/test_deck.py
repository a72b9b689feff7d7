"""slides.pptx as a lecturer and PowerPoint's accessibility checker meet it, on a deck written
from the real scripts' static slides and a stand-in movie (no render): a title placeholder on
every slide (off the visible area on a movie slide), alt text on movies and tables, shapes
named for what they are, fonts Windows, macOS and LibreOffice have or substitute, quiz
slides laid out as the video's quiz card; and what LibreOffice shows of it (fonts, pages)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from narration.facts import build_facts
from narration.scripts import load_script
from pipeline import deck
from qkv_math import derive, load_numbers

LANGS = ("zh", "en")
SCENES = ("softmax", "worked_example", "formula", "recap_quiz")
# python-pptx's and PowerPoint's default names: a shape so named says nothing of what it is
DEFAULT_NAME = re.compile(r"^(TextBox|Title|Subtitle|Rectangle|Rounded Rectangle|Table|"
                          r"Picture|Media|Movie|Content Placeholder|Text Placeholder|"
                          r"Oval|Group) \d+$|[0-9a-f]{16}")


def _poster(path: Path) -> None:
    """A stand-in poster: a frame with something drawn on it."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (854, 480), "#10131a")
    draw = ImageDraw.Draw(im)
    for k, color in enumerate(("#f4c542", "#2ec4b6", "#ef6f6c")):
        draw.rectangle((150 + 200 * k, 120, 300 + 200 * k, 330), outline=color, width=6)
    im.save(path)


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    tmp = tmp_path_factory.mktemp("deck")
    numbers = load_numbers(None)
    derived = derive(numbers)
    facts = build_facts(numbers, derived)
    poster = tmp / "poster.png"
    _poster(poster)
    video = tmp / "clip.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(64))  # the deck only embeds it
    out = {}
    for lang in LANGS:
        scripts = {sid: load_script(sid, lang, facts) for sid in SCENES}
        slides: list[deck.Slide] = []
        for sc in scripts.values():
            slides.append(deck.MovieSlide(video, poster, tuple(
                deck.SlideBeat(2.0 * k, b.text.display) for k, b in enumerate(sc.beats)), sc.title))
            slides += deck.static_slides(sc, lang, numbers, derived, scripts)
        path = tmp / lang / "slides.pptx"
        path.parent.mkdir()
        deck.write_deck(deck.Deck(f"QKV {lang}", deck.FORMULA, "notes", tuple(slides), lang),
                        path)
        out[lang] = (path, scripts)
    return out


def _open(path: Path):
    from pptx import Presentation

    return Presentation(str(path))


def _shapes(slide):
    return list(slide.shapes)


@pytest.mark.parametrize("lang", LANGS)
def test_every_slide_has_a_title_and_shapes_named_for_what_they_are(decks, lang) -> None:
    path, scripts = decks[lang]
    prs = _open(path)
    titles = []
    for k, slide in enumerate(prs.slides):
        title = slide.shapes.title
        assert title is not None and title.text_frame.text.strip(), f"slide {k + 1}"
        titles.append(title.text_frame.text)
        for sh in _shapes(slide):
            assert not DEFAULT_NAME.search(sh.name), (k + 1, sh.name)
        if any(sh.shape_type == 16 for sh in slide.shapes):  # MEDIA
            # the clip's frame carries the title: its placeholder sits above the slide
            assert title.top + title.height <= 0
            assert title.text_frame.text in {f"{sc.title} · {deck.WORDS[lang]['video']}"
                                             for sc in scripts.values()}
        elif k:  # a static slide: its title on top (the cover's in the middle)
            assert title.top >= 0 and title.top + title.height <= prs.slide_height // 4
    assert len(titles) == len(set(titles))  # each slide found by its own title


@pytest.mark.parametrize("lang", LANGS)
def test_movies_and_tables_have_alt_text(decks, lang) -> None:
    path, scripts = decks[lang]
    prs = _open(path)
    movies = tables = 0
    for slide in prs.slides:
        for sh in slide.shapes:
            c_nv_pr = sh._element._nvXxPr.cNvPr
            if sh.shape_type == 16:
                movies += 1
                title = slide.shapes.title.text_frame.text.rsplit(" · ", 1)[0]
                assert sh.name == f"Movie: {title}"
                sc = next(s for s in scripts.values() if s.title == title)
                alt = c_nv_pr.get("descr")
                assert alt.startswith(f"{title}: ") and sc.beats[0].text.display.startswith(
                    alt[len(title) + 2:])
            if sh.has_table:
                tables += 1
                assert sh.name.startswith("Table: ")
                header = [c.text for c in sh.table.rows[0].cells]
                assert all(h in c_nv_pr.get("descr") for h in header)
            if sh.shape_type == 13:  # a picture: none, but it would need alt text
                assert c_nv_pr.get("descr")
    assert movies == len(SCENES) and tables == 2


@pytest.mark.parametrize("lang", LANGS)
def test_fonts_exist_where_the_deck_is_opened(decks, lang) -> None:
    """Every run in Arial (Latin) and Microsoft YaHei (East Asian), with the panose and
    charset an application without them substitutes by, in the deck's language; the theme
    (notes, anything unset) the same."""
    from pptx.oxml.ns import qn

    path, _ = decks[lang]
    prs = _open(path)
    runs = 0
    for slide in prs.slides:
        for sh in slide.shapes:
            frames = [c.text_frame for r in sh.table.rows for c in r.cells] if sh.has_table \
                else [sh.text_frame] if sh.has_text_frame else []
            for frame in frames:
                for p in frame.paragraphs:
                    for r in p.runs:
                        rpr = r._r.find(qn("a:rPr"))
                        latin, ea = rpr.find(qn("a:latin")), rpr.find(qn("a:ea"))
                        assert latin.get("typeface") == "Arial"
                        assert ea.get("typeface") == "Microsoft YaHei"
                        assert ea.get("charset") == "-122" and ea.get("panose")
                        assert rpr.get("lang") == {"zh": "zh-CN", "en": "en-US"}[lang]
                        runs += 1
    assert runs > 30
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT

    theme = prs.slide_master.part.part_related_by(RT.THEME).blob.decode()
    assert '<a:latin typeface="Arial"' in theme and '<a:ea typeface="Microsoft YaHei"' in theme
    assert "Noto Sans CJK" not in path.read_bytes().decode("latin-1")


@pytest.mark.parametrize("lang", LANGS)
def test_quiz_slides_are_laid_out_as_the_video_quiz_card(decks, lang) -> None:
    """Question: its label at the top left, the question centred, the prompt to pause.
    Answer: the label, the question, and a green-outlined panel holding the answer's lines,
    with "Answer" on its top edge."""
    path, scripts = decks[lang]
    quiz = scripts["recap_quiz"]
    prs = _open(path)
    w = prs.slide_width
    slides = list(prs.slides)
    labels = quiz.items("qlabel")
    for k, (label, q) in enumerate(zip(labels, quiz.items("q"), strict=True), 1):
        question = next(s for s in slides if s.shapes.title.text_frame.text == label)
        answer = slides[slides.index(question) + 1]
        for slide in (question, answer):
            title = slide.shapes.title
            assert title.left < w * 0.1 and title.text_frame.paragraphs[0].alignment == 1
            assert str(title.text_frame.paragraphs[0].runs[0].font.color.rgb) == deck.ACCENT
            shown = {sh.name: sh for sh in slide.shapes}
            assert shown["Question"].text_frame.text == q
            assert abs(shown["Question"].left + shown["Question"].width / 2 - w / 2) < w / 100
        assert {sh.name for sh in question.shapes} == {"Title", "Question", "Prompt"}
        shapes = {sh.name: sh for sh in answer.shapes}
        assert answer.shapes.title.text_frame.text.startswith(label)
        panel, tag = shapes["Answer"], shapes["Answer label"]
        assert panel.auto_shape_type == 5  # MSO_SHAPE.ROUNDED_RECTANGLE
        assert str(panel.line.color.rgb) == deck.GOOD
        assert [p.text for p in panel.text_frame.paragraphs] == list(quiz.items(f"a{k}"))
        assert tag.text_frame.text == quiz.s("answer")
        assert tag.top < panel.top < tag.top + tag.height  # on the panel's top edge
        assert shapes["Question"].top + shapes["Question"].height <= panel.top


@pytest.fixture(scope="module")
def pdfs(decks, tmp_path_factory) -> dict[str, Path]:
    """Each deck converted to PDF by LibreOffice (as a lecturer's handout)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    assert soffice, "libreoffice-impress is installed by the test set-up"
    tmp = tmp_path_factory.mktemp("pdf")
    out = {}
    for lang, (path, _) in decks.items():
        p = subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp}/lo",
                            "--convert-to", "pdf", "--outdir", str(tmp / lang), str(path)],
                           capture_output=True, text=True, timeout=300)
        out[lang] = tmp / lang / "slides.pdf"
        assert p.returncode == 0 and out[lang].is_file(), p.stderr[-2000:]
    return out


def page_pictures(pdf: Path, dpi: int = 40) -> list[np.ndarray]:
    """Each page of ``pdf`` as an RGB array (PyMuPDF)."""
    import pymupdf

    with pymupdf.open(str(pdf)) as doc:
        out = []
        for page in doc:
            pix = page.get_pixmap(dpi=dpi)
            out.append(np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.w, pix.n)[..., :3])
        return out


def content_share(picture: np.ndarray) -> float:
    """The share of a page's pixels that differ from the deck's background."""
    bg = np.array([int(deck.BG[i:i + 2], 16) for i in (0, 2, 4)])
    return float((np.abs(picture.astype(int) - bg).sum(axis=2) > 60).mean())


@pytest.mark.parametrize("lang", LANGS)
def test_libreoffice_shows_every_slide_in_the_decks_fonts(decks, pdfs, lang) -> None:
    """What LibreOffice shows: Arial as Liberation Sans (metric-compatible), the Chinese in a
    CJK font it substitutes for Microsoft YaHei (the text extracts as written), and every
    page has content."""
    import pymupdf

    path, scripts = decks[lang]
    n = len(_open(path).slides)
    with pymupdf.open(str(pdfs[lang])) as doc:
        assert doc.page_count == n
        fonts = {f[3].split("+")[-1] for page in doc for f in page.get_fonts()}
        text = "".join(page.get_text() for page in doc)
    assert any(f.startswith("LiberationSans") for f in fonts), fonts
    quiz = scripts["recap_quiz"]
    squash = re.compile(r"\s+")
    assert squash.sub("", quiz.items("a1")[0]) in squash.sub("", text)
    if lang == "zh":
        cjk = fonts - {f for f in fonts if f.startswith(("LiberationSans", "DejaVu"))}
        assert cjk, fonts  # a CJK font (Noto Sans CJK SC, or Droid Sans Fallback)
    for k, picture in enumerate(page_pictures(pdfs[lang]), 1):
        assert content_share(picture) > 0.005, f"page {k} is blank"
