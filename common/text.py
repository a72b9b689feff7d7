"""What kind of character a character is, and how wide text is: written once for the
subtitles, the voice's word timings, the quality report and the numbers file's checks."""

from __future__ import annotations

import functools
import unicodedata

CJK_RANGES = (
    (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3040, 0x30FF), (0x3100, 0x312F),
    (0x31A0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF), (0x20000, 0x3134F),
)
"""Han ideographs (and their extensions, radicals, 々〆〇), kana, bopomofo and hangul."""


@functools.cache  # called per character by the subtitle breaker: ~10^5 calls a run
def is_cjk(c: str) -> bool:
    """A CJK letter: scripts written without spaces between words (punctuation is not)."""
    o = ord(c)
    return c.isalnum() and any(a <= o <= b for a, b in CJK_RANGES)


@functools.cache
def is_wide(c: str) -> bool:
    """A full-width character in a subtitle line: a CJK letter, CJK punctuation or a
    full-width form."""
    return is_cjk(c) or "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef"


def columns(s: str) -> int:
    """Display width of ``s`` in a terminal's columns: 2 for a wide (East Asian wide or
    full-width) character, 1 for any other."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


# Punctuation, by what it does to a sentence: written once for the subtitle breaker, its
# judge of bad breaks, the bilingual track, the word segmenter and the scenes' text wrap.
SENTENCE_ENDS = frozenset("。！？!?．｡‼⁇⁈⁉")
"""Marks that end a sentence. Not ``.`` (also a decimal point and an abbreviation's mark:
each user adds it where it may end a sentence) nor the ellipses."""
ELLIPSES = frozenset("…⋯")
CLAUSE_MARKS = frozenset("；;：:")
"""Semicolons and colons: a clause ends, the sentence goes on."""
DASHES = frozenset("—―")
COMMAS = frozenset("，,､")
ENUM_COMMA = "、"
"""The enumeration comma (苹果、梨): it joins a list's items rather than ending a clause."""
OPEN_BRACKETS = "([{（【「『《〈"
CLOSE_BRACKETS = ")]}）】」』》〉"
OPEN_QUOTES = "“‘"
CLOSE_QUOTES = "”’"
OPENERS = OPEN_BRACKETS + OPEN_QUOTES
CLOSERS = CLOSE_BRACKETS + CLOSE_QUOTES
GROUP_OPENERS = OPEN_BRACKETS + "“"
GROUP_CLOSERS = CLOSE_BRACKETS + "”"
"""What opens and closes a group counted by nesting depth: the single quotes left out, as
’ is also the apostrophe (don’t)."""
