"""Hand-computed values and edge cases of softmax, attention and shift_normalize."""

import math

import numpy as np
import pytest

from qkv_math import attention, derive, load_numbers, shift_normalize, softmax


def test_worked_example_by_hand() -> None:
    # Query token "追" (index 1): q = [0, 1]; keys [0, 1], [1, 0], [1, 2] (Q and K differ).
    scores = [0 * 0 + 1 * 1, 0 * 1 + 1 * 0, 0 * 1 + 1 * 2]
    assert scores == [1, 0, 2]
    scaled = [s / math.sqrt(2) for s in scores]
    exps = [math.exp(s) for s in scaled]
    weights = [e / sum(exps) for e in exps]
    values = [[1, 2], [3, 0], [0, 1]]
    output = [sum(w * v[j] for w, v in zip(weights, values, strict=True)) for j in range(2)]

    got = derive(load_numbers()).worked
    assert got.d == 2
    assert got.scores == pytest.approx(scores)
    assert got.scaled == pytest.approx(scaled)
    assert got.weights == pytest.approx(weights)
    assert got.output == pytest.approx(output)
    # Spot values, so a wrong formula above cannot hide: e^(1/√2) ≈ 2.0281, e^√2 ≈ 4.1133.
    assert got.weights == pytest.approx([0.283995, 0.140029, 0.575975], abs=1e-6)
    assert got.output == pytest.approx([0.704083, 1.143966], abs=1e-6)


def test_fill_blank_and_projections_by_hand() -> None:
    d = derive(load_numbers())
    # query [1, 1, 0] against K rows [1,1,0], [1,0,0], [0,0,1], [-2,-1,0]
    scores = [2.0, 1.0, 0.0, -3.0]
    assert d.fill_scores == pytest.approx(scores)
    total = sum(math.exp(s) for s in scores)
    weights = [math.exp(s) / total for s in scores]
    assert d.fill_weights == pytest.approx(weights)
    assert d.fill_shifted == pytest.approx([5 / 12, 4 / 12, 3 / 12, 0.0])
    # V is the identity on the first three tokens and zero for "我".
    assert d.fill_output == pytest.approx(weights[:3])
    # The projections make the example's vectors. x_query = [1, 0, 1] picks rows 1 and 3
    # of W_Q = [[1, 2, 0], [0, 1, 1], [0, -1, 0]] and adds them: [1, 1, 0], the blank's query.
    # x_key = [2, 1, 0] takes twice row 1 plus row 2: of W_K = [[0, 0, 1], [1, 1, -2], ...]
    # France's key [1, 1, 0]; of W_V = [[0, 0, 1], [1, 0, -2], ...] its value [1, 0, 0].
    n = load_numbers()
    assert d.proj_q == pytest.approx([1.0, 1.0, 0.0])
    assert d.proj_k == pytest.approx([1.0, 1.0, 0.0])
    assert d.proj_v == pytest.approx([1.0, 0.0, 0.0])
    # ... and they are the vectors every later scene uses.
    assert n.fill_blank.query.tolist() == d.proj_q.tolist()
    assert n.fill_blank.K[0].tolist() == d.proj_k.tolist()
    assert n.fill_blank.V[0].tolist() == d.proj_v.tolist()
    assert d.sqrt_d_model == 8.0
    # e^score and its total, as the softmax scene shows them.
    assert d.fill_exp == pytest.approx([math.exp(s) for s in scores])
    assert d.fill_exp_total == pytest.approx(total)
    assert d.fill_order == (0, 1, 2, 3)
    assert d.fill_shifted_alt == pytest.approx([6 / 16, 5 / 16, 4 / 16, 1 / 16])
    assert d.worked_exp_total == pytest.approx(float(np.exp(d.worked.scaled).sum()))


def test_softmax_large_inputs_are_finite() -> None:
    w = softmax([1000.0, 1001.0])
    assert np.isfinite(w).all()
    e = math.exp(-1)
    assert w == pytest.approx([e / (1 + e), 1 / (1 + e)])


def test_softmax_minus_inf_gets_exactly_zero() -> None:
    w = softmax([0.0, -np.inf, 1.0])
    assert w[1] == 0.0
    assert w.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "x",
    [[1.0, np.nan], [[0.0, 1.0], [-np.inf, -np.inf]], [np.inf, 0.0], [], 3.0],
    ids=["nan", "all-minus-inf-row", "plus-inf", "empty", "scalar"],
)
def test_softmax_rejects(x: object) -> None:
    with pytest.raises(ValueError):
        softmax(x)


def test_softmax_axis() -> None:
    a = np.array([[1.0, 2.0], [3.0, 5.0]])
    assert softmax(a, axis=0) == pytest.approx(softmax(a.T).T)
    with pytest.raises(ValueError, match="axis"):
        softmax(a, axis=2)


def test_attention_one_query_vs_several() -> None:
    K = [[1, 0], [0, 1], [1, 1]]
    V = [[1, 2], [3, 0], [0, 1]]
    one = attention([0, 1], K, V)
    many = attention([[1, 0], [0, 1]], K, V)
    assert one.scores.shape == one.weights.shape == (3,)
    assert one.output.shape == (2,)
    assert many.scores.shape == many.weights.shape == (2, 3)
    assert many.output.shape == (2, 2)
    assert many.output[1] == pytest.approx(one.output)


def test_attention_unscaled() -> None:
    a = attention([0, 1], [[1, 0], [0, 1]], [[1.0], [0.0]], scale=False)
    assert a.scaled == pytest.approx(a.scores)
    e = math.e
    assert a.weights == pytest.approx([1 / (1 + e), e / (1 + e)])


@pytest.mark.parametrize(
    ("Q", "K", "V", "expected"),
    [
        (
            [[1, 2, 3]],
            [[1, 0], [0, 1], [1, 1]],
            [[1], [2], [3]],
            "Q has 3 columns but K has 2 (Q shape (1, 3), K shape (3, 2))",
        ),
        ([1, 2, 3], [[1, 0], [0, 1]], [[1], [2]], "(Q shape (3,), K shape (2, 2))"),
        ([1, 0], [[1, 0], [0, 1]], [[1], [2], [3]], "K shape (2, 2), V shape (3, 1)"),
        ([[[1, 0]]], [[1, 0]], [[1]], "Q shape (1, 1, 2)"),
        ([1, 0], [1, 0], [[1]], "K shape (2,)"),
        ([1, 0], [[1, 0]], [1], "V shape (1,)"),
        ([1, np.nan], [[1, 0]], [[1]], "Q contains NaN"),
    ],
)
def test_attention_wrong_shapes(Q: object, K: object, V: object, expected: str) -> None:
    with pytest.raises(ValueError) as info:
        attention(Q, K, V)
    assert expected in str(info.value)


def test_shift_normalize() -> None:
    assert shift_normalize([2, 1, 0, -3], 3) == pytest.approx([5 / 12, 4 / 12, 3 / 12, 0])
    with pytest.raises(ValueError, match="negative"):
        shift_normalize([2, 1, 0, -3], 1)
    with pytest.raises(ValueError, match="add up to 0"):
        shift_normalize([-1, -1], 1)
