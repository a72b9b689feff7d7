"""The spoken form beside the display form: digits and symbols in words, the lexicon's
readings, and cue marks and word timings that still land on the displayed text."""

from __future__ import annotations

import pytest

from narration import spoken
from narration.marks import display_words, mark_times
from narration.placeholders import resolve
from narration.tts.edge import TICKS_PER_SECOND, parse_edge_stream
from narration.tts.espeak import EspeakEngine
from narration.tts.piper import PiperEngine

FACTS = {"a": -3.0, "s": 2.0, "w": 0.004, "v": (1.4, 0.8),
         "tok": {"zh": "北京", "en": "Beijing"}}


@pytest.fixture
def lexicon_dir(tmp_path, monkeypatch):
    """An empty lexicon folder of the test's own, read instead of narration/lexicon."""
    d = tmp_path / "lexicon"
    d.mkdir()
    monkeypatch.setattr(spoken, "LEXICON_DIR", d)
    spoken.reload()
    yield d
    monkeypatch.undo()
    spoken.reload()


@pytest.mark.parametrize(("lang", "template", "display", "said"), [
    ("zh", "根号{s}约等于1.41", "根号2约等于1.41", "根号二约等于一点四一"),
    ("zh", "√64 是 8", "√64 是 8", "根号六十四 是 八"),
    ("zh", "QKᵀ", "QKᵀ", "QK转置"),
    ("zh", "占{w:pct}，得分{a}", "占0.4%，得分−3", "占百分之零点四，得分负三"),
    ("en", "√d and QKᵀ", "√d and QKᵀ", "the square root of d and QK transpose"),
    ("en", "about 2.7 times, 66%", "about 2.7 times, 66%",
     "about two point seven times, sixty-six percent"),
    ("zh", "取 e^x，[1, 1, 0]", "取 e^x，[1, 1, 0]", "取 e的x次方，一、一和零"),
    ("zh", "QKᵀ/√d", "QKᵀ/√d", "QK转置除以根号d"),
    ("en", "e^x and [1, 1, 0]", "e^x and [1, 1, 0]",
     "e to the power of x and one, one and zero"),
    ("en", "QKᵀ/√d", "QKᵀ/√d", "QK transpose over the square root of d"),
    ("en", "x^2 + 1", "x^2 + 1", "x to the power of two plus one"),
    ("en", "the vector {v:vec2}", "the vector [1.40, 0.80]",
     "the vector one point four zero and zero point eight zero"),
])
def test_the_voice_gets_words_the_screen_keeps_symbols(lang, template, display, said):
    r = resolve(template, FACTS, lang, marks=True)
    assert (r.display, r.spoken) == (display, said)
    assert spoken.unspoken(r.spoken, lang) == []


def test_unspoken_finds_digits_and_symbols():
    assert spoken.unspoken("约2.7倍", "zh") == ["2", "7"]
    assert spoken.unspoken("根号√", "zh") == ["√"]
    assert spoken.unspoken("Q, K and V: zero point four percent.", "en") == []


def test_a_lexicon_entry_added_without_code(lexicon_dir):
    assert resolve("猫追球。", {}, "zh").spoken == "猫追球。"
    (lexicon_dir / "zh.toml").write_text(
        '[[word]]\ntext = "追球"\nsay = "锥球"\npinyin = "zhui1 qiu2"\n', "utf-8")
    spoken.reload()
    r = resolve("猫追球。", {}, "zh")
    assert (r.display, r.spoken) == ("猫追球。", "猫锥球。")
    assert r.readings == ((1, "zhui1"), (2, "qiu2"))


def test_a_lexicon_context_decides_where_an_entry_applies(lexicon_dir):
    (lexicon_dir / "zh.toml").write_text(
        '[[word]]\ntext = "得"\nafter = "[0-9−]"\nsay = "德"\npinyin = "de2"\n'
        '[[word]]\ntext = "得"\npinyin = "de5"\n', "utf-8")
    spoken.reload()
    r = resolve("{tok}得{s}，我得{a}，对得上", FACTS, "zh")
    assert r.display == "北京得2，我得−3，对得上"
    assert r.spoken == "北京德二，我德负三，对得上"
    assert [p for _i, p in r.readings] == ["de2", "de2", "de5"]


@pytest.mark.parametrize(("text", "key", "problem"), [
    ('[[word]]\ntext = "一行"\nsay = "航"\npinyin = "yi4 hang2"\n', "word[1].say",
     "has 1 Chinese characters"),
    ('[[word]]\ntext = "一行"\npinyin = "hang2"\n', "word[1].pinyin", "1 syllable(s) for 2"),
    ('[[word]]\ntext = "行"\npinyin = "hang"\n', "word[1].pinyin", "tone number"),
    ('[[word]]\ntext = "行"\npinyin = "hang2"\nafter = "("\n', "word[1].after",
     "not a regular expression"),
    ('[[word]]\ntext = ""\n', "word[1].text", "missing or empty"),
    ('[[word]]\ntext = "行"\nsya = "航"\n', "word[1].sya", "unknown key"),
    ('[[words]]\ntext = "行"\n', "words", "unknown table"),
    ('[[word]\n', "-", "cannot read"),
])
def test_a_bad_lexicon_is_one_line_naming_file_and_key(tmp_path, text, key, problem):
    path = tmp_path / "zh.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(spoken.LexiconError) as err:
        spoken.read_lexicon(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: {key}") and problem in msg and "\n" not in msg


# -- marks and word timings when the spoken text differs from the displayed one ----------
def _check_display_words(r, words):
    """Each timed word maps onto displayed text in order, inside the display."""
    shown = display_words(r, tuple(words))
    assert shown, "no word reached the display"
    last = 0
    for w in shown:
        assert 0 <= w.char_start < w.char_end <= len(r.display)
        assert w.char_start >= last
        last = w.char_start
    return shown


def test_marks_after_a_verbalised_number_with_espeak(tmp_path):
    r = resolve("北京得{s}，我得{a}，{@next}再加起来占{w:pct}。", FACTS, "zh", marks=True)
    assert r.spoken[r.marks[0][1]:].startswith("再加起来")
    engine = EspeakEngine()
    words = engine.synthesize(r.spoken, engine.default_voice("zh"), "+0%", tmp_path / "a.wav")
    at = r.spoken.index("再")
    event = next(w for w in words if w.char_start == at)
    assert mark_times(r, words, 10.0)["next"] == pytest.approx(event.start)
    shown = _check_display_words(r, words)
    # The number's words are timed over the number as shown: "−3" covers "负三".
    minus = r.display.index("−3")
    assert any(w.char_start <= minus < w.char_end or w.char_start == minus for w in shown)


def test_marks_after_a_verbalised_number_with_piper(tmp_path):
    r = resolve("Beijing scores {a}, {@then}then {w:pct} of the total.", FACTS, "en",
                marks=True)
    assert "minus three" in r.spoken
    engine = PiperEngine()
    words = engine.synthesize(r.spoken, engine.default_voice("en"), "+0%", tmp_path / "a.wav")
    at = r.spoken.index("then")
    event = next(w for w in words if w.char_start == at)
    assert mark_times(r, words, 10.0)["then"] == pytest.approx(event.start)
    shown = _check_display_words(r, words)
    pct = r.display.index("0.4%")
    assert any(w.char_start <= pct < w.char_end for w in shown)


def test_marks_after_a_verbalised_number_with_edge_events():
    """Word boundaries as the online voice sends them, one per spoken word."""
    r = resolve("France gets {w:pct}, {@then}then Beijing.", FACTS, "en", marks=True)
    assert r.spoken == "France gets zero point four percent, then Beijing."
    chunks, t = [], 1_000_000
    for word in ["France", "gets", "zero", "point", "four", "percent", "then", "Beijing"]:
        chunks.append({"type": "WordBoundary", "offset": t, "duration": 3_000_000,
                       "text": word})
        t += 4_000_000
    chunks.append({"type": "audio", "data": b"\xff"})
    _mp3, words = parse_edge_stream(chunks, r.spoken)
    then = next(c for c in chunks if c.get("text") == "then")
    assert mark_times(r, words, 10.0)["then"] == pytest.approx(then["offset"] / TICKS_PER_SECOND)
    shown = _check_display_words(r, words)
    # "zero point four percent" is shown as "0.4%": its words map inside those 4 characters.
    pct = r.display.index("0.4%")
    inside = [w for w in shown if pct <= w.char_start < pct + 4]
    assert len(inside) == 4 and all(w.char_end <= pct + 4 for w in inside)
