"""English text's curly quotes sit close to their words (the CJK font's are full-width), and a
square root's sign stays a line however the text is shown."""

from __future__ import annotations

from itertools import pairwise

from scenes import theme


def _gaps(s: str) -> list[float]:
    """The gaps between neighbouring glyphs of ``s`` set by the theme (spaces have none)."""
    t = theme.text(s, theme.BODY_SIZE)
    glyphs = sorted(t, key=lambda g: g.get_left()[0])
    return [b.get_left()[0] - a.get_right()[0] for a, b in pairwise(glyphs)]


def test_curly_quotes_leave_no_wider_gap_than_a_space() -> None:
    space = max(_gaps("of chases now"))  # the widest gap there: a word space
    quoted = _gaps("of “chases” now")
    assert max(quoted) <= space * 1.3, (space, quoted)


def test_chinese_text_keeps_its_full_width_quotes() -> None:
    assert theme.latin_quotes("它叫“猫”") is None
    assert theme.latin_quotes("plain text") is None
    assert theme.latin_quotes("the “cat”") == {"“": theme.LATIN_QUOTES_FONT,
                                                "”": theme.LATIN_QUOTES_FONT}


def test_a_square_root_written_letter_by_letter_keeps_its_sign_a_line() -> None:
    """Writing a text letter by letter sets each part's opacity: the radical's open line
    must not be filled into a wedge over the radicand."""
    from manim import AddTextLetterByLetter

    t = theme.text("÷ √d", theme.BODY_SIZE, weight="BOLD")
    sign = next(m for m in t.submobjects if isinstance(m, theme.RadicalSign))
    write = AddTextLetterByLetter(t, run_time=1)
    write.begin()
    write.interpolate(1.0)
    write.finish()
    assert (sign.get_fill_opacity(), sign.get_stroke_opacity()) == (0.0, 1.0)
