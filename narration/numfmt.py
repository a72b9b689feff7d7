"""How numbers are written on screen and in subtitles, and how they are spoken, per language.

Every number the video shows or says goes through here, so screen, voice and subtitles agree.
A formatted value has two forms: ``display`` (screen and subtitles) and ``spoken`` (sent to the
voice, with every digit and sign in words: "−3" is "负三"/"minus three", "0.4%" is
"百分之零点四"/"zero point four percent"). The offline Chinese voice misreads digits inside
Chinese text ("约2.7倍" came out "约二七倍"), so no digit reaches a voice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LANGS = ("zh", "en")
MINUS = "−"  # U+2212, typographic minus for display


@dataclass(frozen=True)
class Formatted:
    display: str
    spoken: str


def _signed(body_abs: str, negative: bool, lang: str) -> Formatted:
    words = say_number(body_abs, lang)
    if not negative:
        return Formatted(body_abs, words)
    return Formatted(MINUS + body_abs, say_negative(words, lang))


def say_negative(words: str, lang: str) -> str:
    """A number said in ``words``, negative: "负三" / "minus three"."""
    return ("负" if lang == "zh" else "minus ") + words


def say_percent(words: str, lang: str) -> str:
    """A percentage whose number is said in ``words``: "百分之六十六" / "sixty-six percent"."""
    return f"百分之{words}" if lang == "zh" else f"{words} percent"


def say_number(digits: str, lang: str) -> str:
    """Unsigned decimal digits as ``lang`` reads them, every shown digit kept: "1.40" is
    "一点四零" / "one point four zero", "256" is "二百五十六" / "two hundred and fifty-six"."""
    whole, _, frac = digits.partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()):
        raise ValueError(f"not a decimal number: {digits!r}")
    if lang == "zh":
        import cn2an

        return cn2an.an2cn(digits)
    from num2words import num2words

    words = num2words(int(whole))
    if frac:
        # num2words drops trailing zeros (1.40 -> "one point four"); the screen shows them.
        words += " point " + " ".join(num2words(int(d)) for d in frac)
    return words


def number(x: float, lang: str, decimals: int | None = None) -> Formatted:
    """A number: integers as integers, others with ``decimals`` (default 2) decimals."""
    _check_lang(lang)
    if not math.isfinite(x):
        raise ValueError(f"cannot format non-finite number {x!r}")
    if decimals is None:
        decimals = 0 if float(x).is_integer() else 2
    text = f"{abs(x):.{decimals}f}"
    negative = x < 0 and float(text) != 0
    return _signed(text, negative, lang)


def percent(share: float, lang: str, decimals: int | None = None) -> Formatted:
    """A share in [0, 1] as a percentage: 0 decimals, or 1 below 1%; a share too small even
    for that reads "<0.1%" / "不到百分之零点一" / "under zero point one percent", never 0.0%."""
    _check_lang(lang)
    if not math.isfinite(share):
        raise ValueError(f"cannot format non-finite share {share!r}")
    p = share * 100
    if decimals is None:
        decimals = 1 if 0 < abs(p) < 1 else 0
    text = f"{p:.{decimals}f}"
    if p > 0 and float(text) == 0:
        # A share too small for the decimals shown is not "0.0%": it is under the smallest.
        least = f"{10 ** -decimals:.{decimals}f}"
        said = say_percent(say_number(least, lang), lang)
        return Formatted(f"<{least}%", f"不到{said}" if lang == "zh" else f"under {said}")
    return Formatted(f"{text}%", say_percent(say_number(text, lang), lang))


def vector(xs: Sequence[float], lang: str, decimals: int | None = None) -> Formatted:
    """A vector as ``[a, b]`` on screen, and as "a, b" spoken ("a 和 b" / "a and b" for two)."""
    parts = [number(float(x), lang, decimals) for x in xs]
    display = "[" + ", ".join(p.display for p in parts) + "]"
    return Formatted(display, say_list([p.spoken for p in parts], lang))


def say_list(items: Sequence[str], lang: str) -> str:
    """Spoken items read as a list: "a、b和c" / "a, b and c"."""
    joiner = "和" if lang == "zh" else " and "
    sep = "、" if lang == "zh" else ", "
    if len(items) <= 1:
        return "".join(items)
    return sep.join(items[:-1]) + joiner + items[-1]


def text(s: str) -> Formatted:
    return Formatted(s, s)


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
