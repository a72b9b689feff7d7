"""Tight phrases a subtitle line or cue should not be broken inside, beyond words, numbers,
brackets and quotes (``narration.wordseg``): lists of symbols ("Q、K、V", "Q, K and V"), a
label letter with its noun ("键 K", "法国的 K", "根号 d"), number lists ("66%, 24%, 9% and
0.4%", "1乘1，1乘1，0乘0"), verb–particle pairs ("hands over"), and short fixed noun phrases
("square root of d", "key entry", "keys and values", "这套").

One place for both the line breaker (``narration.subtitles``, which makes a break inside a
span costly) and the quality report (``pipeline.quality``, which counts any that remain),
so the report's rules are the breaker's. Written as patterns because no library knows these
domain phrases; jieba (Chinese words) is used where words matter.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NUM = r"[−-]?\d+(?:\.\d+)?%?"
_ZH_ITEM = rf"{_NUM}(?:\s*(?:乘|×)\s*{_NUM})?"
_EN_ITEM = rf"{_NUM}(?:\s*(?:times|×)\s*{_NUM})?"
_HAN = r"[\u3400-\u9fff]"
_SYM = r"(?:[A-Za-z]|QK)(?![A-Za-z])"  # a symbol: Q, K, V, q, d, QK
_EN_SYM = r"(?:[B-HJ-Zb-z]|QK)(?![A-Za-z])"  # the same, but not the words "a", "A" and "I"

ZH_PATTERNS = (
    # lists of symbols: Q、K、V / Q、K 和 V / q、k、v
    rf"(?<![A-Za-z]){_SYM}(?:\s*、\s*{_SYM})+(?:\s*和\s*{_SYM})?",
    rf"(?<![A-Za-z]){_SYM}\s*和\s*{_SYM}",
    # number lists: 66%、24%、9%和0.4% / 1乘1，1乘1，0乘0
    rf"{_ZH_ITEM}(?:\s*(?:、|，|,|和)\s*{_ZH_ITEM})+",
    # a square root and what divides by it: 除以根号 d, 根号 256
    r"(?:除以\s*)?根号\s*(?:[A-Za-z]+|\d+(?:\.\d+)?)",
    # a label letter with the noun before it (键 K, 法国的 K, 查询 q)
    rf"{_HAN}{{1,2}}的?\s*{_SYM}(?=[\s，。、；：？！]|$|{_HAN})",
    # a demonstrative and its measure word: 这套, 这一步, 每一行
    r"[这那每](?:一)?[个套种位条张句步组行列项次份层]",
)

_PARTICLES = "over|up|out|in|off|back|down|on|away|through|together"
_VERBS = ("hand|add|fill|pick|give|turn|look|sum|set|move|come|go|get|line|point|stand|stay|"
          "carry|mix|blend|take|bring|build|show|pass|hold|cut|even|flatten|push|pull|spread|"
          "divide|multiply|scale|weigh|mark|wash|drown|count|match|stick|pile|split|light")
_NOUN = ("query|queries|key|keys|value|values|score|scores|share|shares|weight|weights|word|"
         "words|row|rows|column|columns|vector|vectors|entry|entries|feature|features")

EN_PATTERNS = (
    # lists of symbols: Q, K and V / q, k, v
    rf"(?<![A-Za-z]){_EN_SYM}(?:, {_EN_SYM})*,? (?:and|or) {_EN_SYM}",
    rf"(?<![A-Za-z]){_EN_SYM}(?:, {_EN_SYM})+",
    # number lists: 66%, 24%, 9% and 0.4% / 1 times 1, 1 times 1, 0 times 0
    rf"{_EN_ITEM}(?:(?:,|,? and) {_EN_ITEM})+",
    # verb–particle pairs: hands over, adds up
    rf"\b(?:{_VERBS})(?:s|es|ed|d|ing)? (?:{_PARTICLES})\b",
    # a transposed matrix: K transposed, K-transpose
    rf"(?<![A-Za-z]){_EN_SYM}[ -]transposed?\b",
    # a square root: square root of d, root 2
    r"\b(?:the )?square root of (?:[A-Za-z]\b|\d+(?:\.\d+)?)",
    r"\broot (?:[A-Za-z]\b|\d+(?:\.\d+)?)",
    # two-word terms: key entry, dot product, attention weights, query vector
    rf"\b(?:key|query|value|dot|attention|word|score|share)s? (?:{_NOUN}|product|products|"
    rf"matrix|matrices)\b",
    # two nouns joined: keys and values, queries and keys
    rf"\b(?:{_NOUN}) (?:and|or) (?:{_NOUN})\b",
    # a noun and its label letter: the query q, key K, value v
    rf"\b(?:{_NOUN}|word|vector|matrix) {_EN_SYM}(?=[\s,.;:!?]|$)",
)

_ZH = [re.compile(p) for p in ZH_PATTERNS]
_EN = [re.compile(p, re.IGNORECASE) for p in EN_PATTERNS]


@lru_cache(maxsize=2048)
def phrase_spans(text: str, zh: bool) -> tuple[tuple[int, int], ...]:
    """(start, end) of every tight phrase in ``text``, merged where they overlap."""
    found = []
    for pattern in _ZH if zh else _EN:
        for m in pattern.finditer(text):
            a, b = m.span()
            while b > a and text[b - 1].isspace():
                b -= 1
            if b - a >= 2:
                found.append((a, b))
    found.sort()
    merged: list[list[int]] = []
    for a, b in found:
        if merged and a < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return tuple((a, b) for a, b in merged)


def inside_phrase(text: str, p: int, zh: bool) -> tuple[int, int] | None:
    """The tight phrase a break before ``text[p]`` would cut, or None. A break at a space
    counts from the first character after the space."""
    for a, b in phrase_spans(text, zh):
        q = p
        while q > a and text[q - 1].isspace():
            q -= 1
        if a < q and p < b:
            return a, b
    return None
