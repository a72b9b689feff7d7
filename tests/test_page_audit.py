"""The preview page as auditors and students meet it, on a page written from manifests (no
render): the W3C Nu checker and axe-core find nothing in either language, on a desktop and a
phone; cues sit in the subtitle band; the chapter playing is marked; the clips fold on a
phone; no internal names; a favicon that works from file://."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from narration import style, subtitle_files
from narration.types import Cue
from tests.audit import axe_run, nu_check

SIZES = [(1366, 900), (390, 844)]
N_CLIPS = 15


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """index.html for both languages from manifests of 15 scenes (with quiz beats), their
    subtitle files and clip files (empty: the page only names them), as render.py writes it."""
    from pipeline.page import write_page

    out = tmp_path_factory.mktemp("audit") / "out"
    for lang in ("zh", "en"):
        other = "en" if lang == "zh" else "zh"
        folder = out / lang
        (folder / "clips").mkdir(parents=True)
        scenes, cues = [], []
        for k in range(N_CLIPS):
            sid = "recap_quiz" if k == N_CLIPS - 1 else f"scene_{k}"
            beats = [{"id": "intro", "text": f"{lang} beat {k}"}]
            if sid == "recap_quiz":
                beats += [{"id": "q1", "text": f"{lang} question?"},
                          {"id": "a1", "text": f"{lang} answer"}]
            scenes.append({"id": sid, "title": f"{lang} scene {k + 1}", "start": 10.0 * k,
                           "end": 10.0 * (k + 1), "beats": beats})
            cues.append(Cue(10.0 * k + 0.5, 10.0 * k + 4, (f"{lang} cue {k}", "line two")))
            (folder / "clips" / f"{k + 1:02d}_{sid}.mp4").write_bytes(b"")
        subtitle_files.write(cues, folder / "video.vtt", "vtt")
        subtitle_files.write(cues, folder / f"video.{other}.vtt", "vtt")
        (folder / "manifest.json").write_text(json.dumps(
            {"title": f"QKV ({lang})", "duration": 10.0 * N_CLIPS, "scenes": scenes,
             "subtitles": {"tracks": [lang, other]}}), "utf-8")
    assert write_page(out, ["zh", "en"], None, out.parent / "cache") == out / "index.html"
    return out / "index.html"


def test_nu_checker_finds_nothing(page: Path) -> None:
    messages = nu_check(page)
    assert [m for m in messages if m["type"] == "error"] == []
    assert messages == []  # no warnings either (empty headings, sections without one)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_axe_finds_no_violation(page: Path, chromium, width: int, height: int) -> None:
    driver = chromium(width, height)
    for lang in ("zh", "en"):
        driver.get(page.as_uri() + f"?lang={lang}")
        result = axe_run(driver)
        assert "error" not in result, result
        assert result["violations"] == [], (lang, width, result["violations"])
        assert result["passes"] > 20


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_what_students_see(page: Path, chromium, width: int, height: int) -> None:
    """Cues placed in the band; the clips folded behind one control on a phone, open on a
    desktop; a favicon; no internal names; headings and labels with text."""
    driver = chromium(width, height)
    for lang in ("zh", "en"):
        driver.get(page.as_uri() + f"?lang={lang}")
        seen = driver.execute_script("""
            const v = document.getElementById("player");
            const cues = Array.from(v.textTracks[0].cues);
            const icon = document.querySelector("link[rel=icon]");
            return {cues: cues.map(c => [c.snapToLines, c.line, c.lineAlign, c.size]),
                    open: document.getElementById("clips-box").open,
                    clips: document.querySelectorAll("#clips video").length,
                    icon: icon && icon.href, text: document.body.innerText,
                    empty: Array.from(document.querySelectorAll("h1,h2,h3,label"))
                             .filter(e => !e.textContent.trim()).length,
                    landmarks: ["header", "main", "nav"].map(
                      t => document.querySelectorAll(t).length)};""")
        band_top = 100 * (1 - style.SUBTITLE_BAND_SHARE)
        assert seen["cues"], "the player has cues"
        for snap, line, align, size in seen["cues"]:
            # the cue's top in the band, two lines of 5% of the height still inside it
            assert not snap and align == "start" and size <= 95
            assert band_top <= line <= 100 - 2 * 5 * 1.25
        assert seen["clips"] == N_CLIPS
        assert seen["open"] == (width >= 1000)
        assert seen["icon"].startswith("data:image/svg+xml")
        assert "qkv_math" not in seen["text"] and "scene_" not in seen["text"]
        assert seen["empty"] == 0 and seen["landmarks"] == [1, 1, 1]


def test_the_chapter_playing_is_marked(page: Path, chromium) -> None:
    """aria-current follows the player's time (set here; the clips are empty files, so the
    player has no media to play and the time is moved as a seek would)."""
    driver = chromium(1366, 900)
    driver.get(page.as_uri() + "?lang=en")
    marked = driver.execute_script("""
        const v = document.getElementById("player");
        const at = t => { Object.defineProperty(v, "currentTime",
                            {value: t, configurable: true});
                          v.dispatchEvent(new Event("timeupdate"));
                          return Array.from(document.querySelectorAll(
                            "#chapters button[aria-current=true]"))
                            .map(b => b.textContent); };
        return [at(0), at(0.5), at(25), at(149)];""")
    assert marked[0] == []  # not started
    assert [len(m) for m in marked[1:]] == [1, 1, 1]
    assert marked[1][0].endswith("en scene 1") and marked[2][0].endswith("en scene 3")
    assert marked[3][0].endswith(f"en scene {N_CLIPS}")


def test_a_page_with_only_the_overview_shows_no_empty_sections(tmp_path: Path,
                                                               chromium) -> None:
    """A run that made only the overview has no chapters, clips or quiz in that language:
    their sections are not shown (no "0 scene clips"), the overview and the lab are, and
    axe finds nothing on a phone."""
    from pipeline.page import write_page

    folder = tmp_path / "out" / "zh" / "overview"
    folder.mkdir(parents=True)
    subtitle_files.write([Cue(0.5, 3.0, ("概览第一句",))], folder / "video.vtt", "vtt")
    (folder / "manifest.json").write_text(json.dumps(
        {"title": "两分钟", "duration": 6.0, "subtitles": {"tracks": ["zh"]},
         "scenes": [{"id": "ov_scores", "title": "分数", "start": 0.0, "end": 6.0,
                     "beats": [{"id": "intro", "text": "概览第一句"}]}]}), "utf-8")
    page = write_page(tmp_path / "out", ["zh"], None, tmp_path / "cache")
    assert page is not None
    driver = chromium(390, 844)
    driver.get(page.as_uri())
    seen = driver.execute_script("""
        const shown = id => { const e = document.getElementById(id);
                              return !!e && e.offsetParent !== null; };
        return {sections: ["chapter-nav", "clips-section", "quiz-section", "lab"].map(shown),
                overview: document.querySelectorAll("video").length,
                text: document.body.innerText};""")
    assert seen["sections"] == [False, False, False, True]
    assert seen["overview"] == 1 and "0 个" not in seen["text"]
    result = axe_run(driver)
    assert result["violations"] == [], result["violations"]
