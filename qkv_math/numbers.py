"""Load and validate the numbers file (TOML) that every scene and narration line uses."""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from common.text import columns as text_columns

DEFAULT_NUMBERS: Path = Path(__file__).parent / "data" / "numbers.toml"
"""The numbers file shipped with the package."""

LANGUAGES: tuple[str, ...] = ("zh", "en")
"""Languages every text list must provide."""


class NumbersError(ValueError):
    """A problem in a numbers file: ``str(err)`` is ``"{file}: {key}: {problem}"`` on one line.

    ``key`` is dotted (``worked_example.Q``, ``fill_blank.tokens.en``); it is ``""`` for
    problems with the file as a whole (missing, unreadable, invalid TOML), which then read
    ``"{file}: {problem}"``.
    """

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        self.file = Path(file)
        self.key = key
        self.problem = problem
        where = f"{self.file}: {key}: " if key else f"{self.file}: "
        super().__init__(where + problem.replace("\n", " "))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.file, self.key, self.problem))


@dataclass(frozen=True, eq=False)
class WorkedExample:
    """Three tokens with their Q, K, V rows; ``query`` indexes the token being updated."""

    tokens: dict[str, tuple[str, ...]]
    query: int
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray


@dataclass(frozen=True, eq=False)
class FillBlank:
    """The fill-in-the-blank example: one query against hand-made feature vectors.

    ``query`` and the first rows of ``K`` and ``V`` (the first word's key and value) are not
    written in the file: they are computed from word vectors by the projections
    (:class:`Projections`), so the projection scene derives the vectors the video uses.
    """

    tokens: dict[str, tuple[str, ...]]
    features: dict[str, tuple[str, ...]]
    value_features: dict[str, tuple[str, ...]]
    query: np.ndarray
    K: np.ndarray
    V: np.ndarray
    shift: float
    d_model: int


@dataclass(frozen=True, eq=False)
class Projections:
    """Two word vectors and the matrices that turn them into the example's q, k and v.

    ``x_query`` is the vector of the word that asks (the last word before the blank: a
    next-word model predicts the blank there); ``x_query @ W_Q`` is the blank's query.
    ``x_key`` is the first fill-in-the-blank word's vector (France's); ``x_key @ W_K`` and
    ``x_key @ W_V`` are its key and value.
    """

    x_query: np.ndarray
    x_key: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray

    @property
    def query(self) -> np.ndarray:
        """The blank's query: ``x_query @ W_Q``."""
        return _readonly(self.x_query @ self.W_Q)

    @property
    def key(self) -> np.ndarray:
        """The first word's key: ``x_key @ W_K``."""
        return _readonly(self.x_key @ self.W_K)

    @property
    def value(self) -> np.ndarray:
        """The first word's value: ``x_key @ W_V``."""
        return _readonly(self.x_key @ self.W_V)


@dataclass(frozen=True)
class Scaling:
    """Parameters of the random "why divide by √d" experiment."""

    seed: int
    dims: tuple[int, ...]
    keys: int
    samples: int
    amplify: tuple[float, ...]


@dataclass(frozen=True, eq=False)
class Numbers:
    """Everything in a numbers file, validated; arrays are float and read-only."""

    source: Path
    worked_example: WorkedExample
    fill_blank: FillBlank
    projections: Projections
    scaling: Scaling


_TABLES: dict[str, tuple[str, ...]] = {
    "worked_example": ("tokens", "query", "Q", "K", "V"),
    "fill_blank": (
        "tokens",
        "features",
        "K_others",
        "shift",
        "value_features",
        "V_others",
        "d_model",
    ),
    "projections": ("x_query", "x_key", "W_Q", "W_K", "W_V"),
    "scaling": ("seed", "dims", "keys", "samples", "amplify"),
}


_SEE = "see the built-in qkv_math/data/numbers.toml"
_MOVED: dict[str, str] = {
    # keys of numbers files written before the projections computed the example's vectors
    "fill_blank.query": "no longer written here: the blank's query is computed as "
                        "projections.x_query times projections.W_Q; remove this key and set "
                        f"x_query and W_Q in [projections] ({_SEE})",
    "fill_blank.K": "no longer written here: write the keys of the words after the first as "
                    "K_others; the first word's key is computed as projections.x_key times "
                    f"projections.W_K ({_SEE})",
    "fill_blank.V": "no longer written here: write the values of the words after the first as "
                    "V_others; the first word's value is computed as projections.x_key times "
                    f"projections.W_V ({_SEE})",
    "projections.x": "replaced by x_query (the vector of the word that asks) and x_key (the "
                     "first fill_blank word's), with matrices W_Q, W_K, W_V of one column per "
                     f"feature ({_SEE})",
}
"""Keys of the earlier file format, each refused with what replaces it."""


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {'entries' if word == 'entry' else word + 's'}"


def _describe(value: object) -> str:
    """Name a TOML value in plain words, for error messages."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__} ({value})"


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


class _Reader:
    """Validating accessors that raise NumbersError naming ``file`` and the dotted key."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, problem: str) -> NoReturn:
        raise NumbersError(self.file, key, problem)

    # -- structure -----------------------------------------------------------------
    def table(self, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
        if name not in data:
            self.fail(name, f"missing table (add a [{name}] section)")
        value = data[name]
        if not isinstance(value, dict):
            self.fail(name, f"must be a table ([{name}]), got {_describe(value)}")
        expected = _TABLES[name]
        for key in value:
            if f"{name}.{key}" in _MOVED:
                self.fail(f"{name}.{key}", _MOVED[f"{name}.{key}"])
            if key not in expected:
                self.fail(f"{name}.{key}", f"unknown key; expected one of: {', '.join(expected)}")
        for key in expected:
            if key not in value:
                self.fail(f"{name}.{key}", "missing key")
        return value

    # -- scalars ---------------------------------------------------------------------
    def number(self, value: object, key: str, what: str = "the value") -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(key, f"{what} is {_describe(value)}, not a number")
        x = float(value)
        if math.isnan(x):
            self.fail(key, f"{what} is nan; every number must be finite")
        if math.isinf(x):
            self.fail(key, f"{what} is {value}; every number must be finite")
        return x

    def integer(
        self, value: object, key: str, minimum: int | None = None, what: str = "the value"
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"{what} must be a whole number (like 3), got {_describe(value)}")
        if minimum is not None and value < minimum:
            bound = "positive" if minimum == 1 else f"at least {minimum}"
            self.fail(key, f"{what} must be {bound}, got {value}")
        return value

    # -- arrays ----------------------------------------------------------------------
    def vector(self, value: object, key: str) -> np.ndarray:
        if not isinstance(value, list):
            self.fail(key, f"must be a list of numbers like [1, 0, 1], got {_describe(value)}")
        if not value:
            self.fail(key, "is empty; it needs at least one number")
        nums = [self.number(v, key, f"entry {i + 1}") for i, v in enumerate(value)]
        return _readonly(np.array(nums, dtype=float))

    def matrix(self, value: object, key: str) -> np.ndarray:
        example = "a list of rows like [[1, 0], [0, 1]]"
        if not isinstance(value, list):
            self.fail(key, f"must be {example}, got {_describe(value)}")
        if not value:
            self.fail(key, "is empty; it needs at least one row")
        rows: list[list[float]] = []
        for i, row in enumerate(value):
            if not isinstance(row, list):
                self.fail(key, f"row {i + 1} is {_describe(row)}, not a list; write {example}")
            if not row:
                self.fail(key, f"row {i + 1} is empty")
            rows.append(
                [self.number(v, key, f"row {i + 1}, entry {j + 1}") for j, v in enumerate(row)]
            )
            if len(rows[-1]) != len(rows[0]):
                self.fail(
                    key,
                    f"row {i + 1} has {_plural(len(rows[-1]), 'number')} "
                    f"but row 1 has {len(rows[0])}",
                )
        return _readonly(np.array(rows, dtype=float))

    # -- texts -----------------------------------------------------------------------
    def texts(self, value: object, key: str, columns: int | None = None,
              shown: str = "on screen") -> dict[str, tuple[str, ...]]:
        """A table of languages, each a list of non-empty strings of one common length, each
        at most ``columns`` wide (see :func:`common.text.columns`) when given."""
        langs = ", ".join(f'{lang} = ["…"]' for lang in LANGUAGES)
        if not isinstance(value, dict):
            self.fail(
                key, f"must be a table of languages like {{ {langs} }}, got {_describe(value)}"
            )
        for lang in LANGUAGES:
            if lang not in value:
                self.fail(
                    f"{key}.{lang}",
                    f'missing language "{lang}" (every text list needs {" and ".join(LANGUAGES)})',
                )
        out: dict[str, tuple[str, ...]] = {}
        for lang, items in value.items():
            k = f"{key}.{lang}"
            if not isinstance(items, list):
                self.fail(k, f"must be a list of texts, got {_describe(items)}")
            if not items:
                self.fail(k, "is empty")
            for i, item in enumerate(items):
                if not isinstance(item, str):
                    self.fail(k, f"entry {i + 1} is {_describe(item)}, not a text")
                if not item.strip():
                    self.fail(k, f"entry {i + 1} is empty (or only spaces)")
                if columns is not None and text_columns(item) > columns:
                    self.fail(f"{k}[{i}]", f"“{item}” is {text_columns(item)} columns wide (a "
                                           f"Chinese character counts 2); {shown} fit at most "
                                           f"{columns} ({columns // 2} Chinese characters or "
                                           f"{columns} letters)")
            out[lang] = tuple(items)
        first = LANGUAGES[0]
        for lang, items in out.items():
            if len(items) != len(out[first]):
                self.fail(
                    f"{key}.{lang}",
                    f"has {_plural(len(items), 'entry')} but {key}.{first} has {len(out[first])}",
                )
        return out

    def rows_match(self, a: np.ndarray, key: str, n: int, what: str) -> None:
        if a.shape[0] != n:
            self.fail(key, f"has {_plural(a.shape[0], 'row')} but there {_are(n, what)}")


def _are(n: int, what: str) -> str:
    return f"is 1 {what}" if n == 1 else f"are {n} {what}s"


# -- tables ----------------------------------------------------------------------------


# How wide a word or a feature name may be, in columns (a Chinese character is drawn about
# twice as wide as a letter, so it counts 2): the widest that every scene lays out without
# crossing the frame edge or the subtitle band, measured by rendering every scene with longer
# and longer words (bench/fit_words.py). Longer ones are refused before any voice is made.
WORD_COLUMNS = 12  # the example words: 6 Chinese characters or 12 letters
FEATURE_COLUMNS = 16  # the names of the features of keys and values


def _worked_example(r: _Reader, data: Mapping[str, Any]) -> WorkedExample:
    t = r.table(data, "worked_example")
    tokens = r.texts(t["tokens"], "worked_example.tokens", WORD_COLUMNS,
                     "the worked example's table and grid")
    n = len(tokens[LANGUAGES[0]])
    Q = r.matrix(t["Q"], "worked_example.Q")
    K = r.matrix(t["K"], "worked_example.K")
    V = r.matrix(t["V"], "worked_example.V")
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        r.rows_match(a, f"worked_example.{name}", n, "token")
    if Q.shape[1] != K.shape[1]:
        r.fail(
            "worked_example.K",
            f"has {_plural(K.shape[1], 'column')} but Q has {Q.shape[1]}; "
            "q·k needs q and k of the same length",
        )
    query = r.integer(t["query"], "worked_example.query")
    if not 0 <= query < n:
        r.fail(
            "worked_example.query",
            f"{query} is out of range; it indexes the {n} tokens (counting from 0), "
            f"so it must be 0 to {n - 1}",
        )
    scaled = K @ Q[query] / np.sqrt(Q.shape[1])
    _exp_shown(r, "worked_example.K", scaled, tokens, "scaled score")
    return WorkedExample(tokens=tokens, query=query, Q=Q, K=K, V=V)


EXP_SHOWN_LIMIT = 50.0
"""Largest size of a negative score whose e^x the video shows (e^-50 is about 2 x 10^-22,
shown as 0.00; past -745 it underflows a float)."""
EXP_WIDEST = 20.0
"""Largest score whose e^x the video's tables lay out: e^20 = 485165195.41 (nine digits
before the point) still fits beside the scores, the ÷ total and the softmax bars at a
readable size; each point more adds a digit or half of one. A negative score's e^x is narrow
(0.00 to 1), so only the size of a negative score is limited, by ``EXP_SHOWN_LIMIT``."""


def _exp_shown(r: _Reader, key: str | Callable[[int], str], scores: np.ndarray,
               tokens: dict[str, tuple[str, ...]], what: str) -> None:
    """Refuse scores whose e^x, which the video shows, would be wider than its tables lay out
    (over ``EXP_WIDEST``) or absurd (under ``-EXP_SHOWN_LIMIT``). ``key`` names the file's key
    (or gives it for the score's index) in the one line that says so."""
    key_of = key if callable(key) else (lambda _i: key)
    names = tokens.get("en", tokens[LANGUAGES[0]])
    # the score furthest from 0 first, as the one line names a single value
    for i in sorted({int(np.argmax(scores)), int(np.argmin(scores))},
                    key=lambda j: -abs(float(scores[j]))):
        x = float(scores[i])
        if x > EXP_WIDEST:
            digits = math.floor(x / math.log(10)) + 1
            r.fail(key_of(i), f"the {what} of {names[i]!r} is {x:.4g}, and the video shows e to "
                              f"that power ({digits} digits before the point); "
                              f"its tables lay out e-powers up to e^{EXP_WIDEST:g} "
                              f"({math.exp(EXP_WIDEST):.2f}), so keep {what}s at most "
                              f"{EXP_WIDEST:g}")
        if x < -EXP_SHOWN_LIMIT:
            r.fail(key_of(i), f"the {what} of {names[i]!r} is {x:.4g}, and the video shows e to "
                              f"that power; keep {what}s at least -{EXP_SHOWN_LIMIT:g}")


def _fill_blank(r: _Reader, data: Mapping[str, Any], pj: Projections) -> FillBlank:
    t = r.table(data, "fill_blank")
    tokens = r.texts(t["tokens"], "fill_blank.tokens", WORD_COLUMNS,
                     "the sentence, the tables and the charts")
    features = r.texts(t["features"], "fill_blank.features", FEATURE_COLUMNS,
                       "the feature columns and tags")
    value_features = r.texts(t["value_features"], "fill_blank.value_features",
                             FEATURE_COLUMNS, "the value columns and chips")
    n = len(tokens[LANGUAGES[0]])
    m = len(features[LANGUAGES[0]])
    p = len(value_features[LANGUAGES[0]])
    first = tokens.get("en", tokens[LANGUAGES[0]])[0]
    # the projections give the blank's query and the first word's key and value, one number
    # per feature (value feature); the file gives the keys and values of the others
    for name, cols, what in (("W_Q", m, "feature"), ("W_K", m, "feature"),
                             ("W_V", p, "value feature")):
        w = getattr(pj, name)
        if w.shape[1] != cols:
            made = {"W_Q": "the blank's query", "W_K": f"the key of {first!r}",
                    "W_V": f"the value of {first!r}"}[name]
            r.fail(f"projections.{name}",
                   f"has {_plural(w.shape[1], 'column')} but there {_are(cols, what)} "
                   f"(fill_blank.{'value_features' if name == 'W_V' else 'features'}); "
                   f"x times {name} is {made}, one number per {what}")
    K_others = r.matrix(t["K_others"], "fill_blank.K_others")
    V_others = r.matrix(t["V_others"], "fill_blank.V_others")
    for name, a, cols, what in (("K_others", K_others, m, "feature"),
                                ("V_others", V_others, p, "value feature")):
        if a.shape[0] != n - 1:
            r.fail(f"fill_blank.{name}",
                   f"has {_plural(a.shape[0], 'row')} but there {_are(n - 1, 'word')} after "
                   f"the first; the first word's ({first!r}) is computed from "
                   f"projections.x_key")
        if a.shape[1] != cols:
            r.fail(f"fill_blank.{name}",
                   f"has {_plural(a.shape[1], 'column')} but there {_are(cols, what)}")
    query = pj.query
    K = _readonly(np.vstack([pj.key, K_others]))
    V = _readonly(np.vstack([pj.value, V_others]))
    shift = r.number(t["shift"], "fill_blank.shift")
    scores = K @ query
    # the first word's score comes from the projections alone (its key and the query)
    _exp_shown(r, lambda i: "fill_blank.K_others" if i else "projections", scores, tokens,
               "score")
    low = int(np.argmin(scores))
    if scores[low] + shift < 0:
        name = tokens.get("en", tokens[LANGUAGES[0]])[low]
        r.fail(
            "fill_blank.shift",
            f"{shift:g} is too small: the score of {name!r} ({scores[low]:g}) plus {shift:g} "
            f"is {scores[low] + shift:g}, a negative weight; use a shift of at least "
            f"{-scores[low]:g}",
        )
    if float((scores + shift).sum()) == 0:
        r.fail(
            "fill_blank.shift",
            f"with shift {shift:g} the shifted scores add up to 0, "
            "so they cannot be divided by their sum",
        )
    d_model = r.integer(t["d_model"], "fill_blank.d_model", minimum=1)
    return FillBlank(
        tokens=tokens,
        features=features,
        value_features=value_features,
        query=query,
        K=K,
        V=V,
        shift=shift,
        d_model=d_model,
    )


def _projections(r: _Reader, data: Mapping[str, Any]) -> Projections:
    t = r.table(data, "projections")
    x_query = r.vector(t["x_query"], "projections.x_query")
    x_key = r.vector(t["x_key"], "projections.x_key")
    if x_query.shape[0] != x_key.shape[0]:
        r.fail("projections.x_query",
               f"has {_plural(x_query.shape[0], 'number')} but x_key has "
               f"{x_key.shape[0]}; every word vector of a model has the same length")
    W = {name: r.matrix(t[name], f"projections.{name}") for name in ("W_Q", "W_K", "W_V")}
    for name, w in W.items():
        if w.shape[0] != x_key.shape[0]:
            r.fail(
                f"projections.{name}",
                f"has {_plural(w.shape[0], 'row')} but a word vector has "
                f"{_plural(x_key.shape[0], 'number')}; x times W needs one row per entry of x",
            )
    return Projections(x_query=x_query, x_key=x_key, **W)


def _positive_ints(r: _Reader, value: object, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        r.fail(key, f"must be a non-empty list of positive whole numbers, got {_describe(value)}")
    return tuple(r.integer(v, key, minimum=1, what=f"entry {i + 1}") for i, v in enumerate(value))


# What the scaling scene can show, and what its experiment can draw in memory and time: the
# table and the narration name the first and the fourth d and amplification (four of each);
# the draws take samples x keys x d numbers for the largest d.
SCALING_ROWS = 4
MAX_D = 4096
MAX_KEYS = 64
MAX_SAMPLES = 1_000_000
MAX_DRAWS = 20_000_000  # samples x keys x largest d: about 160 MB of float64 at most
MAX_FACTOR = 1000.0


def _scaling(r: _Reader, data: Mapping[str, Any]) -> Scaling:
    t = r.table(data, "scaling")
    seed = r.integer(t["seed"], "scaling.seed", minimum=0)
    dims = _positive_ints(r, t["dims"], "scaling.dims")
    if len(dims) != SCALING_ROWS:
        r.fail("scaling.dims", f"{_plural(len(dims), 'entry')}; the scaling scene shows exactly "
                               f"{SCALING_ROWS} (its table has a row for each)")
    if any(b <= a for a, b in itertools.pairwise(dims)):
        r.fail("scaling.dims", f"{list(dims)} must grow from each entry to the next "
                               f"(the narration names the last as the largest)")
    if max(dims) > MAX_D:
        r.fail("scaling.dims", f"{max(dims)} is over the limit of {MAX_D}")
    keys = r.integer(t["keys"], "scaling.keys", minimum=1)
    if keys > MAX_KEYS:
        r.fail("scaling.keys", f"{keys} is over the limit of {MAX_KEYS}")
    samples = r.integer(t["samples"], "scaling.samples", minimum=1)
    if samples > MAX_SAMPLES:
        r.fail("scaling.samples", f"{samples} is over the limit of {MAX_SAMPLES}")
    if samples * keys * max(dims) > MAX_DRAWS:
        r.fail("scaling.samples", f"{samples} draws of {keys} keys at d = {max(dims)} is "
                                  f"{samples * keys * max(dims):,} numbers, over the limit of "
                                  f"{MAX_DRAWS:,}; draw fewer samples")
    amplify = r.vector(t["amplify"], "scaling.amplify")
    if (amplify <= 0).any():
        i = int(np.argmax(amplify <= 0))
        r.fail("scaling.amplify", f"entry {i + 1} is {amplify[i]:g}; factors must be positive")
    if len(amplify) != SCALING_ROWS:
        r.fail("scaling.amplify", f"{_plural(len(amplify), 'entry')}; the scaling scene shows "
                                  f"exactly {SCALING_ROWS} factors")
    if amplify.max() > MAX_FACTOR:
        r.fail("scaling.amplify", f"{amplify.max():g} is over the limit of {MAX_FACTOR:g}")
    return Scaling(
        seed=seed,
        dims=dims,
        keys=keys,
        samples=samples,
        amplify=tuple(float(a) for a in amplify),
    )


# -- entry point -----------------------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise NumbersError(path, "", "file not found") from None
    except IsADirectoryError:
        raise NumbersError(path, "", "is a directory, not a numbers file") from None
    except OSError as e:
        raise NumbersError(path, "", f"cannot read the file ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NumbersError(path, "", f"not UTF-8 text (bad byte at offset {e.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NumbersError(path, "", f"not valid TOML: {e}") from None


def load_numbers(path: Path | str | None = None) -> Numbers:
    """Load and validate a numbers file (default: ``DEFAULT_NUMBERS``).

    Raises ``NumbersError`` naming the file, the dotted key and the problem.
    """
    source = DEFAULT_NUMBERS if path is None else Path(path)
    data = _read(source)
    r = _Reader(source)
    for name in data:
        if name not in _TABLES:
            r.fail(name, f"unknown table; expected: {', '.join(_TABLES)}")
    worked_example = _worked_example(r, data)
    projections = _projections(r, data)
    return Numbers(
        source=source,
        worked_example=worked_example,
        fill_blank=_fill_blank(r, data, projections),
        projections=projections,
        scaling=_scaling(r, data),
    )
