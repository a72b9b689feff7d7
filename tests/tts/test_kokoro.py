"""The Kokoro engine, run for real: syllable times, cue marks, long beats, cache, letters,
fallback."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
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

ROOT = Path(__file__).resolve().parents[2]

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


def test_long_beats_are_cut_at_sentence_ends_within_510_tokens() -> None:
    table = kokoro.vocab(kokoro.default_source().vocab)
    text = "注意力把每个词和别的词比一比，再按分数取一份内容。" * 12
    parts = kokoro.chunks(text, table)
    assert len(parts) > 1
    for cs in parts:
        ph = " ".join(kokoro.join_units(c.units, c.end_mark) for c in cs)
        assert len(kokoro._tokens(ph, table)) <= kokoro.MAX_TOKENS
        assert cs[-1].sentence_end  # never mid-sentence when a sentence end is in reach
    said = [u for cs in parts for c in cs for u in c.units]
    assert [u.start for u in said] == [u.start for u in kokoro.units(text)]  # nothing lost
    # one clause past the limit is cut between words
    long = kokoro.chunks("注意力" * 200, table)
    assert len(long) > 1 and all(
        len(kokoro._tokens(" ".join(kokoro.join_units(c.units, c.end_mark) for c in cs),
                           table)) <= kokoro.MAX_TOKENS for cs in long)


def _rms(a: np.ndarray, t0: float, t1: float, rate: int) -> float:
    seg = a[round(t0 * rate):round(t1 * rate)]
    return float(np.sqrt(np.mean(seg ** 2))) if seg.size else 0.0


def test_syllable_times_follow_the_sound(engine) -> None:
    """The times come from the model's own durations: each syllable's span holds speech,
    and the pauses the model makes at punctuation fall between the timed syllables."""
    text = "第一句话，第二句话。第三句话"
    speech = kokoro.speak(text, kokoro.voice_path(engine.voice))
    rate, a = kokoro.MODEL_RATE, speech.audio
    assert [text[w.char_start:w.char_end] for w in speech.words] == list(
        text.replace("，", "").replace("。", ""))
    assert speech.joins == []  # one call for the whole beat
    spans = [(w.start, w.end) for w in speech.words]
    assert all(s < e for s, e in spans) and all(
        e0 <= s1 + 1e-9 for (_, e0), (s1, _) in itertools.pairwise(spans))
    peaks = [_peak(a, s, e, rate) for s, e in spans]
    assert min(peaks) > 0.3 * np.median(peaks)  # every syllable's time holds speech
    loud = np.median(peaks)
    for k in (3, 7):  # 话，第 and 话。第: the model's pause ends where the next syllable starts
        _pause_then_speech(a, speech.words[k + 1].start, rate, loud)
    assert _peak(a, 0, speech.words[0].start - 0.02, rate) < 0.05 * loud  # lead is silent
    assert speech.words[-1].end <= a.size / rate


def _pause_then_speech(a: np.ndarray, t: float, rate: int, loud: float) -> None:
    """A pause just before ``t`` and speech right after it. The decoder starts a sound up
    to about 70 ms before its first frame (measured), so the pause is looked for in the
    150 ms before ``t``, up to 30 ms after it."""
    assert min(_rms(a, x, x + 0.01, rate) for x in np.arange(t - 0.15, t + 0.03, 0.01)) \
        < 0.05 * loud
    assert _peak(a, t, t + 0.15, rate) > 0.3 * loud


def _peak(a: np.ndarray, t0: float, t1: float, rate: int) -> float:
    """The loudest 10 ms RMS in ``[t0, t1)``."""
    return max((_rms(a, t, t + 0.01, rate) for t in np.arange(t0, t1 - 0.005, 0.01)),
               default=0.0)


def test_marks_fall_on_the_syllable_after_them(engine, tmp_path: Path) -> None:
    text = resolve("把四步算一遍{@a}只用三个词，{@b}每个词都有两个数。", {}, "zh", marks=True)
    words = engine.synthesize(text.spoken, engine.default_voice("zh"), "+0%",
                              tmp_path / "a.wav")
    audio, rate = _samples(tmp_path / "a.wav")
    times = mark_times(text, words, len(audio) / rate)
    by_char = {w.char_start: w for w in words}
    for name, pos in text.marks:
        assert times[name] == pytest.approx(by_char[pos].start, abs=1e-6)
    assert text.spoken[by_char[dict(text.marks)["a"]].char_start] == "只"
    # the comma's pause sits right before mark b: quiet, then speech
    before = next(w for w in reversed(words) if w.char_end <= dict(text.marks)["b"])
    loud = np.median([_peak(audio, w.start, w.end, rate) for w in words])
    assert before.end <= times["b"]
    _pause_then_speech(audio, times["b"], rate, loud)
    starts = [w.start for w in words]
    assert starts == sorted(starts) and words[-1].end <= len(audio) / rate


def test_a_long_beats_joins_have_no_clicks_and_pause_by_punctuation(engine) -> None:
    # Calls of at most 48 ids instead of 510: the joins are the same code, and a beat of
    # 7 s has two of them where one took 40 s at 510 (where the limit falls is tested
    # above). A sentence here is 42 ids.
    text = "注意力按分数取一份内容。" * 2 + "最后一句没有句号"
    speech = kokoro.speak(text, kokoro.voice_path(engine.voice), limit=48)
    a, rate = speech.audio, kokoro.MODEL_RATE
    assert len(speech.joins) == 2  # three model calls
    for t in speech.joins:
        i = round(t * rate)
        assert abs(a[i]) < 0.01  # each chunk fades in from silence
        quiet = i
        while quiet > 0 and a[quiet - 1] == 0:
            quiet -= 1
        assert (i - quiet) / rate == pytest.approx(kokoro.PAUSES["。"], abs=0.01)
        assert abs(a[quiet - 1]) < 0.01  # and the one before fades out to it
        seg = a[max(0, i - round(0.35 * rate)):i + 120]
        assert np.abs(np.diff(seg)).max() < 0.2  # no step between neighbouring samples
    starts = [w.start for w in speech.words]
    assert starts == sorted(starts)


def test_a_cached_rerun_synthesizes_nothing(engine, tmp_path: Path) -> None:
    offline = OfflineEngine(print)
    assert offline.engine_for("zh").name == "kokoro"
    first = AudioCache(tmp_path)
    clip = first.get_or_synthesize(offline, "你好，世界。", None, None, "zh")
    assert first.synthesized == 1 and clip.engine == "kokoro"
    assert clip.voice.startswith(f"{kokoro.DEFAULT_VOICE}@{engine.source.sha256[:16]}.")
    again = AudioCache(tmp_path)
    same = again.get_or_synthesize(offline, "你好，世界。", None, None, "zh")
    assert again.synthesized == 0 and same.path == clip.path and same.words == clip.words
    # plain Python numbers, as read back from the cache (a plan's digest sees the type)
    assert all(type(v) is float for w in clip.words for v in (w.start, w.end))
    assert [repr(w) for w in same.words] == [repr(w) for w in clip.words]
    # the key follows the voice file and the model: another voice is another clip
    assert cache_key("kokoro", clip.voice, "+0%", "x") != cache_key(
        "kokoro", clip.voice.replace("@", "@0"), "+0%", "x")


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


def test_a_reading_does_not_depend_on_subtitles_made_before_it() -> None:
    """The subtitles' segmenter knows this subject's words (缩放点积注意力, 加权求和); Kokoro
    reads with jieba's plain dictionary, as misaki does. Both in one process (a render
    voices, then subtitles, then checks what was voiced): the reading is the same before
    and after the subtitles' words are loaded, and those words are the subtitles' own."""
    code = (
        "import sys\n"
        "from narration import wordseg\n"
        "from narration.tts import kokoro\n"
        "t = '它叫缩放点积注意力，加权求和再除以根号 d。'\n"
        "first = kokoro.phonemes(t) if sys.argv[1] == 'voice-first' else None\n"
        "words = sorted(wordseg.word_boundaries(t))\n"
        "import json\n"
        "print(json.dumps([kokoro.phonemes(t), first, words]))\n")
    runs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           cwd=ROOT, timeout=120) for order in ("voice-first", "subtitles-first")]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:]
    (after, before, words), (late, _none, same_words) = (json.loads(r.stdout) for r in runs)
    assert after == before == late
    assert words == same_words and 2 in words and 9 in words  # 缩放点积注意力: one word,
    assert 4 not in words and 6 not in words  # where the plain dictionary cuts 缩放|点积|注意力
