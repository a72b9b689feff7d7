"""Scene scripts: loading, filling, and clear errors for bad narration files."""

from __future__ import annotations

from pathlib import Path

import pytest

from narration.scripts import ScriptError, check_parity, load_script

FACTS = {"x": 2.0, "tok": {"zh": "猫", "en": "cat"}}


def write(root: Path, lang: str, scene: str, body: str) -> Path:
    path = root / lang / f"{scene}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, "utf-8")
    return path


GOOD_ZH = 'title = "标题{tok}"\n[screen]\nlabel = "分数{x}"\nitems = ["一", "二{x}"]\n' \
          '[[beat]]\nid = "a"\ntext = "第一句{x}。"\n[[beat]]\nid = "b"\ntext = "第二句。"\n'
GOOD_EN = 'title = "Title {tok}"\n[screen]\nlabel = "score {x}"\nitems = ["one", "two {x}"]\n' \
          '[[beat]]\nid = "a"\ntext = "First {x}."\n[[beat]]\nid = "b"\ntext = "Second."\n'


def test_loads_and_fills(tmp_path):
    write(tmp_path, "zh", "s", GOOD_ZH)
    script = load_script("s", "zh", FACTS, tmp_path)
    assert script.title == "标题猫"
    assert script.s("label") == "分数2"
    assert script.items("items") == ("一", "二2")
    assert [b.id for b in script.beats] == ["a", "b"]
    assert script.beats[0].text.display == "第一句2。"


def test_parity_ok(tmp_path):
    write(tmp_path, "zh", "s", GOOD_ZH)
    write(tmp_path, "en", "s", GOOD_EN)
    check_parity(["s"], tmp_path)


def test_beat_missing_in_one_language_names_file_and_beat(tmp_path):
    write(tmp_path, "zh", "s", GOOD_ZH)
    en = write(tmp_path, "en", "s", GOOD_EN.replace('id = "b"', 'id = "c"'))
    with pytest.raises(ScriptError) as err:
        check_parity(["s"], tmp_path)
    assert str(en) in str(err.value) and "beat.b" in str(err.value)


def test_missing_language_file(tmp_path):
    write(tmp_path, "zh", "s", GOOD_ZH)
    with pytest.raises(ScriptError, match="file not found"):
        check_parity(["s"], tmp_path)


def test_unknown_placeholder_names_file_and_beat(tmp_path):
    path = write(tmp_path, "en", "s", GOOD_EN.replace("Second.", "Second {nope}."))
    with pytest.raises(ScriptError) as err:
        load_script("s", "en", FACTS, tmp_path)
    msg = str(err.value)
    assert str(path) in msg and "beat.b.text" in msg and "{nope}" in msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("title = \n", "-"),
        ('title = "t"\n', "beat"),
        ('title = "t"\n[[beat]]\nid = "a"\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "x"\n[[beat]]\nid = "a"\ntext = "y"\n',
         "beat.a"),
        ('[[beat]]\nid = "a"\ntext = "x"\n', "title"),
        ('title = "t"\nscreen = 3\n[[beat]]\nid = "a"\ntext = "x"\n', "screen"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "   "\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "?! ..."\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "Bell \\u0007 here."\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "' + "word " * 300 + '"\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "../x"\ntext = "x"\n', "beat[1].id"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "Value {x"\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "Value {x:bogus}"\n', "beat.a.text"),
        ('title = "t"\n[[beat]]\nid = "a"\ntext = "Value {__class__}"\n', "beat.a.text"),
    ],
)
def test_bad_files(tmp_path, body, key):
    path = write(tmp_path, "en", "s", body)
    with pytest.raises(ScriptError) as err:
        load_script("s", "en", FACTS, tmp_path)
    assert err.value.key == key
    assert str(err.value).startswith(f"{path}: {key}: ")


@pytest.mark.parametrize(("text", "spoken"), [
    ('"-v --help is not an option."', "-v --help is not an option."),
    ("'He said \"hi\" and left.'", 'He said "hi" and left.'),
    ('"""Line one.\n   Line two."""', "Line one. Line two."),
])
def test_odd_but_valid_texts_are_read_as_text(tmp_path, text, spoken):
    write(tmp_path, "en", "s", f'title = "t"\n[[beat]]\nid = "a"\ntext = {text}\n')
    assert load_script("s", "en", FACTS, tmp_path).beats[0].text.spoken == spoken


def test_chinese_lines_join_without_a_space(tmp_path):
    write(tmp_path, "zh", "s", 'title = "t"\n[[beat]]\nid = "a"\ntext = """第一句\n第二句。"""\n')
    assert load_script("s", "zh", FACTS, tmp_path).beats[0].text.spoken == "第一句第二句。"
