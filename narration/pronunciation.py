"""The pronunciation check: what the offline voices will say, against how a teacher reads it.

For Chinese, each offline Mandarin engine's own reading of the spoken text is compared with
one reference:

* espeak-ng: its own phonemes for the spoken text (``espeak_TextToPhonemes``, the same
  library, voice and respellings that speak it), compared in espeak-ng's notation: each
  reference syllable is turned into phonemes by the same library's pinyin voice
  (``cmn-latn-pinyin``), so no hand-made phoneme-to-pinyin table is involved. A switch to
  another language inside Chinese text (espeak-ng says "(en)kS@Nw'0n" for a syllable it
  lacks) is a fall-back, never a match.
* Kokoro: the phonemes its text-to-phonemes step (misaki) gives each syllable, the very ones
  sent to the model, compared with misaki's phonemes of the reference syllable, and named
  back as pinyin through the table of every syllable pypinyin knows. A character with no
  phonemes, or with phonemes outside the model's vocabulary, is dropped; a Latin letter must
  be said by its English name (Q "kjˈu").

The reference is an independent reading of the displayed text: pypinyin's phrase
dictionary, in context, with the pronunciation lexicon (``narration/lexicon/zh.toml``)
settling the words where pypinyin is unsure; for the characters a number was put into words
with, the spoken characters' own reading, with 一 in a number yī (a digit keeps its tone). A
syllable may be read with or without tone sandhi (一 and 不 change tone before others;
neither engine applies the third-tone rule).

Each beat is read by the engine that spoke it in this run (the voice stage records it), or,
when that is the online voice or nothing spoke it here, by every offline Mandarin engine.

For both languages, any digit or symbol left in the spoken text is reported: a voice reads
those its own way (espeak-ng read "约2.7倍" as "约二七倍") or not at all.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from narration.placeholders import Resolved
from narration.spoken import avoided, is_han, unspoken

ZH_VOICE = "cmn"
PINYIN_VOICE = "cmn-latn-pinyin"
ENGINES = ("kokoro", "espeak")
"""The offline Mandarin engines the check reads, in this order."""
KINDS = ("misread", "fallback", "dropped", "letter", "avoid")


@dataclass(frozen=True)
class Mismatch:
    scene: str
    beat: str
    word: str  # the displayed text around the character, the character in 【】
    expected: str  # pinyin with tone number
    engine: str  # what the voice will say, as pinyin when it is a syllable of Mandarin
    voice: str = "espeak"  # the engine that reads it so: "espeak" or "kokoro"
    kind: str = "misread"  # misread, fallback (another language), dropped, letter, avoid

    def line(self) -> str:
        return f"{self.scene}.{self.beat}: {self.word}: expected {self.expected}, " \
               f"{self.voice} says {self.engine}"


@dataclass(frozen=True)
class Unspoken:
    scene: str
    beat: str
    chars: str  # the digits or symbols that would reach the engine

    def line(self) -> str:
        return f"{self.scene}.{self.beat}: {self.chars!r} reach the voice unverbalised"


@dataclass
class PronunciationReport:
    lang: str
    beats: int = 0
    syllables: int = 0  # Chinese syllables compared (per engine)
    mismatches: list[Mismatch] = field(default_factory=list)
    unspoken: list[Unspoken] = field(default_factory=list)
    checked_with: str = ""
    engines: tuple[str, ...] = ()  # the Mandarin engines read
    syllables_by: dict[str, int] = field(default_factory=dict)  # per engine

    def per_engine(self) -> dict[str, dict[str, int]]:
        """For each engine read: syllables compared and mismatches by kind."""
        out = {}
        for e in self.engines:
            mine = [m for m in self.mismatches if m.voice == e]
            out[e] = {"syllables": self.syllables_by.get(e, 0), "mismatches": len(mine),
                      **{k: sum(m.kind == k for m in mine) for k in KINDS}}
        return out

    def to_json(self) -> dict:
        return {"lang": self.lang, "beats": self.beats, "syllables_checked": self.syllables,
                "checked_with": self.checked_with, "engines": self.per_engine(),
                "mismatches": [asdict(m) for m in self.mismatches],
                "unspoken": [asdict(u) for u in self.unspoken]}


_SWITCH = re.compile(r"\((?!cmn\))[a-z-]+\)")


def _clean(ph: str) -> str:
    """espeak-ng phonemes without stress marks, word ends, spaces and language switches."""
    ph = re.sub(r"\([a-z-]+\)", "", ph)
    return re.sub(r"['_|, ]", "", ph)


@functools.cache
def syllable_phonemes(pinyin: str) -> str:
    """One pinyin syllable with its tone number, as espeak-ng's Mandarin phonemes; "" for a
    syllable espeak-ng cannot say in Mandarin (it switches language: xiong)."""
    from narration.tts.espeak import phonemes

    raw = phonemes(pinyin.replace("ü", "v"), PINYIN_VOICE)
    return "" if _SWITCH.search(raw) else _clean(raw)


@functools.cache
def _known_syllables() -> tuple[str, ...]:
    """Every reading pypinyin knows, as tone-numbered pinyin (``zhong1``), each also in the
    neutral tone (``zhong5``), sorted."""
    from pypinyin.pinyin_dict import pinyin_dict
    from pypinyin.style.tone import ToneConverter

    conv = ToneConverter()
    readings = {r for rs in pinyin_dict.values() for r in rs.split(",")}  # ~1,500 of 53,000
    seen = {conv.to_tone3(r, neutral_tone_with_five=True) for r in readings}
    seen |= {re.sub(r"\d", "", s) + "5" for s in seen}
    return tuple(sorted(seen))


@functools.cache
def _syllable_table() -> dict[str, str]:
    """Phonemes -> pinyin for every reading pypinyin knows (to name what the engine says)."""
    return {p: s for s in _known_syllables() if (p := syllable_phonemes(s))}


def _name(ph: str) -> str:
    return _syllable_table().get(ph, f"[{ph}]")


_TONE_SYLLABLE = re.compile(r"[^\d]*?\d+(?:N|n(?![aeiouyAEIOUY@&V0-9]))?")


def _next_syllable(ph: str) -> str:
    """The engine's next syllable: the longest known syllable at the start, else up to and
    including the next tone (and a final n or ng)."""
    table = _syllable_table()
    for k in range(min(len(ph), 12), 0, -1):
        if ph[:k] in table:
            return ph[:k]
    m = _TONE_SYLLABLE.match(ph)
    return m.group(0) if m else ph


def reference_readings(text: Resolved) -> list[tuple[int, set[str]]]:
    """(offset into ``text.spoken``, acceptable readings) for each Chinese character the
    voice is given."""
    from pypinyin import Style, lazy_pinyin

    def per_char(s: str, sandhi: bool) -> list[str | None]:
        return lazy_pinyin(s, style=Style.TONE3, neutral_tone_with_five=True,
                           tone_sandhi=sandhi, errors=lambda x: [None] * len(x))

    shown = [per_char(text.display, False), per_char(text.display, True)]
    said = [per_char(text.spoken, False), per_char(text.spoken, True)]
    settled = dict(text.readings)
    digits = number_yi(text)
    out = []
    for i, ch in enumerate(text.spoken):
        if not is_han(ch):
            continue
        if i in settled:
            out.append((i, {settled[i]}))
            continue
        j = text.display_pos(i)
        if j < len(text.display) and text.display[j] == ch:  # said as shown: read in context
            out.append((i, {r for r in (shown[0][j], shown[1][j]) if r}))
        elif i in digits:  # 一 as a digit of a number: yī
            out.append((i, {"yi1"}))
        else:  # a number in words: its own characters
            out.append((i, {r for r in (said[0][i], said[1][i]) if r}))
    return out


_NUMERAL = re.compile(r"[零一二两三四五六七八九十百千万亿]+(?:点[零一二三四五六七八九]+)?")


def number_yi(text: Resolved) -> set[int]:
    """Offsets in ``text.spoken`` of 一 as a digit of a number put into words (十一, 一点四):
    read yī, never with the sandhi of 一 the word (一点儿 yì, 一个 yí)."""
    out = set()
    for m in _NUMERAL.finditer(text.spoken):
        run = m.group(0)
        if sum(c in "零一二两三四五六七八九十" for c in run) < 2 and "点" not in run:
            continue
        for k, c in enumerate(run):
            i = m.start() + k
            j = text.display_pos(i)
            if c == "一" and not (j < len(text.display) and text.display[j] == c):
                out.add(i)
    return out


def _variants(ch: str, readings: set[str], in_word: bool, digit: bool = False) -> set[str]:
    """Readings the engine may use for ``ch``: the reference ones; any tone of 一 and 不,
    whose tone follows the next syllable's (espeak-ng and pypinyin apply that rule to
    different spans), but not of 一 as a digit (yī); and the neutral tone on a syllable
    inside a word (前面, 起来) and on the measure word 个, as spoken Mandarin has it. A word
    of its own said in the neutral tone is not accepted: 得 before a number read as the
    particle de is a misreading."""
    out = set(readings)
    if digit:  # 一 as a digit of a number (number_yi)
        return out
    if ch in "一不":
        out |= {f"{r[:-1]}{t}" for r in readings for t in "1245"}
    if in_word or ch == "个":  # the measure word is toneless in connected speech (每个)
        out |= {f"{r[:-1]}5" for r in readings}
    if in_word:  # and a light syllable may keep its full tone (清楚 qīngchǔ, 告诉 gàosù)
        full = _char_readings(ch)
        out |= {f"{r[:-1]}{t}" for r in readings if r.endswith("5") for t in "1234"
                if f"{r[:-1]}{t}" in full}
    return out


@functools.cache
def _char_readings(ch: str) -> frozenset[str]:
    """Every reading pypinyin's character dictionary gives ``ch`` (tone numbers)."""
    from pypinyin import Style, pinyin

    return frozenset(pinyin(ch, style=Style.TONE3, heteronym=True,
                            neutral_tone_with_five=True)[0])


def check_zh(scene: str, beat: str, text: Resolved) -> tuple[int, list[Mismatch]]:
    """Compare the engine's reading of every Chinese character with the reference; returns
    the number of syllables compared and the mismatches."""
    from narration.tts.espeak import phonemes

    refs = reference_readings(text)
    digits = number_yi(text)
    mismatches: list[Mismatch] = []
    k = 0
    for run in re.finditer(r"[\u3400-\u9fff\uf900-\ufaff]+", text.spoken):
        # espeak-ng's words (its dictionary's segmentation), each as phonemes
        raw = [w for w in re.split(r"_\|| ", phonemes(run.group(0), ZH_VOICE)) if _clean(w)]
        words = [_clean(w) for w in raw]
        w, at = 0, 0  # the engine's word, and the position in it
        for ch in run.group(0):
            pos, want = refs[k]
            k += 1
            kind = "misread"
            if w < len(words) and at == 0 and _SWITCH.search(raw[w]):
                # another language inside Chinese text: never a match
                said, ok, kind = raw[w].strip("_|"), False, "fallback"
                w += 1
            elif w >= len(words):
                said, ok, kind = "", False, "dropped"
            else:
                rest = words[w][at:]
                options = _variants(ch, want, in_word=at > 0, digit=pos in digits)
                hit = next((p for p in sorted({syllable_phonemes(o) for o in options},
                                              key=len, reverse=True)
                            if p and rest.startswith(p)), None)
                said, ok = (hit, True) if hit is not None else (_next_syllable(rest), False)
                at += len(said)
                if at >= len(words[w]):
                    w, at = w + 1, 0
            if ok:
                continue
            word = _around(text.display, text.display_pos(pos), 1)
            named = said if kind == "fallback" else _name(said) if said else "(nothing)"
            mismatches.append(Mismatch(scene, beat, word, "/".join(sorted(want)) or "?",
                                       named, "espeak", kind))
    return k, mismatches


@functools.cache
def _kokoro_table() -> dict[str, str]:
    """misaki's phonemes -> pinyin for every reading pypinyin knows (names what Kokoro
    says)."""
    from narration.tts.kokoro import syllable_ipa

    out: dict[str, str] = {}
    for py in _known_syllables():
        try:
            out.setdefault(syllable_ipa(py), py)
        except Exception:  # a syllable misaki's table lacks (interjections): cannot be said
            continue
    return out


@functools.cache
def _kokoro_ipa(pinyin: str) -> str:
    from narration.tts.kokoro import syllable_ipa

    try:
        return syllable_ipa(pinyin)
    except Exception:
        return ""


def check_zh_kokoro(scene: str, beat: str, text: Resolved) -> tuple[int, list[Mismatch]]:
    """Compare Kokoro's phonemes for every Chinese character (and Latin letter) with the
    reference; returns the number of syllables compared and the mismatches."""
    from narration.tts import kokoro

    vocab = kokoro.vocab(kokoro.default_source().vocab)
    units = kokoro.units(text.spoken)
    at = {u.start: k for k, u in enumerate(units)}
    mismatches: list[Mismatch] = []

    def miss(pos: int, n: int, want: str, said: str, kind: str) -> None:
        word = _around(text.display, text.display_pos(pos), n)
        mismatches.append(Mismatch(scene, beat, word, want, said, "kokoro", kind))

    refs = reference_readings(text)
    digits = number_yi(text)
    for pos, want in refs:
        ch = text.spoken[pos]
        k = at.get(pos)
        u = units[k] if k is not None else None
        if u is None or not u.phonemes or any(c not in vocab for c in u.phonemes):
            miss(pos, 1, "/".join(sorted(want)) or "?",
                 f"(nothing: {u.phonemes!r})" if u else "(nothing)", "dropped")
            continue
        in_word = k > 0 and units[k - 1].word == u.word and units[k - 1].end == u.start
        options = {_kokoro_ipa(o) for o in _variants(ch, want, in_word, pos in digits)} - {""}
        if u.phonemes not in options:
            miss(pos, 1, "/".join(sorted(want)) or "?",
                 _kokoro_table().get(u.phonemes, f"[{u.phonemes}]"), "misread")
    for m in re.finditer(r"[A-Za-z]+", text.spoken):
        word = kokoro.WORDS.get(m.group(0).lower())
        want = [word[0]] if word else [kokoro.LETTERS[c.lower()] for c in m.group(0)]
        got = [u.phonemes for u in units if m.start() <= u.start < m.end()]
        if got != want or any(c not in vocab for g in got for c in g):
            miss(m.start(), len(m.group(0)), " ".join(want), " ".join(got) or "(nothing)",
                 "letter")
    return len(refs), mismatches


def zh_engines() -> tuple[str, ...]:
    """The offline Mandarin engines installed here (Kokoro only with its packages)."""
    from narration.tts import kokoro

    return ENGINES if kokoro.available() is None else ("espeak",)


def _around(text: str, at: int, n: int) -> str:
    """``text[at:at + n]`` in 【】 with three characters either side."""
    return f"{text[max(0, at - 3):at]}【{text[at:at + n]}】{text[at + n:at + n + 3]}"


_SPOKEN_BY: dict[str, set[str]] = {}
_SPOKEN_LOCK = threading.Lock()


def record_engine(text: str, engine: str) -> None:
    """Note that ``engine`` speaks ``text`` in this run (the voice stage calls this), so the
    check reads that engine for it."""
    with _SPOKEN_LOCK:
        _SPOKEN_BY.setdefault(text, set()).add(engine)


def engines_for(text: str) -> tuple[str, ...]:
    """The offline Mandarin engines to read for ``text``: the one(s) that spoke it in this
    run when it is one we can read; otherwise (the online voice, or not spoken here) every
    offline Mandarin engine installed, as the voice may fall back to any of them."""
    with _SPOKEN_LOCK:
        spoke = _SPOKEN_BY.get(text, set()) & set(ENGINES)
    return tuple(e for e in ENGINES if e in spoke) or zh_engines()


def check(lang: str, beats: Iterable[tuple[str, str, Resolved]],
          engines: Iterable[str] | None = None) -> PronunciationReport:
    """The pronunciation report for ``(scene, beat, text)`` of one language; for Chinese,
    as each of ``engines`` reads it (default: for each beat, ``engines_for`` its text)."""
    report = PronunciationReport(lang)
    fixed = tuple(engines) if engines is not None else None
    unknown = set(fixed or ()) - set(ENGINES)
    if unknown:
        raise ValueError(f"no pronunciation check for engine(s) {sorted(unknown)}")
    used: set[str] = set()
    for scene, beat, text in beats:
        report.beats += 1
        for word, why in avoided(lang):
            at = text.display.find(word)
            while at >= 0:
                report.mismatches.append(Mismatch(scene, beat, _around(text.display, at,
                                                                       len(word)),
                                                  "a rewording", why or "avoid this word",
                                                  "any", "avoid"))
                at = text.display.find(word, at + 1)
        bad = unspoken(text.spoken, lang)
        if bad:
            report.unspoken.append(Unspoken(scene, beat, "".join(dict.fromkeys(bad))))
        if lang == "zh":
            n = 0
            for engine in fixed if fixed is not None else engines_for(text.spoken):
                n, mis = (check_zh_kokoro if engine == "kokoro" else check_zh)(scene, beat,
                                                                              text)
                report.syllables_by[engine] = report.syllables_by.get(engine, 0) + n
                report.mismatches.extend(mis)
                used.add(engine)
            report.syllables += n
    report.engines = tuple(e for e in ENGINES if e in used)
    names = {"kokoro": "Kokoro's phonemes (misaki)", "espeak": "espeak-ng phonemes"}
    report.checked_with = (" and ".join(names[e] for e in report.engines)
                           + " against pypinyin and the lexicon"
                           if lang == "zh" else "digits and symbols in the spoken text")
    return report
