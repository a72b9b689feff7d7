"""Bilingual subtitles: each cue of the video's language over the same beat's other text.

The other language was written for the same beat but is not spoken, so it has no timings
of its own. Each cue of a beat covers a share of that beat's text; the other text is cut at
the same shares, moved to the nearest good break (punctuation first, then a space or a
Chinese word boundary, never inside brackets or quotes, and a break the own tracks'
rules call bad only when nothing else is in reach) and wrapped to that language's line
width.
"""

from __future__ import annotations

from collections.abc import Sequence

from common.text import CLAUSE_MARKS, COMMAS, DASHES, ENUM_COMMA, OPENERS, SENTENCE_ENDS
from narration.breaks import NO_LINE_START, counted_break
from narration.subtitles import (
    EN_MAX_CHARS,
    LONG_LINE,
    MIN_DURATION,
    ZH_MAX_CHARS,
    cues_by_beat,
    line_width,
)
from narration.types import Cue
from narration.wordseg import group_depth, word_boundaries

_SENTENCE = SENTENCE_ENDS | {"."}
_CLAUSE = CLAUSE_MARKS | DASHES
_COMMA = COMMAS | {ENUM_COMMA}
# A line never starts with these (they close what came before) nor ends with an opener.
_OPENERS = frozenset(OPENERS)
MAX_OTHER_LINES = 2
BAD_BREAK_COST = 8.0
"""Added to a break a reader would call bad (``narration.breaks``, the own tracks' judge):
taken only when no acceptable break is in reach."""


def _breaks(text: str, zh: bool) -> dict[int, float]:
    """Break positions in ``text`` and their cost (lower is better)."""
    depth = group_depth(text)
    words = word_boundaries(text) if zh else frozenset()
    out: dict[int, float] = {}
    for p in range(1, len(text)):
        if depth[p] and depth[p - 1]:
            continue
        before, at = text[p - 1], text[p]
        if before in ".," and at.isdigit():
            continue  # 0.71, 1,000
        if at in NO_LINE_START or before in _OPENERS:
            continue  # a piece never starts with 。 or 」, nor a line ends with 「
        if before in _SENTENCE:
            out[p] = 0.0
        elif before in _CLAUSE:
            out[p] = 0.3
        elif before in _COMMA:
            out[p] = 0.6
        elif at.isspace() or before.isspace():
            out[p] = 1.0
        elif zh and p in words and not (before.isascii() and at.isascii()):
            out[p] = 1.5
    for p in out:  # the own tracks' rules: not before a particle, inside a phrase, ...
        if counted_break(text, p, zh):
            out[p] += BAD_BREAK_COST
    return out


def _fragment_cost(text: str, p: int, zh: bool, start: int, cost: float) -> float:
    """BAD_BREAK_COST for a break at ``p`` that is bad only given where its piece starts
    (a word or short clause cut off from its sentence), unless ``cost`` already has it."""
    if cost >= BAD_BREAK_COST:
        return 0.0
    return BAD_BREAK_COST if counted_break(text, p, zh, start) else 0.0


def split_at_shares(text: str, shares: Sequence[float], zh: bool) -> list[str]:
    """``text`` cut into ``len(shares)`` pieces ending near each cumulative share (0-1].

    The cuts are chosen together (dynamic programming over the break positions): taken one
    at a time, a cut placed well could leave the next only bad places (a last piece of
    「分数」 alone before 「回到温和范围。」). Each cut costs its distance from its share,
    its break's cost and, when the piece it ends would be a word cut off from its clause,
    ``BAD_BREAK_COST``; the total is the least."""
    n = len(text)
    breaks = _breaks(text, zh)
    spots = sorted(p for p in breaks if 0 < p < n)
    wanted = min(len(shares) - 1, len(spots))  # fewer places than cues: the last are empty

    fragment: dict[tuple[int, int], float] = {}  # (start, p): the same for every cut k

    def cost(k: int, p: int, start: int) -> float:
        if (start, p) not in fragment:
            fragment[start, p] = _fragment_cost(text, p, zh, start, breaks[p])
        return abs(p - shares[k] * n) / max(1.0, n) * 6 + breaks[p] + fragment[start, p]

    # best[k][i]: the least cost of cuts 0..k with cut k at spots[i], and cut k-1's index
    best: list[list[tuple[float, int]]] = []
    for k in range(wanted):
        row = []
        for i, p in enumerate(spots):
            if k == 0:
                row.append((cost(0, p, 0), -1))
                continue
            row.append(min(((best[k - 1][j][0] + cost(k, p, spots[j]), j)
                            for j in range(i) if best[k - 1][j][0] < float("inf")),
                           default=(float("inf"), -1)))
        best.append(row)
    cuts: list[int] = []
    if wanted:
        i = min(range(len(spots)), key=lambda j: best[wanted - 1][j][0])
        for k in range(wanted - 1, -1, -1):
            cuts.append(spots[i])
            i = best[k][i][1]
        cuts.reverse()
    pieces, prev = [], 0
    for c in [*cuts, n]:
        pieces.append(text[prev:c].strip())
        prev = c
    pieces += [""] * (len(shares) - len(pieces))
    return pieces


def wrap(text: str, zh: bool) -> list[str]:
    """Lines of at most the language's width, broken at good places."""
    limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
    lines: list[str] = []
    rest = text.strip()
    while rest and line_width(rest, zh) > limit:
        breaks = _breaks(rest, zh)
        fitting = [p for p in breaks if line_width(rest[:p].strip(), zh) <= limit]
        if (all(breaks[p] >= BAD_BREAK_COST for p in fitting)
                and line_width(rest, zh) <= limit * LONG_LINE):
            break  # a line a little long beats a break a reader would call bad
        cut = max(fitting, key=lambda p: p - breaks[p] * 3) if fitting else 0
        if cut == 0:  # no break fits: cut at the width
            cut = 1
            while cut < len(rest) and line_width(rest[:cut + 1], zh) <= limit:
                cut += 1
        lines.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        lines.append(rest)
    return _no_bare_punctuation([line for line in lines if line])


def cue_lines(text: str, zh: bool) -> list[str]:
    """The other language's lines of one bilingual cue: wrapped to the width, at most
    MAX_OTHER_LINES (two), never a line of punctuation alone."""
    lines = wrap(text, zh)
    return lines if len(lines) <= MAX_OTHER_LINES else _two_lines(text.strip(), zh)


def _no_bare_punctuation(lines: list[str]) -> list[str]:
    """Lines that are only punctuation joined to their neighbour (openers to the next)."""
    out: list[str] = []
    carry = ""
    for line in lines:
        line = carry + line
        carry = ""
        if any(c.isalnum() for c in line):
            out.append(line)
        elif all(c in _OPENERS for c in line.strip()):
            carry = line
        elif out:
            out[-1] += line
        else:
            carry = line
    if carry:
        if out:
            out[-1] += carry
        else:
            out.append(carry)
    return out


def _two_lines(text: str, zh: bool) -> list[str]:
    """``text`` in two lines broken at the best place near its middle (a bilingual cue has
    at most two lines of each language, even if one is then a little long)."""
    breaks = _breaks(text, zh)
    if not breaks:
        return [text]
    mid = len(text) / 2
    cut = min(breaks, key=lambda p: abs(p - mid) / max(1.0, len(text)) * 4 + breaks[p])
    return _no_bare_punctuation([x for x in (text[:cut].strip(), text[cut:].strip()) if x])


def bilingual_cues(own: Sequence[Cue], beats: Sequence[tuple[float, float]],
                   other_texts: Sequence[str], own_zh: bool) -> list[Cue]:
    """``own`` cues (one line each) with the other language's text of the same beat below.

    ``beats`` are (offset, speech_end) of each beat in time order, ``other_texts`` the other
    language's display text of each beat.
    """
    out: list[Cue] = []
    for mine, other in zip(cues_by_beat(own, beats), other_texts, strict=True):
        if not mine:
            continue
        mine = _join_short(mine, own_zh)
        sizes = [max(1, sum(len(line) for line in c.lines)) for c in mine]
        total = sum(sizes)
        shares, acc = [], 0
        for size in sizes:
            acc += size
            shares.append(acc / total)
        pieces = split_at_shares(other, shares, zh=not own_zh)
        for c, piece in zip(mine, pieces, strict=True):
            out.append(Cue(c.start, c.end, (" ".join(c.lines) if not own_zh else
                                            "".join(c.lines),
                                            *cue_lines(piece, zh=not own_zh))))
    return out


def _own_text(c: Cue, zh: bool) -> str:
    return "".join(c.lines) if zh else " ".join(c.lines)


def _join_short(cues: list[Cue], zh: bool) -> list[Cue]:
    """One beat's one-line cues with each cue shown under ``MIN_DURATION`` joined to a
    neighbour of the same beat (the next, unless it ends a sentence or the line would be too
    long), while the joined line stays within ``LONG_LINE`` times the line width. The
    one-line breaking already avoids short cues; where no break of the beat fits a line, it
    leaves a piece such as "the model" for 0.36 s."""
    limit = (ZH_MAX_CHARS if zh else EN_MAX_CHARS) * LONG_LINE
    out = list(cues)
    i = 0
    while i < len(out):
        c = out[i]
        if c.end - c.start >= MIN_DURATION:
            i += 1
            continue
        text = _own_text(c, zh)
        options = []
        if i + 1 < len(out) and text.rstrip()[-1:] not in _SENTENCE:
            options.append(i + 1)
        if i > 0:
            options.append(i - 1)
        for j in options:
            a, b = (out[i], out[j]) if j > i else (out[j], out[i])
            joined = _own_text(a, zh) + ("" if zh else " ") + _own_text(b, zh)
            if line_width(joined, zh) <= limit:
                out[min(i, j)] = Cue(a.start, b.end, (joined,))
                del out[max(i, j)]
                i = min(i, j)
                break
        else:
            i += 1
    return out
