"""Each scene's narration at −14 LUFS, exactly its length, cached per scene; the joined
track measures −14 LUFS too."""

from __future__ import annotations

import math
import wave

import numpy as np
import pytest

from pipeline import loudness, soundtrack
from pipeline.scene_audio import SceneSound, scene_voices
from pipeline.segments import SegmentStore

RATE, FPS = soundtrack.RATE, 15


def _tone(path, seconds: float, amplitude: float, hz: float = 220.0):
    t = np.arange(int(seconds * RATE)) / RATE
    # A voice-like tone: a carrier with a 3 Hz syllable envelope.
    pcm = amplitude * np.sin(2 * np.pi * hz * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((pcm * 32767).astype(np.int16).tobytes())
    return path


def _samples(path) -> int:
    with wave.open(str(path), "rb") as w:
        return w.getnframes()


def test_scenes_are_normalised_one_by_one_and_join_on_target(tmp_path):
    quiet = _tone(tmp_path / "quiet.wav", 3.0, 0.05)
    loud = _tone(tmp_path / "loud.wav", 2.5, 0.9, 330.0)
    scenes = [SceneSound(((0.5, quiet),), 60, FPS),  # 4 s
              SceneSound(((0.2, loud), (2.9, quiet)), 90, FPS),  # 6 s
              SceneSound((), 15, FPS)]  # 1 s, nothing said
    store = SegmentStore(tmp_path / "cache")
    voices = scene_voices(store, scenes, workers=2)
    assert [_samples(v) for v in voices] == [4 * RATE, 6 * RATE, RATE]
    for v in voices[:2]:  # the quiet one brought up, the loud one down, both on target
        got = loudness.measure(v)
        assert abs(got.integrated_lufs - loudness.TARGET_LUFS) <= loudness.TOLERANCE_LU
        assert got.true_peak_dbtp <= loudness.CEILING_DBTP + 0.2
        quick = loudness.measure(v, true_peak=False)  # the loudness alone: the same figure
        assert quick.integrated_lufs == got.integrated_lufs
        assert math.isnan(quick.true_peak_dbtp)
    assert np.all(soundtrack.read_wav(voices[2]) == 0)

    joined = tmp_path / "joined.wav"
    soundtrack.write_wav(np.concatenate([soundtrack.read_wav(v) for v in voices]), joined)
    assert abs(loudness.measure(joined).integrated_lufs - loudness.TARGET_LUFS) <= 0.5

    # A changed beat in one scene: only that scene is normalised again.
    again = SegmentStore(tmp_path / "cache")
    scenes[1] = SceneSound(((0.2, loud), (3.4, quiet)), 90, FPS)
    second = scene_voices(again, scenes, workers=2)
    assert (again.made["voice"], again.reused["voice"]) == (1, 2)
    assert second[0] == voices[0] and second[1] != voices[1]


def test_a_voice_the_limiter_takes_much_from_still_lands_on_target(tmp_path):
    """Speech-like noise with clicks at full scale: the limiter takes several dB before it
    reaches −14 LUFS (as with the offline English voice), and the narration still measures
    the target, true peak under the platforms' −1 dBTP."""
    t = np.arange(6 * RATE) / RATE
    rng = np.random.default_rng(1)
    pcm = 0.08 * rng.standard_normal(len(t)) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t)) ** 2
    for k in range(0, len(t), RATE // 8):  # a click every 125 ms
        pcm[k:k + 48] = 0.98 * np.sign(np.sin(np.arange(48)))
    src, out = tmp_path / "peaky.wav", tmp_path / "out.wav"
    soundtrack.write_wav((np.clip(pcm, -1, 1) * 32767).astype(np.int16), src)
    unlimited = loudness.integrated(soundtrack.read_wav(src))
    assert unlimited < loudness.TARGET_LUFS - 2  # it has to be brought up
    loudness.normalize(src, out)
    got = loudness.measure(out)
    assert abs(got.integrated_lufs - loudness.TARGET_LUFS) <= loudness.TOLERANCE_LU
    assert got.true_peak_dbtp <= -1.0
    assert _samples(out) == _samples(src)


def test_the_narration_meter_reads_what_ebur128_does(tmp_path):
    """``loudness.integrated`` (NumPy, in-process) is BS.1770-4's reading: a 997 Hz tone
    at -20 dBFS reads -23.01 LUFS (the standard's reference: 0 dBFS reads -3.01), and a
    spoken clip (espeak-ng), speech-like noise and a tone that stops half-way read what
    ffmpeg's ``ebur128`` does, to its 0.1 LU display; silence and less than a block read
    -inf."""
    from narration.tts.espeak import EspeakEngine

    t = np.arange(10 * RATE) / RATE
    tone = np.round(np.sin(2 * np.pi * 997 * t) * 10 ** (-20 / 20) * 32767).astype(np.int16)
    assert loudness.integrated(tone) == pytest.approx(-23.01, abs=0.01)

    spoken = tmp_path / "spoken.wav"
    engine = EspeakEngine()
    engine.synthesize("注意力把每个词和别的词比一比，再按分数取一份内容。",
                      engine.default_voice("zh"), "+0%", spoken)
    rng = np.random.default_rng(2)
    noise = 0.1 * rng.standard_normal(len(t)) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t)) ** 2
    half = tone.copy()
    half[len(half) // 2:] = 0  # the gates drop the silent half
    for name, pcm in (("noise", (noise * 32767).astype(np.int16)), ("half", half)):
        soundtrack.write_wav(pcm, tmp_path / f"{name}.wav")
    for path in (spoken, tmp_path / "noise.wav", tmp_path / "half.wav"):
        ours = loudness.integrated(soundtrack.read_wav(path))
        theirs = loudness.measure(path, true_peak=False).integrated_lufs
        assert abs(ours - theirs) <= 0.05 + 1e-9, (path.name, ours, theirs)
    assert loudness.integrated(np.zeros(RATE, np.int16)) == float("-inf")
    assert loudness.integrated(tone[:RATE // 4]) == float("-inf")
