"""Fill ``{name}`` / ``{name:spec}`` placeholders in narration and on-screen text.

A deliberately small resolver: names are looked up in a flat dict of facts computed by
``qkv_math`` (see ``narration.facts``); nothing is evaluated and no attribute is accessed,
unlike ``str.format``. Specs: ``2`` (decimals), ``pct`` / ``pct1`` (percent), ``vec`` /
``vec1`` (vector, optional decimals), ``int``. Literal braces are written ``{{`` and ``}}``.

Cue marks ``{@name}`` sit between words of a narration text. They are neither shown nor
spoken; the resolver records where they fall in the spoken text so that a scene can wait for
the voice to reach them (``narration.marks``). A mark between two spaces leaves one space.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from narration import numfmt

FactValue = float | int | str | tuple[float, ...] | Mapping[str, str]

_TOKEN = re.compile(
    r"\{\{|\}\}|\{@([A-Za-z0-9_]*)\}|\{([A-Za-z0-9_.]*)(?::([A-Za-z0-9]*))?\}|[{}]"
)


class PlaceholderError(ValueError):
    """An unknown placeholder, a bad spec or a stray brace."""


@dataclass(frozen=True)
class Resolved:
    """A text with placeholders filled: its displayed and spoken forms, aligned piece by piece.

    ``anchors`` pairs offsets (spoken, display) at every piece boundary, so a character
    position in the spoken text (where word timings point) maps to the displayed text.
    ``marks`` are the cue marks in text order: (name, offset into ``spoken``).
    """

    display: str
    spoken: str
    anchors: tuple[tuple[int, int], ...]
    marks: tuple[tuple[str, int], ...] = ()

    @property
    def mark_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.marks)

    def display_pos(self, spoken_pos: int) -> int:
        """Map an index into ``spoken`` onto ``display`` (linear inside a filled placeholder)."""
        keys = [a[0] for a in self.anchors]
        i = max(0, bisect.bisect_right(keys, spoken_pos) - 1)
        s0, d0 = self.anchors[i]
        if i + 1 < len(self.anchors):
            s1, d1 = self.anchors[i + 1]
            if s1 == s0:
                return d0
            if s1 - s0 == d1 - d0:  # literal piece: identical text
                return d0 + (spoken_pos - s0)
            return d0 + round((spoken_pos - s0) * (d1 - d0) / (s1 - s0))
        return min(d0 + (spoken_pos - s0), len(self.display))


def format_value(value: FactValue, spec: str, lang: str) -> numfmt.Formatted:
    """Format one fact for ``lang`` according to ``spec``; raise PlaceholderError if unfit."""
    if isinstance(value, Mapping):
        if spec:
            raise PlaceholderError(f"spec ':{spec}' does not apply to text")
        return numfmt.text(value[lang])
    if isinstance(value, str):
        if spec:
            raise PlaceholderError(f"spec ':{spec}' does not apply to text")
        return numfmt.text(value)
    if isinstance(value, tuple):
        if spec not in ("", "vec") and not re.fullmatch(r"vec\d", spec):
            raise PlaceholderError(f"spec ':{spec}' does not apply to a vector (use vec or vecN)")
        decimals = int(spec[3:]) if spec[3:] else None
        return numfmt.vector(value, lang, decimals)
    x = float(value)
    if spec in ("pct", "pct0", "pct1", "pct2"):
        return numfmt.percent(x, lang, int(spec[3:]) if spec[3:] else None)
    if spec == "int":
        return numfmt.number(round(x), lang, 0)
    if spec == "":
        return numfmt.number(x, lang)
    if spec.isdigit():
        return numfmt.number(x, lang, int(spec))
    raise PlaceholderError(f"unknown spec ':{spec}' (expected pct, pct1, int, vec, or digits)")


def resolve(template: str, facts: Mapping[str, FactValue], lang: str,
            *, marks: bool = False) -> Resolved:
    """Fill every placeholder of ``template``; raise PlaceholderError naming the first bad one.

    Cue marks are accepted only with ``marks=True`` (narration beats, not on-screen text).
    """
    display: list[str] = []
    found: list[tuple[str, int]] = []
    spoken: list[str] = []
    anchors: list[tuple[int, int]] = [(0, 0)]
    d_len = s_len = 0
    pos = 0

    def emit(d: str, s: str, literal: bool) -> None:
        nonlocal d_len, s_len
        if not literal:
            anchors.append((s_len, d_len))
        display.append(d)
        spoken.append(s)
        d_len += len(d)
        s_len += len(s)
        if not literal:
            anchors.append((s_len, d_len))

    for m in _TOKEN.finditer(template):
        if m.start() > pos:
            lit = template[pos : m.start()]
            emit(lit, lit, True)
        pos = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            emit(tok[0], tok[0], True)
            continue
        if tok in ("{", "}"):
            raise PlaceholderError(f"stray '{tok}' at character {m.start() + 1}")
        if m.group(1) is not None:
            mark = m.group(1)
            if not marks:
                raise PlaceholderError(f"cue mark {{@{mark}}} is only allowed in narration")
            if not mark:
                raise PlaceholderError(f"empty cue mark at character {m.start() + 1}")
            if mark in (n for n, _ in found):
                raise PlaceholderError(f"cue mark {{@{mark}}} appears twice")
            before = "".join(spoken[-1:])
            if before[-1:].isspace() and template[pos:pos + 1].isspace():
                pos += 1  # "a {@m} b" reads "a b"
            found.append((mark, s_len))
            continue
        name, spec = m.group(2), m.group(3) or ""
        if name not in facts:
            raise PlaceholderError(f"unknown placeholder {{{name}}}")
        f = format_value(facts[name], spec, lang)
        emit(f.display, f.spoken, False)
    if pos < len(template):
        lit = template[pos:]
        emit(lit, lit, True)
    anchors.append((s_len, d_len))
    dedup = tuple(dict.fromkeys(anchors))
    return Resolved("".join(display), "".join(spoken), dedup, tuple(found))


def placeholder_names(template: str) -> Sequence[str]:
    """Names used in ``template`` (for checks and tooling)."""
    return [m.group(2) for m in _TOKEN.finditer(template) if m.group(2)]


def mark_names(template: str) -> Sequence[str]:
    """Cue mark names used in ``template``, in order."""
    return [m.group(1) for m in _TOKEN.finditer(template) if m.group(1)]
