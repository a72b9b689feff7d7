"""The offline engine really speaks, with word timings that point at the right characters."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from narration.tts.base import wav_duration
from narration.tts.espeak import EspeakEngine, words_from_events
from narration.types import TTSError, WordTiming

from .helpers import read_wav, rms

EN = "Query, key and value: three views of every token."
ZH = "注意力让每个词看向其他词。"


def check_clip(path: Path, words: tuple[WordTiming, ...], text: str) -> float:
    """Assert the WAV format and timing invariants; return the duration."""
    rate, channels, width, samples = read_wav(path)
    assert (rate, channels, width) == (48_000, 1, 2)
    duration = len(samples) / rate
    assert duration == pytest.approx(wav_duration(path))
    assert duration > 0.5
    assert rms(samples) > 0.01
    assert words
    previous_end_char = 0
    for a, b in itertools.pairwise(words):
        assert a.start <= b.start
    for w in words:
        assert 0 <= w.start <= w.end <= duration
        assert previous_end_char <= w.char_start < w.char_end <= len(text)
        span = text[w.char_start : w.char_end]
        assert span == span.strip() and any(ch.isalnum() for ch in span), span
        previous_end_char = w.char_end
    return duration


def spoken(text: str, words: tuple[WordTiming, ...]) -> list[str]:
    return [text[w.char_start : w.char_end] for w in words]


def test_chinese_one_word_per_character(tmp_path: Path) -> None:
    engine = EspeakEngine()
    text = "猫追球。"
    words = engine.synthesize(text, engine.default_voice("zh"), "+0%", tmp_path / "zh.wav")
    check_clip(tmp_path / "zh.wav", words, text)
    assert [(w.char_start, w.char_end) for w in words] == [(0, 1), (1, 2), (2, 3)]


def test_chinese_sentence(tmp_path: Path) -> None:
    engine = EspeakEngine()
    words = engine.synthesize(ZH, "cmn", 200, tmp_path / "zh.wav")
    duration = check_clip(tmp_path / "zh.wav", words, ZH)
    assert "".join(spoken(ZH, words)) == ZH.rstrip("。")
    assert words[-1].end > duration - 0.3  # last word runs to the end of the speech


def test_english_sentence(tmp_path: Path) -> None:
    engine = EspeakEngine()
    words = engine.synthesize(EN, engine.default_voice("en"), "+0%", tmp_path / "en.wav")
    check_clip(tmp_path / "en.wav", words, EN)
    assert spoken(EN, words) == EN.replace(",", "").replace(":", "").rstrip(".").split()


def test_english_words_with_apostrophes_numbers_and_dots(tmp_path: Path) -> None:
    text = "Don't stop—it's 1234 apples, 3.14 pies and the U.S.A."
    words = EspeakEngine().synthesize(text, "en-us", 175, tmp_path / "en.wav")
    check_clip(tmp_path / "en.wav", words, text)
    assert spoken(text, words) == [
        "Don't", "stop", "it's", "1234", "apples", "3.14", "pies", "and", "the", "U.S.A",
    ]  # fmt: skip


def test_mixed_chinese_and_english(tmp_path: Path) -> None:
    text = "2024年，我们学习 QKV：Query 和 Key。"
    words = EspeakEngine().synthesize(text, "cmn", "+0%", tmp_path / "mix.wav")
    check_clip(tmp_path / "mix.wav", words, text)
    chinese = ["2024", "年", "我", "们", "学", "习"]
    assert spoken(text, words) == [*chinese, "QKV", "Query", "和", "Key"]


def test_rate_changes_speed(tmp_path: Path) -> None:
    engine = EspeakEngine()
    slow = engine.synthesize(EN, "en-us", "-30%", tmp_path / "slow.wav")
    fast = engine.synthesize(EN, "en-us", "+50%", tmp_path / "fast.wav")
    assert wav_duration(tmp_path / "fast.wav") < 0.8 * wav_duration(tmp_path / "slow.wav")
    assert spoken(EN, slow) == spoken(EN, fast)


def test_unknown_voice_fails_without_leaving_a_file(tmp_path: Path) -> None:
    with pytest.raises(TTSError, match="no voice"):
        EspeakEngine().synthesize(EN, "xx-nonexistent", "+0%", tmp_path / "x.wav")
    assert list(tmp_path.iterdir()) == []
    # the library is still usable afterwards
    EspeakEngine().synthesize("ok", "en-us", "+0%", tmp_path / "ok.wav")


def test_empty_text_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TTSError):
        EspeakEngine().synthesize("  \n", "en-us", "+0%", tmp_path / "x.wav")
    assert list(tmp_path.iterdir()) == []


def test_default_voices() -> None:
    engine = EspeakEngine()
    assert (engine.default_voice("zh"), engine.default_voice("en")) == ("cmn", "en-us")
    with pytest.raises(ValueError):
        engine.default_voice("tlh")


def test_concurrent_calls_are_serialized(tmp_path: Path) -> None:
    engine = EspeakEngine()
    texts = [EN, ZH, "Attention is all you need.", "猫追球。"] * 2
    voices = ["en-us", "cmn", "en-us", "cmn"] * 2
    expected = [
        engine.synthesize(t, v, "+0%", tmp_path / f"seq{i}.wav")
        for i, (t, v) in enumerate(zip(texts, voices, strict=True))
    ]
    with ThreadPoolExecutor(4) as pool:
        got = list(
            pool.map(
                lambda i: engine.synthesize(texts[i], voices[i], "+0%", tmp_path / f"par{i}.wav"),
                range(len(texts)),
            )
        )
    # espeak-ng is not bit-reproducible between calls (a few samples of drift; one word was
    # seen 10 ms off on a loaded machine), so compare spans exactly and times to within
    # 20 ms: calls that interleaved would garble the spans and shift times by whole words
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        assert [(w.char_start, w.char_end) for w in a] == [(w.char_start, w.char_end) for w in b]
        assert [w.start for w in a] == pytest.approx([w.start for w in b], abs=0.02)
        par, seq = wav_duration(tmp_path / f"par{i}.wav"), wav_duration(tmp_path / f"seq{i}.wav")
        assert par == pytest.approx(seq, abs=0.02)


# --- mapping espeak's events (as observed from espeak-ng 1.52) onto the text ---------------


def test_events_inside_a_number_extend_it() -> None:
    text = "I have 1234 apples"
    events = [(0, 0, 1), (1839, 2, 4), (6494, 7, 4), (12001, 8, 4), (21776, 8, 4), (48685, 12, 6)]
    words = words_from_events(text, events, 22050, speech_end=3.0)
    assert spoken(text, words) == ["I", "have", "1234", "apples"]
    assert words[2].start == pytest.approx(6494 / 22050)
    assert words[2].end == pytest.approx(48685 / 22050)
    assert words[3].end == 3.0


def test_zero_and_short_lengths_are_repaired_from_the_text() -> None:
    text = "Don't stop—it's 《注意力》是“关键”。"
    events = [(0, 0, 3), (100, 6, 0), (200, 11, 2), (300, 17, 1), (400, 18, 1), (500, 19, 0),
              (600, 21, 0), (700, 23, 1), (800, 24, 0)]  # fmt: skip
    words = words_from_events(text, events, 1000, speech_end=0.9)
    assert spoken(text, words) == ["Don't", "stop", "it's", "注", "意", "力", "是", "关", "键"]


def test_dictionary_words_cover_their_characters() -> None:
    text = "下一行"
    words = words_from_events(text, [(0, 0, 1), (6475, 1, 1)], 22050, speech_end=0.8)
    assert spoken(text, words) == ["下", "一行"]


def test_events_at_whitespace_or_outside_the_text_are_ignored() -> None:
    text = "a 😀 b"
    events = [(0, 0, 1), (10, 2, 1), (20, 3, 1), (30, 4, 1), (40, 99, 1), (50, -1, 1)]
    assert spoken(text, words_from_events(text, events, 100, 1.0)) == ["a", "😀", "b"]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.sampled_from("ab1 .,'-猫追球一行😀\n"), min_size=1, max_size=30),
    events=st.lists(
        st.tuples(st.integers(0, 50_000), st.integers(-2, 35), st.integers(0, 6)), max_size=20
    ),
    speech_end=st.floats(0, 5),
)
def test_word_invariants_for_any_events(
    text: str, events: list[tuple[int, int, int]], speech_end: float
) -> None:
    events = sorted(events)  # espeak's samples never go backwards
    words = words_from_events(text, events, 22050, speech_end)
    for a, b in itertools.pairwise(words):
        assert a.start <= b.start
        assert a.char_end <= b.char_start
        assert a.end == b.start
    for w in words:
        assert w.start <= w.end
        assert 0 <= w.char_start < w.char_end <= len(text)
        assert not text[w.char_start].isspace()
