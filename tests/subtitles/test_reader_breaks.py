"""Breaks a reader calls bad (issue 31): the report counts every one reviewers found in the
masters, and the line breaker no longer makes them.

Each case is a narration sentence as the video shows it and the break found in it, written
as the issue writes it: `` / `` a line break inside a cue, `` | `` a break between cues.
"""

from __future__ import annotations

import pytest

from narration.breaks import bad_break
from narration.subtitles import MIN_DURATION, ZH_DROP, Cue, build_track
from pipeline.quality import cue_report

from .support import en_word_timings, line_starts, zh_char_timings

ZH_CASES = [
    ("打完分、交给 softmax 之前，真实的模型还要把每个分数除以根号 d，d 是每个向量里数的个数。",
     "真实 / 的模型"),
    ("这就是「追」的新表示：它不再是孤零零的一个词，而是按权重混进了「猫」和「球」的信息。",
     "而是按 / 权重"),
    ("句子里每个词，都乘同样这三个矩阵。为什么不直接拿 x 和 x 比？那样一个词想找的和它展示的就是"
     "同一个东西；三个矩阵让它们可以不同。", "想找的和它 / 展示的"),
    ("落到数字上：法国的 K 是[1, 1, 0]，在「地名」和「我长大的地方」上和 Q 对上；它的 V 是"
     "[1, 0, 0]，装的是「法语」，这才是交出去的东西。", "地方」 / 上和 Q 对上"),
    ("答案藏在每个词带着的三个向量里：查询 Q，负责提问；键 K，负责被比对；值 V，负责交出内容。",
     "键 K， / 负责被比对"),
    ("最后一个场景：快速相亲会。你进门时揣着一张清单，想找爱旅行、爱读书的人：这是你的 Q。",
     "想找爱旅行、 / 爱读书的人"),
    ("然后你点开前面几页，读进去的是正文，不是标签：第一页细读，第二页扫一眼，最后一页不点。",
     "正文， | 不是标签"),
    ("第四步，乘上 V：每一行按自己的份额把所有词的 V 混起来，得到这个词的新向量，也就是它的新表示，"
     "交给下一层。", "所有词的 V | 混起来"),
    ("画成曲线：软注意力是平滑的斜坡，处处有坡度，告诉模型往哪边调、调多少；硬选择是台阶，台面是平的，"
     "无坡可循。", "往哪边调、 | 调多少"),
]
EN_CASES = [
    ("As a formula: a word's share is e to its score, over the sum of e to all the scores. "
     "Real models also divide the scores by the square root of d first: that's next.",
     "divide the scores by / the square root"),
    ("A feature adds only where both sides have it. France matches on two features, Beijing "
     "matches on one feature, and “grew up” matches on none, so it scores 0.",
     "one feature, and / “grew up”"),
    ("Back to our example: there, d is 3. Divide by the square root of 3, as the formula "
     "says, and France takes 52%, against 66% without it. So far we skipped this step to "
     "keep the numbers simple; it keeps the order and never makes the shares more extreme.",
     "to keep / the numbers"),
    ("One: the blank's query scores highest with the key of France. What does that mean?",
     "highest with / the key"),
    # the second review: a noun phrase cut before its head, a plural possessive, an
    # operator, a colon's short value, a relative clause and a particle's bare object
    ("Attention does just that. At the blank, it looks back at the 4 words before it and "
     "gives each a share: “France” 66%, “Beijing” 24%, “grew up” 9%, “I” 0.4%.",
     "at the 4 / words"),
    ("Every word goes through the same three matrices for its own q, k and v. Why not "
     "compare x with x?", "the same / three matrices"),
    ("Scores can go negative: a negative key entry on a wanted feature subtracts. “I” gets "
     "−3: not just unrelated, but pointing the other way.", "a negative / key entry"),
    ("Step four, times V: each row blends all the words' values by its shares, into that "
     "word's new vector, which the next layer takes in.", "all the words' / values"),
    ("With a slope everywhere, the error signal flows back from the output, adjusting even "
     "the Q and K that made the scores.", "the error / signal"),
    ("Keep this one line: softmax of Q times K transposed over root d, times V. Next comes "
     "multi-head attention.", "softmax of Q times / K transposed"),
    ("The answer lies in three vectors every word carries: a Query, which asks, a Key, "
     "which gets matched, and a Value, which hands over the content.",
     "a Key, | which gets matched"),
    ("Attention is stacked in layers: earlier ones already mixed in neighbours like “grew "
     "up”, so by now its x carries context.", "mixed in | neighbours"),
    ("V is what each word hands over when picked: France: “French”. Beijing: “Chinese”. "
     "“grew up”: “growing up”. “I”: nothing.", "France: | “French”"),
    ("Entry by entry: 1 times 1, 1 times 1, 0 times 0, summed: 2. A dot product.",
     "summed: | 2."),
]
CASES = [(t, m, "zh") for t, m in ZH_CASES] + [(t, m, "en") for t, m in EN_CASES]


def _break_at(text: str, marked: str) -> tuple[int, str]:
    """Offset in ``text`` of the break ``marked`` shows, and the marker (``/`` or ``|``)."""
    mark = " / " if " / " in marked else " | "
    left, right = marked.split(mark)
    at = text.index(left + (" " if text.count(left + " " + right) else "") + right)
    p = at + len(left)
    while text[p] == " ":
        p += 1
    return p, mark.strip()


def _shown(segment: str, zh: bool) -> str:
    line = " ".join(segment.split())
    return line.rstrip(ZH_DROP + " ") if zh else line


def _cues_with_break(text: str, p: int, mark: str, zh: bool) -> list[Cue]:
    """The text as one cue of two lines broken at ``p`` (``/``), or two cues (``|``)."""
    first, second = _shown(text[:p], zh), _shown(text[p:], zh)
    if mark == "/":
        return [Cue(0.0, 6.0, (first, second))]
    return [Cue(0.0, 3.0, (first,)), Cue(3.1, 6.0, (second,))]


@pytest.mark.parametrize(("text", "marked", "lang"), CASES, ids=[m for _t, m, _l in CASES])
def test_the_report_counts_each_break_reviewers_found(text: str, marked: str,
                                                       lang: str) -> None:
    p, mark = _break_at(text, marked)
    cues = _cues_with_break(text, p, mark, lang == "zh")
    bad = cue_report(cues, [(text, (), 0.0, 6.0)], lang)["bad_breaks"]
    assert len(bad) == 1, (marked, bad)
    assert f"|{text[p:p + 8]}…" in bad[0], (marked, bad)


@pytest.mark.parametrize(("text", "marked", "lang"), CASES, ids=[m for _t, m, _l in CASES])
def test_the_breaker_avoids_them(text: str, marked: str, lang: str) -> None:
    timings = zh_char_timings if lang == "zh" else en_word_timings
    words, end = timings(text)
    beats = [(text, words, 0.0, end)]
    cues = build_track(beats, lang)
    assert cue_report(cues, beats, lang)["bad_breaks"] == [], [c.lines for c in cues]
    p, _mark = _break_at(text, marked)
    assert p not in line_starts(text, cues, lang == "zh"), (marked, [c.lines for c in cues])


def test_the_report_counts_cues_under_1_2_seconds() -> None:
    """「再相加」 and 「小测验」 were 0.9 s cues."""
    text = "小测验。第一题：空格的 Q 和法国的 K 点积最大，说明什么？"
    cues = [Cue(0.0, 0.9, ("小测验",)), Cue(1.0, 5.0, ("第一题：空格的 Q 和法国的 K",
                                                     "点积最大，说明什么？"))]
    rep = cue_report(cues, [(text, (), 0.0, 5.0)], "zh")
    assert [d.split(" s:")[0] for d in rep["durations_out_of_range"]] == ["0.00"]
    assert MIN_DURATION == 1.2


@pytest.mark.parametrize("max_lines", [1, 2])
@pytest.mark.parametrize("text", [
    "小测验。第一题：空格的 Q 和法国的 K 点积最大，说明什么？",
    "为什么？点积是 d 个位置上的数各自相乘，再相加。d 越大，加的项越多，结果的波动就越大。",
    "最后一步：V 乘份额，再相加。份额还是这组。",
])
def test_a_short_cue_is_merged_with_a_neighbour(text: str, max_lines: int) -> None:
    words, end = zh_char_timings(text, step=0.22)
    cues = build_track([(text, words, 0.0, end)], "zh", max_lines=max_lines)
    assert all(c.end - c.start >= MIN_DURATION - 1e-3 for c in cues), \
        [(round(c.end - c.start, 2), c.lines) for c in cues]


@pytest.mark.parametrize(("text", "left", "lang"), [
    # 和 meaning "with" starts a phrase; a label letter's noun is not what it follows
    ("在「地名」和「我长大的地方」上和 Q 对上；", "地方」上", "zh"),
    # 就得 (must) may end a line; 得 after a verb may not (below)
    ("要是 K 和 V 共用一个向量，它就得既像「地名」和「我长大的地方」，好被找到。", "它就得", "zh"),
    # a coordinated pair kept whole, the break after it
    ("那样一个词想找的和它展示的就是同一个东西；", "想找的和它展示的", "zh"),
    # the items of a list after a colon
    ("每个人同时带着三样：想找谁，胸前的名牌，真实的自己。", "想找谁，", "zh"),
    # a clause that starts its own line, even a short one
    ("读进去的是正文，不是标签。", "读进去的是正文，", "zh"),
    # a preposition that ends its phrase, and a verb's particle
    ("what you are looking for is the thing the model needs", "looking for ", "en"),
    ("a blend with some of “cat” and “ball” mixed in by weight", "mixed in ", "en"),
    ("Before softmax, real models divide every score", "softmax, ", "en"),
    # a subject and its verb: "the model / learns", "the blank / is", "the scores / and"
    ("Over time, the model learns what to ask.", "the model ", "en"),
    ("The blank is the searcher: its Q says what word it needs.", "The blank ", "en"),
    ("Divide the scores and add them up.", "the scores ", "en"),
    ("Every guest wears a name badge with a few keywords: the K.", "Every guest ", "en"),
    ("The matrices start out random.", "The matrices ", "en"),
    ("and the rest get nothing.", "the rest ", "en"),
    ("All three compute the same way, but each learns its own matrices.", "All three ", "en"),
    ("Step two divides by root d, the “scaled” of the name.", "Step two ", "en"),
    ("With d at 64, dividing by 8 keeps scores gentle.", "dividing by 8 ", "en"),
    # an inverted question's subject, an adverb or adjective after a noun, a participle
    ("But why would France's key say “where I grew up”?", "France's key ", "en"),
    ("How does a model know?", "a model ", "en"),
    ("France's label fits the blank best, so it gets the most attention.", "the blank ",
     "en"),
    ("Powers of e make every share positive.", "every share ", "en"),
    ("With a slope everywhere, the error signal flows back.", "a slope ", "en"),
    ("And content: the language spoken there, French.", "the language ", "en"),
    ("The other keys fill in below, made the same way.", "fill in ", "en"),
    # a colon after a vector or a clause introduces what follows
    ("and the blank gets [0.52, 0.29, 0.16]: mostly “French”.", "0.16]: ", "en"),
    ("The trip takes three moves: query, match, take.", "moves: ", "en"),
    # inside a cue a line may start with the relative clause; so may a new cue after a
    # long noun phrase and before a long clause
    ("a Query, which asks, a Key, which gets matched, and a Value,", "a Key, ", "en"),
])
def test_good_breaks_are_not_counted(text: str, left: str, lang: str) -> None:
    p = text.index(left) + len(left)
    start, end = 0, len(text)
    if lang == "zh" and left.endswith("，"):
        end = len(text)  # the line after runs to the end of the sentence
    assert bad_break(text, p, lang == "zh", start, end) is None


@pytest.mark.parametrize(("text", "left", "kind"), [
    ("分数变得很大", "变得", "object"),
    ("分数变得很大", "分数变", "word"),
    ("点积是 d 个位置上的数", "点积是 d ", "particle"),
    ("同一个词，就有了三个各不相同的向量", "三个", "modifier"),
    ("查询 Q，负责提问；键 K，负责被比对", "负责", "object"),
    ("分数还可能是负的：k 在空格想要的特征上为负", "k ", "fragment"),
    ("这套 Q、K、V 计算会出现在三个地方", "计算会", "object"),
    ("the spread grows like the square root of d", "like ", "preposition"),
    ("it searches with its q and is found by its k", "its ", "article"),
    ("The tags go into K: they're what the blank's query is compared with.", "they're ",
     "verb"),
    ("What you need is often spread over several words", "is often ", "verb"),
    ("the top word takes 65% on average", "the top ", "modifier"),
    ("Every guest wears a name badge with a few keywords", "a name ", "modifier"),
    ("France matches on two features, Beijing matches on one feature", "on one ",
     "modifier"),
    ("Step one is Q times K transposed: the “dot product” part", "is Q ", "formula"),
    ("Step one is Q times K transposed: the “dot product” part", "Q times K ", "phrase"),
    ("Last step: each V times its share, all added up.", "V times ", "formula"),
    ("“grew up”: “growing up”. “I”: nothing.", "“I”: ", "colon"),
    ("earlier ones already mixed in neighbours like “grew up”", "already ", "verb"),
    ("If K and V were one vector, it would have to look like both, and also carry French.",
     "also ", "verb"),
    ("French. The clue is “France”, not the nearer “Beijing”, which misleads.",
     "“Beijing”, ", "fragment"),
    ("At d equals 4, the spread, how far a dot product swings", "how far ", "clause"),
])
def test_more_bad_breaks_are_counted(text: str, left: str, kind: str) -> None:
    p = text.index(left) + len(left)
    problem = bad_break(text, p, any("\u4e00" <= c <= "\u9fff" for c in text))
    assert problem is not None and problem.kind == kind, problem


def test_a_short_clause_may_end_a_cue_but_not_start_the_next() -> None:
    """「各自相乘，再相加。」: 再相加 on its own line under its clause reads well; as the
    first line of the next cue it is shown apart from the clause it finishes."""
    text = "为什么？点积是 d 个位置上的数各自相乘，再相加。d 越大，加的项越多。"
    beats = [(text, (), 0.0, 8.0)]
    inside = [Cue(0.0, 2.0, ("为什么？",)),
              Cue(2.1, 5.0, ("点积是 d 个位置上的数各自相乘", "再相加")),
              Cue(5.1, 8.0, ("d 越大，加的项越多",))]
    across = [Cue(0.0, 4.0, ("为什么？", "点积是 d 个位置上的数各自相乘")),
              Cue(4.1, 8.0, ("再相加", "d 越大，加的项越多"))]
    assert cue_report(inside, beats, "zh")["bad_breaks"] == []
    bad = cue_report(across, beats, "zh")["bad_breaks"]
    assert len(bad) == 1 and "再相加" in bad[0], bad
    words, end = zh_char_timings(text)
    cues = build_track([(text, words, 0.0, end)], "zh")
    assert not any(c.lines[0] == "再相加" for c in cues), [c.lines for c in cues]
