"""Statements about the example are computed: a numbers file that makes one false flips it.

Each case edits the shipped numbers file so that one statement the narration makes stops
being true, and checks that the fact's wording changes in both languages, and that the
wording given is the one that is true for those numbers (judged here from the numbers
themselves, not from the code under test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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


def _proj(n: Numbers) -> list[tuple[float, ...]]:
    pj = n.projections
    return [tuple(pj.x @ w) for w in (pj.W_Q, pj.W_K, pj.W_V)]


CASES = [
    Case("pj.distinct",
         sub("W_V = [[1, 0], [0, 1], [0, 2]]", "W_V = [[1, 0], [0, 1], [1, 1]]"),
         lambda n: len(set(_proj(n))) == 3),
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
