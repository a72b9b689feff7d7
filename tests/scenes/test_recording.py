"""What a scene reads is recorded; digests change exactly when the values do."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from common.digests import digest
from qkv_math.derived import derive
from qkv_math.numbers import load_numbers
from scenes.recording import Recorded, project_code, read_inputs


def test_digest_follows_values_not_identity():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert digest(a) == digest(a.copy())
    assert digest(a) != digest(a.T)  # same bytes set, other layout
    assert digest(a) != digest(a.astype(np.float32))
    assert digest((1, "x")) != digest([1, "x"])
    assert digest({"a": 1, "b": 2}) == digest({"b": 2, "a": 1})
    with pytest.raises(TypeError):
        digest(object())


def test_recorded_view_logs_each_value_read_once_down_to_the_leaf():
    numbers = load_numbers()
    log: dict[str, str] = {}
    view = Recorded(numbers, "numbers", log)
    we = view.worked_example
    assert log == {}  # a dataclass field: a view of its own, nothing read yet
    assert we.tokens is numbers.worked_example.tokens
    _ = view.worked_example.tokens
    assert list(log) == ["numbers.worked_example.tokens"]
    assert log == read_inputs(["numbers.worked_example.tokens"], {"numbers": numbers})
    with pytest.raises(AttributeError):
        view.worked_example = None
    with pytest.raises(AttributeError):
        we.V = None


def test_a_method_read_records_its_whole_object():
    @dataclass(frozen=True)
    class Holder:
        x: int

        def twice(self) -> int:
            return 2 * self.x

    log: dict[str, str] = {}
    assert Recorded(Holder(3), "h", log).twice() == 6
    assert list(log) == ["h"]


def test_a_changed_number_changes_only_the_values_that_depend_on_it():
    numbers = load_numbers()
    d = derive(numbers)
    we = numbers.worked_example
    v = np.array(we.V, dtype=float)
    v[0, 0] += 1
    changed = replace(numbers, worked_example=replace(we, V=v))
    d2 = derive(changed)
    names = ["numbers.worked_example", "numbers.fill_blank", "derived.worked_all",
             "derived.fill_weights", "derived.nope", "numbers.worked_example.tokens",
             "numbers.worked_example.V", "derived.worked_all.scores",
             "derived.worked_all.output", "derived.worked_all.nope"]
    before = read_inputs(names, {"numbers": numbers, "derived": d})
    after = read_inputs(names, {"numbers": changed, "derived": d2})
    assert before["numbers.worked_example"] != after["numbers.worked_example"]
    assert before["derived.worked_all"] != after["derived.worked_all"]
    assert before["numbers.fill_blank"] == after["numbers.fill_blank"]
    assert before["derived.fill_weights"] == after["derived.fill_weights"]
    assert before["derived.nope"] == after["derived.nope"] == "missing"
    # Down to the leaf: the words and the scores do not depend on V, the output does.
    assert before["numbers.worked_example.tokens"] == after["numbers.worked_example.tokens"]
    assert before["numbers.worked_example.V"] != after["numbers.worked_example.V"]
    assert before["derived.worked_all.scores"] == after["derived.worked_all.scores"]
    assert before["derived.worked_all.output"] != after["derived.worked_all.output"]
    assert after["derived.worked_all.nope"] == "missing"


def test_project_code_lists_loaded_project_files():
    import scenes.contract  # noqa: F401

    code = project_code()
    assert "scenes/contract.py" in code and "scenes/recording.py" in code
    assert not any(".venv" in k or k.startswith("/") for k in code)
