"""Everything the video shows, computed once from a ``Numbers``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qkv_math.attention import Attention, attention, shift_normalize, softmax
from qkv_math.experiments import AmplifiedRow, ScalingRow, amplified, scaling_experiment
from qkv_math.numbers import Numbers


@dataclass(frozen=True, eq=False)
class Derived:
    """Computed results for the scenes and narration."""

    worked: Attention
    """The worked example's query row of Q against K and V, scaled by √d (1-D results)."""
    worked_all: Attention
    """Every query row of the worked example at once (QKᵀ for all pairs; 2-D results)."""
    fill_scores: np.ndarray
    """fill_blank query · each key, unscaled."""
    fill_weights: np.ndarray
    """softmax(fill_scores), no division by √d (as the article's example shows)."""
    fill_shifted: np.ndarray
    """The naive attempt: (fill_scores + shift) / their sum."""
    fill_output: np.ndarray
    """fill_weights · V."""
    proj_q: np.ndarray
    """x_query · W_Q: the blank's query (the same numbers as ``fill_blank.query``)."""
    proj_k: np.ndarray
    """x_key · W_K: the first word's key (``fill_blank.K[0]``)."""
    proj_v: np.ndarray
    """x_key · W_V: the first word's value (``fill_blank.V[0]``)."""
    scaling_rows: tuple[ScalingRow, ...]
    """The random √d experiment, one row per dimension."""
    amplified_rows: tuple[AmplifiedRow, ...]
    """fill_scores amplified by each factor, with and without rescaling."""
    sqrt_d_model: float
    """√d_model, the divisor for a typical real vector length."""
    fill_order: tuple[int, ...]
    """Indices of the fill_blank tokens by falling softmax weight (ties keep token order)."""
    fill_exp: np.ndarray
    """e to each unscaled fill_blank score (softmax before normalising)."""
    fill_exp_total: float
    """The sum of ``fill_exp``."""
    shift_alt: float
    """The naive attempt's other constant (shift + 1), to show that the shares depend on it."""
    fill_shifted_alt: np.ndarray
    """(fill_scores + shift_alt) / their sum."""
    fill_scores_scaled: np.ndarray
    """fill_scores / √d with d the fill_blank key length: what the real formula's softmax
    is given."""
    fill_weights_scaled: np.ndarray
    """softmax(fill_scores_scaled): the real formula's shares, used from the scaling scene
    on."""
    worked_exp: np.ndarray
    """e to each scaled score of the worked example's query."""
    worked_exp_total: float
    """The sum of ``worked_exp``."""
    worked_top: int
    """The worked example's token with the largest weight (first of ties)."""
    fill_query_has: tuple[int, ...]
    """fill_blank features on which the query is positive (what the blank asks for)."""
    fill_shared: tuple[tuple[int, ...], ...]
    """Per fill_blank token, the features where query and key have the same sign (non-zero):
    the products that add to its score."""
    fill_value_has: tuple[tuple[int, ...], ...]
    """Per fill_blank token, the value features on which its V is non-zero."""
    fill_low: int
    """The fill_blank token with the lowest score (first of ties)."""
    worked_sqrt_d: float
    """√d of the worked example, the divisor of its scores."""
    fill_shifted_scores: np.ndarray
    """fill_scores + shift: the naive attempt's numerators."""
    fill_score_min: float
    fill_score_max: float
    shift_alt_unchanged: tuple[int, ...]
    """fill_blank tokens whose naive share is the same (to half a percentage point) with
    ``shift`` and with ``shift_alt``."""
    fill_output_main: int
    """The value feature the blank receives most of (largest entry of ``fill_output``)."""
    fill_output_majority: bool
    """Whether that feature makes up more than half of everything the blank receives."""
    fill_output_traces: tuple[int, ...]
    """The other value features the blank receives a visible amount of (at least 0.005)."""
    fill_output_scaled: np.ndarray
    """fill_weights_scaled · V: what the blank receives by the real formula (÷ √d)."""
    fill_output_scaled_main: int
    fill_output_scaled_majority: bool
    fill_output_scaled_traces: tuple[int, ...]
    """As ``fill_output_main``, ``_majority`` and ``_traces``, for ``fill_output_scaled``."""
    fill_shift_invariant: bool
    """Whether softmax gives the same shares with ``shift`` added to every score (it must:
    the video says so)."""


def derive(numbers: Numbers) -> Derived:
    """Compute every number the video shows from ``numbers``."""
    we, fb = numbers.worked_example, numbers.fill_blank
    pr, sc = numbers.projections, numbers.scaling
    fill_scores = fb.K @ fb.query
    fill_weights = softmax(fill_scores)
    worked = attention(we.Q[we.query], we.K, we.V, scale=True)
    # exp of the max-shifted scores times exp(max) equals exp(scores) without overflow risk
    # for the values shown; the video shows these terms, so they must be representable.
    fill_exp = np.exp(fill_scores)
    worked_exp = np.exp(worked.scaled)
    shift_alt = float(fb.shift) + 1
    naive = shift_normalize(fill_scores, fb.shift)
    fill_output = fill_weights @ fb.V
    fill_scores_scaled = fill_scores / math.sqrt(fb.K.shape[1])
    fill_weights_scaled = softmax(fill_scores_scaled)
    fill_output_scaled = fill_weights_scaled @ fb.V
    return Derived(
        worked=worked,
        worked_all=attention(we.Q, we.K, we.V, scale=True),
        fill_scores=fill_scores,
        fill_weights=fill_weights,
        fill_shifted=shift_normalize(fill_scores, fb.shift),
        fill_output=fill_weights @ fb.V,
        proj_q=pr.x_query @ pr.W_Q,
        proj_k=pr.x_key @ pr.W_K,
        proj_v=pr.x_key @ pr.W_V,
        scaling_rows=scaling_experiment(sc.dims, sc.keys, sc.samples, sc.seed),
        amplified_rows=amplified(fill_scores, sc.amplify, d=fb.K.shape[1]),
        sqrt_d_model=math.sqrt(fb.d_model),
        fill_order=tuple(int(i) for i in np.argsort(-fill_weights, kind="stable")),
        fill_exp=fill_exp,
        fill_exp_total=float(fill_exp.sum()),
        shift_alt=shift_alt,
        fill_shifted_alt=shift_normalize(fill_scores, shift_alt),
        fill_scores_scaled=fill_scores_scaled,
        fill_weights_scaled=fill_weights_scaled,
        worked_exp=worked_exp,
        worked_exp_total=float(worked_exp.sum()),
        worked_top=int(np.argmax(worked.weights)),
        fill_query_has=tuple(int(j) for j in np.flatnonzero(fb.query > 0)),
        fill_shared=tuple(tuple(int(j) for j in np.flatnonzero(fb.query * k > 0)) for k in fb.K),
        fill_value_has=tuple(tuple(int(j) for j in np.flatnonzero(v != 0)) for v in fb.V),
        fill_low=int(np.argmin(fill_scores)),
        worked_sqrt_d=math.sqrt(worked.d),
        fill_shifted_scores=fill_scores + float(fb.shift),
        fill_score_min=float(np.min(fill_scores)),
        fill_score_max=float(np.max(fill_scores)),
        shift_alt_unchanged=tuple(int(i) for i in np.flatnonzero(np.isclose(
            naive, shift_normalize(fill_scores, shift_alt), rtol=0, atol=5e-3))),
        fill_output_main=int(np.argmax(fill_output)),
        fill_output_majority=bool(fill_output.max() > 0.5 * fill_output.sum()),
        fill_output_traces=_traces(fill_output),
        fill_output_scaled=fill_output_scaled,
        fill_output_scaled_main=int(np.argmax(fill_output_scaled)),
        fill_output_scaled_majority=bool(fill_output_scaled.max()
                                         > 0.5 * fill_output_scaled.sum()),
        fill_output_scaled_traces=_traces(fill_output_scaled),
        fill_shift_invariant=bool(np.allclose(softmax(fill_scores + float(fb.shift)),
                                              fill_weights)),
    )


def _traces(output: np.ndarray) -> tuple[int, ...]:
    """The value features other than the largest with a visible amount (at least 0.005)."""
    return tuple(int(j) for j in np.flatnonzero(output >= 5e-3) if j != int(np.argmax(output)))
