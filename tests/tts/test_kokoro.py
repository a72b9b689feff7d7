"""The Kokoro engine, run for real: phrases and cue marks, joins, cache, letters, fallback."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from narration.marks import mark_times
from narration.placeholders import resolve
from narration.tts import kokoro
from narration.tts.cache import AudioCache, cache_key
from narration.tts.espeak import EspeakEngine
from narration.tts.select import OfflineEngine, choose_engine

pytestmark = pytest.mark.skipif(kokoro.available() is not None,
                                reason=f"Kokoro not installed: {kokoro.available()}")


@pytest.fixture(scope="module")
def engine() -> kokoro.KokoroEngine:
    e = kokoro.KokoroEngine()
    e.load()  # one session for the module
    return e


def _samples(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32), \
            w.getframerate()


def test_letters_are_said_by_their_names() -> None:
    from misaki.zh import ZHG2P

    text = "查询Q，键K，值V"
    raw = ZHG2P()(text)[0]
    assert "kjˈu" not in raw  # misaki alone passes the letters through raw
    ph = kokoro.phonemes(text)
    for letter in ("kjˈu", "kˈA", "vˈi"):
        assert letter in ph
    table = kokoro.vocab(kokoro.default_source().vocab)
    ids = kokoro._tokens(ph, table)
    for letter in ("kjˈu", "kˈA", "vˈi"):
        want = [table[c] for c in letter]
        assert any(ids[i:i + len(want)] == want for i in range(len(ids))), letter
    assert kokoro.phonemes("softmax 和 d")  # a word said as a word, a lone letter spelled
    assert "sˈɔftmæks" in kokoro.phonemes("softmax") and "dˈi" in kokoro.phonemes("根号 d")


def test_phonemes_follow_misaki_on_plain_chinese() -> None:
    from misaki.zh import ZHG2P

    text = "我们把点积除以根号，分数就回到原来的范围。"
    assert kokoro.phonemes(text) == ZHG2P()(text)[0].strip()


def test_one_in_a_number_is_yi1() -> None:
    from misaki.zh import ZHG2P

    assert "i↘tjɛ↓n" in ZHG2P()("十一点一六")[0]  # misaki: 一点 with the 一点儿 tone
    said = [u.pinyin for u in kokoro.units("十一点一六")]
    assert said == ["shi2", "yi1", "dian3", "yi1", "liu4"]


def test_long_phrases_are_cut_to_510_tokens() -> None:
    table = kokoro.vocab(kokoro.default_source().vocab)
    ph = kokoro.join_units(kokoro.units("注意力" * 200))
    chunks = kokoro._chunks(ph, table)
    assert len(chunks) > 1
    assert all(len(kokoro._tokens(c, table)) <= kokoro.MAX_TOKENS for c in chunks)


def test_marks_fall_on_phrase_joins(engine, tmp_path: Path) -> None:
    text = resolve("把四步算一遍{@a}只用三个词，{@b}每个词都有两个数。", {}, "zh", marks=True)
    breaks = tuple(p for _, p in text.marks)
    speech = kokoro.speak(text.spoken, kokoro.voice_path(engine.voice), 1.0, breaks)
    assert len(speech.joins) == 2  # one at the mark without punctuation, one after the comma
    words = engine.synthesize(text.spoken, engine.default_voice("zh"), "+0%",
                              tmp_path / "a.wav", breaks=breaks)
    audio, rate = _samples(tmp_path / "a.wav")
    times = mark_times(text, words, len(audio) / rate)
    assert times["a"] == pytest.approx(speech.joins[0], abs=1e-3)
    assert times["b"] == pytest.approx(speech.joins[1], abs=1e-3)
    # the comma's pause sits right before mark b: 0.12 s of silence, then speech
    pause = audio[round((times["b"] - kokoro.PAUSES["，"] + 0.01) * rate):
                  round((times["b"] - 0.001) * rate)]
    assert pause.size > 0.1 * rate and np.abs(pause).max() < 50
    # every word is inside the clip, in order
    starts = [w.start for w in words]
    assert starts == sorted(starts) and words[-1].end <= len(audio) / rate


def test_joins_have_no_clicks_and_pauses_follow_punctuation(engine) -> None:
    text = "第一句话，第二句话。第三句话"
    speech = kokoro.speak(text, kokoro.voice_path(engine.voice))
    a = speech.audio
    rate = kokoro.MODEL_RATE
    gaps = []
    for t in speech.joins:
        i = round(t * rate)
        assert abs(a[i]) < 0.01  # each phrase fades in from silence
        quiet = i
        while quiet > 0 and a[quiet - 1] == 0:
            quiet -= 1
        gaps.append((i - quiet) / rate)
        assert abs(a[quiet - 1]) < 0.01  # and fades out to it
    assert gaps[0] == pytest.approx(kokoro.PAUSES["，"], abs=0.01)
    assert gaps[1] == pytest.approx(kokoro.PAUSES["。"], abs=0.01)
    # no step between neighbouring samples anywhere near a join
    for t in speech.joins:
        i = round(t * rate)
        seg = a[max(0, i - round(0.35 * rate)):i + 120]
        assert np.abs(np.diff(seg)).max() < 0.2


def test_a_cached_rerun_synthesizes_nothing(engine, tmp_path: Path) -> None:
    offline = OfflineEngine(print)
    assert offline.engine_for("zh").name == "kokoro"
    breaks = (3,)
    first = AudioCache(tmp_path)
    clip = first.get_or_synthesize(offline, "你好，世界。", None, None, "zh", breaks=breaks)
    assert first.synthesized == 1 and clip.engine == "kokoro"
    assert clip.voice.startswith(f"{kokoro.DEFAULT_VOICE}@{engine.source.sha256[:16]}.")
    again = AudioCache(tmp_path)
    same = again.get_or_synthesize(offline, "你好，世界。", None, None, "zh", breaks=breaks)
    assert again.synthesized == 0 and same.path == clip.path and same.words == clip.words
    # the marks are part of Kokoro's key (they cut the text), not of espeak-ng's
    v = clip.voice
    assert cache_key("kokoro", v, "+0%", "x", (1,)) != cache_key("kokoro", v, "+0%", "x")
    assert cache_key("espeak", "cmn", "+0%", "x", (1,)) == cache_key("espeak", "cmn", "+0%", "x")


@pytest.mark.parametrize("broken", ["corrupt", "wrong_sha"])
def test_a_model_that_fails_to_load_falls_back_to_espeak(tmp_path: Path, broken: str) -> None:
    real = kokoro.default_source()
    if broken == "corrupt":
        bad = tmp_path / "part.bin"
        bad.write_bytes(b"not an onnx model" * 100)
        import hashlib

        source = kokoro.ModelSource((bad,), hashlib.sha256(bad.read_bytes()).hexdigest())
        why = "ONNX Runtime cannot load"
    else:
        source = kokoro.ModelSource(real.parts, "0" * 64)
        why = "sha256"
    warnings: list[str] = []
    offline = OfflineEngine(warnings.append, zh_model=source)
    cache = AudioCache(tmp_path / "audio")
    clips = [cache.get_or_synthesize(offline, t, None, None, "zh") for t in ("一句。", "两句。")]
    assert [c.engine for c in clips] == ["espeak", "espeak"]
    assert len(warnings) == 1 and why in warnings[0] and "espeak-ng" in warnings[0]
    assert "\n" not in warnings[0]
    assert isinstance(offline.engine_for("zh"), EspeakEngine)


def test_voice_option_and_modes() -> None:
    assert choose_engine("offline", print).engine_for("zh").name == "kokoro"
    assert isinstance(choose_engine("espeak", print), EspeakEngine)
    other = next((v for v in kokoro.installed_voices() if v != kokoro.DEFAULT_VOICE), None)
    if other:
        e = choose_engine("offline", print, zh_voice=other).engine_for("zh")
        assert e.default_voice("zh").startswith(other + "@")
    with pytest.raises(ValueError):
        kokoro.KokoroEngine("zf_nobody")
