"""Numbers on screen and in the voice: the display keeps digits, the spoken form has words
only (the offline Chinese voice read "约2.7倍" as "约二七倍" and "百分之0.4" as "百分之零四")."""

from __future__ import annotations

import pytest

from narration import numfmt


@pytest.mark.parametrize(
    ("x", "lang", "display", "spoken"),
    [
        (2.0, "zh", "2", "二"),
        (-3.0, "zh", "−3", "负三"),
        (-3.0, "en", "−3", "minus three"),
        (0.70710678, "en", "0.71", "zero point seven one"),
        (0.70710678, "zh", "0.71", "零点七一"),
        (-0.001, "en", "0.00", "zero point zero zero"),  # rounds to zero: no minus sign
        (2.7, "zh", "2.70", "二点七零"),
        (11.16, "zh", "11.16", "十一点一六"),
        (256, "zh", "256", "二百五十六"),
        (256, "en", "256", "two hundred and fifty-six"),
        (1_000_000, "zh", "1000000", "一百万"),
        (1_000_000, "en", "1000000", "one million"),
        (0.05, "zh", "0.05", "零点零五"),
        (-12.5, "zh", "−12.50", "负十二点五零"),
    ],
)
def test_number(x, lang, display, spoken):
    f = numfmt.number(x, lang)
    assert (f.display, f.spoken) == (display, spoken)


def test_decimals_asked_for_are_read_as_shown():
    assert numfmt.number(2.0, "zh", 1).spoken == "二点零"
    assert numfmt.number(1.4, "en", 2).spoken == "one point four zero"


@pytest.mark.parametrize(("share", "lang", "display", "spoken"), [
    (0.662, "zh", "66%", "百分之六十六"),
    (0.004, "zh", "0.4%", "百分之零点四"),
    (0.004, "en", "0.4%", "zero point four percent"),
    (1.0, "zh", "100%", "百分之一百"),
    (0.0, "en", "0%", "zero percent"),
    (0.0004, "zh", "<0.1%", "不到百分之零点一"),
    (0.0004, "en", "<0.1%", "under zero point one percent"),
    (0.00051, "en", "0.1%", "zero point one percent"),
    (1e-9, "zh", "<0.1%", "不到百分之零点一"),
])
def test_percent(share, lang, display, spoken):
    f = numfmt.percent(share, lang)
    assert (f.display, f.spoken) == (display, spoken)


def test_tiny_shares_with_fixed_decimals_are_never_zero():
    assert numfmt.percent(0.004, "en", 0).display == "<1%"
    assert numfmt.percent(0.004, "zh", 0).spoken == "不到百分之一"
    assert numfmt.percent(0.0, "zh", 1).display == "0.0%"  # truly zero stays zero


def test_vectors_are_read_as_a_list():
    assert numfmt.vector([1, -2, 0.5], "en").spoken == "one, minus two and zero point five zero"
    assert numfmt.vector([1.4, 0.8], "zh", 2).display == "[1.40, 0.80]"
    assert numfmt.vector([1.4, 0.8], "zh", 2).spoken == "一点四零和零点八零"
    assert numfmt.vector([1, 1, 0], "zh").spoken == "一、一和零"
    assert numfmt.vector([1, 2], "zh").display == "[1, 2]"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_digit_or_sign_is_ever_spoken(lang):
    for x in (-1234.5, -3, -0.004, 0, 0.3333, 7.389, 64, 99999):
        for f in (numfmt.number(x, lang), numfmt.percent(abs(x) / 1e5, lang),
                  numfmt.vector([x, -x], lang)):
            assert not any(c.isdigit() or c in "−-%.[]" for c in f.spoken.replace("-", "")), f


def test_rejects_unknown_language_and_nan():
    with pytest.raises(ValueError, match="unknown language"):
        numfmt.number(1, "fr")
    with pytest.raises(ValueError, match="non-finite"):
        numfmt.number(float("nan"), "en")
