"""Small numeric experiments behind "divide by √d"."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from qkv_math.attention import softmax


@dataclass(frozen=True)
class ScalingRow:
    """Statistics of q·k for random standard-normal q and keys of dimension ``d``."""

    d: int
    dot_std: float
    """Empirical standard deviation of q·k (grows like √d)."""
    scaled_std: float
    """Empirical standard deviation of q·k / √d (stays near 1)."""
    top_weight_raw: float
    """Mean over samples of the largest softmax weight among the keys, no division."""
    top_weight_scaled: float
    """The same after dividing the dot products by √d."""

    @property
    def sqrt_d(self) -> float:
        return math.sqrt(self.d)


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def scaling_experiment(
    dims: Iterable[int], keys: int, samples: int, seed: int
) -> tuple[ScalingRow, ...]:
    """For each d in ``dims`` draw ``samples`` queries and ``keys`` keys per query, entries
    i.i.d. N(0, 1), and measure the spread of q·k and how peaked softmax gets, without and
    with the division by √d. Deterministic for a given ``seed`` (one generator, dims in order).
    The rows are kept per arguments: every scene a process builds derives them again from
    the same numbers.
    """
    keys = _positive_int("keys", keys)
    samples = _positive_int("samples", samples)
    dims = tuple(_positive_int("each d in dims", d) for d in dims)
    return _scaling_rows(dims, keys, samples, seed)


@functools.lru_cache(maxsize=16)
def _scaling_rows(dims: tuple[int, ...], keys: int, samples: int, seed: int
                  ) -> tuple[ScalingRow, ...]:
    rng = np.random.default_rng(seed)
    rows = []
    for d in dims:
        q = rng.standard_normal((samples, 1, d))
        k = rng.standard_normal((samples, keys, d))
        dots = (q * k).sum(axis=-1)  # (samples, keys)
        scaled = dots / math.sqrt(d)
        rows.append(
            ScalingRow(
                d=d,
                dot_std=float(dots.std()),
                scaled_std=float(scaled.std()),
                top_weight_raw=float(softmax(dots).max(axis=-1).mean()),
                top_weight_scaled=float(softmax(scaled).max(axis=-1).mean()),
            )
        )
    return tuple(rows)


@dataclass(frozen=True, eq=False)
class AmplifiedRow:
    """Softmax of the example's scores amplified by ``factor``, without and with rescaling."""

    factor: float
    weights_raw: np.ndarray
    """softmax(factor · scores): peaks as the factor grows."""
    weights_scaled: np.ndarray
    """softmax(factor · scores / factor): the division cancels the amplification."""
    dim: float
    """factor² · d: the key dimension whose typical dot-product spread this factor mimics."""

    @property
    def top_raw(self) -> float:
        """The largest share without rescaling."""
        return float(np.max(self.weights_raw))

    @property
    def top_scaled(self) -> float:
        """The largest share after dividing by the factor."""
        return float(np.max(self.weights_scaled))


def amplified(scores: ArrayLike, factors: Iterable[float], d: int) -> tuple[AmplifiedRow, ...]:
    """Amplify the example's scores by each factor f.

    Multiplying every entry of q and k by √f multiplies the dot product by f, as a growing d
    does (the spread of q·k grows like √d, so factor f mimics dimension f²·d); dividing by the
    matching scale restores it. ``d`` is the key dimension of the original example.
    """
    s = np.asarray(scores, dtype=float)
    d = _positive_int("d", d)
    rows = []
    for f in factors:
        if isinstance(f, bool) or not isinstance(f, int | float | np.number):
            raise ValueError(f"each factor must be a number, got {f!r}")
        f = float(f)
        if not math.isfinite(f) or f <= 0:
            raise ValueError(f"each factor must be a positive finite number, got {f!r}")
        amp = f * s
        rows.append(
            AmplifiedRow(
                factor=f,
                weights_raw=softmax(amp),
                weights_scaled=softmax(amp / f),
                dim=f * f * d,
            )
        )
    return tuple(rows)
