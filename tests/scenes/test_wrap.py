"""On-screen text broken into lines (``theme.wrap``, cards and labels) breaks where a
reader would: at the last place that fits and the subtitles' rules accept, else at a
word's end; never inside a word or before a closing mark. The reviewers read
"not a place / name", 「空格拿到的内 / 容」 and 「对得越好的书 / ，分量越重」 on screen."""

from __future__ import annotations

from scenes import theme


def _lines(s: str, width: float) -> list[str]:
    return [m.text for m in theme.wrap(s, width, theme.LABEL_SIZE)]  # .text drops spaces


def test_a_latin_label_breaks_before_its_noun_phrase() -> None:
    assert _lines("not a place name", 2.4) == ["not", "aplacename"]


def test_outer_spaces_are_not_words() -> None:
    assert _lines("not ", 2.4) == ["not"]
    assert _lines(" where I grew up ", 1.2) == _lines("where I grew up", 1.2)


def test_chinese_breaks_between_words_and_never_before_a_comma() -> None:
    assert _lines("空格拿到的内容", 2.0) == ["空格拿到的", "内容"]
    lines = _lines("对得越好的书，分量越重", 2.0)
    assert not any(line[0] in "，。" for line in lines), lines
    assert "".join(lines) == "对得越好的书，分量越重"


def test_every_line_fits() -> None:
    for s in ("旁边的正文才是真正的内容", "where I grew up", "I grew up in France, then "
              "moved around a lot"):
        for width in (1.2, 1.6, 2.4):
            g = theme.wrap(s, width, theme.LABEL_SIZE)
            assert all(m.width <= width + 1e-6 for m in g if len(m.text) > 2), (s, width)


def test_latin_lines_come_out_even_not_a_word_left_alone() -> None:
    """Filled greedily, the hook's role card read "gets matched: what I / am" and a table
    head "where I grew / up" (seen in the 1080p review); the lines are now balanced."""
    for s in ("gets matched: what I am", "where I grew up", "the columns are seen here"):
        one = theme.text(s, theme.LABEL_SIZE).width
        lines = _lines(s, one * 0.8)  # just too narrow for one line
        assert len(lines) == 2, lines
        assert all(len(line) >= 4 for line in lines), lines
    assert _lines("gets matched: what I am", theme.text("gets matched: what I", theme.LABEL_SIZE)
                  .width + 0.01) == ["getsmatched:", "whatIam"]
