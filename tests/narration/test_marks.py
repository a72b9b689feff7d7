"""Cue marks: parsing, parity between languages, and timing from the engines' word events."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from narration.marks import estimate_mark_times, mark_times
from narration.placeholders import PlaceholderError, resolve
from narration.scripts import ScriptError, check_parity
from narration.tts.edge import TICKS_PER_SECOND, parse_edge_stream
from narration.tts.espeak import EspeakEngine
from narration.types import WordTiming
from tests.tts.helpers import load_recordings, read_wav

FACTS = {"a": -3.0, "tok": {"zh": "法国", "en": "France"}}


def test_marks_are_neither_shown_nor_spoken() -> None:
    r = resolve("Score {a}, then {@total}the total of {tok}.", FACTS, "en", marks=True)
    assert r.display == "Score −3, then the total of France."
    assert r.spoken == "Score minus three, then the total of France."
    assert r.marks == (("total", r.spoken.index("the total")),)


def test_a_mark_between_spaces_leaves_one_space() -> None:
    r = resolve("one {@m} two", {}, "en", marks=True)
    assert r.display == r.spoken == "one two"
    assert r.marks == (("m", 4),)


def test_chinese_mark_position() -> None:
    r = resolve("{tok}得分{a}，{@w}占比最高", FACTS, "zh", marks=True)
    assert r.spoken[r.marks[0][1]:].startswith("占比")


@pytest.mark.parametrize(("template", "message"), [
    ("a {@x} b {@x} c", "appears twice"),
    ("a {@} b", "empty cue mark"),
])
def test_bad_marks(template: str, message: str) -> None:
    with pytest.raises(PlaceholderError, match=message):
        resolve(template, {}, "en", marks=True)


def test_marks_not_allowed_in_screen_text() -> None:
    with pytest.raises(PlaceholderError, match="only allowed in narration"):
        resolve("a {@x} b", {}, "en")


def _write_scene(root: Path, lang: str, text: str) -> None:
    (root / lang).mkdir(parents=True, exist_ok=True)
    (root / lang / "demo.toml").write_text(
        f'title = "Demo"\n[[beat]]\nid = "one"\ntext = "{text}"\n', encoding="utf-8")


@pytest.mark.parametrize(("zh", "en", "where", "message"), [
    ("甲{@a}乙{@b}丙", "x {@a}y z", "en/demo.toml: beat.one.text", "{@b} missing here"),
    ("甲乙丙", "x {@a}y z", "zh/demo.toml: beat.one.text", "{@a} missing here"),
    ("甲{@b}乙{@a}丙", "x {@a}y {@b}z", "demo.toml: beat.one.text", "order"),
])
def test_parity_names_file_beat_and_mark(tmp_path: Path, zh: str, en: str, where: str,
                                         message: str) -> None:
    _write_scene(tmp_path, "zh", zh)
    _write_scene(tmp_path, "en", en)
    with pytest.raises(ScriptError) as err:
        check_parity(["demo"], root=tmp_path)
    assert where in str(err.value) and message in str(err.value)


@pytest.mark.parametrize("rec", load_recordings(), ids=lambda r: r["voice"])
def test_times_from_recorded_edge_word_boundaries(rec: dict) -> None:
    """A mark before each recorded word lands on that word's WordBoundary offset."""
    text = rec["text"]
    bounds = [c for c in rec["chunks"] if c["type"] == "WordBoundary"]
    # Put a mark before the third and the last word of the recorded text.
    starts, pos = [], 0
    for c in bounds:
        pos = text.index(c["text"], pos)
        starts.append(pos)
        pos += len(c["text"])
    picks = [(starts[2], bounds[2]), (starts[-1], bounds[-1])]
    template, pos = "", 0
    for k, (at, _c) in enumerate(picks):
        template += text[pos:at] + f"{{@m{k}}}"
        pos = at
    template += text[pos:]
    lang = "zh" if rec["voice"].startswith("zh") else "en"
    r = resolve(template, {}, lang, marks=True)
    assert r.spoken == text
    _mp3, words = parse_edge_stream(rec["chunks"], text)
    times = mark_times(r, words, speech_end=10.0)
    for k, (_at, c) in enumerate(picks):
        assert times[f"m{k}"] == pytest.approx(c["offset"] / TICKS_PER_SECOND)


@pytest.mark.parametrize(("lang", "template", "word"), [
    ("en", "Raise e to each score, {@total}then divide by the total.", "then"),
    ("zh", "先把每个分数取指数，{@total}再除以它们的总和。", "再"),
])
def test_times_from_a_real_espeak_synthesis(tmp_path: Path, lang: str, template: str,
                                            word: str) -> None:
    r = resolve(template, {}, lang, marks=True)
    engine = EspeakEngine()
    out = tmp_path / "clip.wav"
    words = engine.synthesize(r.spoken, engine.default_voice(lang), "+0%", out)
    rate, _ch, _w, samples = read_wav(out)
    duration = len(samples) / rate
    t = mark_times(r, words, duration)["total"]
    at = r.spoken.index(word)
    event = next(w for w in words if w.char_start == at)
    assert t == pytest.approx(event.start)
    # The voice is audible right after the mark and the mark is inside the speech.
    assert 0.5 < t < duration - 0.3
    after = np.abs(samples[int(t * rate):int((t + 0.3) * rate)].astype(float))
    assert after.max() > 0.05 * np.abs(samples.astype(float)).max()


def test_mark_inside_a_timed_span_and_after_the_last_word() -> None:
    r = resolve("ab{@mid}cd ef {@end}", {}, "en", marks=True)
    words = [WordTiming(0.0, 1.0, 0, 4), WordTiming(1.2, 2.0, 5, 7)]
    times = mark_times(r, words, speech_end=2.1)
    assert times["mid"] == pytest.approx(0.5)
    assert times["end"] == pytest.approx(2.1)


def test_without_word_timings_marks_spread_over_the_speech() -> None:
    r = resolve("aaaa {@m}bbbb", {}, "en", marks=True)
    assert estimate_mark_times(r, 4.0)["m"] == pytest.approx(2.0)
    assert mark_times(r, [], 4.0)["m"] == pytest.approx(2.0)
