"""How numbers are written on screen and in subtitles, and how they are spoken, per language.

Every number the video shows or says goes through here, so screen, voice and subtitles agree.
A formatted value has two forms: ``display`` (screen and subtitles) and ``spoken`` (sent to the
voice, so that e.g. "−3" is read as "负3"/"minus 3" and "39%" as "百分之39"/"39 percent").
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
    if not negative:
        return Formatted(body_abs, body_abs)
    spoken = ("负" if lang == "zh" else "minus ") + body_abs
    return Formatted(MINUS + body_abs, spoken)


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
    """A share in [0, 1] as a percentage: 0 decimals, or 1 below 1% so small shares are not 0%."""
    _check_lang(lang)
    p = share * 100
    if decimals is None:
        decimals = 1 if 0 < abs(p) < 1 else 0
    text = f"{p:.{decimals}f}"
    display = f"{text}%"
    spoken = f"百分之{text}" if lang == "zh" else f"{text} percent"
    return Formatted(display, spoken)


def vector(xs: Sequence[float], lang: str, decimals: int | None = None) -> Formatted:
    """A vector as ``[a, b]`` on screen, and as "a, b" spoken ("a 和 b" / "a and b" for two)."""
    parts = [number(float(x), lang, decimals) for x in xs]
    display = "[" + ", ".join(p.display for p in parts) + "]"
    spoken_parts = [p.spoken for p in parts]
    joiner = "和" if lang == "zh" else " and "
    sep = "、" if lang == "zh" else ", "
    if len(spoken_parts) <= 1:
        spoken = "".join(spoken_parts)
    else:
        spoken = sep.join(spoken_parts[:-1]) + joiner + spoken_parts[-1]
    return Formatted(display, spoken)


def text(s: str) -> Formatted:
    return Formatted(s, s)


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
