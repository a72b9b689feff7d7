"""Named values for placeholders, every one computed by ``qkv_math`` from the numbers file.

Names are dotted: ``we.*`` the worked example (cat chases ball), ``fb.*`` the fill-in-the-blank
example, ``pj.*`` the projections, ``sc.*`` the scaling experiment, ``const.*`` constants.
Per-token lists are numbered from 0 in key order.
"""

from __future__ import annotations

import math

import numpy as np

from narration.placeholders import FactValue
from qkv_math.derived import Derived
from qkv_math.numbers import Numbers


def _vec(a: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in np.asarray(a).ravel())


def _lang_list(prefix: str, table: dict[str, tuple[str, ...]], out: dict[str, FactValue]) -> None:
    for i in range(len(table["en"])):
        out[f"{prefix}.{i}"] = {lang: words[i] for lang, words in table.items()}


def claim(holds: bool, yes: dict[str, str], no: dict[str, str]) -> dict[str, str]:
    """Per-language wording of a statement about the example: ``yes`` when it holds.

    Narration says such things through a placeholder, so a numbers file that makes the
    statement false changes the sentence instead of leaving a false one in the voice.
    """
    return dict(yes if holds else no)


def build_facts(numbers: Numbers, derived: Derived) -> dict[str, FactValue]:
    """Every fact a script may name, formatted later per language."""
    f: dict[str, FactValue] = {}
    we, fb, pj = numbers.worked_example, numbers.fill_blank, numbers.projections
    w = derived.worked

    _lang_list("we.token", we.tokens, f)
    f["we.query_token"] = {lang: t[we.query] for lang, t in we.tokens.items()}
    f["we.n"] = len(we.tokens["en"])
    f["we.d"] = w.d
    f["we.sqrt_d"] = math.sqrt(w.d)
    f["we.q"] = _vec(we.Q[we.query])
    for i in range(len(we.K)):
        f[f"we.k.{i}"] = _vec(we.K[i])
        f[f"we.v.{i}"] = _vec(we.V[i])
        f[f"we.score.{i}"] = float(w.scores[i])
        f[f"we.scaled.{i}"] = float(w.scaled[i])
        f[f"we.weight.{i}"] = float(w.weights[i])
    f["we.scores"] = _vec(w.scores)
    f["we.scaled"] = _vec(w.scaled)
    f["we.weights"] = _vec(w.weights)
    f["we.output"] = _vec(w.output)
    f["we.top_token"] = {lang: t[derived.worked_top] for lang, t in we.tokens.items()}
    for i, x in enumerate(derived.worked_exp):
        f[f"we.exp.{i}"] = float(x)
    f["we.exp_total"] = derived.worked_exp_total

    _lang_list("fb.token", fb.tokens, f)
    _lang_list("fb.feature", fb.features, f)
    _lang_list("fb.vfeature", fb.value_features, f)
    f["fb.n"] = len(fb.tokens["en"])
    f["fb.dims"] = len(fb.features["en"])
    f["fb.query"] = _vec(fb.query)
    f["fb.shift"] = float(fb.shift)
    f["fb.d_model"] = fb.d_model
    f["fb.sqrt_d_model"] = derived.sqrt_d_model
    for rank, i in enumerate(derived.fill_order):
        f[f"fb.rank.{rank}"] = {lang: t[i] for lang, t in fb.tokens.items()}
        f[f"fb.rank_weight.{rank}"] = float(derived.fill_weights[i])
    for i in range(len(fb.K)):
        f[f"fb.k.{i}"] = _vec(fb.K[i])
        f[f"fb.v.{i}"] = _vec(fb.V[i])
        f[f"fb.score.{i}"] = float(derived.fill_scores[i])
        f[f"fb.shifted_score.{i}"] = float(derived.fill_scores[i] + fb.shift)
        f[f"fb.shifted.{i}"] = float(derived.fill_shifted[i])
        f[f"fb.weight.{i}"] = float(derived.fill_weights[i])
        f[f"fb.exp.{i}"] = float(derived.fill_exp[i])
        f[f"fb.shifted_alt.{i}"] = float(derived.fill_shifted_alt[i])
        f[f"fb.weight_scaled.{i}"] = float(derived.fill_weights_scaled[i])
    f["fb.exp_total"] = derived.fill_exp_total
    f["fb.output"] = _vec(derived.fill_output)
    f["fb.min_score"] = float(np.min(derived.fill_scores))
    f["fb.max_score"] = float(np.max(derived.fill_scores))
    f["fb.shift_alt"] = derived.shift_alt

    f["pj.x"] = _vec(pj.x)
    f["pj.q"] = _vec(derived.proj_q)
    f["pj.k"] = _vec(derived.proj_k)
    f["pj.v"] = _vec(derived.proj_v)
    f["pj.distinct"] = claim(
        derived.proj_distinct,
        {"zh": "三个各不相同的向量", "en": "three different vectors"},
        {"zh": "三个向量，只是这组数字里有两个碰巧相同",
         "en": "three vectors, two of which happen to coincide for these numbers"})

    for i, row in enumerate(derived.scaling_rows):
        f[f"sc.d.{i}"] = row.d
        f[f"sc.sqrt_d.{i}"] = math.sqrt(row.d)
        f[f"sc.dot_std.{i}"] = row.dot_std
        f[f"sc.scaled_std.{i}"] = row.scaled_std
        f[f"sc.top_raw.{i}"] = row.top_weight_raw
        f[f"sc.top_scaled.{i}"] = row.top_weight_scaled
    last = len(derived.scaling_rows) - 1
    f["sc.last"] = last
    f["sc.keys"] = numbers.scaling.keys
    f["sc.samples"] = numbers.scaling.samples
    f["sc.seed"] = numbers.scaling.seed
    for i, row in enumerate(derived.amplified_rows):
        f[f"sc.amp.{i}"] = float(row.factor)
        f[f"sc.amp_top_raw.{i}"] = float(np.max(row.weights_raw))
        f[f"sc.amp_top_scaled.{i}"] = float(np.max(row.weights_scaled))

    f["const.e"] = math.e
    return f
