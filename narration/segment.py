"""Word boundaries in Chinese text, with jieba's segmenter (it ships its own dictionary).

Subtitle lines must never break inside a word; Chinese has no spaces to show where words
end, so a dictionary segmenter finds them.
"""

from __future__ import annotations

from functools import cache, lru_cache


@cache
def _jieba():
    import jieba

    jieba.setLogLevel(60)  # no "Building prefix dict" chatter on stderr
    jieba.initialize()
    return jieba


@lru_cache(maxsize=1024)
def word_boundaries(text: str) -> frozenset[int]:
    """Offsets in ``text`` that fall between two words (including 0 and ``len(text)``)."""
    out = {0, len(text)}
    pos = 0
    for token in _jieba().cut(text, HMM=False):
        pos += len(token)
        out.add(pos)
    return frozenset(out)


OPENERS = "([{（【「『“《〈"
CLOSERS = ")]}）】」』”》〉"


def group_depth(text: str) -> list[int]:
    """For each offset ``i``, how many brackets or quotes are open before ``text[i]``."""
    depth, quote = 0, False
    out = [0] * (len(text) + 1)
    for i, c in enumerate(text):
        out[i] = depth + quote
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth = max(0, depth - 1)
        elif c == '"':
            quote = not quote
    out[len(text)] = depth + quote
    return out
