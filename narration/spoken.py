"""What the voice is given for a piece of displayed text: digits and symbols in words, and the
pronunciation lexicon's readings.

The screen and the subtitles keep the text as written; the voice gets a *spoken* form of it.
Numbers filled in from ``qkv_math`` are verbalised by ``narration.numfmt``; this module does
the same for the literal text around them (digits or symbols a script writer typed), and
applies ``narration/lexicon/<lang>.toml``: words the offline voice reads wrong, each with
what to send instead (a homophone it reads right) and the reading a teacher uses, which the
pronunciation check (``narration.pronunciation``) expects.

A lexicon entry matches a word as written, optionally only where the text around it matches
``before`` / ``after`` (regular expressions on the displayed text, so an entry for 得 before
a number sees the number as shown: "得2").
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from narration import numfmt

LEXICON_DIR = Path(__file__).resolve().parent / "lexicon"


class LexiconError(ValueError):
    """A lexicon file that cannot be used: one line naming the file, the entry and the key."""


@dataclass(frozen=True)
class LexiconEntry:
    text: str  # as written (and shown)
    say: str  # what the voice is given instead (same number of Han characters as text)
    pinyin: tuple[str, ...]  # zh: the reading of each Han character of text (tone numbers)
    before: re.Pattern[str] | None = None  # must match the text just before
    after: re.Pattern[str] | None = None  # must match the text just after

    def matches(self, text: str, at: int) -> bool:
        if not text.startswith(self.text, at):
            return False
        if self.before is not None and not self.before.search(text[:at]):
            return False
        end = at + len(self.text)
        return self.after is None or self.after.match(text, end) is not None


def is_han(ch: str) -> bool:
    """A CJK ideograph (one spoken syllable in Chinese)."""
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def han_count(text: str) -> int:
    return sum(is_han(c) for c in text)


_PINYIN = re.compile(r"[a-zü]+[1-5]")


def read_lexicon(path: Path) -> tuple[LexiconEntry, ...]:
    """The entries of one lexicon file, longest words first; LexiconError if unusable."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise LexiconError(f"{path}: -: cannot read: {err}") from err
    unknown_tables = set(data) - {"word", "avoid"}
    if unknown_tables:
        raise LexiconError(f"{path}: {sorted(unknown_tables)[0]}: unknown table (expected "
                           f"[[word]] or [[avoid]])")
    rows = data.get("word", [])
    if not isinstance(rows, list):
        raise LexiconError(f"{path}: word: must be a list of [[word]] tables")
    out = []
    for n, row in enumerate(rows, 1):
        where = f"{path}: word[{n}]"
        if not isinstance(row, dict):
            raise LexiconError(f"{where}: must be a table")
        unknown = set(row) - {"text", "say", "pinyin", "before", "after", "note"}
        if unknown:
            raise LexiconError(f"{where}.{sorted(unknown)[0]}: unknown key")
        text, say = row.get("text"), row.get("say", row.get("text"))
        if not isinstance(text, str) or not text.strip():
            raise LexiconError(f"{where}.text: missing or empty")
        if not isinstance(say, str) or not say.strip():
            raise LexiconError(f"{where}.say: must be a non-empty string")
        if han_count(say) != han_count(text):
            raise LexiconError(f"{where}.say: {say!r} has {han_count(say)} Chinese "
                               f"characters, {text!r} has {han_count(text)}; give one per "
                               f"character (a homophone) so readings line up")
        pinyin = row.get("pinyin", "")
        if not isinstance(pinyin, str):
            raise LexiconError(f"{where}.pinyin: must be a string such as \"yi4 hang2\"")
        syllables = tuple(pinyin.lower().replace("v", "ü").split())
        if han_count(text) and len(syllables) != han_count(text):
            raise LexiconError(f"{where}.pinyin: {len(syllables)} syllable(s) for "
                               f"{han_count(text)} Chinese character(s) in {text!r}")
        bad = [s for s in syllables if not _PINYIN.fullmatch(s)]
        if bad:
            raise LexiconError(f"{where}.pinyin: {bad[0]!r} is not pinyin with a tone number "
                               f"(1-5), e.g. hang2")
        ctx: dict[str, re.Pattern[str] | None] = {}
        for key in ("before", "after"):
            raw = row.get(key)
            if raw is None:
                ctx[key] = None
                continue
            try:
                ctx[key] = re.compile(raw + "$" if key == "before" else raw)
            except (re.error, TypeError) as err:
                raise LexiconError(f"{where}.{key}: not a regular expression: {err}") from err
        out.append(LexiconEntry(text, say, syllables, ctx["before"], ctx["after"]))
    # Longest words first; of two as long, the one with a context first (得 before a number,
    # then 得 anywhere).
    return tuple(sorted(out, key=lambda e: (-len(e.text), e.before is None and e.after is None)))


def read_avoid(path: Path) -> tuple[tuple[str, str], ...]:
    """The lexicon's ``[[avoid]]`` words: (text, why) of words a listener mishears whatever
    the voice does (「对数」 is heard as "logarithm"); the pronunciation check reports them."""
    data = tomllib.loads(path.read_text("utf-8"))
    out = []
    for n, row in enumerate(data.get("avoid", []), 1):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str) \
                or not row["text"].strip() or not isinstance(row.get("note", ""), str):
            raise LexiconError(f"{path}: avoid[{n}]: needs text (and an optional note), "
                               f"both strings")
        out.append((row["text"], row.get("note", "")))
    return tuple(out)


@functools.cache
def lexicon(lang: str) -> tuple[LexiconEntry, ...]:
    """The entries of ``LEXICON_DIR/<lang>.toml`` (none if there is no such file)."""
    path = LEXICON_DIR / f"{lang}.toml"
    return read_lexicon(path) if path.is_file() else ()


@functools.cache
def avoided(lang: str) -> tuple[tuple[str, str], ...]:
    path = LEXICON_DIR / f"{lang}.toml"
    return read_avoid(path) if path.is_file() else ()


def reload() -> None:
    """Read the lexicon files again (after ``LEXICON_DIR`` or a file changed)."""
    lexicon.cache_clear()
    avoided.cache_clear()


# Symbols a script may type, in words. Digits (with a sign, a decimal point and a percent
# sign) are read by numfmt.say_number, as the numbers filled in from qkv_math are.
_SYMBOLS = {
    "zh": {"√": "根号", "ᵀ": "转置", "×": "乘", "÷": "除以", "=": "等于", "≈": "约等于",
           "+": "加", "%": "百分号", "·": "点乘", "/": "除以"},
    "en": {"√": "the square root of ", "ᵀ": " transpose", "×": " times ", "÷": " divided by ",
           "=": " equals ", "≈": " about ", "+": " plus ", "%": " percent", "·": " dot ",
           "&": " and ", "/": " over "},
}
_NUMBER = re.compile(r"([−-])?(\d+(?:\.\d+)?)(%)?")
_NUM = r"[−-]?\d+(?:\.\d+)?"
_VECTOR = re.compile(rf"\[\s*{_NUM}(?:\s*,\s*{_NUM})*\s*\]")  # [1, 1, 0]
_POWER = re.compile(r"([A-Za-z]|\d+)\^\{?([A-Za-z]+|\d+)\}?")  # e^x, 2^{10}


def _say_number(text: str, lang: str) -> str:
    """A number as typed ("−3", "0.4%", "2.7") in words."""
    m = _NUMBER.fullmatch(text)
    assert m is not None
    words = numfmt.say_number(m.group(2), lang)
    if m.group(3):
        words = numfmt.say_percent(words, lang)
    return numfmt.say_negative(words, lang) if m.group(1) else words


MEASURE_WORDS = frozenset("个倍位次步种项件条张只本句层组行列份块遍轮")
"""Measure words before which 2 is said 两 (两个, 两倍), not 二. Not 维: 二维 is the word."""


def two_before_measure(words: str, text: str, end: int, lang: str) -> str:
    """``words`` (a number said in words) as said before ``text[end:]``: 二 becomes 两 before
    a measure word ("2个数" is 两个数, "放大2倍" 放大两倍), as a teacher reads it."""
    if lang != "zh" or words != "二":
        return words
    rest = text[end:].lstrip()
    return "两" if rest[:1] in MEASURE_WORDS else words


def _say_term(text: str, lang: str) -> str:
    return _say_number(text, lang) if text[0].isdigit() else text


@dataclass(frozen=True)
class Piece:
    """A stretch of displayed text and what is said for it; ``entry`` when the lexicon
    decided it (its reading is then the lexicon's)."""

    display: str
    spoken: str
    entry: LexiconEntry | None = None


def speak(text: str, start: int, end: int, lang: str) -> list[Piece]:
    """The spoken form of ``text[start:end]`` (literal text: no placeholder in it), in
    pieces; ``text`` is the whole displayed line, for the lexicon's context."""
    entries = lexicon(lang)
    table = _SYMBOLS[lang]
    out: list[Piece] = []
    i = start
    plain = start
    while i < end:
        hit: Piece | None = None
        for e in entries:
            if i + len(e.text) <= end and e.matches(text, i):
                hit = Piece(e.text, e.say, e)
                break
        if hit is None:
            hit = _symbolic(text, i, end, lang)
        if hit is None and text[i] in table:
            said = table[text[i]]
            if i == 0 or text[i - 1].isspace():
                said = said.lstrip()
            if i + 1 >= len(text) or text[i + 1].isspace():
                said = said.rstrip()
            hit = Piece(text[i], said)
        if hit is None:
            i += 1
            continue
        if plain < i:
            out.append(Piece(text[plain:i], text[plain:i]))
        out.append(hit)
        i += len(hit.display)
        plain = i
    if plain < end:
        out.append(Piece(text[plain:end], text[plain:end]))
    return out


def _symbolic(text: str, i: int, end: int, lang: str) -> Piece | None:
    """A vector, a power or a number typed at ``text[i]``, in words; None if none is."""
    m = _VECTOR.match(text, i, end)
    if m:
        items = [_say_number(x, lang) for x in re.findall(_NUM, m.group(0))]
        return Piece(m.group(0), numfmt.say_list(items, lang))
    m = _POWER.match(text, i, end)
    if m and not (i > 0 and text[i - 1].isalnum()):
        base, exp = _say_term(m.group(1), lang), _say_term(m.group(2), lang)
        said = f"{base}的{exp}次方" if lang == "zh" else f"{base} to the power of {exp}"
        return Piece(m.group(0), said)
    m = _NUMBER.match(text, i, end)
    if m and (m.group(1) is None or not (i > 0 and text[i - 1].isalnum())):
        said = two_before_measure(_say_number(m.group(0), lang), text, m.end(), lang)
        return Piece(m.group(0), said)
    return None


def unspoken(spoken: str, lang: str) -> list[str]:
    """Characters the voice would get unverbalised: digits and symbols (a voice reads them
    its own way, or not at all). Letters, CJK and punctuation are fine."""
    bad = []
    for ch in spoken:
        if ch.isdigit() or ch in _SYMBOLS[lang] or ch in "−^[]{}<>@#$\\|~_`":
            bad.append(ch)
    return bad
