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
from narration import spoken as spoken_form

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
    # (offset into ``spoken``, pinyin) for each Chinese character whose reading the
    # pronunciation lexicon settles (the pronunciation check expects it)
    readings: tuple[tuple[int, str], ...] = ()

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
    The spoken form has numbers and symbols in words and the lexicon's readings
    (``narration.spoken``); text that is said as written maps onto the display one to one.
    """
    # First the pieces as written: literal text, filled values, and marks between them.
    parts: list[tuple[str, str] | str] = []  # (display, spoken) or a mark's name
    pos = 0

    def literal(text: str) -> None:
        if parts and not isinstance(parts[-1], str) and parts[-1][0] == parts[-1][1]:
            parts[-1] = (parts[-1][0] + text, parts[-1][1] + text)  # join verbatim runs
        else:
            parts.append((text, text))

    names: list[str] = []
    for m in _TOKEN.finditer(template):
        if m.start() > pos:
            literal(template[pos : m.start()])
        pos = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            literal(tok[0])
            continue
        if tok in ("{", "}"):
            raise PlaceholderError(f"stray '{tok}' at character {m.start() + 1}")
        if m.group(1) is not None:
            mark = m.group(1)
            if not marks:
                raise PlaceholderError(f"cue mark {{@{mark}}} is only allowed in narration")
            if not mark:
                raise PlaceholderError(f"empty cue mark at character {m.start() + 1}")
            if mark in names:
                raise PlaceholderError(f"cue mark {{@{mark}}} appears twice")
            before = parts[-1][0] if parts and not isinstance(parts[-1], str) else ""
            if before[-1:].isspace() and template[pos:pos + 1].isspace():
                pos += 1  # "a {@m} b" reads "a b"
            names.append(mark)
            parts.append(mark)
            continue
        name, spec = m.group(2), m.group(3) or ""
        if name not in facts:
            raise PlaceholderError(f"unknown placeholder {{{name}}}")
        f = format_value(facts[name], spec, lang)
        parts.append((f.display, f.spoken))
    if pos < len(template):
        literal(template[pos:])

    # Then what is said for each: text said as written goes through the lexicon and has its
    # digits and symbols put in words, in the context of the whole displayed line.
    full = "".join(p[0] for p in parts if not isinstance(p, str))
    display: list[str] = []
    spoken: list[str] = []
    anchors: list[tuple[int, int]] = [(0, 0)]
    found: list[tuple[str, int]] = []
    readings: list[tuple[int, str]] = []
    d_len = s_len = 0
    for part in parts:
        if isinstance(part, str):
            found.append((part, s_len))
            continue
        d, s = part
        pieces = spoken_form.speak(full, d_len, d_len + len(d), lang) if d == s \
            else [spoken_form.Piece(d, spoken_form.two_before_measure(s, full, d_len + len(d),
                                                                       lang))]
        for piece in pieces:
            pd, ps = piece.display, piece.spoken
            if piece.entry is not None and piece.entry.pinyin:
                han = [k for k, c in enumerate(ps) if spoken_form.is_han(c)]
                readings += [(s_len + k, py) for k, py in zip(han, piece.entry.pinyin,
                                                               strict=True)]
            same = pd == ps
            if not same:
                anchors.append((s_len, d_len))
            display.append(pd)
            spoken.append(ps)
            d_len += len(pd)
            s_len += len(ps)
            if not same:
                anchors.append((s_len, d_len))
    anchors.append((s_len, d_len))
    dedup = tuple(dict.fromkeys(anchors))
    return Resolved("".join(display), "".join(spoken), dedup, tuple(found), tuple(readings))


def placeholder_names(template: str) -> Sequence[str]:
    """Names used in ``template`` (for checks and tooling)."""
    return [m.group(2) for m in _TOKEN.finditer(template) if m.group(2)]


def mark_names(template: str) -> Sequence[str]:
    """Cue mark names used in ``template``, in order."""
    return [m.group(1) for m in _TOKEN.finditer(template) if m.group(1)]
