"""Subtitle cues from narration text and word timings; SRT writing and reading.

Why the line splitting is hand-written: no maintained library splits subtitle lines for
Chinese by character count *and* times the cues from per-word TTS timings. Generic text
wrappers (``textwrap``) need spaces, which Chinese does not have, and know nothing about
clause punctuation or timings; subtitle tools (``srt``, ``pysubs2``) read, write and shift
cues but never split text into them. So we tokenize the text into unbreakable atoms,
choose line breaks with a small dynamic program (punctuation first, then length), group
lines into cues, time each cue from the word timings and finally enforce the duration and
gap rules. The file formats are written by ``pysubs2`` (``narration.subtitle_files``).

Rules, in short:

* Lines hold at most ``ZH_MAX_CHARS`` (16) characters for Chinese and ``EN_MAX_CHARS``
  (42) for English, measured on the displayed, stripped line (:func:`line_width`: in Chinese
  half-width characters count half). A cue has at most two lines.
* Where a line or cue may break is ``narration.breaks``'s to say, for the breaker and the
  quality report alike: never inside brackets or quotes (unless the group is longer than a
  line), a number, a word (jieba) or a tight phrase (``narration.phrases``), and never
  where a reader would stumble: before a particle or postposition, after a preposition or
  conjunction, between a verb and its object, inside a coordinated pair, a short clause
  cut off from its sentence part (Chinese, from jieba's part-of-speech tags); after a
  preposition, article, conjunction or "to" (English). Each such break costs the breaker
  enough that it takes another wherever the limits allow.
* Breaks are preferred after punctuation (sentence ends, then ``;:`` and dashes, then
  commas, then ``、``), for English before a conjunction/preposition, then at any other
  space; in Chinese at any character boundary, preferring word-timing boundaries. Ragged
  lines, single-character Chinese lines and lines mixing the end of one sentence with the
  start of the next are penalized. English words, numbers such as ``0.71``/``39%`` and
  Latin tokens such as ``Q·K`` are never broken (only a token longer than a whole line is
  cut). Opening brackets/quotes stick to the next token, closing punctuation to the
  previous one.
* Chinese lines drop a trailing run of ``，、。；：`` (and ``,;:``, ``．``); ``？！``,
  closing quotes and brackets are kept. English keeps all punctuation.
* A cue spans from the start of its first spoken character to the end of its last one;
  characters without a word timing are interpolated by position between timed neighbours
  (extrapolated at the average character rate at the edges); with no timings at all the
  speech time ``[0, speech_end]`` is spread over the non-space characters.
* Cues spoken in under ``MIN_DURATION`` (1.2 s) are merged with a neighbour where the
  line and duration limits allow (a cost in the grouping; with one line a cue, in the line
  breaking).
* Then: a cue lasts at least ``MIN_DURATION`` (1.2 s) if the next cue allows, at most
  ``MAX_DURATION`` (7 s; longer cues are split into single lines, and lines are split
  further), consecutive cues are at least ``gap`` apart (default 2 frames at 25 fps =
  0.08 s), and a cue never leaves ``[offset, offset + speech_end]`` of its beat, except that
  a cue too short to read (under 1.2 s, or faster than ``COMFORT_CPS``) may stay up to
  ``GRACE`` (0.5 s) past the speech when the next beat has not begun, and a cue still too
  short or faster than ``MAX_CPS`` may start up to ``LEAD`` (3 frames at 25 fps) before its
  speech, after the cue before it and never before the previous beat's speech ends (in a
  track; a beat alone keeps its cues inside it). Times are
  whole milliseconds (SRT precision). Only if a beat's speech is too short to hold its cues
  with these gaps are the gap and the 2-frame minimum visibility shrunk (cues then stay
  ordered and non-overlapping).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common.text import (
    CLAUSE_MARKS,
    COMMAS,
    DASHES,
    ELLIPSES,
    ENUM_COMMA,
    SENTENCE_ENDS,
    is_cjk,
    is_wide,
)
from narration import subtitle_files
from narration.breaks import (
    COST_GRAMMAR,
    COST_WORD,
    EN_MAX_CHARS,
    LONG_LINE,
    ZH_MAX_CHARS,
    en_relative_fragment,
    left_fragment,
    problem_at,
    right_fragment,
)
from narration.types import Cue, WordTiming

__all__ = ["Cue", "build_track", "cues_by_beat", "cues_for_beat", "line_width", "read_srt",
           "reading_chars", "write_srt"]

MAX_LINES = 2
MIN_DURATION = 1.2
MAX_DURATION = 7.0
FRAME = 1 / 25
DEFAULT_GAP = 2 * FRAME  # 0.08 s = 1/12.5 s

_MS_MIN_VISIBLE = round(2 * FRAME * 1000)
GRACE = 0.5
"""Seconds a cue too short to read may stay past its speech, before the next beat begins
(Netflix: a cue ends at most 12 frames after the speech)."""
COMFORT_CPS = {True: 7.0, False: 15.0}
"""Reading speed (zh: True) a cue is held on screen for, when the next cue leaves room."""
MAX_CPS = {True: 9.0, False: 20.0}
"""The fastest reading speed (zh: True) a cue may ask for (Netflix: 17-20 characters a
second for adults in English; the quality report judges cues by it)."""
LEAD = 3 * FRAME
"""How long before its speech a cue too short or too fast to read may start (Netflix asks
cues to start within 3 frames of the speech)."""

# Characters whose break-after behaviour is special.
_SENTENCE_END = SENTENCE_ENDS | {"."}
_CLAUSE_STRONG = CLAUSE_MARKS | DASHES | ELLIPSES
_COMMAS = COMMAS
_ENUM_COMMA = frozenset(ENUM_COMMA)
_BREAK_DASHES = (*DASHES, "--")
ZH_DROP = "，、。；：,;:．｡､"
# Joins two word characters into one token (0.71, Q·K, don't, self-attention, 10:30).
_CONNECTORS = frozenset(".,·・'’-‐‑/:×^_+&")
_EN_CONJ = frozenset({"and", "but", "or", "so", "because", "that", "which", "while"})
_EN_PREP = frozenset({"with", "of", "to", "in", "on", "for", "from", "by", "into", "against"})
# After a preposition, these mean it ends a phrase ("what you look for is ...").
_EN_STRANDING = frozenset({"is", "are", "was", "were", "isn't", "aren't"})
_EN_ARTICLES = frozenset({"a", "an", "the"})
_EN_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "vs.", "mr.", "mrs.", "ms.", "dr.", "prof.",
                               "fig.", "eq.", "no.", "cf.", "approx."})
_WS = re.compile(r"\s+")

# Costs of the line/cue dynamic programs (only their order matters much).
_COST_SENTENCE = 0.0
_COST_CLAUSE = 5.0
_COST_COMMA_EN = 10.0
_COST_ENUM = 20.0
_COST_CLOSER = 30.0
_COST_CONJ = 30.0
_COST_PREP = 45.0
_COST_STRANDED = 80.0
_COST_SPACE_ZH = 40.0
_COST_BEFORE_OPENER = 40.0
_COST_CJK = 50.0
_COST_SPACE_EN = 60.0
_COST_OF = 70.0
_COST_AFTER_ARTICLE = 90.0
_COST_INSIDE_WORD = 100.0
_COST_FRAGMENT = 70.0  # a break leaving one or two words cut off from their clause
_COST_RAGGED = 40.0  # times ((limit - width) / limit) ** 2
_COST_ORPHAN = 300.0  # a one-character Chinese line
_COST_SENTENCE_INSIDE_LINE = 50.0
_COST_CUE = 100.0
_COST_SENTENCE_INSIDE_CUE = 30.0
_COST_LONG_LINE = 60.0  # a one-line cue past the line width, plus 200 x the share over
_COST_SHORT_CUE = 150.0  # a cue under MIN_DURATION: merged with a neighbour if it can be


@dataclass(frozen=True)
class _Atom:
    """An unbreakable run of text ``text[start:end]`` and the cost of breaking after it."""

    start: int
    end: int
    cost: float = 0.0
    sentence: bool = False


@dataclass(frozen=True)
class _RawCue:
    """A cue in milliseconds before the gap/duration rules; ``lo``/``hi`` bound it."""

    start: int
    end: int
    lo: int
    hi: int
    lines: tuple[str, ...]
    read_ms: int = 0  # how long the lines take to read at a comfortable speed
    grace_hi: int = -1  # how far past the speech a too-short cue may stay (ms; -1: hi)
    need_ms: int = 0  # how long the lines take to read at the fastest speed allowed
    lead_lo: int = -1  # how early a too-short or too-fast cue may start (ms; -1: lo)


# --------------------------------------------------------------------------- characters


def _is_word(c: str) -> bool:
    return (c.isalnum() or unicodedata.category(c).startswith("M")) and not is_cjk(c)


def _is_closer(c: str) -> bool:
    return unicodedata.category(c) in ("Pe", "Pf") or c in "\"'"


def _is_opener(c: str) -> bool:
    return unicodedata.category(c) in ("Ps", "Pi")


def _is_zh(lang: str) -> bool:
    low = lang.lower()
    if low.startswith(("zh", "cmn")):
        return True
    if low.startswith("en"):
        return False
    raise ValueError(f"unsupported subtitle language: {lang!r} (expected zh* or en*)")


def reading_chars(lines: Sequence[str], zh: bool) -> float:
    """Characters a viewer reads: all of them in English (lines joined by a space);
    in Chinese, half-width characters count half (Netflix's rule)."""
    if zh:
        return sum(1.0 if is_wide(c) else 0.5 for c in "".join(lines) if not c.isspace())
    return float(len(" ".join(lines)))


def line_width(line: str, zh: bool) -> float:
    """A line's width against the line limit: in Chinese, half-width characters (Latin,
    digits, ASCII punctuation, spaces) count half, as in Netflix's rules."""
    if zh:
        return sum(1.0 if is_wide(c) else 0.5 for c in line)
    return float(len(line))


def _display(segment: str, zh: bool) -> str:
    """The displayed form of a line: whitespace collapsed, stripped, Chinese ends cleaned."""
    line = _WS.sub(" ", segment).strip()
    if zh:
        line = line.rstrip(ZH_DROP + " ")
    return line


# --------------------------------------------------------------------------- tokenizing


def _units(text: str) -> list[tuple[int, int, str]]:
    """Split into (start, end, kind) with kind ``core``, ``open`` or ``close``."""
    units: list[tuple[int, int, str]] = []
    n = len(text)
    quotes = 0
    i = 0
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif is_cjk(c):
            units.append((i, i + 1, "core"))
            i += 1
        elif _is_word(c):
            j = i + 1
            while j < n:
                if _is_word(text[j]):
                    j += 1
                elif text[j] in _CONNECTORS and j + 1 < n and _is_word(text[j + 1]):
                    j += 2
                else:
                    break
            units.append((i, j, "core"))
            i = j
        else:
            prev = text[i - 1] if i else " "
            nxt = text[i + 1] if i + 1 < n else " "
            if c == '"':
                quotes += 1
                opening = quotes % 2 == 1
            elif c == "'":
                opening = (prev.isspace() or _is_opener(prev)) and not nxt.isspace()
            elif c in "-−+":
                opening = nxt.isdigit() and not _is_word(prev)
            else:
                opening = _is_opener(c) or unicodedata.category(c) == "Sc" or c in "#@"
            units.append((i, i + 1, "open" if opening else "close"))
            i += 1
    return units


def _spans(text: str, zh: bool, limit: int) -> list[tuple[int, int]]:
    """Unbreakable spans: punctuation attached, Latin tokens kept whole."""
    spans: list[list[int]] = []
    pending: list[int] | None = None  # opening punctuation waiting for its token
    for s, e, kind in _units(text):
        if kind == "open" or (kind == "close" and (pending is not None or not spans)):
            pending = [s, e] if pending is None else [pending[0], e]
        elif kind == "close":
            spans[-1][1] = e
        else:
            spans.append([pending[0] if pending else s, e])
            pending = None
    if pending is not None:
        if spans:
            spans[-1][1] = pending[1]
        else:
            spans.append(pending)

    merged: list[list[int]] = []
    for span in spans:
        if merged and merged[-1][1] == span[0] and _joins(text, merged[-1], span, zh):
            merged[-1][1] = span[1]
        else:
            merged.append(span)

    out: list[tuple[int, int]] = []
    for s, e in merged:  # cut only tokens longer than a whole line
        if line_width(_display(text[s:e], zh), zh) <= limit:
            out.append((s, e))
        else:
            out.extend((k, min(k + limit, e)) for k in range(s, e, limit))
    return out


def _joins(text: str, left: list[int], right: list[int], zh: bool) -> bool:
    """Whether two touching spans form one token (no space between them)."""
    a = text[left[0]:left[1]]
    if a.endswith(_BREAK_DASHES):
        return False
    if _is_closer(a[-1]) and _is_opener(text[right[0]]):  # 」「: two quotes side by side
        return False
    b = text[right[0]:right[1]]
    if zh and a.endswith("、") and _short_latin(a[:-1]) and _short_latin(b.rstrip("、，。")):
        return True  # a tight list of symbols, "Q、K、V", stays together
    if not zh:
        return True
    last, first = a[-1], text[right[0]]
    breaks = _SENTENCE_END | _CLAUSE_STRONG | _COMMAS | _ENUM_COMMA
    return not (is_cjk(last) or is_cjk(first) or last in breaks)


def _short_latin(token: str) -> bool:
    return 0 < len(token) <= 3 and token.isascii() and token.isalnum()


def _break_cost(text: str, a: tuple[int, int], b: tuple[int, int], zh: bool,
                inside_word: bool) -> tuple[float, bool]:
    """Cost of a line break between spans ``a`` and ``b``, and whether it ends a sentence."""
    seg = text[a[0]:a[1]]
    core = seg.rstrip("".join(c for c in set(seg) if _is_closer(c)))
    last = core[-1:] if core else ""
    nxt = text[b[0]:b[1]]
    if last in _SENTENCE_END and (zh or core.lower().split()[-1] not in _EN_ABBREVIATIONS):
        return _COST_SENTENCE, True
    if last in _CLAUSE_STRONG or core.endswith(_BREAK_DASHES):
        cost = _COST_CLAUSE
    elif last in _COMMAS:
        cost = _COST_CLAUSE if zh else _COST_COMMA_EN
    elif last in _ENUM_COMMA:
        cost = _COST_ENUM
    elif core != seg:
        cost = _COST_CLOSER
    elif zh:
        cost = _COST_INSIDE_WORD if inside_word else _COST_CJK
        if b[0] > a[1]:
            cost = _COST_SPACE_ZH
    else:
        word = "".join(c for c in core.lower() if c.isalnum() or c in "'’")
        nword = "".join(c for c in nxt.lower() if c.isalnum() or c in "'’")
        after = text[b[1]:].split()
        if nword in _EN_CONJ:
            cost = _COST_CONJ
        elif nword == "of":  # "the key | of France": "of" binds to the noun before it
            cost = _COST_OF
        elif nword in _EN_PREP:
            stranded = after and (after[0].lower() in _EN_STRANDING
                                  or not after[0][:1].isalnum())
            cost = _COST_STRANDED if stranded or nxt[-1:] in ",.;:!?" else _COST_PREP
        elif word in _EN_ARTICLES:
            cost = _COST_AFTER_ARTICLE
        else:
            cost = _COST_SPACE_EN
    if nxt and _is_opener(nxt[0]):
        cost = min(cost, _COST_BEFORE_OPENER)
    return cost, False


# --------------------------------------------------------------------------- timing


def _char_times(text: str, words: Sequence[WordTiming],
                speech_end: float) -> tuple[list[float], list[float], list[int]]:
    """Per-character (start, end) clip times and the index of the timing that covers it."""
    n = len(text)
    t0 = [math.nan] * n
    t1 = [math.nan] * n
    word_of = [-1] * n
    usable = sorted(
        (w for w in words if math.isfinite(w.start) and math.isfinite(w.end)),
        key=lambda w: (w.char_start, w.start),
    )
    for k, w in enumerate(usable):
        idx = [i for i in range(max(0, w.char_start), min(n, w.char_end))
               if math.isnan(t0[i]) and not text[i].isspace()]
        if not idx:
            continue
        a = min(max(w.start, 0.0), speech_end)
        b = min(max(w.end, a), speech_end)
        weights = [1.0 if text[i].isalnum() else 0.0 for i in idx]
        if not any(weights):
            weights = [1.0] * len(idx)
        _spread(t0, t1, idx, weights, a, b)
        for i in idx:
            word_of[i] = k

    timed = [i for i in range(n) if not math.isnan(t0[i])]
    spoken = [t1[i] - t0[i] for i in timed if text[i].isalnum()]
    rate = sum(spoken) / len(spoken) if spoken else 0.0
    i = 0
    while i < n:
        if not math.isnan(t0[i]):
            i += 1
            continue
        q = i
        while q < n and math.isnan(t0[q]):
            q += 1
        idx = list(range(i, q))
        weights = [0.0 if text[k].isspace() else 1.0 for k in idx]
        n_spoken = sum(text[k].isalnum() for k in idx)
        if not timed:
            a, b = 0.0, speech_end
        elif i == 0:
            b = t0[q]
            a = max(0.0, b - rate * n_spoken)
        elif q == n:
            a = t1[i - 1]
            b = min(speech_end, a + rate * n_spoken)
        else:
            a, b = t1[i - 1], max(t0[q], t1[i - 1])
        _spread(t0, t1, idx, weights, a, b)
        i = q

    for i in range(1, n):  # monotone clip times
        t0[i] = max(t0[i], t0[i - 1])
        t1[i] = max(t1[i], t1[i - 1], t0[i])
    return t0, t1, word_of


def _spread(t0: list[float], t1: list[float], idx: list[int], weights: list[float],
            a: float, b: float) -> None:
    """Share ``[a, b]`` among the characters ``idx`` in proportion to ``weights``."""
    total = sum(weights)
    acc = 0.0
    for i, wt in zip(idx, weights, strict=True):
        t0[i] = a + (b - a) * acc / total if total else a
        acc += wt
        t1[i] = a + (b - a) * acc / total if total else a


def _span_time(text: str, t0: list[float], t1: list[float], s: int,
               e: int) -> tuple[float, float]:
    """Clip time from the first to the last spoken character of ``text[s:e]``."""
    chars = [i for i in range(s, e) if text[i].isalnum()]
    if not chars:
        chars = [i for i in range(s, e) if not text[i].isspace()] or [s]
    return t0[chars[0]], max(t1[i] for i in chars)


# --------------------------------------------------------------------------- layout


_CLAUSE_PUNCT = _SENTENCE_END | CLAUSE_MARKS | COMMAS | DASHES | {ENUM_COMMA}


def _fragment_len(text: str, spans: list[tuple[int, int]], k: int, zh: bool) -> int:
    """Words (zh: characters) from the break after span ``k`` up to the next clause
    punctuation, counted up to four."""
    n = 0
    for j in range(k + 1, len(spans)):
        seg = text[spans[j][0]:spans[j][1]]
        n += sum(1 for c in seg if c.isalnum()) if zh else 1
        if seg.rstrip()[-1:] in _CLAUSE_PUNCT or n > 3:
            break
    return n


def _atoms(text: str, zh: bool, word_of: list[int]) -> list[_Atom]:
    limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
    spans = _spans(text, zh, limit)
    atoms: list[_Atom] = []
    for k, (s, e) in enumerate(spans):
        if k + 1 == len(spans):
            atoms.append(_Atom(s, e))
            break
        nxt = spans[k + 1]
        left = [i for i in range(s, e) if text[i].isalnum()]
        right = [i for i in range(nxt[0], nxt[1]) if text[i].isalnum()]
        # one word timing on both sides: inside a word as the voice says it
        inside = bool(left and right) and word_of[left[-1]] == word_of[right[0]] != -1
        problem = problem_at(text, nxt[0], zh)  # the report's rules (narration.breaks)
        inside = inside or (problem is not None and problem.kind == "word")
        cost, sentence = _break_cost(text, (s, e), nxt, zh, inside)
        if problem is not None:  # worst first: a group, a word, a phrase, grammar
            cost += problem.cost
        elif inside and zh:
            cost += COST_WORD
        # a colon introduces what follows ("three moves: query, match, take"): a list after
        # it is not a fragment cut off from its clause, whatever comma comes next
        # (and after a semicolon, "负责提问；值 V，负责…": the short start of a new clause)
        after_colon = text[s:e].rstrip()[-1:] in _CLAUSE_STRONG
        if not sentence and not after_colon and cost < _COST_INSIDE_WORD:
            ahead = _fragment_len(text, spans, k, zh)
            if ahead <= 2:
                cost += _COST_FRAGMENT
        atoms.append(_Atom(s, e, cost, sentence))
    return atoms


def _short_cost(spoken: float) -> float:
    """What a cue spoken for ``spoken`` seconds costs for being short: nothing from
    MIN_DURATION and the gap the next cue takes off, up to ``_COST_SHORT_CUE`` at 0.4 s
    less."""
    short = MIN_DURATION + DEFAULT_GAP - spoken
    return _COST_SHORT_CUE * min(1.0, short / 0.4) if short > 0 else 0.0


def _cue_fragment(text: str, p: int, zh: bool) -> bool:
    """Whether a cue starting at ``text[p]`` starts with a clause cut off from what it
    belongs to (相乘 | 再相加; "a Key, | which gets matched")."""
    if zh:
        return right_fragment(text, p, None) is not None
    return en_relative_fragment(text, p) is not None


def _break_lines(text: str, atoms: list[_Atom], zh: bool, times: list[tuple[float, float]],
                 one_line_cues: bool = False) -> list[tuple[int, int]]:
    """Best line breaks as (first atom, end atom) pairs, by dynamic programming; with
    ``one_line_cues`` each line is a cue, so a line spoken in under MIN_DURATION costs
    what a short cue does, and a line may run up to ``LONG_LINE`` times the width at a
    cost."""
    limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
    # a one-line Chinese cue has the room of a second line under it: it may run a little long
    # where every break in reach is a bad one (一套|自己), never in two-line cues; English
    # keeps its 42 (a 52-character line cost "the key | of France" elsewhere)
    longest = limit * LONG_LINE if one_line_cues and zh else limit
    n = len(atoms)
    best = [math.inf] * (n + 1)
    back = [0] * (n + 1)
    best[0] = 0.0
    for i in range(n):
        if best[i] == math.inf:
            continue
        inner = 0.0
        end_time = -math.inf
        for j in range(i + 1, n + 1):
            atom = atoms[j - 1]
            if j > i + 1 and atoms[j - 2].sentence:
                inner += _COST_SENTENCE_INSIDE_LINE
            end_time = max(end_time, times[j - 1][1])
            width = line_width(_display(text[atoms[i].start:atom.end], zh), zh)
            too_long = end_time - times[i][0] > MAX_DURATION
            if j > i + 1 and (width > longest or too_long):
                break
            cost = best[i] + _COST_RAGGED * ((limit - min(width, limit)) / limit) ** 2
            if width > limit and j > i + 1:
                cost += _COST_LONG_LINE + 200.0 * (width - limit) / limit
            if j < n and not atom.sentence:  # "... end. The next": sentence parts mixed
                cost += inner
            if zh and width == 1 and n > 1:
                cost += _COST_ORPHAN
            if one_line_cues:
                cost += _short_cost(end_time - times[i][0])
            if j < n:
                cost += atom.cost
                if zh and left_fragment(text, atoms[j].start, atoms[i].start):
                    cost += COST_GRAMMAR
            if zh and i > 0 and right_fragment(text, atoms[i].start, atom.end):
                cost += COST_GRAMMAR
            elif i > 0 and _cue_fragment(text, atoms[i].start, zh):
                cost += _COST_FRAGMENT  # fine inside a cue, bad if a cue starts with it
            if cost < best[j]:
                best[j] = cost
                back[j] = i
    lines: list[tuple[int, int]] = []
    j = n
    while j > 0:
        lines.append((back[j], j))
        j = back[j]
    return lines[::-1]


def _group_lines(text: str, zh: bool, atoms: list[_Atom], lines: list[tuple[int, int]],
                 times: list[tuple[float, float]],
                 max_lines: int = MAX_LINES) -> list[list[tuple[int, int]]]:
    """Group lines into cues of at most ``max_lines`` lines lasting at most 7 s. A short
    clause that ends its sentence part is not the first line of the next cue (相乘 |
    再相加): the cue it starts shows it apart from its sentence whatever line it is on."""
    m = len(lines)
    best = [math.inf] * (m + 1)
    back = [0] * (m + 1)
    best[0] = 0.0
    for k in range(m):
        for size in range(1, max_lines + 1):
            if k + size > m:
                break
            first, last = lines[k][0], lines[k + size - 1][1] - 1
            start = times[first][0]
            end = max(t[1] for t in times[first:last + 1])
            if size > 1 and end - start > MAX_DURATION:
                break
            cost = best[k] + _COST_CUE
            if k + size < m:
                cost += atoms[last].cost
                if _cue_fragment(text, atoms[lines[k + size][0]].start, zh):
                    cost += COST_GRAMMAR
            cost += sum(_COST_SENTENCE_INSIDE_CUE for a, _ in lines[k + 1:k + size]
                        if atoms[a - 1].sentence)
            cost += _short_cost(end - start)
            if cost < best[k + size]:
                best[k + size] = cost
                back[k + size] = k
    groups: list[list[tuple[int, int]]] = []
    j = m
    while j > 0:
        groups.append(lines[back[j]:j])
        j = back[j]
    return groups[::-1]


def _raw_cues(text: str, words: Sequence[WordTiming], lang: str, offset: float,
              speech_end: float, max_lines: int = MAX_LINES,
              room: float = 0.0, before: float | None = None) -> list[_RawCue]:
    """The beat's cues before scheduling; ``room`` is the pause after its speech,
    ``before`` the end of the previous beat's speech in a track (None: a beat alone)."""
    zh = _is_zh(lang)
    if not (math.isfinite(offset) and math.isfinite(speech_end)):
        raise ValueError("offset and speech_end must be finite")
    if offset < 0:
        raise ValueError(f"offset must be >= 0, got {offset}")
    if not text.strip():
        return []
    if speech_end <= 0:
        raise ValueError(f"speech_end must be > 0 for non-empty text, got {speech_end}")
    t0, t1, word_of = _char_times(text, words, speech_end)
    atoms = _atoms(text, zh, word_of)
    times = [_span_time(text, t0, t1, a.start, a.end) for a in atoms]
    lo = _ms_up(offset)
    hi = max(lo, _ms_down(offset + speech_end))
    grace_hi = hi + _ms_down(max(0.0, min(room, GRACE)))
    lead_lo = lo if before is None else min(lo, max(0, lo - _ms_down(LEAD),
                                                     _ms_down(before) + 1))
    out: list[_RawCue] = []
    lines = _break_lines(text, atoms, zh, times, max_lines == 1)
    for group in _group_lines(text, zh, atoms, lines, times, max_lines):
        shown = (_display(text[atoms[a].start:atoms[b - 1].end], zh) for a, b in group)
        lines = tuple(line for line in shown if line)
        if not lines:
            continue
        start, end = _span_time(text, t0, t1, atoms[group[0][0]].start,
                                atoms[group[-1][1] - 1].end)
        chars = reading_chars(lines, zh)
        out.append(_RawCue(round((offset + start) * 1000), round((offset + end) * 1000),
                           lo, hi, lines, round(chars / COMFORT_CPS[zh] * 1000), grace_hi,
                           math.ceil(chars / MAX_CPS[zh] * 1000), lead_lo))
    return out


# --------------------------------------------------------------------------- scheduling


def _ms_up(t: float) -> int:
    return math.ceil(t * 1000 - 1e-6)


def _ms_down(t: float) -> int:
    return math.floor(t * 1000 + 1e-6)


def _place(raw: Sequence[_RawCue], visible: int, gap: int) -> list[int] | None:
    """Cue starts (ms) as close to the wanted ones as the bounds allow, or None."""
    starts: list[int] = []
    for r in raw:
        s = min(max(r.start, r.lo), r.hi - visible)
        if starts:
            s = max(s, starts[-1] + visible + gap)
        starts.append(s)
    for i in range(len(raw) - 1, -1, -1):
        limit = raw[i].hi - visible
        if i + 1 < len(raw):
            limit = min(limit, starts[i + 1] - gap - visible)
        starts[i] = min(starts[i], limit)
    ok = all(s >= r.lo for s, r in zip(starts, raw, strict=True)) and all(
        b - a >= visible + gap for a, b in itertools.pairwise(starts)
    )
    return starts if ok else None


def _schedule(raw: Sequence[_RawCue], gap: float) -> list[Cue]:
    """Apply the min/max duration, gap and bound rules; times in whole milliseconds."""
    if not raw:
        return []
    visible, gap_ms = _MS_MIN_VISIBLE, _ms_up(gap)
    min_ms, max_ms = _ms_up(MIN_DURATION), _ms_down(MAX_DURATION)
    starts = _place(raw, visible, gap_ms)
    while starts is None:  # too little speech time for this many cues: shrink the spacing
        visible, gap_ms = visible // 2, gap_ms // 2
        starts = _place(raw, visible, gap_ms)
        if starts is None and visible == gap_ms == 0:
            raise ValueError("cues cannot be ordered inside their beats (overlapping beats?)")
    cues: list[Cue] = []
    for i, (r, s) in enumerate(zip(raw, starts, strict=True)):
        limit = min(r.hi, s + max_ms)
        after = min(max(r.hi, r.grace_hi), s + max_ms)  # a short cue may outlast the speech
        if i + 1 < len(raw):
            limit = min(limit, starts[i + 1] - gap_ms)
            after = min(after, starts[i + 1] - gap_ms)
        want = max(min_ms, r.read_ms)
        end = max(min(max(r.end, s + want), limit), s + visible)
        if end - s < want:  # too short to read: it may outlast the speech a little
            end = max(end, min(s + want, after))
        need = max(min_ms, r.need_ms) - (end - s)
        if need > 0:  # still too short or too fast: start a little before the speech
            floor = max(r.lead_lo if r.lead_lo >= 0 else r.lo, end - max_ms,
                        round(cues[-1].end * 1000) + gap_ms if cues else 0)
            s = min(s, max(floor, s - min(need, _ms_down(LEAD))))
        cues.append(Cue(s / 1000, end / 1000, r.lines))
    return cues


# --------------------------------------------------------------------------- public API


def cues_for_beat(text: str, words: Sequence[WordTiming], lang: str, offset: float,
                  speech_end: float, *, gap: float = DEFAULT_GAP) -> list[Cue]:
    """Subtitle cues for one narration beat.

    ``text`` is spoken from ``offset`` (absolute seconds in the video); ``words`` are its
    timings relative to the clip start, and ``speech_end`` is the clip-relative time the
    speech ends, so every cue lies in ``[offset, offset + speech_end]``. ``lang`` is
    ``zh*`` or ``en*``; ``gap`` is the minimum pause between consecutive cues in seconds.
    """
    return _schedule(_raw_cues(text, words, lang, offset, speech_end), gap)


def build_track(beats: Sequence[tuple[str, Sequence[WordTiming], float, float]], lang: str,
                *, gap: float = DEFAULT_GAP, max_lines: int = MAX_LINES) -> list[Cue]:
    """All cues of a video from ``(text, words, offset, speech_end)`` beats in time order.

    The gap rule also holds across beat boundaries. Beats whose speech overlaps raise
    ``ValueError``. ``words`` may be empty: the speech time is then spread over the text
    (the other language's subtitles, timed to this video's voice).
    """
    raw: list[_RawCue] = []
    prev_end = -math.inf
    for k, (text, words, offset, speech_end) in enumerate(beats):
        if offset < prev_end - 1e-6:
            raise ValueError(f"beat at {offset:.3f} s starts before the previous speech "
                             f"ends ({prev_end:.3f} s)")
        prev_end = offset + speech_end
        room = beats[k + 1][2] - prev_end if k + 1 < len(beats) else GRACE
        raw.extend(_raw_cues(text, words, lang, offset, speech_end, max_lines, room,
                             beats[k - 1][2] + beats[k - 1][3] if k else 0.0))
    return _schedule(raw, gap)


def write_srt(cues: Sequence[Cue], path: Path) -> None:
    """Write ``cues`` as a UTF-8 SRT file, atomically."""
    subtitle_files.write(cues, Path(path), "srt")


def read_srt(path: Path) -> list[Cue]:
    """Read an SRT (or WebVTT) file into cues."""
    return subtitle_files.read(Path(path))


def cues_by_beat(cues: Sequence[Cue], beats: Sequence[tuple[float, float]]
                 ) -> list[list[Cue]]:
    """``cues`` (in time order) grouped by the beat they start in; ``beats`` are (offset,
    speech end) in time order."""
    out: list[list[Cue]] = []
    k = 0
    for offset, speech_end in beats:
        mine: list[Cue] = []
        while k < len(cues) and cues[k].start <= offset + speech_end + 1e-6:
            mine.append(cues[k])
            k += 1
        out.append(mine)
    return out
