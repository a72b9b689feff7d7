"""Spoken-form fixes both voices need, and what each engine reads for them."""

from __future__ import annotations

import pytest

from narration import pronunciation
from narration.placeholders import resolve
from narration.tts import espeak, kokoro

TWO = {"n": 2.0, "k": 22.0}


@pytest.mark.parametrize(("template", "spoken"), [
    ("每个词都只有{n}个数。", "每个词都只有两个数。"),
    ("放大{n:int}倍，法国拿得更多。", "放大两倍，法国拿得更多。"),
    ("走2步，再看2次。", "走两步，再看两次。"),
    ("只有{k}个数。", "只有二十二个数。"),  # 两 only for 2 itself
    ("这是2维的。", "这是二维的。"),  # 二维 is the word
    ("结果是{n}。", "结果是二。"),  # no measure word: a digit
])
def test_two_before_a_measure_word_is_liang(template: str, spoken: str) -> None:
    r = resolve(template, TWO, "zh")
    assert r.spoken == spoken
    assert "2" in r.display or "二" in r.display or "22" in r.display


def test_dang_in_dang_yong_and_bu_before_chu() -> None:
    r = resolve("这样的分数，还不能直接当份额用。", {}, "zh")
    assert "荡份额用" in r.spoken and "当份额用" in r.display
    assert (r.spoken.index("荡"), "dang4") in r.readings
    assert resolve("当然可以用。", {}, "zh").spoken == "当然可以用。"
    r = resolve("不除时是百分之六十六。", {}, "zh")
    assert r.spoken.startswith("布除") and (0, "bu4") in r.readings


def test_one_in_a_number_is_yi1_for_both_engines() -> None:
    r = resolve("这四个数加起来是{x}。", {"x": 11.16}, "zh")
    assert r.spoken == "这四个数加起来是十一点一六。"
    digits = pronunciation.number_yi(r)
    assert {r.spoken[i] for i in digits} == {"一"} and len(digits) == 2
    # espeak-ng reads 一点 with the 一点儿 tone (ji51) unless given 衣 (yī)
    espeak.phonemes("一", "cmn")  # the library loaded; its own reading, not respelled:
    assert "ji51t'iE214n" in espeak._INSTANCE.phonemes("十一点一六", "cmn")
    assert "ji51" not in espeak.phonemes("十一点一六", "cmn")
    assert [u.pinyin for u in kokoro.units(r.spoken)][-5:] == \
        ["shi2", "yi1", "dian3", "yi1", "liu4"]
    report = pronunciation.check("zh", [("s", "b", r)])
    assert report.mismatches == []
    # not a number: 一 the word keeps its sandhi
    assert pronunciation.number_yi(resolve("这几份一点不变。", {}, "zh")) == set()


def test_a_fallback_to_english_inside_chinese_is_a_mismatch() -> None:
    """espeak-ng lacks -iong after x: 熊 comes out as English noise, which the check used to
    strip and pass."""
    r = resolve("熊猫来了。", {}, "zh")
    report = pronunciation.check("zh", [("s", "b", r)], engines=["espeak"])
    assert [m.kind for m in report.mismatches] == ["fallback"]
    assert "(en)" in report.mismatches[0].engine
    assert pronunciation.check("zh", [("s", "b", r)], engines=["kokoro"]).mismatches == []


def test_xiong_is_respelled_for_espeak_only() -> None:
    r = resolve("每位嘉宾胸前有名牌。", {}, "zh")
    assert "胸" in r.spoken  # the text both voices get keeps it; Kokoro says it
    assert "(en)" not in espeak.phonemes(r.spoken, "cmn")
    assert espeak.respell(r.spoken, "cmn") == "每位嘉宾星前有名牌。"
    assert "ɕjʊ→ŋ" in kokoro.phonemes(r.spoken)
    report = pronunciation.check("zh", [("s", "b", r)])
    espeak_said = [(m.expected, m.engine) for m in report.mismatches if m.voice == "espeak"]
    assert espeak_said == [("xiong1", "xing1")]  # the nearest it can say, still reported
    assert [m for m in report.mismatches if m.voice == "kokoro"] == []


def test_kokoro_reads_the_lexicon_readings() -> None:
    r = resolve("加常数，就得挑一个数。读得最多。", {}, "zh")
    said = {r.spoken[u.start]: u.pinyin for u in kokoro.units(r.spoken) if u.pinyin}
    assert said["挑"] == "tiao1"
    got = [u.pinyin for u in kokoro.units(r.spoken) if r.spoken[u.start] == "得"]
    assert got == ["dei3", "de5"]
    report = pronunciation.check("zh", [("s", "b", r)])
    assert report.mismatches == [] and set(report.engines) == {"kokoro", "espeak"}


def test_letters_must_be_said_as_letters_by_kokoro() -> None:
    r = resolve("每个词的 Q、K、V 都只有两个数。", {}, "zh")
    report = pronunciation.check("zh", [("s", "b", r)], engines=["kokoro"])
    assert report.mismatches == []
    got = [u.phonemes for u in kokoro.units(r.spoken) if u.pinyin is None]
    assert got == ["kjˈu", "kˈA", "vˈi"]
