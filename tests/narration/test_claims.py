"""Statements about the example are computed: a numbers file that makes one false flips it.

Each case edits the shipped numbers file so that one statement the narration makes stops
being true, and checks that the fact's wording changes in both languages, and that the
wording given is the one that is true for those numbers (judged here from the numbers
themselves, not from the code under test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from narration.facts import build_facts
from qkv_math import DEFAULT_NUMBERS, derive, load_numbers
from qkv_math.numbers import Numbers

DEFAULT_TEXT = DEFAULT_NUMBERS.read_text(encoding="utf-8")


def facts_of(text: str, tmp_path) -> tuple[Numbers, dict]:
    path = tmp_path / "numbers.toml"
    path.write_text(text, encoding="utf-8")
    numbers = load_numbers(path)
    return numbers, build_facts(numbers, derive(numbers))


def sub(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert text.count(old) == 1, f"snippet not unique in the default file: {old!r}"
        return text.replace(old, new)

    return edit


@dataclass(frozen=True)
class Case:
    fact: str
    flip: Callable[[str], str]
    """Edits the default numbers file so that the statement no longer holds."""
    holds: Callable[[Numbers], bool]
    """Whether the statement's "yes" wording is true, judged from the numbers."""


def _naive(n: Numbers, shift: float) -> np.ndarray:
    s = n.fill_blank.K @ n.fill_blank.query
    return (s + shift) / (s + shift).sum()


def _fill_top(n: Numbers) -> int:
    return int(np.argmax(n.fill_blank.K @ n.fill_blank.query))


def _fill_output(n: Numbers) -> np.ndarray:
    s = n.fill_blank.K @ n.fill_blank.query
    return (np.exp(s) / np.exp(s).sum()) @ n.fill_blank.V


def _fill_output_scaled(n: Numbers) -> np.ndarray:
    s = n.fill_blank.K @ n.fill_blank.query / np.sqrt(len(n.fill_blank.query))
    return (np.exp(s) / np.exp(s).sum()) @ n.fill_blank.V


# The other words' keys; France's key (x_key times W_K) and value (x_key times W_V), and the
# blank's query (x_query times W_Q), are edited through the projections.
FILL_K = "K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]"
W_K = "W_K = [[0, 0, 1], [1, 1, -2], [1, 0, 0]]"
W_V = "W_V = [[0, 0, 1], [1, 0, -2], [0, 1, 0]]"

CASES = [
    # "every share changes" when the naive constant goes up by one: false by default, since
    # a token scoring exactly the mean keeps its share; true once no score is the mean.
    Case("fb.alt_changes",
         sub(FILL_K, "K_others = [[1, 0, 0], [1, 0, 1], [-2, -1, 0]]"),
         lambda n: bool(np.all(np.abs(_naive(n, n.fill_blank.shift)
                                      - _naive(n, n.fill_blank.shift + 1)) > 5e-3))),
    Case("fb.out_mix_scaled",  # by the real formula, too: mostly one value feature
         sub(W_V, "W_V = [[0, 0, 1], [1, 1, -1], [0, 1, 0]]"),  # France's value [1, 1, 1]
         lambda n: _fill_output_scaled(n).max() > 0.5 * _fill_output_scaled(n).sum()),
    Case("fb.out_mix",  # the blank receives mostly one value feature
         sub(W_V, "W_V = [[0, 0, 1], [1, 1, -1], [0, 1, 0]]"),  # France's value [1, 1, 1]
         lambda n: _fill_output(n).max() > 0.5 * _fill_output(n).sum()),
    Case("fb.wants",
         sub("x_query = [1, 0, 1]", "x_query = [0, 0, 0]"),  # the query [0, 0, 0]
         lambda n: bool((n.fill_blank.query > 0).any())),
    Case("fb.match.1",  # Beijing's key shares one feature with the query
         sub("[1, 0, 0], [0, 0, 1]", "[1, 1, 0], [0, 0, 1]"),
         lambda n: int(((n.fill_blank.query * n.fill_blank.K[1]) > 0).sum()) == 1),
    Case("fb.shared.0",  # France's key matches the query on the first two features
         sub(W_K, "W_K = [[0, 0, 1], [1, 0, -1], [1, 0, 0]]"),  # France's key [1, 0, 1]
         lambda n: list((n.fill_blank.query * n.fill_blank.K[0] > 0).nonzero()[0]) == [0, 1]),
    Case("fb.tags.0",  # France's key is tagged with the second feature ("where I grew up")
         sub(W_K, "W_K = [[0, 0, 1], [1, 0, -2], [1, 0, 0]]"),  # France's key [1, 0, 0]
         lambda n: n.fill_blank.K[0][1] > 0),
    Case("fb.v_has.0",  # France's value holds only the first value feature
         sub(W_V, "W_V = [[0, 0, 1], [0, 1, -2], [0, 1, 0]]"),  # France's value [0, 1, 0]
         lambda n: list(n.fill_blank.V[0].nonzero()[0]) == [0]),
    Case("fb.low_note",  # the lowest score is negative
         sub("[-2, -1, 0]", "[0, 0, 0]"),
         lambda n: float((n.fill_blank.K @ n.fill_blank.query).min()) < 0),
]


@pytest.mark.parametrize("case", CASES, ids=[c.fact for c in CASES])
def test_claim_flips_with_the_numbers(case: Case, tmp_path) -> None:
    n0, f0 = facts_of(DEFAULT_TEXT, tmp_path)
    n1, f1 = facts_of(case.flip(DEFAULT_TEXT), tmp_path)
    assert case.holds(n0) != case.holds(n1), "the edit must flip the statement"
    for lang in ("zh", "en"):
        assert f0[case.fact][lang] != f1[case.fact][lang]
    # The default file's wording is the "yes" wording exactly when the statement holds.
    yes, no = (f0, f1) if case.holds(n0) else (f1, f0)
    assert yes[case.fact] != no[case.fact]


def test_every_claim_fact_has_a_case() -> None:
    """Facts built with ``claim`` are listed above, so none goes untested."""
    import inspect

    import narration.facts as facts_module

    source = inspect.getsource(facts_module.build_facts)
    named = {line.split('"')[1] for line in source.splitlines()
             if "= claim(" in line and '"' in line}
    assert named <= {c.fact for c in CASES}, named - {c.fact for c in CASES}
