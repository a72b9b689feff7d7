"""The placeholder resolver: filling, formatting per language, errors, position mapping."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from narration.placeholders import PlaceholderError, placeholder_names, resolve

FACTS = {
    "a": -3.0,
    "w": 0.3912,
    "tiny": 0.0041,
    "v": (1.386, 0.8),
    "tok": {"zh": "法国", "en": "France"},
    "n": 4,
}


def test_fills_numbers_percent_vectors_and_tokens_per_language():
    zh = resolve("{tok}得分{a}，占{w:pct}，向量{v:vec2}，共{n}个", FACTS, "zh")
    assert zh.display == "法国得分−3，占39%，向量[1.39, 0.80]，共4个"
    assert zh.spoken == "法国得分负三，占百分之三十九，向量一点三九和零点八零，共四个"
    en = resolve("{tok} scores {a}, {w:pct}, {v:vec2}", FACTS, "en")
    assert en.display == "France scores −3, 39%, [1.39, 0.80]"
    assert en.spoken == ("France scores minus three, thirty-nine percent, one point three nine "
                        "and zero point eight zero")


def test_small_shares_keep_a_decimal():
    assert resolve("{tiny:pct}", FACTS, "en").display == "0.4%"


def test_literal_braces():
    assert resolve("{{x}} {n}", FACTS, "en").display == "{x} 4"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{missing}", "unknown placeholder {missing}"),
        ("{a:zz}", "unknown spec"),
        ("{tok:pct}", "does not apply to text"),
        ("{v:pct}", "does not apply to a vector"),
        ("open { brace", "stray '{'"),
        ("{a.__class__}", "unknown placeholder"),
    ],
)
def test_errors_name_the_problem(template, message):
    with pytest.raises(PlaceholderError, match=message.replace("{", r"\{").replace("}", r"\}")):
        resolve(template, FACTS, "en")


def test_no_attribute_access_or_evaluation():
    # str.format would resolve "{tok.__class__}"; we only look names up verbatim.
    with pytest.raises(PlaceholderError):
        resolve("{tok.__class__}", FACTS, "en")
    with pytest.raises(PlaceholderError):
        resolve("{__import__('os')}", FACTS, "en")


def test_names_are_listed():
    assert placeholder_names("x {a} y {w:pct} {{z}}") == ["a", "w"]


def test_spoken_positions_map_onto_the_displayed_text():
    r = resolve("权重是{w:pct}，然后结束", FACTS, "zh")
    # literal text after the placeholder maps one to one
    s_pos = r.spoken.index("然后")
    assert r.display[r.display_pos(s_pos):].startswith("然后")
    # inside the filled placeholder, positions stay inside its displayed span
    start = r.spoken.index("百分之")
    for i in range(start, start + len("百分之39")):
        assert r.display.index("39%") <= r.display_pos(i) <= r.display.index("39%") + 3


@given(st.lists(st.sampled_from(["text ", "{a}", "{w:pct}", "{v:vec}", "中文", "{tok}"]),
                max_size=12), st.sampled_from(["zh", "en"]))
def test_mapping_is_monotonic_and_in_range(parts, lang):
    r = resolve("".join(parts), FACTS, lang)
    mapped = [r.display_pos(i) for i in range(len(r.spoken) + 1)]
    assert mapped == sorted(mapped)
    assert all(0 <= m <= len(r.display) for m in mapped)
    assert mapped[-1] == len(r.display)
