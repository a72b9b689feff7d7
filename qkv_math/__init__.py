"""Attention math for the explainer: pure numpy, no manim."""

from qkv_math.attention import Attention, attention, shift_normalize, softmax
from qkv_math.derived import Derived, derive
from qkv_math.experiments import AmplifiedRow, ScalingRow, amplified, scaling_experiment
from qkv_math.numbers import (
    DEFAULT_NUMBERS,
    LANGUAGES,
    FillBlank,
    Numbers,
    NumbersError,
    Projections,
    Scaling,
    WorkedExample,
    load_numbers,
)

__all__ = [
    "DEFAULT_NUMBERS",
    "LANGUAGES",
    "AmplifiedRow",
    "Attention",
    "Derived",
    "FillBlank",
    "Numbers",
    "NumbersError",
    "Projections",
    "Scaling",
    "ScalingRow",
    "WorkedExample",
    "amplified",
    "attention",
    "derive",
    "load_numbers",
    "scaling_experiment",
    "shift_normalize",
    "softmax",
]
