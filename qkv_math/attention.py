"""Scaled dot-product attention, step by step, in plain numpy."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    The maximum of each slice is subtracted before ``exp`` so large inputs (e.g. 1000)
    do not overflow. ``-inf`` entries get weight exactly 0. Raises ``ValueError`` on NaN,
    on ``+inf``, on an empty slice, or when a whole slice is ``-inf``.
    """
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        raise ValueError("softmax needs at least one axis; got a scalar")
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"axis {axis} is out of range for an array of shape {a.shape}")
    if a.shape[axis] == 0:
        raise ValueError(f"softmax over an empty axis (shape {a.shape}, axis {axis})")
    if np.isnan(a).any():
        raise ValueError("softmax input contains NaN")
    if np.isposinf(a).any():
        raise ValueError("softmax input contains +inf; the weights would be undefined")
    top = a.max(axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("softmax input has a slice that is entirely -inf (nothing to weight)")
    e = np.exp(a - top)
    return e / e.sum(axis=axis, keepdims=True)


@dataclass(frozen=True, eq=False)
class Attention:
    """Every intermediate of ``softmax(Q·Kᵀ / √d) · V``.

    Shapes follow the rank of Q: a 1-D query gives 1-D ``scores``/``scaled``/``weights``
    (one per key) and a 1-D ``output``; n_q queries give (n_q, n_k) and (n_q, d_v).
    """

    scores: np.ndarray
    """Q·Kᵀ, the raw dot products."""
    scaled: np.ndarray
    """scores / √d (or scores itself when scale=False)."""
    weights: np.ndarray
    """softmax of ``scaled`` over the keys (last axis)."""
    output: np.ndarray
    """weights · V."""
    d: int
    """The key dimension (columns of K)."""


def _finite(name: str, a: np.ndarray) -> None:
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or inf (shape {a.shape})")


def attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, scale: bool = True) -> Attention:
    """Attention of one query (1-D, (d,)) or several (2-D, (n_q, d)) over keys K (n_k, d)
    and values V (n_k, d_v). Raises ``ValueError`` naming the shapes when they do not fit."""
    q = np.asarray(Q, dtype=float)
    k = np.asarray(K, dtype=float)
    v = np.asarray(V, dtype=float)
    if q.ndim not in (1, 2):
        raise ValueError(
            f"Q must be one query (1-D, shape (d,)) or several (2-D, shape (n_q, d)); "
            f"got Q shape {q.shape}"
        )
    if k.ndim != 2:
        raise ValueError(f"K must be 2-D, shape (n_k, d); got K shape {k.shape}")
    if v.ndim != 2:
        raise ValueError(f"V must be 2-D, shape (n_k, d_v); got V shape {v.shape}")
    if q.shape[-1] != k.shape[1]:
        cols = k.shape[1]
        what = f"columns but K has {cols}" if q.ndim == 2 else f"entries but K has {cols} columns"
        raise ValueError(f"Q has {q.shape[-1]} {what} (Q shape {q.shape}, K shape {k.shape})")
    if k.shape[0] != v.shape[0]:
        raise ValueError(
            f"K has {k.shape[0]} rows but V has {v.shape[0]} (K shape {k.shape}, V shape {v.shape})"
        )
    if k.shape[0] == 0:
        raise ValueError(f"K has no rows, so there is nothing to attend to (K shape {k.shape})")
    d = int(k.shape[1])
    if d == 0:
        raise ValueError(f"the key dimension d is 0 (K shape {k.shape})")
    for name, a in (("Q", q), ("K", k), ("V", v)):
        _finite(name, a)
    scores = q @ k.T
    scaled = scores / math.sqrt(d) if scale else scores.copy()
    weights = softmax(scaled, axis=-1)
    return Attention(scores=scores, scaled=scaled, weights=weights, output=weights @ v, d=d)


def shift_normalize(scores: ArrayLike, shift: float) -> np.ndarray:
    """The naive alternative to softmax: ``(scores + shift) / sum(scores + shift)`` along
    the last axis. Raises ``ValueError`` if a shifted score is negative or a total is 0."""
    s = np.asarray(scores, dtype=float)
    if s.ndim == 0:
        raise ValueError("shift_normalize needs at least one axis; got a scalar")
    if not np.isfinite(s).all() or not math.isfinite(shift):
        raise ValueError("scores and shift must be finite numbers")
    shifted = s + shift
    if (shifted < 0).any():
        low = float(s.min())
        raise ValueError(
            f"shift {shift:g} leaves a negative score: the lowest score {low:g} becomes "
            f"{low + shift:g}; the shift must be at least {-low:g}"
        )
    total = shifted.sum(axis=-1, keepdims=True)
    if (total == 0).any():
        raise ValueError(
            f"the shifted scores add up to 0 (shift {shift:g}), so they cannot be divided"
        )
    return shifted / total
