"""The preview page's lab data (pipeline.page.lab_data): every number is qkv_math's, the
"divide by √d" setting divides by √d of the example's own key length on top of the slider's
amplification, and at ×1 it shows the scaling scene's shares."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from narration import numfmt
from narration.facts import build_facts
from pipeline.page import LAB_FACTORS, WORDS, lab_data, page_words
from qkv_math import amplified, derive, load_numbers, softmax
from qkv_math.numbers import DEFAULT_NUMBERS

LANGS = ("zh", "en")


def _four_feature_numbers(tmp_path: Path) -> Path:
    """The shipped numbers with a fourth feature: d = 4, other scores."""
    text = DEFAULT_NUMBERS.read_text("utf-8")
    swaps = [
        ('features = { zh = ["地名", "我长大的地方", "动作"], '
         'en = ["a place name", "where I grew up", "an action"] }',
         'features = { zh = ["地名", "我长大的地方", "动作", "人"], '
         'en = ["a place name", "where I grew up", "an action", "a person"] }'),
        # x_query [1, 0, 1] adds rows 1 and 3 of W_Q: the query [1, 2, 0, -1]
        ("W_Q = [[1, 2, 0], [0, 1, 1], [0, -1, 0]]",
         "W_Q = [[1, 2, 0, 0], [0, 1, 1, 0], [0, 0, 0, -1]]"),
        # x_key [2, 1, 0]: twice row 1 of W_K plus row 2, France's key [1, 1, 0, 0]
        ("W_K = [[0, 0, 1], [1, 1, -2], [1, 0, 0]]",
         "W_K = [[0, 0, 1, 0], [1, 1, -2, 0], [1, 0, 0, 0]]"),
        ("K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]",
         "K_others = [[1, 1, 0, 1], [0, 0, 1, 0], [-1, -1, 0, 0]]"),
    ]
    for old, new in swaps:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "numbers.toml"
    path.write_text(text, "utf-8")
    return path


@pytest.fixture(params=["shipped", "d4"])
def numbers_path(request, tmp_path: Path) -> Path | None:
    return None if request.param == "shipped" else _four_feature_numbers(tmp_path)


def test_sqrt_d_at_x1_shows_the_scaling_scenes_shares(numbers_path: Path | None) -> None:
    """At ×1 with √d ticked the lab's shares are the ones the scaling scene draws and says
    (fb.weight_scaled.*), as the scene formats them; without the box, the toy example's."""
    numbers = load_numbers(numbers_path)
    facts = build_facts(numbers, derive(numbers))
    lab = lab_data(numbers_path)
    assert lab["factors"][0] == 1
    n = len(numbers.fill_blank.K)
    scene = [float(facts[f"fb.weight_scaled.{i}"]) for i in range(n)]
    plain = [float(facts[f"fb.weight.{i}"]) for i in range(n)]
    assert lab["scaled"][0]["shares"] == pytest.approx(scene, abs=1e-12)
    assert lab["raw"][0]["shares"] == pytest.approx(plain, abs=1e-12)
    for lang in LANGS:
        assert lab["scaled"][0]["shown"][lang] == [numfmt.percent(w, lang).display for w in scene]
        assert lab["raw"][0]["shown"][lang] == [numfmt.percent(w, lang).display for w in plain]
    # dividing by √d changes the example's shares (it does not undo anything at ×1)
    assert lab["scaled"][0]["shown"]["en"] != lab["raw"][0]["shown"]["en"]


def test_scores_shown_are_what_softmax_was_given(numbers_path: Path | None) -> None:
    """At every slider step, with and without the box: scores = q·k × factor (÷ √d of the
    key length when ticked), softmax of exactly those scores gives the shares, and the shown
    scores and shares are those values as the video formats them."""
    numbers = load_numbers(numbers_path)
    fb = numbers.fill_blank
    qk = fb.K @ fb.query
    d = fb.K.shape[1]
    lab = lab_data(numbers_path)
    assert lab["d"] == d and lab["sqrt_d"] == pytest.approx(math.sqrt(d))
    assert lab["factors"] == list(LAB_FACTORS) and len(LAB_FACTORS) > 5
    raw_rows = amplified(qk, LAB_FACTORS, d=d)
    for key, divisor in (("raw", 1.0), ("scaled", math.sqrt(d))):
        assert len(lab[key]) == len(LAB_FACTORS)
        for f, row, amp in zip(LAB_FACTORS, lab[key], raw_rows, strict=True):
            assert row["factor"] == f
            expected = qk * f / divisor
            assert row["scores"] == pytest.approx(list(expected), rel=1e-12, abs=1e-12)
            assert row["shares"] == pytest.approx(list(softmax(row["scores"])), abs=1e-12)
            if key == "raw":
                assert row["shares"] == pytest.approx(list(amp.weights_raw), abs=1e-12)
            for lang in LANGS:
                shown = [float(s.replace(numfmt.MINUS, "-")) for s in row["scores_shown"][lang]]
                assert shown == pytest.approx(list(expected), abs=0.005 + 1e-9)
                assert row["shown"][lang] == [numfmt.percent(float(w), lang).display
                                              for w in softmax(expected)]
    # the division is by √d, not by the amplification: at ×f the ticked shares are not ×1's
    last = lab["scaled"][-1]["shares"]
    assert not np.allclose(last, lab["raw"][0]["shares"])
    assert max(last) > max(lab["scaled"][0]["shares"])


def test_lab_words_name_the_examples_d_and_no_longer_claim_to_undo(
        numbers_path: Path | None) -> None:
    numbers = load_numbers(numbers_path)
    d = numbers.fill_blank.K.shape[1]
    words = page_words(lab_data(numbers_path))
    for lang in LANGS:
        root = f"√{numfmt.number(d, lang).display}"
        assert root in words[lang]["sqrt"]
        assert numfmt.number(math.sqrt(d), lang).display in words[lang]["sqrt"]
        assert root in words[lang]["lab_note"]
        # no placeholder left unfilled (clips_show's {n}, the clip count, is the page
        # script's to fill as it shows the clips)
        assert "{" not in "".join(v for k, v in words[lang].items() if k != "clips_show")
        assert "{n}" in words[lang]["clips_show"]
        assert words[lang]["amp_what"] and "d" in words[lang]["amp_what"]
    assert "undoes" not in WORDS["en"]["sqrt"] and "抵消" not in WORDS["zh"]["sqrt"]
