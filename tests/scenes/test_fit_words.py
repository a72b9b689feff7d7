"""A numbers file with words as wide as the limit lays out cleanly in the scenes that place
them in the tightest spots (found with bench/fit_words.py); a wider one is refused at load
(tests/math/test_numbers.py)."""

from __future__ import annotations

import pytest

from common.text import columns as text_columns
from qkv_math.numbers import DEFAULT_NUMBERS, WORD_COLUMNS, load_numbers
from scenes.registry import discover

# as wide as allowed: 6 Chinese characters, 12 letters
LONG = {"zh": ["卢森堡大公国", "列支敦士登国", "圣马力诺共和", "安道尔公国们"],
        "en": ["Liechtenstei", "Luxembourgia", "Growingupnow", "Myselfandyou"]}
TIGHT = ("hook", "search_engine", "projections", "dot_product", "softmax", "kv_separate")


@pytest.fixture
def long_words(tmp_path, monkeypatch):
    text = DEFAULT_NUMBERS.read_text("utf-8")
    old = 'zh = ["法国", "北京", "长大", "我"], en = ["France", "Beijing", "grew up", "I"]'
    assert old in text
    new = "zh = [{}], en = [{}]".format(*(", ".join(f'"{w}"' for w in LONG[lang])
                                          for lang in ("zh", "en")))
    path = tmp_path / "long_words.toml"
    path.write_text(text.replace(old, new), "utf-8")
    load = load_numbers
    monkeypatch.setattr("scenes.context.load_numbers", lambda _p=None: load(path))
    return path


def test_the_words_are_at_the_limit():
    assert {text_columns(w) for lang in LONG for w in LONG[lang]} == {WORD_COLUMNS}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("scene_id", TIGHT)
def test_words_at_the_limit_lay_out_inside_the_frame(scene_id, lang, long_words,
                                                     dry_run_scene):
    info = next(s for s in discover() if s.scene_id == scene_id)
    scene = dry_run_scene(info, lang, skip_animations=True)  # the layout at every beat's end
    assert scene.layout_issues == []
    assert set(LONG[lang]) <= set(scene.numbers.fill_blank.tokens[lang])
