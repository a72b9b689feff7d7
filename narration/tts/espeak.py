"""Offline voice: espeak-ng 1.52 from the ``espeakng-loader`` wheel, driven through ctypes.

Facts this module relies on (checked with espeak-ng 1.52, "cmn" and "en-us"):

* ``text_position`` of an event is 1-based and counts Unicode code points, not UTF-8 bytes
  (so it maps directly onto Python ``str`` indices); ``sample`` is the cumulative sample
  index at 22.05 kHz.
* ``length`` is unreliable: 0 for some words ("stop" after an em dash, "力" after "《"),
  and cut at apostrophes ("Don" for "Don't"). Word ends are therefore found in the text.
* Chinese gets one WORD event per character, except dictionary words such as "一行",
  which get a single event. Numbers and spelled-out letters ("1234", "QKV") get several
  events pointing into the same token; they are merged into one word.
"""

from __future__ import annotations

import ctypes
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.text import is_cjk
from narration.tts.base import clamp_words, lang_key, pcm16_to_pcm48, rate_wpm, write_wav
from narration.types import TTSError, TTSUnavailable, WordTiming

VOICES = {"zh": "cmn", "en": "en-us"}

# speak_lib.h constants
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_RATE = 1
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1


class _EventId(ctypes.Union):
    _fields_ = (
        ("number", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("string", ctypes.c_char * 8),
    )


class _Event(ctypes.Structure):
    """``espeak_EVENT`` (40 bytes on x86-64)."""

    _fields_ = (
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    )


_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)


@dataclass(frozen=True)
class RawSpeech:
    """espeak's own output: int16 mono samples and its WORD events.

    ``events`` holds ``(sample, char_index, length)`` with a 0-based ``str`` index.
    """

    samples: np.ndarray
    sample_rate: int
    events: tuple[tuple[int, int, int], ...]


class _Espeak:
    """The process-wide espeak-ng library (global state, so every call holds ``_LOCK``)."""

    def __init__(self) -> None:
        try:
            import espeakng_loader

            lib = ctypes.CDLL(espeakng_loader.get_library_path())
            data_path = espeakng_loader.get_data_path().encode()
        except (ImportError, OSError, RuntimeError) as exc:
            raise TTSUnavailable(f"espeak-ng library not available: {exc}") from exc
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = [_CALLBACK]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
        ]  # fmt: skip
        lib.espeak_Synth.restype = ctypes.c_int
        lib.espeak_Synchronize.restype = ctypes.c_int
        lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                              ctypes.c_int]
        lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
        rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path, _INITIALIZE_DONT_EXIT)
        if rate <= 0:
            raise TTSUnavailable(f"espeak-ng failed to initialize (data at {data_path!r})")
        self.lib = lib
        self.sample_rate = rate
        self._chunks: list[bytes] = []
        self._events: list[tuple[int, int, int]] = []
        self._error: BaseException | None = None
        self._voice: str | None = None  # the voice last set (``_use``)
        self._callback = _CALLBACK(self._on_synth)  # keep a reference for the library
        lib.espeak_SetSynthCallback(self._callback)

    def _on_synth(self, wav: ctypes._Pointer, count: int, events: ctypes._Pointer) -> int:
        try:
            if wav and count > 0:
                self._chunks.append(ctypes.string_at(wav, count * 2))
            i = 0
            while events[i].type != _EVENT_LIST_TERMINATED:
                ev = events[i]
                if ev.type == _EVENT_WORD:
                    self._events.append((ev.sample, ev.text_position - 1, ev.length))
                i += 1
        except BaseException as exc:  # an exception must not unwind through C
            self._error = exc
            return 1  # abort synthesis
        return 0

    def _use(self, voice: str) -> None:
        """Make ``voice`` the library's voice, unless it already is: setting it loads the
        voice again (0.5 ms, 40 times a syllable's phonemes; the pronunciation check reads
        some 1,800 syllables)."""
        if voice == self._voice:
            return
        self._voice = None
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise TTSError(f"espeak-ng has no voice {voice!r}")
        self._voice = voice

    def synth(self, text: str, voice: str, wpm: int) -> RawSpeech:
        self._chunks, self._events, self._error = [], [], None
        self._use(voice)
        self.lib.espeak_SetParameter(_RATE, wpm, 0)
        data = text.encode("utf-8")
        status = self.lib.espeak_Synth(
            data, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None
        )
        self.lib.espeak_Synchronize()
        if self._error is not None:
            raise TTSError(f"espeak-ng callback failed: {self._error!r}") from self._error
        if status != 0:
            raise TTSError(f"espeak-ng synthesis failed (status {status})")
        samples = np.frombuffer(b"".join(self._chunks), dtype="<i2").copy()
        return RawSpeech(samples, self.sample_rate, tuple(self._events))


    def phonemes(self, text: str, voice: str) -> str:
        """What the voice will say for ``text``: espeak-ng's phoneme names (its ASCII
        notation, tones as pitch digits: 行 xíng "S;'i35N"), words separated by spaces."""
        self._use(voice)
        buf = ctypes.create_string_buffer(text.encode("utf-8"))
        ptr = ctypes.c_void_p(ctypes.addressof(buf))
        out = []
        while ptr.value:  # one clause per call; the library moves ptr on, to NULL at the end
            got = self.lib.espeak_TextToPhonemes(ctypes.byref(ptr), _CHARS_UTF8, 0)
            if got:
                out.append(got.decode("utf-8", "replace"))
        return " ".join(out)


_LOCK = threading.Lock()
_INSTANCE: _Espeak | None = None

# Characters espeak-ng's Mandarin voice cannot say, each replaced (for this engine only, one
# character for one, so positions hold) by the nearest syllable it can. espeak-ng 1.52 has
# no -iong after j/q/x at all (胸, 熊, 穷, 炯 and even the pinyin "xiong1" switch to English
# and come out as "kS@Nw'0n", about 0.6 s of noise); 星 xīng is the nearest it says. The
# pronunciation check still reports the difference.
RESPELL_CMN = {"胸": "星"}
_YI_IN_NUMBER = re.compile(r"一(?=点[零一二三四五六七八九])")


def respell(text: str, voice: str) -> str:
    """What espeak-ng is given for ``text`` (same length): in Mandarin, the characters it
    cannot say replaced (``RESPELL_CMN``), and 一 before the decimal point of a number
    written as 衣 (yī; espeak-ng reads 一点 with the 一点儿 tone, yì)."""
    if voice != VOICES["zh"]:
        return text
    text = "".join(RESPELL_CMN.get(c, c) for c in text)
    return _YI_IN_NUMBER.sub("衣", text)


def phonemes(text: str, voice: str) -> str:
    """The phonemes espeak-ng will speak for ``text`` in ``voice`` (thread-safe)."""
    global _INSTANCE
    with _LOCK:
        if _INSTANCE is None:
            _INSTANCE = _Espeak()
        return _INSTANCE.phonemes(respell(text, voice), voice)


def synthesize_raw(text: str, voice: str, wpm: int) -> RawSpeech:
    """Run espeak-ng on ``text`` (respelled, see ``respell``); thread-safe (calls are
    serialized)."""
    global _INSTANCE
    with _LOCK:
        if _INSTANCE is None:
            _INSTANCE = _Espeak()
        return _INSTANCE.synth(respell(text, voice), voice, wpm)


# --- word timings ---------------------------------------------------------------------------


def _is_word_char(ch: str) -> bool:
    return (ch.isalnum() and not is_cjk(ch)) or unicodedata.category(ch).startswith("M")


def _token_end(text: str, start: int, length: int, next_start: int) -> int:
    """End (exclusive) of the word espeak reported at ``start``."""
    n = len(text)
    if is_cjk(text[start]):
        end = start + 1
        while end < min(n, next_start) and is_cjk(text[end]):  # dictionary words ("一行")
            end += 1
        return end
    if _is_word_char(text[start]):
        end = start + 1
        while end < n:
            ch = text[end]
            if _is_word_char(ch):
                end += 1
            elif ch in "'’-.·" and end + 1 < n and _is_word_char(text[end + 1]):
                end += 2  # don't, it's, U.S.A, 3.14, well-known
            else:
                break
        return end
    # a symbol or emoji spoken as a word ("&", "😀")
    end = start + 1
    while end < min(n, start + length) and not text[end].isspace():
        end += 1
    return end


def words_from_events(
    text: str,
    events: Sequence[tuple[int, int, int]],
    sample_rate: int,
    speech_end: float,
) -> tuple[WordTiming, ...]:
    """Turn espeak WORD events ``(sample, char_index, length)`` into word timings.

    Events pointing inside (or before the end of) the previous word -- spoken-out numbers,
    spelled letters -- extend it; events at whitespace are ignored. A word ends where the
    next one starts; the last one ends at ``speech_end`` (end of non-silent audio).
    """
    spans: list[list[float | int]] = []  # [start_s, char_start, char_end]
    usable = [(s, i, n) for s, i, n in events if 0 <= i < len(text) and not text[i].isspace()]
    for k, (sample, index, length) in enumerate(usable):
        if spans and index < spans[-1][2]:
            continue  # continuation of the previous word
        next_index = next((j for _, j, _ in usable[k + 1 :] if j > index), len(text))
        end = _token_end(text, index, length, next_index)
        spans.append([sample / sample_rate, index, end])
    words = []
    for k, (start, char_start, char_end) in enumerate(spans):
        end = spans[k + 1][0] if k + 1 < len(spans) else max(speech_end, start)
        words.append(WordTiming(float(start), float(end), int(char_start), int(char_end)))
    return tuple(words)


def speech_end(samples: np.ndarray, sample_rate: int) -> float:
    """Seconds to the last sample that is not (near) silence."""
    if samples.size == 0:
        return 0.0
    level = np.abs(samples.astype(np.int32))
    threshold = max(100, int(level.max()) // 50)
    loud = np.flatnonzero(level > threshold)
    return 0.0 if loud.size == 0 else (int(loud[-1]) + 1) / sample_rate


# --- engine --------------------------------------------------------------------------------


class EspeakEngine:
    """Offline engine: espeak-ng, voices "cmn" (zh) and "en-us" (en).

    ``rate`` follows :mod:`narration.tts.base` (normal: zh 200, en 175 words/min).
    """

    name = "espeak"
    label = "espeak-ng"

    def default_voice(self, lang: str) -> str:
        """espeak voice for ``lang``."""
        try:
            return VOICES[lang_key(lang)]
        except KeyError:
            raise ValueError(f"no espeak voice for language {lang!r}") from None

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        """Speak ``text`` into a 48 kHz mono WAV at ``out_wav``; return word timings."""
        if not text.strip():
            raise TTSError("nothing to say: the text is empty")
        raw = synthesize_raw(text, voice, rate_wpm(rate, voice))
        if raw.samples.size == 0:
            raise TTSError(f"espeak-ng produced no audio for {text[:40]!r}")
        words = words_from_events(
            text, raw.events, raw.sample_rate, speech_end(raw.samples, raw.sample_rate)
        )
        pcm = pcm16_to_pcm48(raw.samples.tobytes(), raw.sample_rate)
        duration = write_wav(Path(out_wav), pcm)
        return clamp_words(words, duration)
