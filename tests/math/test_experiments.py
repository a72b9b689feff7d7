"""The random √d experiment and the amplification rows."""

import math

import numpy as np
import pytest

from qkv_math import amplified, derive, load_numbers, scaling_experiment, softmax


@pytest.fixture(scope="module")
def rows() -> tuple:
    return scaling_experiment(dims=[4, 16, 64, 256], keys=4, samples=2000, seed=7)


def test_deterministic_for_a_seed(rows: tuple) -> None:
    assert scaling_experiment([4, 16, 64, 256], 4, 2000, 7) == rows
    assert scaling_experiment([4, 16, 64, 256], 4, 2000, 8) != rows


def test_dot_std_grows_like_sqrt_d(rows: tuple) -> None:
    assert [r.d for r in rows] == [4, 16, 64, 256]
    ratio = rows[-1].dot_std / rows[0].dot_std
    assert abs(ratio - 8) < 0.3 * 8
    for r in rows:
        assert r.dot_std == pytest.approx(math.sqrt(r.d), rel=0.15)
        assert r.scaled_std == pytest.approx(1.0, abs=0.1)


def test_scaling_keeps_softmax_from_peaking(rows: tuple) -> None:
    big = rows[-1]
    assert big.top_weight_raw > big.top_weight_scaled
    assert big.top_weight_raw > 0.9
    raws = [r.top_weight_raw for r in rows]
    assert raws == sorted(raws)
    for r in rows:
        assert 1 / 4 <= r.top_weight_scaled <= 1


def test_derive_uses_the_scaling_table(rows: tuple) -> None:
    assert derive(load_numbers()).scaling_rows == rows


@pytest.mark.parametrize(
    "kwargs",
    [
        {"dims": [0], "keys": 4, "samples": 10, "seed": 1},
        {"dims": [4], "keys": 0, "samples": 10, "seed": 1},
        {"dims": [4], "keys": 4, "samples": 2.5, "seed": 1},
        {"dims": [True], "keys": 4, "samples": 10, "seed": 1},
    ],
)
def test_scaling_experiment_rejects(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        scaling_experiment(**kwargs)


def test_amplified() -> None:
    scores = np.array([2.0, 1.0, 0.0, -3.0])
    out = amplified(scores, [1, 2, 4, 8], d=3)
    assert [r.factor for r in out] == [1, 2, 4, 8]
    assert [r.dim for r in out] == [3, 12, 48, 192]
    np.testing.assert_allclose(out[0].weights_raw, out[0].weights_scaled)
    tops = [r.weights_raw.max() for r in out]
    assert tops == sorted(tops) and tops[-1] > 0.999
    for r in out:
        np.testing.assert_allclose(r.weights_scaled, softmax(scores), rtol=1e-12)
        np.testing.assert_allclose(r.weights_raw, softmax(r.factor * scores), rtol=1e-12)


@pytest.mark.parametrize("factor", [0, -1, float("nan"), float("inf"), True, "2"])
def test_amplified_rejects(factor: object) -> None:
    with pytest.raises(ValueError):
        amplified([1.0, 0.0], [factor], d=2)
