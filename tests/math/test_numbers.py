"""Loading and validating the numbers file."""

import math
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from qkv_math import DEFAULT_NUMBERS, NumbersError, derive, load_numbers

DEFAULT_TEXT = DEFAULT_NUMBERS.read_text(encoding="utf-8")


def sub(old: str, new: str) -> Callable[[str], str]:
    """An edit replacing one exact, unique snippet of the default file."""

    def edit(text: str) -> str:
        assert text.count(old) == 1, f"snippet not unique in default file: {old!r}"
        return text.replace(old, new)

    return edit


def drop_table(name: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        out, n = re.subn(rf"(?ms)^\[{name}\]\n.*?(?=^\[|\Z)", "", text)
        assert n == 1
        return out

    return edit


# snippets of the default file: the other words' keys and values, and France's W_K
FILL_K = "K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]"
FILL_V = "V_others = [[0, 1, 0], [0, 0, 1], [0, 0, 0]]"
W_K = "W_K = [[0, 0, 1], [1, 1, -2], [1, 0, 0]]"


def write(tmp_path: Path, text: str, name: str = "my_numbers.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_default_file_loads() -> None:
    n = load_numbers()
    assert n.source == DEFAULT_NUMBERS
    we, fb, pr, sc = n.worked_example, n.fill_blank, n.projections, n.scaling
    assert we.tokens == {"zh": ("猫", "追", "球"), "en": ("cat", "chases", "ball")}
    assert we.query == 1
    assert we.Q.dtype == float and we.Q.tolist() == [[1, 0], [0, 1], [1, 1]]
    assert we.V.tolist() == [[1, 2], [3, 0], [0, 1]]
    assert fb.tokens["en"] == ("France", "Beijing", "grew up", "I")
    assert we.K.tolist() == [[0, 1], [1, 0], [1, 2]]  # Q and K differ
    assert fb.features["zh"] == ("地名", "我长大的地方", "动作")
    assert fb.value_features["en"] == ("French", "Chinese", "growing up")
    assert fb.query.tolist() == [1, 1, 0]
    assert fb.K.shape == (4, 3) and fb.V.shape == (4, 3)
    assert fb.shift == 3.0 and fb.d_model == 64
    assert pr.x_query.tolist() == [1, 0, 1] and pr.x_key.tolist() == [2, 1, 0]
    assert pr.W_Q.shape == pr.W_K.shape == pr.W_V.shape == (3, 3)
    assert (sc.seed, sc.dims, sc.keys, sc.samples) == (7, (4, 16, 64, 256), 4, 2000)
    assert sc.amplify == (1.0, 2.0, 4.0, 8.0)
    assert load_numbers(str(DEFAULT_NUMBERS)).worked_example.query == 1


def test_arrays_are_read_only() -> None:
    n = load_numbers()
    with pytest.raises(ValueError):
        n.worked_example.Q[0, 0] = 5


def test_round_trip_changed_values(tmp_path: Path) -> None:
    text = sub("V = [[1, 2], [3, 0], [0, 1]]", "V = [[2, 0], [0, 2], [4, 4]]")(DEFAULT_TEXT)
    text = sub("query = 1 ", "query = 2 ")(text)
    d = derive(load_numbers(write(tmp_path, text)))
    # query token "球": q = [1, 1]; keys [0, 1], [1, 0], [1, 2]: scores [1, 1, 3] / √2
    exps = [math.exp(s / math.sqrt(2)) for s in (1, 1, 3)]
    w = [e / sum(exps) for e in exps]
    assert d.worked.weights == pytest.approx(w)
    assert d.worked.output == pytest.approx([2 * w[0] + 4 * w[2], 2 * w[1] + 4 * w[2]])


BAD = [
    ("missing-table", drop_table("projections"), "projections"),
    ("missing-key", sub("shift = 3 ", "# shift = 3 "), "fill_blank.shift"),
    ("unknown-key", sub("keys = 4\n", "keys = 4\nkeyz = 5\n"), "scaling.keyz"),
    ("unknown-table", lambda t: t + "\n[extra]\na = 1\n", "extra"),
    (
        "ragged",
        sub("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3], [0, 1]]"),
        "worked_example.V",
    ),
    ("not-a-matrix", sub("\nQ = [[1, 0], [0, 1], [1, 1]]", "\nQ = [1, 0]"), "worked_example.Q"),
    ("empty-matrix", sub("V = [[1, 2], [3, 0], [0, 1]]", "V = []"), "worked_example.V"),
    (
        "qk-columns",
        sub("K = [[0, 1], [1, 0], [1, 2]]", "K = [[1, 0, 0], [0, 1, 0], [1, 1, 0]]"),
        "worked_example.K",
    ),
    ("v-rows", sub("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3, 0]]"), "worked_example.V"),
    ("x-lengths", sub("x_query = [1, 0, 1]", "x_query = [1, 0]"), "projections.x_query"),
    ("fill-k-columns", sub(FILL_K, "K_others = [[1, 0], [0, 0], [-2, -1]]"),
     "fill_blank.K_others"),
    # the first word's key is computed, so the file lists one key fewer than there are words
    ("fill-k-rows", sub(FILL_K, "K_others = [[1, 1, 0], [1, 0, 0], [0, 0, 1], [-2, -1, 0]]"),
     "fill_blank.K_others"),
    ("fill-v-columns", sub(FILL_V, "V_others = [[0, 1], [0, 0], [0, 0]]"),
     "fill_blank.V_others"),
    ("fill-v-rows", sub(FILL_V, "V_others = [[0, 1, 0], [0, 0, 1]]"), "fill_blank.V_others"),
    ("proj-rows", sub(W_K, "W_K = [[0, 0, 1], [1, 1, -2]]"), "projections.W_K"),
    # x times W_K is France's key: one number per feature
    ("proj-columns", sub(W_K, "W_K = [[0, 0], [1, 1], [1, 0]]"), "projections.W_K"),
    ("proj-q-columns", sub("W_Q = [[1, 2, 0], [0, 1, 1], [0, -1, 0]]",
                           "W_Q = [[1, 2, 0, 1], [0, 1, 1, 1], [0, -1, 0, 1]]"),
     "projections.W_Q"),
    ("proj-v-columns", sub("W_V = [[0, 0, 1], [1, 0, -2], [0, 1, 0]]",
                           "W_V = [[0, 0], [1, 0], [0, 1]]"), "projections.W_V"),
    # France's score comes from the projections alone: e^x of it would be absurd
    ("proj-score-huge", sub("x_key   = [2, 1, 0]", "x_key   = [200, 100, 0]"), "projections"),
    (
        "nan",
        sub("\nQ = [[1, 0], [0, 1], [1, 1]]", "\nQ = [[nan, 0], [0, 1], [1, 1]]"),
        "worked_example.Q",
    ),
    ("inf", sub("[-2, -1, 0]]", "[-inf, -1, 0]]"), "fill_blank.K_others"),
    (
        "string",
        sub("V = [[1, 2], [3, 0], [0, 1]]", 'V = [[1, "2"], [3, 0], [0, 1]]'),
        "worked_example.V",
    ),
    ("bool-in-vector", sub("x_query = [1, 0, 1]", "x_query = [true, 0, 1]"),
     "projections.x_query"),
    ("bool-query", sub("query = 1 ", "query = true "), "worked_example.query"),
    (
        "token-count",
        sub(
            'zh = ["猫", "追", "球"], en = ["cat", "chases", "ball"]',
            'zh = ["猫", "追"], en = ["cat", "chases"]',
        ),
        "worked_example.Q",
    ),
    (
        "language-lengths",
        sub('en = ["cat", "chases", "ball"]', 'en = ["cat", "chases"]'),
        "worked_example.tokens.en",
    ),
    (
        "missing-en",
        sub(', en = ["a place name", "where I grew up", "an action"]', ""),
        "fill_blank.features.en",
    ),
    (
        "token-not-string",
        sub('zh = ["猫", "追", "球"]', "zh = [1, 2, 3]"),
        "worked_example.tokens.zh",
    ),
    ("token-empty", sub('"chases"', '" "'), "worked_example.tokens.en"),
    (
        "tokens-not-table",
        sub(
            'tokens = { zh = ["猫", "追", "球"], en = ["cat", "chases", "ball"] }',
            'tokens = ["cat", "chases", "ball"]',
        ),
        "worked_example.tokens",
    ),
    ("query-out-of-range", sub("query = 1 ", "query = 3 "), "worked_example.query"),
    ("query-negative", sub("query = 1 ", "query = -1 "), "worked_example.query"),
    ("query-not-integer", sub("query = 1 ", "query = 1.5 "), "worked_example.query"),
    ("negative-shifted-score", sub("shift = 3 ", "shift = 1 "), "fill_blank.shift"),
    (
        "shift-zero-total",
        # a query of zeros scores 0 with every key; with shift 0 nothing is left to divide by
        lambda t: sub("shift = 3 ", "shift = 0 ")(
            sub("x_query = [1, 0, 1]", "x_query = [0, 0, 0]")(t)),
        "fill_blank.shift",
    ),
    ("d-model-zero", sub("d_model = 64", "d_model = 0"), "fill_blank.d_model"),
    ("dims-zero", sub("dims = [4, 16, 64, 256]", "dims = [4, 0]"), "scaling.dims"),
    ("dims-empty", sub("dims = [4, 16, 64, 256]", "dims = []"), "scaling.dims"),
    ("keys-zero", sub("keys = 4", "keys = 0"), "scaling.keys"),
    ("samples-float", sub("samples = 2000", "samples = 2000.0"), "scaling.samples"),
    ("seed-string", sub("seed = 7", 'seed = "7"'), "scaling.seed"),
    ("amplify-negative", sub("amplify = [1, 2, 4, 8]", "amplify = [1, -2]"), "scaling.amplify"),
    ("amplify-string", sub("amplify = [1, 2, 4, 8]", 'amplify = [1, "x"]'), "scaling.amplify"),
    # what the scaling scene can show, and what its experiment can draw in memory and time
    ("dims-three", sub("dims = [4, 16, 64, 256]", "dims = [4, 16, 64]"), "scaling.dims"),
    ("dims-not-growing", sub("dims = [4, 16, 64, 256]", "dims = [4, 64, 16, 256]"),
     "scaling.dims"),
    ("dims-huge", sub("dims = [4, 16, 64, 256]", "dims = [4, 16, 64, 100000]"), "scaling.dims"),
    ("keys-huge", sub("keys = 4", "keys = 100000"), "scaling.keys"),
    ("samples-huge", sub("samples = 2000", "samples = 200000000"), "scaling.samples"),
    ("draws-huge", sub("samples = 2000", "samples = 900000"), "scaling.samples"),
    # words wider than every scene lays out (WORD_COLUMNS, FEATURE_COLUMNS)
    ("token-too-wide-zh", sub('["法国", "北京"', '["卢森堡大公国列", "北京"'),
     "fill_blank.tokens.zh[0]"),
    ("token-too-wide-en", sub('"chases"', '"Liechtensteiner"'), "worked_example.tokens.en[1]"),
    ("feature-too-wide", sub('"where I grew up"', '"the place where I grew up long ago"'),
     "fill_blank.features.en[1]"),
    ("value-feature-too-wide", sub('"汉语"', '"汉语普通话和很多方言"'),
     "fill_blank.value_features.zh[1]"),
    ("amplify-three", sub("amplify = [1, 2, 4, 8]", "amplify = [1, 2, 4]"), "scaling.amplify"),
    ("amplify-huge", sub("amplify = [1, 2, 4, 8]", "amplify = [1, 2, 4, 1e9]"),
     "scaling.amplify"),
]


@pytest.mark.parametrize(("edit", "key"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_file(tmp_path: Path, edit: Callable[[str], str], key: str) -> None:
    path = write(tmp_path, edit(DEFAULT_TEXT))
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    err = info.value
    assert err.key == key
    assert err.file == path
    message = str(err)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}: ")
    assert "my_numbers.toml" in message and err.problem in message


def test_ragged_message(tmp_path: Path) -> None:
    edit = sub("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3], [0, 1]]")
    path = write(tmp_path, edit(DEFAULT_TEXT), "numbers.toml")
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    assert str(info.value) == f"{path}: worked_example.V: row 2 has 1 number but row 1 has 2"


def test_messages_name_the_problem(tmp_path: Path) -> None:
    cases = {
        sub("shift = 3 ", "shift = 1 "): "at least 3",
        sub("query = 1 ", "query = 3 "): "0 to 2",
        sub("query = 1 ", "query = 1.5 "): "whole number",
        sub("x_query = [1, 0, 1]", "x_query = [true, 0, 1]"): "boolean",
        sub("[-2, -1, 0]]", "[-inf, -1, 0]]"): "finite",
        sub(', en = ["a place name", "where I grew up", "an action"]', ""): '"en"',
    }
    for edit, words in cases.items():
        with pytest.raises(NumbersError, match=re.escape(words)):
            load_numbers(write(tmp_path, edit(DEFAULT_TEXT)))


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    edit = sub("\nQ = [[1, 0], [0, 1], [1, 1]]", "\nQ = [[1, 0], [0, 1], [1, 1]")
    path = write(tmp_path, edit(DEFAULT_TEXT))
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    assert info.value.key == ""
    message = str(info.value)
    assert message.startswith(f"{path}: not valid TOML")
    assert re.search(r"line \d+", message)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p / "absent.toml", "file not found"),
        (lambda p: p, "directory"),
        (lambda p: (p / "bin.toml").write_bytes(b"\xff\xfe = 1") and p / "bin.toml", "UTF-8"),
    ],
    ids=["missing", "directory", "not-utf8"],
)
def test_unreadable_file(tmp_path: Path, make: Callable[[Path], Path], words: str) -> None:
    path = make(tmp_path)
    with pytest.raises(NumbersError, match=words) as info:
        load_numbers(path)
    assert str(path) in str(info.value)


def test_error_attributes_and_pickle() -> None:
    err = NumbersError("numbers.toml", "worked_example.Q", "row 2 has 1 number but row 1 has 2")
    assert str(err) == "numbers.toml: worked_example.Q: row 2 has 1 number but row 1 has 2"
    assert isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.file, again.key, again.problem, str(again)) == (
        err.file,
        err.key,
        err.problem,
        str(err),
    )


def test_derive_reads_read_only_arrays_without_copy_problems() -> None:
    d = derive(load_numbers())
    assert isinstance(d.fill_scores, np.ndarray)
    assert d.fill_scores.flags.writeable


def test_a_too_wide_word_is_refused_with_its_width_and_the_limit(tmp_path: Path) -> None:
    from common.text import columns as text_columns
    from qkv_math.numbers import WORD_COLUMNS

    word = "卢森堡大公国列"  # 7 Chinese characters
    assert text_columns(word) == 14 > WORD_COLUMNS
    path = write(tmp_path, sub('["法国", "北京"', f'["{word}", "北京"')(DEFAULT_TEXT))
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    message = str(info.value)
    assert str(path) in message and "fill_blank.tokens.zh[0]" in message
    assert word in message and "14 columns" in message and f"at most {WORD_COLUMNS}" in message
    # at the limit it loads: 6 Chinese characters, 12 letters
    ok = sub('["法国", "北京"', '["卢森堡大公国", "北京"')(DEFAULT_TEXT)
    ok = sub('"France"', '"Liechtenstei"')(ok)
    load_numbers(write(tmp_path, ok, "at_limit.toml"))



def test_the_projections_make_the_example_vectors(tmp_path: Path) -> None:
    """The blank's query and France's key and value are computed from the word vectors and
    matrices: changing W_K changes France's key, its score and what the narration says."""
    from narration.facts import build_facts

    n = load_numbers()
    pj, fb = n.projections, n.fill_blank
    assert fb.query.tolist() == (pj.x_query @ pj.W_Q).tolist()
    assert fb.K[0].tolist() == (pj.x_key @ pj.W_K).tolist()
    assert fb.V[0].tolist() == (pj.x_key @ pj.W_V).tolist()
    # the rest of K and V is the file's K_others and V_others, in token order
    assert fb.K[1:].tolist() == [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]
    assert fb.V[1:].tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert not fb.K.flags.writeable and not fb.query.flags.writeable

    # x_key = [2, 1, 0]: France's key is twice row 1 of W_K plus row 2; rows 1 and 2 below
    # make it [1, 0, 0], which scores 1 against the query [1, 1, 0].
    edit = sub(W_K, "W_K = [[0, 0, 1], [1, 0, -2], [1, 0, 0]]")
    n2 = load_numbers(write(tmp_path, edit(DEFAULT_TEXT)))
    d2 = derive(n2)
    assert n2.fill_blank.K[0].tolist() == [1, 0, 0]
    assert d2.proj_k.tolist() == [1, 0, 0] and d2.fill_scores[0] == 1.0
    facts = build_facts(n2, d2)
    assert facts["fb.k.0"] == facts["pj.k"] == (1.0, 0.0, 0.0)
    assert facts["fb.score.0"] == 1.0


OLD_FORMAT = {
    # the earlier format's keys, each refused with what replaces it
    "fill_blank.query": ("shift = 3 ", "query = [1, 1, 0]\nshift = 3 ", "x_query"),
    "fill_blank.K": ("shift = 3 ", "K = [[1, 1, 0], [1, 0, 0], [0, 0, 1], [-2, -1, 0]]\n"
                     "shift = 3 ", "K_others"),
    "fill_blank.V": ("d_model = 64", "V = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]\n"
                     "d_model = 64", "V_others"),
    "projections.x": ("x_query = [1, 0, 1]", "x = [1, 0, 1]\nx_query = [1, 0, 1]", "x_key"),
}


@pytest.mark.parametrize("key", OLD_FORMAT)
def test_an_earlier_format_key_is_refused_with_what_replaces_it(tmp_path: Path, key: str) -> None:
    old, new, names = OLD_FORMAT[key]
    path = write(tmp_path, sub(old, new)(DEFAULT_TEXT))
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    message = str(info.value)
    assert info.value.key == key and "\n" not in message
    assert message.startswith(f"{path}: {key}: ") and names in message


def test_a_whole_earlier_format_file_is_refused_in_one_line(tmp_path: Path) -> None:
    start, end = DEFAULT_TEXT.index("[fill_blank]"), DEFAULT_TEXT.index("[scaling]")
    old = DEFAULT_TEXT[:start] + """[fill_blank]
tokens   = { zh = ["法国", "北京", "长大", "我"], en = ["France", "Beijing", "grew up", "I"] }
features = { zh = ["地名", "我长大的地方", "动作"], en = ["a place name", "where I grew up",
                                                   "an action"] }
query = [1, 1, 0]
K = [[1, 1, 0], [1, 0, 0], [0, 0, 1], [-2, -1, 0]]
shift = 3
value_features = { zh = ["法语", "汉语", "成长"], en = ["French", "Chinese", "growing up"] }
V = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
d_model = 64

[projections]
x = [1, 0, 1]
W_Q = [[1, 0], [0, 1], [1, 1]]
W_K = [[0, 1], [1, 0], [1, 0]]
W_V = [[1, 0], [0, 1], [0, 2]]

""" + DEFAULT_TEXT[end:]
    path = write(tmp_path, old)
    with pytest.raises(NumbersError) as info:
        load_numbers(path)
    message = str(info.value)
    assert "\n" not in message and info.value.key in {
        "projections.x", "fill_blank.query", "fill_blank.K", "fill_blank.V"}
    assert "numbers.toml" in message  # points to the built-in file as the model
