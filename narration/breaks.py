"""Where a subtitle line or cue may break: one judge for the breaker and the report.

:func:`bad_break` says why a break before ``text[p]`` is one a reader would call bad, or
None. The line breaker (``narration.subtitles``) adds each problem's :attr:`BadBreak.cost`
to that break (:func:`problem_at` for the break itself, :func:`left_fragment` and
:func:`right_fragment` for the lines around it), so it chooses other breaks where the
limits allow; the quality report (``pipeline.quality``) counts every problem that is
:attr:`BadBreak.counted`. So the report's rules are the breaker's.

What is bad, in both languages: a break inside brackets or quotes that fit on a line, inside
a number, a word or a tight phrase (``narration.phrases``). Then by grammar:

* Chinese, from jieba's part-of-speech tags (``narration.wordseg.pos_tokens``): a line
  starting with a particle or postposition (``u*``: 的 地 得 了 着; ``f``: 上 里 中 之前;
  ``y``), a line ending with a preposition (``p``) or a conjunction (``c``), or with a verb
  whose object or complement follows (``v`` then a noun, pronoun, number, adjective, verb
  or bracket), or with 的 before its noun, or with 地/得; a short verb left alone after
  the prepositional phrase it belongs to (把所有词的 V | 混起来); a break inside a
  coordinated pair (X 和 Y, X、Y, where 和 is not the preposition "with": 和 Q 对上); and at
  punctuation, a clause of a few characters cut off from the sentence part it belongs to
  (读进去的是正文，| 不是标签： / 负责提问；键 K，| 负责被比对), except the items of a
  list after a colon.
* English: a line ending with a preposition, an article, a conjunction, "to", a possessive
  or another determiner (unless the preposition ends its phrase: "looking for / is"), an
  auxiliary or contraction ("is often / spread", "they're / what", "the blank's / query")
  or a question word ("how far / a dot product"), or between an infinitive or a modal's
  verb and the object that follows ("to keep / the numbers"); inside a noun phrase, before
  its head ("the 4 / words", "the same / three matrices", "a negative / key entry", "the
  error / signal", "all the words' / values"); between a formula's operator and its
  operand ("Q times / K"), an adverb and its verb ("already / mixed"), a particle and a
  bare noun object ("mixed in | neighbours"), a label and its short value at a colon
  ("France: | “French”", "summed: | 2."); and a cue starting with a relative clause cut
  off from a short noun phrase, or a short relative clause ("a Key, | which gets
  matched").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from common.text import (
    CLAUSE_MARKS,
    CLOSERS,
    COMMAS,
    DASHES,
    ELLIPSES,
    ENUM_COMMA,
    OPENERS,
    SENTENCE_ENDS,
    is_cjk,
)
from narration.phrases import inside_phrase
from narration.wordseg import enclosing_group, pos_tokens, word_boundaries

ZH_MAX_CHARS = 16
"""Longest line (Chinese; half-width characters count half), also the breaker's limit."""
EN_MAX_CHARS = 42
LONG_LINE = 1.25
"""How far past the line width a one-line cue may run (a bilingual cue's own line, the
other language's line) where every break in reach is a bad one: a line a few characters
long beats 一套|自己."""

# Costs the line breaker adds (only their order matters much); see narration.subtitles.
COST_GROUP = 400.0  # inside brackets or quotes: a vector, a quoted phrase
COST_WORD = 250.0  # between two characters of one Chinese word
COST_PHRASE = 220.0  # inside a tight phrase: Q、K、V, 66%, 24% and 9%, hands over
COST_GRAMMAR = 200.0  # a particle, preposition, object, pair or dangling clause cut off
COST_LONG_GROUP = COST_GROUP  # inside brackets longer than a line (not counted: they must)


@dataclass(frozen=True)
class BadBreak:
    """Why a break is bad: ``kind`` (a short name), ``where`` (the text around it)."""

    kind: str
    reason: str
    where: str
    cost: float = COST_GRAMMAR
    counted: bool = True

    def __str__(self) -> str:
        return f"{self.reason}: {self.where}"


# --------------------------------------------------------------------------- shared

NO_LINE_START = SENTENCE_ENDS | CLAUSE_MARKS | COMMAS | ELLIPSES | {".", ENUM_COMMA} | set(CLOSERS)
"""Marks that close what came before: no line starts with one."""


_PUNCT_STRENGTH = {**dict.fromkeys(SENTENCE_ENDS | ELLIPSES, 3),
                   **dict.fromkeys(CLAUSE_MARKS | DASHES, 2),
                   **dict.fromkeys(COMMAS | {ENUM_COMMA}, 1)}


def _width(s: str, zh: bool) -> float:
    if not zh:
        return float(len(s))
    return sum(1.0 if is_cjk(c) or ord(c) > 0x2E7F else 0.5 for c in s)


def _where(text: str, q: int, p: int) -> str:
    return f"…{text[max(0, q - 8):q]}|{text[p:p + 8]}…"


def bad_break(text: str, p: int, zh: bool, start: int = 0,
              end: int | None = None) -> BadBreak | None:
    """The worst problem of a break before ``text[p]`` (a line or cue starting there), or
    None when a reader would find it fine. ``start`` is where the line before the break
    starts and ``end`` where the line after it ends (None: a cue starts at the break, or
    it is not known). A break at spaces counts from the first character after them."""
    problem = problem_at(text, p, zh)
    if problem is None and zh:
        problem = left_fragment(text, p, start) or right_fragment(text, p, end)
    elif problem is None and end is None:
        problem = en_relative_fragment(text, p)
    return problem


def counted_break(text: str, p: int, zh: bool, start: int = 0,
                  end: int | None = None) -> BadBreak | None:
    """:func:`bad_break`'s problem when the report counts it (the one judge the subtitle
    tracks, the bilingual track and on-screen wrapping share), else None."""
    problem = bad_break(text, p, zh, start, end)
    return problem if problem is not None and problem.counted else None


@lru_cache(maxsize=4096)
def problem_at(text: str, p: int, zh: bool) -> BadBreak | None:
    """The problem of a break before ``text[p]`` whatever lines it ends and starts (all
    but the fragments), or None."""
    if p <= 0 or p >= len(text):
        return None
    q = p
    while q > 0 and text[q - 1].isspace():
        q -= 1
    where = _where(text, q, p)
    limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
    group = enclosing_group(text, p)
    if group is not None and group[0] < q:
        if _width(text[group[0]:group[1]], zh) <= limit:
            return BadBreak("group", "inside brackets or quotes", where, COST_GROUP)
        return BadBreak("group", "inside brackets or quotes longer than a line", where,
                        COST_LONG_GROUP, counted=False)
    before, after = text[q - 1], text[p]
    if (before.isdigit() and (after.isdigit() or after in ".,%")) or (
            before in ".," and after.isdigit() and q == p):
        return BadBreak("number", "inside a number", where, COST_GROUP)
    if q == p and before.isalnum() and after.isalnum():
        if not (is_cjk(before) and is_cjk(after)):
            return BadBreak("word", "inside a word", where, COST_WORD)
        if p not in word_boundaries(text):
            return BadBreak("word", "inside a word", where, COST_WORD)
    phrase = inside_phrase(text, p, zh)
    if phrase is not None and not (zh and _before_with(text, p)):
        return BadBreak("phrase", f"inside a phrase ({text[phrase[0]:phrase[1]]})", where,
                        COST_PHRASE)
    found = _zh_grammar(text, q, p) if zh else _en_grammar(text, q, p)
    if found is not None:
        return BadBreak(found[0], found[1], where)
    return None


# --------------------------------------------------------------------------- Chinese


@dataclass(frozen=True)
class _Tok:
    start: int
    end: int
    word: str
    flag: str

    @property
    def punct(self) -> bool:
        return self.word.strip() != "" and all(c in _PUNCT_STRENGTH for c in self.word)

    @property
    def space(self) -> bool:
        return not self.word.strip()

    @property
    def bracket(self) -> bool:
        return all(c in OPENERS or c in CLOSERS or c == '"' for c in self.word)

    @property
    def verb(self) -> bool:
        return self.flag.startswith("v") and self.flag != "vn"

    @property
    def idiom(self) -> bool:
        """Idioms and set phrases (各不相同, 一边倒): verbs or modifiers."""
        return self.flag in ("i", "l")

    @property
    def nounish(self) -> bool:
        """What can be (part of) an object or a noun's head: nouns, pronouns, numbers,
        measure words, adjectives, distinguishing words, Latin symbols and numbers."""
        return (self.flag[:1] in ("n", "r", "m", "q", "a", "b", "z", "s", "t")
                or self.flag in ("eng", "vn") or (self.word[:1].isalnum()
                and not is_cjk(self.word[0])))


@lru_cache(maxsize=512)
def _tokens(text: str) -> tuple[_Tok, ...]:
    out, pos = [], 0
    for word, flag in pos_tokens(text):
        out.append(_Tok(pos, pos + len(word), word, flag))
        pos += len(word)
    return tuple(out)


def _index(toks: tuple[_Tok, ...], pos: int) -> int:
    """Index of the token that starts at or after ``pos``."""
    for i, t in enumerate(toks):
        if t.end > pos:
            return i
    return len(toks)


def _zh_grammar(text: str, q: int, p: int) -> tuple[str, str] | None:
    toks = _tokens(text)
    ri = _index(toks, p)  # first token of the new line
    li = ri - 1  # last token of the old line, before spaces and closing brackets
    while li >= 0 and (toks[li].space or (toks[li].bracket and toks[li].word[0] in CLOSERS)):
        li -= 1
    if li < 0 or ri >= len(toks):
        return None
    if toks[li].punct:
        return _zh_at_punctuation(text, toks, li, ri)
    while ri < len(toks) and (toks[ri].space or (toks[ri].bracket and toks[ri].word[0] in
                              OPENERS)):
        ri += 1
    if ri >= len(toks) or toks[ri].punct:
        return None
    left, right = toks[li], toks[ri]
    if right.flag.startswith(("u", "f", "y", "q")):
        return "particle", ("a line starting with a particle, postposition or measure word "
                            f"({right.word})")
    if left.flag == "p":
        return "preposition", f"a preposition and its noun split ({left.word})"
    pair = _coordination(text, toks, li, ri)
    if pair is not None:
        return "pair", f"inside a coordinated pair ({pair})"
    if left.flag == "c":
        return "conjunction", f"a line ending with a conjunction ({left.word})"
    verb_end = left.verb or (left.flag in ("ul", "uz", "ug") and li > 0 and toks[li - 1].verb)
    opener = any(toks[k].bracket for k in range(li + 1, ri))
    content = right.nounish or right.verb or right.idiom or opener
    if verb_end and (content or right.flag == "p"):
        return "object", f"a verb and its object split ({left.word}|{right.word})"
    if left.flag == "uj" and (right.nounish or right.idiom or opener):
        return "modifier", f"的 and its noun split (…{left.word}|{right.word})"
    if left.flag[:1] in ("m", "q") and (right.nounish or right.idiom or opener):
        return "modifier", f"a number and its noun split ({left.word}|{right.word})"
    if left.flag[:1] == "r" and (right.flag[:1] == "n" or right.flag == "vn"):
        return "modifier", f"a determiner and its noun split ({left.word}|{right.word})"
    if left.flag == "d" and (right.verb or right.idiom or right.flag[:1] in ("p", "a", "d")):
        return "modifier", f"an adverb and its verb split ({left.word}|{right.word})"
    de = next((k for k in range(ri + 1, min(ri + 3, len(toks))) if toks[k].word == "的"), None)
    if de is not None and _width(text[right.start:toks[de].start], True) <= 3:
        return "modifier", f"inside a phrase with 的 (…{text[right.start:toks[de].end]})"
    a, b = _clause_bounds(toks, li, enum=False)
    head = text[toks[a].start:left.end].strip()
    tail = text[right.start:toks[b - 1].end].strip()
    if _width(head, True) <= 2 or _width(tail, True) <= 2:
        return "fragment", f"a word cut off from its clause ({min(head, tail, key=len)})"
    if left.flag in ("uv", "ud") and li > 0 and (toks[li - 1].verb
                                                 or toks[li - 1].flag.startswith("a")):
        return "modifier", f"a line ending with {left.word}"  # 变得 | 很大 (not 就得 must)
    if right.verb and _dangling_verb(text, toks, li, ri):
        return "dangling", f"a verb cut off from its prepositional phrase ({right.word})"
    return None


def _before_with(text: str, p: int) -> bool:
    """Whether ``text[p]`` starts 和 meaning "with" (…上 | 和 Q 对上): a new phrase, not a
    label letter's noun, whatever ``narration.phrases`` matched."""
    toks = _tokens(text)
    i = _index(toks, p)
    return (i < len(toks) and toks[i].start == p and toks[i].word in _COORD
            and _prepositional(toks, i))


def _clause_bounds(toks: tuple[_Tok, ...], i: int, enum: bool = True) -> tuple[int, int]:
    """Token range [a, b) of the clause around token ``i`` (between punctuation; with
    ``enum`` false, a list's 、 does not end it)."""
    def ends(t: _Tok) -> bool:
        return t.punct and (enum or t.word != "、")

    a = i
    while a > 0 and not ends(toks[a - 1]):
        a -= 1
    b = i
    while b < len(toks) and not ends(toks[b]):
        b += 1
    return a, b


def _dangling_verb(text: str, toks: tuple[_Tok, ...], li: int, ri: int) -> bool:
    """Whether the verb at ``ri`` ends a short clause rest whose prepositional phrase (把,
    按, 在 … with no verb since) stays on the line before."""
    a, b = _clause_bounds(toks, ri)
    rest = text[toks[ri].start:toks[b - 1].end]
    if _width(rest, True) > 4:
        return False
    for k in range(li, a - 1, -1):
        if toks[k].verb:
            return False
        if toks[k].flag == "p":
            return True
    return False


_COORD = frozenset("和与或及跟同")


def _coordination(text: str, toks: tuple[_Tok, ...], li: int, ri: int) -> str | None:
    """The coordinated pair (X 和 Y, X、Y) that a break between tokens ``li`` and ``ri``
    falls inside, or None."""
    a, b = _clause_bounds(toks, li)
    # 、 lists of two items: the clause's only 、, and no 和 after it
    for k in range(max(0, li - 6), min(len(toks), ri + 7)):
        t = toks[k]
        is_pair = False
        if t.word in _COORD and t.flag in ("c", "p") and a <= k < b:
            is_pair = not _prepositional(toks, k)
        elif t.word == "、":
            ca, cb = _list_bounds(toks, k)
            items = sum(1 for j in range(ca, cb) if toks[j].word == "、" or
                        (toks[j].word in _COORD and toks[j].flag == "c"))
            is_pair = items == 1
        if not is_pair:
            continue
        lo, hi = _pair_span(toks, k)
        if lo <= toks[li].start and toks[ri].start < hi:
            return text[lo:hi]
    return None


def _list_bounds(toks: tuple[_Tok, ...], k: int) -> tuple[int, int]:
    """Tokens around the 、 at ``k`` up to the nearest punctuation other than 、."""
    a = k
    while a > 0 and not (toks[a - 1].punct and toks[a - 1].word != "、"):
        a -= 1
    b = k + 1
    while b < len(toks) and not (toks[b].punct and toks[b].word != "、"):
        b += 1
    return a, b


def _prepositional(toks: tuple[_Tok, ...], k: int) -> bool:
    """Whether 和 at ``k`` means "with" (和 Q 对上, 和所有的键做点积): a noun phrase after
    it is followed by a verb or preposition that is not turned into a noun by 的."""
    j, seen = k + 1, False
    while j < len(toks) and not toks[j].punct:
        t = toks[j]
        if t.verb or t.flag == "p":
            nxt = next((x for x in toks[j + 1:] if not x.space), None)
            return seen and not (nxt is not None and nxt.word == "的")
        seen = seen or t.nounish
        j += 1
    return False


def _pair_span(toks: tuple[_Tok, ...], k: int) -> tuple[int, int]:
    """Offsets [lo, hi) of the pair around the coordinator at ``k``: up to four characters
    on each side (whole tokens, within the clause), the right one extended to its 的."""
    lo, n = toks[k].start, 0.0
    j = k - 1
    while j >= 0 and not toks[j].punct and toks[j].flag not in ("p", "c"):
        n += _width(toks[j].word.strip(), True)
        if n > 4:
            break
        lo = toks[j].start
        j -= 1
    hi, n = toks[k].end, 0.0
    j = k + 1
    while j < len(toks) and not toks[j].punct and toks[j].word != "、":
        n += _width(toks[j].word.strip(), True)
        hi = toks[j].end
        if toks[j].word == "的" or n >= 4:
            break
        j += 1
    return lo, hi


def _zh_at_punctuation(text: str, toks: tuple[_Tok, ...], li: int,
                       ri: int) -> tuple[str, str] | None:
    """A break after punctuation: bad when it splits a pair joined by 、."""
    j = ri  # the clause after the break, up to the next punctuation
    while j < len(toks) and not toks[j].punct:
        j += 1
    rest = text[toks[ri].start:toks[j].start if j < len(toks) else len(text)].strip()
    if toks[li].word[-1] == "、" and _width(rest, True) <= 8:  # a long item may start a line
        pair = _coordination(text, toks, li, ri)
        if pair is not None:
            return "pair", f"inside a coordinated pair ({pair})"
    return None


def _comma_before(text: str, p: int) -> int | None:
    """Offset of the comma (，,、) a break before ``text[p]`` follows, or None."""
    q = p
    while q > 0 and (text[q - 1].isspace() or text[q - 1] in CLOSERS):
        q -= 1
    return q - 1 if q > 0 and _PUNCT_STRENGTH.get(text[q - 1]) == 1 else None


def left_fragment(text: str, p: int, start: int) -> BadBreak | None:
    """A break at a comma after a clause of a few characters, on a line that starts before
    the stronger punctuation opening that clause (负责提问；键 K，| 负责被比对): the clause
    belongs with what follows. After a colon the clauses are a list's items."""
    comma = _comma_before(text, p)
    if comma is None:
        return None
    j = comma - 1
    while j >= 0 and text[j] not in _PUNCT_STRENGTH:
        j -= 1
    if j < start or _PUNCT_STRENGTH[text[j]] < 2 or text[j] in "：:":
        return None
    frag = text[j + 1:comma].strip()
    if _width(frag, True) > 4:
        return None
    return BadBreak("fragment", f"a short clause left at the end of a line ({frag})",
                    _where(text, comma + 1, p))


def right_fragment(text: str, p: int, end: int | None) -> BadBreak | None:
    """A break at a comma before a clause of a few characters that ends its sentence part,
    when the line after the break (ending at ``end``) runs on past it (读进去的是正文，|
    不是标签：第一页…); ``end`` None: a new cue starts there, which shows the clause apart
    from its sentence whatever line it is on (各自相乘，| 再相加。)."""
    comma = _comma_before(text, p)
    if comma is None:
        return None
    j = p
    while j < len(text) and text[j] not in _PUNCT_STRENGTH:
        j += 1
    if j >= len(text) or _PUNCT_STRENGTH[text[j]] < 2:
        return None
    if end is not None and end <= j + 1:
        return None  # the clause ends its line
    frag = text[p:j].strip()
    if _width(frag, True) > 4:
        return None
    return BadBreak("fragment", f"a short clause cut off from its sentence ({frag})",
                    _where(text, comma + 1, p))


# --------------------------------------------------------------------------- English


EN_PREPOSITIONS = frozenset({
    "with", "of", "to", "for", "from", "by", "into", "onto", "against", "about", "at",
    "than", "like", "via", "per", "between", "among", "across", "toward", "towards",
    "without", "within", "under", "after", "before", "during", "through", "as"})
EN_PARTICLES = frozenset({"in", "on", "over", "up", "out", "off", "down", "back", "away"})
"""Prepositions that are also verb particles ("mixed in", "hands over"): bad at a line's
end only when a noun phrase follows."""
EN_ARTICLES = frozenset({"a", "an", "the"})
EN_DETERMINERS = frozenset({"its", "their", "your", "our", "my", "every"})
"""Determiners that are never pronouns ("each", "this", "his" can end a phrase)."""
EN_CONJUNCTIONS = frozenset({"and", "or", "but", "nor", "so", "because", "if", "whether",
                             "while", "although", "though", "unless", "since", "when"})
EN_MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might",
                       "must", "to"})
EN_AUXILIARIES = frozenset({"is", "are", "was", "were", "be", "been", "has", "have", "had",
                            "does", "do", "did"})
EN_ADVERBS = frozenset({"often", "also", "not", "never", "always", "just", "only", "still",
                        "usually", "already"})
EN_WH = frozenset({"what", "which", "whose", "where", "why", "how"})
EN_STRANDING = frozenset({"is", "are", "was", "were", "isn't", "aren't", "does", "do"})
"""After a preposition, these mean it ends a phrase ("what you look for / is ...")."""


def _bare(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum() or c in "'’")


# No English part-of-speech tagger with a bundled model installs here (spaCy, NLTK and
# TextBlob fetch their models from hubs CI cannot reach), so the word classes below are
# heuristics: closed classes are listed, open classes (nouns, adjectives, verbs) told apart
# by a few lists and endings. They only need to be right for breaks a line may fall on.
EN_PRONOUNS = frozenset({
    "i", "you", "he", "she", "it", "we", "they", "me", "him", "us", "them", "itself",
    "themselves", "this", "that", "these", "those", "there", "here", "who", "whom", "one",
    "each", "all", "both", "some", "any", "none", "nothing", "everything", "someone",
    "everyone", "anyone", "another", "others", "yours", "mine", "ours", "theirs"})
EN_FUNCTION = (EN_PREPOSITIONS | EN_PARTICLES | EN_ARTICLES | EN_DETERMINERS
               | EN_CONJUNCTIONS | EN_MODALS | EN_AUXILIARIES | EN_ADVERBS | EN_WH
               | EN_PRONOUNS | frozenset({
                   "not", "no", "so", "then", "too", "even", "yet", "more", "less", "most",
                   "least", "very", "much", "many", "few", "than", "there", "now", "here",
                   "again", "once", "almost", "about", "around", "instead", "together",
                   "being", "get", "gets", "got", "let", "lets", "whole", "own", "same",
                   "everywhere", "anywhere", "somewhere", "nowhere", "below", "above",
                   "ahead", "apart", "aside", "forward", "inside", "outside", "later",
                   "alone"}))
EN_NUMBERS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight",
                        "nine", "ten", "eleven", "twelve", "several"})
EN_ADJECTIVES = frozenset({
    "same", "other", "new", "old", "big", "small", "large", "real", "whole", "full", "next",
    "last", "first", "second", "third", "fourth", "top", "high", "low", "higher", "lower",
    "larger", "bigger", "smaller", "wider", "extra", "nearer", "earlier", "later", "random",
    "hard", "soft", "smooth", "gentle", "single", "main", "final", "own", "red", "best",
    "worst", "better", "worse", "good", "bad", "long", "short", "wide", "fast", "slow",
    "obvious", "arbitrary", "typical", "different", "entire", "fatal", "little", "nearest",
    "highest", "lowest", "largest", "smallest", "biggest", "widest", "closest", "strongest"})
"""Adjectives (and ordinals) that may stand before a noun; endings catch more."""
_ADJ_ENDINGS = ("ive", "ous", "ful", "able", "ible")
EN_IRREGULAR_PAST = frozenset({
    "took", "gave", "made", "got", "said", "went", "came", "saw", "found", "kept", "left",
    "put", "set", "ran", "became", "began", "held", "brought", "thought", "told", "felt",
    "knew", "grew", "read", "stood", "sat", "won", "lost", "meant", "chose", "drew", "fell"})
EN_PARTICIPLES = frozenset({
    "spoken", "written", "given", "taken", "made", "known", "shown", "seen", "done",
    "chosen", "drawn", "grown", "held", "kept", "left", "found", "told", "hidden", "built"})
"""Irregular past participles: a noun's postmodifier ("the language / spoken there")."""
EN_IRREGULAR_PLURALS = frozenset({"people", "children", "men", "women", "data", "feet"})
EN_VALUE_BEFORE = frozenset({"by", "at", "to", "equals", "equal", "times", "plus", "minus",
                             "is", "are", "was", "over"})
"""Words before a number that make it a value, not a count ("dividing by 8 / keeps")."""
EN_LABEL_NOUNS = frozenset({"step", "row", "column", "layer", "head", "part", "item",
                            "question", "page", "line", "round", "case"})
"""Nouns a number labels ("Step two / divides")."""
EN_OPERATORS = frozenset({"times", "plus", "minus", "equals"})
"""Operators read out in a formula ("Q times K", "d equals 4")."""
EN_COLLECTIVE = frozenset({"rest", "others", "majority", "remainder"})
"""Nouns that take a plural verb in the singular ("the rest get nothing")."""
EN_RELATIVES = frozenset({"which", "who", "whose"})
_SINGULAR_S = ("ss", "us", "is")


def _is_number(word: str) -> bool:
    return word[:1].isdigit() or word in EN_NUMBERS


def _content(word: str) -> bool:
    """An open-class word: a noun, adjective or verb (a number counts when ``word`` is
    given with its digits), not a function word or an adverb in -ly."""
    core = word.strip("'’")
    return (bool(core) and core.replace("-", "").isalpha() and core not in EN_FUNCTION
            and not core.endswith("ly") and "'" not in core and "’" not in core)


def _adjective(word: str) -> bool:
    return word in EN_ADJECTIVES or (len(word) > 4 and word.endswith(_ADJ_ENDINGS))


def _plural_or_verb_s(word: str) -> bool:
    return word.endswith("s") and not word.endswith(_SINGULAR_S)


def _opens_np(token: str) -> bool:
    """Whether a line starting with ``token`` starts a noun phrase's head: a content word,
    a number or a quote (“France”)."""
    nxt = _bare(token)
    return (_content(nxt) or _is_number(nxt) or token[:1] in OPENERS + '"') and not (
        nxt.endswith("ing") and token[:1] not in OPENERS + '"')


def _np_split(left: list[str], right: list[str]) -> str | None:
    """A noun phrase cut after its determiner, number or modifier, before its head noun:
    "the 4 / words", "the same / three matrices", "a negative / key entry", "the error /
    signal". A count takes a plural (one: a singular) noun; a number after "by", "equals"
    and the like is a value, after "step" a label. A singular noun after a determiner,
    followed by a word that cannot be its verb (no -s, -ed or -ing, not an irregular past,
    not an adjective) is read as a compound's first noun; "the model / learns", "the rules
    / apply", "the blank / is" stay fine, and so does an inverted question ("would
    France's key / say")."""
    last, tok = _bare(left[-1]), right[0]
    nxt = _bare(tok)
    raw_before = left[-2] if len(left) >= 2 else ""
    before = _bare(raw_before) if raw_before[-1:].isalnum() or raw_before.endswith(
        ("'s", "’s", "s'", "s’")) else ""
    determined = (before in EN_ARTICLES or before in EN_DETERMINERS
                  or before in ("each", "these", "those", "his", "her", "this", "that")
                  or before.endswith(("'s", "’s", "s'", "s’")) or _is_number(before))
    if not _opens_np(tok) or nxt in EN_RELATIVES:
        return None
    quoted = tok[:1] in OPENERS + '"'
    if _is_number(last):
        if before in EN_VALUE_BEFORE | EN_LABEL_NOUNS or (last == "one" and determined):
            return None
        if last == "one":
            count_noun = not _plural_or_verb_s(nxt)
        else:
            count_noun = _plural_or_verb_s(nxt) or nxt in EN_IRREGULAR_PLURALS
        if quoted or (_content(nxt) and count_noun):
            return f"a number and its noun split ({left[-1]}|{tok})"
        return None
    if (not determined or not last.isalpha() or last.endswith("ly")
            or last in EN_FUNCTION - {"same", "own"}):
        return None
    if _adjective(last):
        return f"a modifier and its noun split ({left[-1]}|{tok})"
    inverted = any(_bare(w) in EN_MODALS | EN_AUXILIARIES for w in left[-4:-2])
    if (_content(nxt) and not _plural_or_verb_s(last) and last not in EN_COLLECTIVE
            and not _plural_or_verb_s(nxt) and not nxt.endswith(("ed", "ing"))
            and nxt not in EN_IRREGULAR_PAST | EN_PARTICIPLES and not _adjective(nxt)
            and not inverted and not left[-1][:1].isupper()):
        return f"a compound noun split ({left[-1]}|{tok})"
    return None


def _colon_value(text: str, q: int, p: int) -> str | None:
    """A label and its short value split at the colon between them ("France: “French”",
    "summed: 2."): both are a word or two, so the break reads as a pause mid-phrase. A
    colon after a longer clause introduces what follows and may break."""
    if text[q - 1] not in ":：":
        return None
    j = q - 1
    while j > 0 and text[j - 1] not in ".,;:!?。，；：！？":
        j -= 1
    k = p
    while k < len(text) and text[k] not in ".,;:!?。，；：！？":
        k += 1
    label, value = text[j:q - 1].split(), text[p:k].split()
    if not all(_bare(w).replace("’", "").isalpha() for w in label):
        return None  # a vector or a number: what comes after says what it means
    if 0 < len(label) <= 2 and 0 < len(value) <= 2:
        return f"a label and its value split ({' '.join(label)}: {' '.join(value)})"
    return None


def _en_grammar(text: str, q: int, p: int) -> tuple[str, str] | None:
    left = text[:q].split()
    right = text[p:].split()
    if not left or not right:
        return None
    colon = _colon_value(text, q, p)
    if colon is not None:
        return "colon", colon
    if not left[-1][-1:].isalnum() and not left[-1].endswith(("s'", "s’")):
        return None  # after punctuation (or a closing quote): a clause boundary
    last, nxt = _bare(left[-1]), _bare(right[0])
    follows_np = (nxt in EN_ARTICLES or nxt in EN_DETERMINERS
                  or right[0][:1].isdigit() or right[0][:1] in OPENERS + '"')
    if last in EN_PARTICLES and not follows_np and _opens_np(right[0]) and (
            len(left) >= 2 and _bare(left[-2]) not in EN_FUNCTION):
        follows_np = True  # a bare noun object: "mixed in / neighbours"
    if last in EN_PREPOSITIONS or (last in EN_PARTICLES and follows_np):
        if nxt in EN_STRANDING or nxt in EN_CONJUNCTIONS:  # "what it looks for / and"
            return None
        return "preposition", f"a line ending with a preposition ({left[-1]})"
    if last in EN_ARTICLES or last in EN_DETERMINERS:
        return "article", f"a line ending with an article or determiner ({left[-1]})"
    if last in EN_CONJUNCTIONS:
        return "conjunction", f"a line ending with a conjunction ({left[-1]})"
    if (last in EN_OPERATORS and nxt not in EN_CONJUNCTIONS | EN_PREPOSITIONS) or (
            nxt in EN_OPERATORS and last not in EN_FUNCTION):  # "Q times / K", "Q / times K"
        return "formula", f"an operator and its operand split ({left[-1]}|{right[0]})"
    if len(left) >= 2 and _bare(left[-2]) in EN_MODALS and follows_np:
        return "object", f"a verb and its object split ({left[-2]} {left[-1]}|{right[0]})"
    if last.endswith(("'s", "’s", "'re", "’re", "'ve", "’ve", "'m", "’m", "s'", "s’")):
        return "verb", f"a line ending with a contraction or possessive ({left[-1]})"
    if (last in EN_AUXILIARIES and nxt.isalpha()) or (
            len(left) >= 2 and _bare(left[-2]) in EN_AUXILIARIES and last in EN_ADVERBS):
        return "verb", f"an auxiliary and its verb split ({left[-1]}|{right[0]})"
    if last in EN_ADVERBS and _content(nxt) and not nxt.endswith("ly"):
        return "verb", f"an adverb and the word it modifies split ({left[-1]}|{right[0]})"
    if last in EN_WH or (len(left) >= 2 and _bare(left[-2]) == "how"):
        return "clause", f"a question word and its clause split ({left[-1]}|{right[0]})"
    np_split = _np_split(left, right)
    if np_split is not None:
        return "modifier", np_split
    return None


def en_relative_fragment(text: str, p: int) -> BadBreak | None:
    """A cue starting with a non-restrictive relative clause ("a Key, | which gets
    matched") when the noun phrase it describes, since the punctuation before it, or the
    clause itself is a few words: the cue shows the two apart. Inside a cue the lines are
    read together, so a line may start with it."""
    comma = _comma_before(text, p)
    words = text[p:].split()
    if comma is None or not words or _bare(words[0]) not in EN_RELATIVES:
        return None
    j = comma
    while j > 0 and text[j - 1] not in ".,;:!?—":
        j -= 1
    k = p
    while k < len(text) and text[k] not in ".,;:!?—":
        k += 1
    head, clause = text[j:comma].split(), text[p:k].split()
    if len(head) > 3 and len(clause) > 3:
        return None
    return BadBreak("fragment", f"a relative clause cut off from its noun ({' '.join(head)}"
                    f", {words[0]}…)", _where(text, comma + 1, p))
