"""Word boundaries in Chinese text, with jieba's segmenter (it ships its own dictionary).

Subtitle lines must never break inside a word; Chinese has no spaces to show where words
end, so a dictionary segmenter finds them.
"""

from __future__ import annotations

from functools import cache, lru_cache

from common.text import GROUP_CLOSERS, GROUP_OPENERS

# Terms of this subject that jieba's general dictionary cuts apart ("掩码自/注意力").
DOMAIN_WORDS = ("注意力", "自注意力", "掩码自注意力", "交叉注意力", "多头注意力", "缩放点积注意力",
                "点积", "加权求和", "查询", "编码器", "解码器", "向量", "矩阵", "份额", "梯度")
# Parts of speech jieba's dictionary lacks or gets wrong for this subject's words (the
# subtitle break rules read them: ``narration.breaks``).
DOMAIN_TAGS = {"加权求和": "v", "查询": "vn", "比对": "v", "除以": "v", "乘以": "v",
               "混起来": "v", "加起来": "v", "还要": "d", "往": "p"}


@cache
def _tokenizers():
    """A word segmenter and a tagger of its own that know this subject's words (jieba's,
    the tagger over the segmenter). Its own: adding the words to jieba's shared one would
    change how Kokoro's readings cut the same text (``narration.tts.kokoro`` reads words
    as misaki does, with jieba's plain dictionary) depending on whether subtitles had been
    made in the process before, so a beat was voiced one way and checked another. The
    shared dictionary is loaded once and copied (about 20 ms)."""
    import jieba
    import jieba.posseg

    jieba.setLogLevel(60)  # no "Building prefix dict" chatter on stderr
    jieba.initialize()
    words = jieba.Tokenizer()
    words.FREQ, words.total = dict(jieba.dt.FREQ), jieba.dt.total
    words.initialized = True
    tags = jieba.posseg.POSTokenizer.__new__(jieba.posseg.POSTokenizer)
    tags.tokenizer = words
    tags.word_tag_tab = dict(jieba.posseg.dt.word_tag_tab)
    for word in DOMAIN_WORDS:
        words.add_word(word, freq=100_000, tag=DOMAIN_TAGS.get(word, "n"))
    for word, tag in DOMAIN_TAGS.items():
        if word not in DOMAIN_WORDS:
            words.add_word(word, tag=tag)
    return words, tags


@lru_cache(maxsize=1024)
def word_boundaries(text: str) -> frozenset[int]:
    """Offsets in ``text`` that fall between two words (including 0 and ``len(text)``)."""
    out = {0, len(text)}
    pos = 0
    for token in _tokenizers()[0].cut(text, HMM=False):
        pos += len(token)
        out.add(pos)
    return frozenset(out)


@lru_cache(maxsize=512)
def pos_tokens(text: str) -> tuple[tuple[str, str], ...]:
    """``text`` cut into words with their part-of-speech tags (the same words as
    :func:`word_boundaries`); the words join back into ``text``."""
    return tuple((p.word, p.flag) for p in _tokenizers()[1].cut(text, HMM=False))


def group_depth(text: str) -> list[int]:
    """For each offset ``i``, how many brackets or quotes are open before ``text[i]``."""
    depth, quote = 0, False
    out = [0] * (len(text) + 1)
    for i, c in enumerate(text):
        out[i] = depth + quote
        if c in GROUP_OPENERS:
            depth += 1
        elif c in GROUP_CLOSERS:
            depth = max(0, depth - 1)
        elif c == '"':
            quote = not quote
    out[len(text)] = depth + quote
    return out


def enclosing_group(text: str, p: int) -> tuple[int, int] | None:
    """The innermost brackets or quotes open at offset ``p``: (opener, past its closer)."""
    stack: list[int] = []
    quote: int | None = None
    for i, c in enumerate(text[:p]):
        if c in GROUP_OPENERS:
            stack.append(i)
        elif c in GROUP_CLOSERS and stack:
            stack.pop()
        elif c == '"':
            quote = i if quote is None else None
    start = max([*stack, quote if quote is not None else -1])
    if start < 0:
        return None
    depth = 0
    for j in range(start, len(text)):
        c = text[j]
        if j > start and c == '"' and text[start] == '"':
            return start, j + 1
        if c in GROUP_OPENERS:
            depth += 1
        elif c in GROUP_CLOSERS:
            depth -= 1
            if depth == 0:
                return start, j + 1
    return start, len(text)
