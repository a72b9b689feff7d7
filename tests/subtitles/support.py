"""Realistic inputs and property checks shared by the subtitle tests."""

from __future__ import annotations

import re
from collections.abc import Sequence

from narration.subtitles import (
    EN_MAX_CHARS,
    MAX_DURATION,
    MIN_DURATION,
    ZH_MAX_CHARS,
    Cue,
    cues_for_beat,
    line_width,
)
from narration.types import WordTiming

ZH_DROP = "，、。；：,;:．｡､"
GAP = 0.08
EPS = 1e-6

# 63 characters, per-character timings (like espeak).
ZH_SENTENCE = (
    "在注意力机制里，每个词先生成查询、键和值三个向量。"
    "查询和所有的键做点积，分数除以根号d再做softmax，就得到了权重。"
)
# ~220 characters, per-word timings (like edge-tts).
EN_SENTENCE = (
    "Attention lets every token look at every other token and decide how much of each "
    "one to use. The query asks a question, the key advertises what a token contains, "
    "and the value is what actually gets passed along when the match is strong."
)


def zh_char_timings(text: str, start: float = 0.3, step: float = 0.2,
                    pause: float = 0.25) -> tuple[list[WordTiming], float]:
    """One timing per CJK character / Latin token; punctuation untimed but pauses."""
    words: list[WordTiming] = []
    t = start
    for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9.·%]*|\S", text):
        tok = m.group()
        if tok.isalnum() or len(tok) > 1:
            dur = step * (1 if len(tok) == 1 else max(1, len(tok) // 2))
            words.append(WordTiming(t, t + dur * 0.9, m.start(), m.end()))
            t += dur
        else:
            t += pause
    return words, t + 0.2


def en_word_timings(text: str, start: float = 0.2, per_char: float = 0.06,
                    pause: float = 0.3) -> tuple[list[WordTiming], float]:
    """One timing per word (without trailing punctuation), pauses after punctuation."""
    words: list[WordTiming] = []
    t = start
    for m in re.finditer(r"\S+", text):
        core = m.group().rstrip(",.;:!?")
        dur = 0.1 + per_char * len(core)
        words.append(WordTiming(t, t + dur, m.start(), m.start() + len(core)))
        t += dur + 0.04
        if core != m.group():
            t += pause
    return words, t + 0.2


def align(text: str, cues: Sequence[Cue], zh: bool) -> list[tuple[int, int]]:
    """Map every cue onto ``text``: (index of first, index past last) character.

    Fails unless the cue lines, read in order, reproduce the text exactly apart from
    whitespace and (Chinese) punctuation dropped at line ends.
    """
    drop = ZH_DROP if zh else ""
    pos = 0
    spans: list[tuple[int, int]] = []
    for cue in cues:
        first = None
        for line in cue.lines:
            while pos < len(text) and (text[pos].isspace() or
                                       (text[pos] in drop and text[pos] != line[0])):
                pos += 1
            if first is None:
                first = pos
            for ch in line:
                if ch == " ":
                    assert text[pos].isspace(), (line, text[pos:pos + 10])
                    while text[pos].isspace():
                        pos += 1
                else:
                    assert pos < len(text) and text[pos] == ch, (line, text[pos:pos + 10])
                    pos += 1
        assert first is not None
        spans.append((first, pos))
    rest = text[pos:]
    assert all(c.isspace() or c in drop for c in rest), rest
    return spans


def check_layout(text: str, cues: Sequence[Cue], zh: bool) -> list[tuple[int, int]]:
    """Line limits, no empty cues/lines, nothing lost or duplicated, Chinese line ends."""
    limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
    for cue in cues:
        assert 1 <= len(cue.lines) <= 2, cue
        for line in cue.lines:
            assert line and line == line.strip(), cue
            assert line_width(line, zh) <= limit, cue
            if zh:
                assert line[-1] not in ZH_DROP, cue
    return align(text, cues, zh)


def check_timing(cues: Sequence[Cue], bounds: Sequence[tuple[float, float]],
                 gap: float = GAP) -> None:
    """Order, gap, per-cue bounds, max duration and the min-duration rule."""
    for i, (cue, (lo, hi)) in enumerate(zip(cues, bounds, strict=True)):
        assert lo - EPS <= cue.start < cue.end <= hi + EPS, (cue, lo, hi)
        assert cue.end - cue.start <= MAX_DURATION + EPS, cue
        if i + 1 < len(cues):
            nxt = cues[i + 1]
            assert nxt.start - cue.end >= gap - EPS, (cue, nxt)
        if cue.end - cue.start < MIN_DURATION - 0.002:
            # Only allowed when held back by the next cue or the end of the speech.
            held = abs(cue.end - hi) < 0.002
            if i + 1 < len(cues):
                held = held or abs(cues[i + 1].start - gap - cue.end) < 0.002
            assert held, cue


def first_spoken(text: str, span: tuple[int, int]) -> int:
    return next(i for i in range(*span) if text[i].isalnum())


def timing_at(words: Sequence[WordTiming], index: int) -> WordTiming | None:
    return next((w for w in words if w.char_start <= index < w.char_end), None)


def zh_cues(text: str, offset: float = 0.0) -> list[Cue]:
    words, end = zh_char_timings(text)
    return cues_for_beat(text, words, "zh", offset, end)


def en_cues(text: str, offset: float = 0.0) -> list[Cue]:
    words, end = en_word_timings(text)
    return cues_for_beat(text, words, "en", offset, end)


def line_starts(text: str, cues: Sequence[Cue], zh: bool) -> list[int]:
    """Where each line after the first starts in ``text`` (character by character, as
    :func:`align` reads them, so a repeated word cannot be mistaken for another)."""
    drop = ZH_DROP if zh else ""
    pos, starts = 0, []
    for line in (line for cue in cues for line in cue.lines):
        while pos < len(text) and (text[pos].isspace()
                                   or (text[pos] in drop and text[pos] != line[0])):
            pos += 1
        starts.append(pos)
        for ch in line:
            if ch == " ":
                while text[pos].isspace():
                    pos += 1
            else:
                assert text[pos] == ch, (line, text[pos:pos + 10])
                pos += 1
    return starts[1:]
