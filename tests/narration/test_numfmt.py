from __future__ import annotations

import pytest

from narration import numfmt


@pytest.mark.parametrize(
    ("x", "lang", "display", "spoken"),
    [
        (2.0, "zh", "2", "2"),
        (-3.0, "zh", "−3", "负3"),
        (-3.0, "en", "−3", "minus 3"),
        (0.70710678, "en", "0.71", "0.71"),
        (-0.001, "en", "0.00", "0.00"),  # rounds to zero: no minus sign
    ],
)
def test_number(x, lang, display, spoken):
    f = numfmt.number(x, lang)
    assert (f.display, f.spoken) == (display, spoken)


def test_percent_and_vector():
    assert numfmt.percent(0.662, "zh").spoken == "百分之66"
    assert numfmt.percent(0.0045, "en").display == "0.4%"
    assert numfmt.vector([1, -2, 0.5], "en").spoken == "1, minus 2 and 0.50"
    assert numfmt.vector([1, 2], "zh").display == "[1, 2]"


def test_rejects_unknown_language_and_nan():
    with pytest.raises(ValueError, match="unknown language"):
        numfmt.number(1, "fr")
    with pytest.raises(ValueError, match="non-finite"):
        numfmt.number(float("nan"), "en")
