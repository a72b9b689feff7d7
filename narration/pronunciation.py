"""The pronunciation check: what the offline voice will say, against how a teacher reads it.

For Chinese, the engine's reading is espeak-ng's own phonemes for the spoken text
(``espeak_TextToPhonemes``, the same library and voice that speak it). The reference is an
independent reading of the displayed text: pypinyin's phrase dictionary, in context, with
the pronunciation lexicon (``narration/lexicon/zh.toml``) settling the words where pypinyin
is unsure; for the characters a number was put into words with, the spoken characters' own
reading. Both are compared in espeak-ng's notation: each reference syllable is turned into
phonemes by the same library's pinyin voice (``cmn-latn-pinyin``), so no hand-made
phoneme-to-pinyin table is involved. A syllable may be read with or without tone sandhi
(一 and 不 change tone before others; espeak-ng does not apply the third-tone rule).

For both languages, any digit or symbol left in the spoken text is reported: a voice reads
those its own way (espeak-ng read "约2.7倍" as "约二七倍") or not at all.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from narration.placeholders import Resolved
from narration.spoken import avoided, is_han, unspoken

ZH_VOICE = "cmn"
PINYIN_VOICE = "cmn-latn-pinyin"


@dataclass(frozen=True)
class Mismatch:
    scene: str
    beat: str
    word: str  # the displayed text around the character, the character in 【】
    expected: str  # pinyin with tone number
    engine: str  # what espeak-ng will say, as pinyin when it is a syllable of Mandarin

    def line(self) -> str:
        return f"{self.scene}.{self.beat}: {self.word}: expected {self.expected}, " \
               f"the voice says {self.engine}"


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
    syllables: int = 0  # Chinese syllables compared
    mismatches: list[Mismatch] = field(default_factory=list)
    unspoken: list[Unspoken] = field(default_factory=list)
    checked_with: str = ""

    def to_json(self) -> dict:
        return {"lang": self.lang, "beats": self.beats, "syllables_checked": self.syllables,
                "checked_with": self.checked_with,
                "mismatches": [asdict(m) for m in self.mismatches],
                "unspoken": [asdict(u) for u in self.unspoken]}


def _clean(ph: str) -> str:
    """espeak-ng phonemes without stress marks, word ends, spaces and language switches."""
    ph = re.sub(r"\([a-z]+\)", "", ph)
    return re.sub(r"['_|, ]", "", ph)


@functools.cache
def syllable_phonemes(pinyin: str) -> str:
    """One pinyin syllable with its tone number, as espeak-ng's Mandarin phonemes."""
    from narration.tts.espeak import phonemes

    return _clean(phonemes(pinyin.replace("ü", "v"), PINYIN_VOICE))


@functools.cache
def _syllable_table() -> dict[str, str]:
    """Phonemes -> pinyin for every reading pypinyin knows (to name what the engine says)."""
    from pypinyin.pinyin_dict import pinyin_dict
    from pypinyin.style.tone import ToneConverter

    conv = ToneConverter()
    seen: set[str] = set()
    for readings in pinyin_dict.values():
        for r in readings.split(","):
            seen.add(conv.to_tone3(r, neutral_tone_with_five=True))
    for base in {re.sub(r"\d", "", s) for s in seen}:
        seen.add(f"{base}5")
    return {syllable_phonemes(s): s for s in sorted(seen)}


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
        else:  # a number in words: its own characters
            out.append((i, {r for r in (said[0][i], said[1][i]) if r}))
    return out


def _variants(ch: str, readings: set[str], in_word: bool) -> set[str]:
    """Readings the engine may use for ``ch``: the reference ones; any tone of 一 and 不,
    whose tone follows the next syllable's (espeak-ng and pypinyin apply that rule to
    different spans); and the neutral tone on a syllable inside a word (前面, 起来) and on
    the measure word 个, as spoken Mandarin has it. A word of its own said in the neutral
    tone is not accepted: 得 before a number read as the particle de is a misreading."""
    out = set(readings)
    if ch in "一不":
        out |= {f"{r[:-1]}{t}" for r in readings for t in "1245"}
    if in_word or ch == "个":  # the measure word is toneless in connected speech (每个)
        out |= {f"{r[:-1]}5" for r in readings}
    return out


def check_zh(scene: str, beat: str, text: Resolved) -> tuple[int, list[Mismatch]]:
    """Compare the engine's reading of every Chinese character with the reference; returns
    the number of syllables compared and the mismatches."""
    from narration.tts.espeak import phonemes

    refs = reference_readings(text)
    mismatches: list[Mismatch] = []
    k = 0
    for run in re.finditer(r"[\u3400-\u9fff\uf900-\ufaff]+", text.spoken):
        # espeak-ng's words (its dictionary's segmentation), each as phonemes
        words = [_clean(w) for w in re.split(r"_\|| ", phonemes(run.group(0), ZH_VOICE))]
        words = [w for w in words if w]
        w, at = 0, 0  # the engine's word, and the position in it
        for ch in run.group(0):
            pos, want = refs[k]
            k += 1
            if w >= len(words):
                said, ok = "", False
            else:
                rest = words[w][at:]
                options = _variants(ch, want, in_word=at > 0)
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
            mismatches.append(Mismatch(scene, beat, word, "/".join(sorted(want)) or "?",
                                       _name(said) if said else "(nothing)"))
    return k, mismatches


def _around(text: str, at: int, n: int) -> str:
    """``text[at:at + n]`` in 【】 with three characters either side."""
    return f"{text[max(0, at - 3):at]}【{text[at:at + n]}】{text[at + n:at + n + 3]}"


def check(lang: str, beats: Iterable[tuple[str, str, Resolved]]) -> PronunciationReport:
    """The pronunciation report for ``(scene, beat, text)`` of one language."""
    report = PronunciationReport(lang)
    report.checked_with = ("espeak-ng phonemes against pypinyin and the lexicon"
                           if lang == "zh" else "digits and symbols in the spoken text")
    for scene, beat, text in beats:
        report.beats += 1
        for word, why in avoided(lang):
            at = text.display.find(word)
            while at >= 0:
                report.mismatches.append(Mismatch(scene, beat, _around(text.display, at,
                                                                       len(word)),
                                                  "a rewording", why or "avoid this word"))
                at = text.display.find(word, at + 1)
        bad = unspoken(text.spoken, lang)
        if bad:
            report.unspoken.append(Unspoken(scene, beat, "".join(dict.fromkeys(bad))))
        if lang == "zh":
            n, mis = check_zh(scene, beat, text)
            report.syllables += n
            report.mismatches.extend(mis)
    return report
