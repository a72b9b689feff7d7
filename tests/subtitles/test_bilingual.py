"""Bilingual cues: the other language's text of the same beat, cut at good places."""

from __future__ import annotations

from narration.bilingual import (
    BAD_BREAK_COST,
    LONG_LINE,
    _breaks,
    bilingual_cues,
    cue_lines,
    split_at_shares,
    wrap,
)
from narration.breaks import counted_break
from narration.subtitles import EN_MAX_CHARS, ZH_MAX_CHARS, line_width
from narration.types import Cue

EN = "Step one, scoring: multiply q and each key [1, 1, 0] entry by entry. Then add them up."
ZH = "第一步，打分：把查询和每个键逐项相乘，再把乘积加起来。这就是点积。"


def test_pieces_keep_every_word_in_order_and_end_at_breaks() -> None:
    pieces = split_at_shares(EN, [0.3, 0.7, 1.0], zh=False)
    assert len(pieces) == 3
    assert " ".join(pieces).split() == EN.split()
    assert all("[1," not in p or "0]" in p for p in pieces)  # the vector stays whole
    assert pieces[0].endswith((",", ":", "."))
    zh = split_at_shares(ZH, [0.5, 1.0], zh=True)
    assert "".join(zh) == ZH
    assert zh[0][-1] in "，：。"


def test_the_cuts_are_chosen_together_so_none_is_left_only_bad_places() -> None:
    """The quiz's third answer under its six English cues (shares by their lengths). Cut
    one at a time, the fifth cut took 「除以8，|」 (nearest its share) and left the last
    only places inside 「分数回到温和范围」: 「分数」 stood alone in a cue. Chosen together,
    every cut is one the own tracks' judge accepts."""
    own = ["A dot product adds up d terms,", "so the larger d, the wider",
           "the scores swing; then softmax goes all-in", "on one word and learning stalls.",
           "With d at 64,", "dividing by 8 keeps scores gentle."]
    text = ("点积是 d 项相加，d 越大，分数的波动就越大；波动一大，softmax 就一边倒，模型难学。"
            "d 是64，就除以8，分数回到温和范围。")
    total = sum(len(x) for x in own)
    shares = [sum(len(x) for x in own[:k + 1]) / total for k in range(len(own))]
    pieces = split_at_shares(text, shares, zh=True)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")  # nothing lost
    assert all(pieces)
    start = 0
    for piece in pieces[:-1]:
        at = text.index(piece, start) + len(piece)
        assert not counted_break(text, at, True, start), (piece, pieces)
        start = at
    assert "分数回到温和范围。" in pieces[-1]


def test_a_line_a_little_long_beats_a_bad_break() -> None:
    """「标签是「地名」和「我长大的地方」；」 is one place over the width and every place to
    break it is one the own tracks' judge calls bad (it was set 「…和」 over 「「我长大的地方」；」,
    a coordinated pair cut): kept whole. Twice as long, it is wrapped all the same."""
    text = "标签是「地名」和「我长大的地方」；"
    assert ZH_MAX_CHARS < line_width(text, True) <= ZH_MAX_CHARS * LONG_LINE
    assert all(cost >= BAD_BREAK_COST for cost in _breaks(text, True).values())
    assert wrap(text, True) == [text]
    long = text * 2
    assert len(wrap(long, True)) > 1
    assert all(line_width(line, True) <= ZH_MAX_CHARS * LONG_LINE for line in wrap(long, True))


def test_wrap_respects_the_line_width() -> None:
    for text, zh in ((EN * 2, False), (ZH * 2, True)):
        lines = wrap(text, zh)
        limit = ZH_MAX_CHARS if zh else EN_MAX_CHARS
        assert all(line_width(line, zh) <= limit for line in lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_each_own_cue_gets_its_share_of_the_other_text() -> None:
    own = [Cue(0.0, 2.0, ("第一步，打分",)), Cue(2.1, 4.0, ("把查询和每个键逐项相乘",)),
           Cue(4.1, 6.0, ("再把乘积加起来",))]
    cues = bilingual_cues(own, [(0.0, 6.5)], [EN], own_zh=True)
    assert [c.start for c in cues] == [0.0, 2.1, 4.1]
    assert [c.lines[0] for c in cues] == [c.lines[0] for c in own]
    english = " ".join(" ".join(c.lines[1:]) for c in cues)
    assert english.split() == EN.split()
    assert all(len(c.lines) >= 2 for c in cues)


def test_no_line_is_punctuation_alone_and_at_most_two_lines_per_language() -> None:
    """Reviewers found 「。」, 「，」 and 「「」 alone on a line, and 3 lines of one language."""
    for text, zh in (("对上一个的排第二，一个不沾的垫底。", True),
                     ("所以「我要填一种语言」这类大白话，", True),
                     ("The clue is “France”, way back at the start.", False),
                     (ZH * 2, True), (EN * 2, False)):
        for lines in (wrap(text, zh), cue_lines(text, zh)):
            assert all(any(c.isalnum() for c in line) for line in lines), lines
            assert not any(line[0] in "。，、」”" for line in lines), lines
            assert not any(line[-1] in "「“" for line in lines), lines
        assert len(cue_lines(text, zh)) <= 2
        assert "".join(cue_lines(text, zh)).replace(" ", "") == text.replace(" ", "")


def test_pieces_never_start_with_closing_punctuation() -> None:
    text = "对上一个的排第二，一个不沾的垫底。最后一页不点。"
    for n in range(2, 6):
        shares = [(k + 1) / n for k in range(n)]
        for piece in split_at_shares(text, shares, zh=True):
            assert not piece or piece[0] not in "。，、」", piece


def test_a_cue_too_short_to_read_is_joined_to_its_neighbour() -> None:
    """The one-line breaking left "the model" on screen for 0.36 s in a render (no break of
    its beat fitted a line); the bilingual track joins it to the next cue of its beat."""
    own = [Cue(0.0, 1.9, ("but the word before it, “fluent”:",)),
           Cue(1.95, 2.31, ("the model",)),
           Cue(2.39, 4.4, ("predicts the next word from there.",))]
    zh = "发问的其实是空格前的词「流利的」：模型在这里猜下一个词。"
    cues = bilingual_cues(own, [(0.0, 4.5)], [zh], own_zh=False)
    assert all(c.end - c.start >= 1.2 for c in cues), cues
    assert [c.lines[0] for c in cues] == ["but the word before it, “fluent”:",
                                          "the model predicts the next word from there."]
    assert "".join("".join(c.lines[1:]) for c in cues) == zh


def test_a_short_cue_stays_when_joining_would_make_a_line_far_too_long() -> None:
    long = "x" * 44  # joined to "tail words": 55 characters, over 1.25 x 42
    own = [Cue(0.0, 2.0, (long,)), Cue(2.05, 2.5, ("tail words",)), Cue(2.6, 4.6, (long,))]
    cues = bilingual_cues(own, [(0.0, 4.7)], ["一二三。四五六。七八九。"], own_zh=False)
    assert [c.lines[0] for c in cues] == [long, "tail words", long]


def test_a_short_cue_is_not_joined_across_beats() -> None:
    own = [Cue(0.0, 2.0, ("One sentence here.",)), Cue(2.1, 2.5, ("Next",))]
    cues = bilingual_cues(own, [(0.0, 2.0), (2.1, 0.5)], ["第一句。", "下一句。"], own_zh=False)
    assert [c.lines[0] for c in cues] == ["One sentence here.", "Next"]


def test_the_other_text_is_cut_where_the_own_tracks_rules_allow() -> None:
    """The other language's pieces end where a reader would break, when such a place is in
    reach: cut by share and word boundary alone, these ended on 'against', 'the', 'every'
    and 「说 | 一口」, 「一口 | 流利」, 「流利 | 的」 (the own tracks' rules count each)."""
    from narration.breaks import bad_break

    cases = [("The blank's query is checked against the key of every earlier word, and the "
              "best match wins.", False, (0.4, 0.45, 0.55, 0.85)),
             ("我在法国长大，现在住在北京，可我还能说一口流利的____。", True,
              (0.65, 0.7, 0.75, 0.8))]
    for text, zh, shares in cases:
        for share in shares:
            first, rest = split_at_shares(text, [share, 1.0], zh)
            p = text.index(rest)
            assert bad_break(text, p, zh) is None, (share, first, rest)


def test_the_report_counts_the_bilingual_tracks_bad_breaks() -> None:
    from pipeline.quality import bilingual_report

    own = "我在法国长大，现在住在北京。"
    other = "I grew up in France and now live in Beijing, checking the map."
    good = [Cue(0.0, 2.0, ("我在法国长大，", "I grew up in France")),
            Cue(2.0, 4.0, ("现在住在北京。", "and now live in Beijing, checking the map."))]
    bad = [Cue(0.0, 2.0, ("我在法国长大，现在住", "I grew up in France and now live in Beijing,",
                          "checking the")),
           Cue(2.0, 4.0, ("在北京。", "map."))]
    assert bilingual_report(good, own_zh=True, beats=[(own, other, 0.0, 4.0)])[
        "bad_breaks"] == []
    found = bilingual_report(bad, own_zh=True, beats=[(own, other, 0.0, 4.0)])["bad_breaks"]
    assert len(found) == 2, found  # 「住 | 在北京」 and "the | map"
