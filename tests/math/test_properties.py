"""Invariances of softmax/attention and agreement with a plain-loop implementation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from qkv_math import attention, shift_normalize, softmax

FAST = settings(max_examples=60, deadline=None, database=None)
finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
dims = st.integers(1, 5)


def matrix(rows: int, cols: int) -> st.SearchStrategy[np.ndarray]:
    return arrays(np.float64, (rows, cols), elements=finite)


@st.composite
def qkv(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_q, n_k, d, d_v = draw(dims), draw(dims), draw(dims), draw(dims)
    return draw(matrix(n_q, d)), draw(matrix(n_k, d)), draw(matrix(n_k, d_v))


def plain_attention(
    Q: list[list[float]], K: list[list[float]], V: list[list[float]], scale: bool
) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
    """Independent reference: nested loops and math.exp, no numpy."""
    d = len(K[0])
    all_scores, all_weights, all_out = [], [], []
    for q in Q:
        scores = [sum(q[i] * k[i] for i in range(d)) for k in K]
        scaled = [s / math.sqrt(d) if scale else s for s in scores]
        top = max(scaled)
        exps = [math.exp(s - top) for s in scaled]
        total = sum(exps)
        weights = [e / total for e in exps]
        out = [sum(weights[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
        all_scores.append(scores)
        all_weights.append(weights)
        all_out.append(out)
    return all_scores, all_weights, all_out


@FAST
@given(qkv(), st.booleans())
def test_agrees_with_plain_loops(m: tuple[np.ndarray, ...], scale: bool) -> None:
    Q, K, V = m
    scores, weights, out = plain_attention(Q.tolist(), K.tolist(), V.tolist(), scale)
    a = attention(Q, K, V, scale=scale)
    np.testing.assert_allclose(a.scores, scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a.weights, weights, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.output, out, rtol=1e-9, atol=1e-9)


@FAST
@given(arrays(np.float64, st.tuples(dims, dims), elements=finite), st.floats(-100, 100))
def test_adding_a_constant_leaves_weights_unchanged(x: np.ndarray, c: float) -> None:
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=1e-9, atol=1e-12)


@FAST
@given(arrays(np.float64, st.tuples(dims, dims), elements=st.floats(-1e6, 1e6)))
def test_weights_sum_to_one(x: np.ndarray) -> None:
    w = softmax(x)
    assert ((w >= 0) & (w <= 1)).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@FAST
@given(qkv(), st.data())
def test_permuting_keys_with_values_leaves_output_unchanged(
    m: tuple[np.ndarray, ...], data: st.DataObject
) -> None:
    Q, K, V = m
    perm = data.draw(st.permutations(range(K.shape[0])))
    a, b = attention(Q, K, V), attention(Q, K[perm], V[perm])
    np.testing.assert_allclose(b.output, a.output, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b.weights, a.weights[:, perm], rtol=1e-9, atol=1e-12)


@FAST
@given(qkv())
def test_one_query_matches_its_row(m: tuple[np.ndarray, ...]) -> None:
    Q, K, V = m
    many = attention(Q, K, V)
    one = attention(Q[0], K, V)
    assert one.output.shape == (V.shape[1],)
    np.testing.assert_allclose(one.output, many.output[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(one.weights, many.weights[0], rtol=1e-12, atol=1e-15)


@FAST
@given(arrays(np.float64, dims, elements=finite))
def test_shift_normalize_sums_to_one(x: np.ndarray) -> None:
    shift = float(-x.min()) + 1.0
    w = shift_normalize(x, shift)
    assert w.sum() == pytest.approx(1.0)
    assert (w >= 0).all()
