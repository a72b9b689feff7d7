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


def _joined(indices: tuple[int, ...], tokens: dict[str, tuple[str, ...]], lang: str) -> str:
    """Token names, quoted and joined for ``lang`` ("「a」和「b」", "“a” and “b”")."""
    if lang == "zh":
        return "和".join(f"「{tokens['zh'][i]}」" for i in indices)
    names = [f"“{tokens['en'][i]}”" for i in indices]
    return " and ".join([", ".join(names[:-1]), *names[-1:]] if names[:-1] else names)


def claim(holds: bool, yes: dict[str, str], no: dict[str, str]) -> dict[str, str]:
    """Per-language wording of a statement about the example: ``yes`` when it holds.

    Narration says such things through a placeholder, so a numbers file that makes the
    statement false changes the sentence instead of leaving a false one in the voice.
    """
    return dict(yes if holds else no)


_COUNT_WORDS = {
    "zh": ("零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十"),
    "en": ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
}


def _quoted(names: list[str], lang: str, none: str) -> str:
    """Names quoted and joined like a spoken list ("“a” and “b”", "「a」和「b」")."""
    if not names:
        return none
    q = [f"「{n}」" if lang == "zh" else f"“{n}”" for n in names]
    sep, last = ("、", "和") if lang == "zh" else (", ", " and ")
    return q[0] if len(q) == 1 else sep.join(q[:-1]) + last + q[-1]


def _match_count(n: int, lang: str) -> str:
    """How many features a key matches the query on, as words ("matches on two features")."""
    words = _COUNT_WORDS[lang]
    w = words[n] if n < len(words) else str(n)
    if lang == "zh":
        return f"对上{w}个特征" if n else "一个特征也没对上"
    if n == 0:
        return "matches on none"
    return f"matches on {w} feature{'s' if n > 1 else ''}"


def _mix(vfeats: dict[str, tuple[str, ...]], main_at: int, traces: tuple[int, ...],
         majority: bool) -> FactValue:
    """What a received vector is made of: its largest feature, and the traces of others."""
    main = {lang: _quoted([vf[main_at]], lang, "") for lang, vf in vfeats.items()}
    rest = {lang: _quoted([vf[j] for j in traces], lang, "") for lang, vf in vfeats.items()}
    zh_rest = f"，也混进一点{rest['zh']}" if rest["zh"] else ""
    en_rest = f", with a little {rest['en']}" if rest["en"] else ""
    return claim(
        majority,
        {"zh": f"大部分是{main['zh']}{zh_rest}", "en": f"mostly {main['en']}{en_rest}"},
        {"zh": f"最多的是{main['zh']}{zh_rest}",
         "en": f"more {main['en']} than anything else{en_rest}"})


def build_facts(numbers: Numbers, derived: Derived) -> dict[str, FactValue]:
    """Every fact a script may name, formatted later per language: the worked example's,
    the fill-in-the-blank example's (its numbers, then the claims that depend on them), the
    projections' and the scaling experiment's."""
    f: dict[str, FactValue] = {}
    _worked_facts(numbers, derived, f)
    _fill_blank_numbers(numbers, derived, f)
    _fill_blank_claims(numbers, derived, f)
    _projection_facts(numbers, derived, f)
    _scaling_facts(numbers, derived, f)
    f["const.e"] = math.e
    return f


def _worked_facts(numbers: Numbers, derived: Derived, f: dict[str, FactValue]) -> None:
    we = numbers.worked_example
    w = derived.worked

    _lang_list("we.token", we.tokens, f)
    f["we.query_token"] = {lang: t[we.query] for lang, t in we.tokens.items()}
    f["we.n"] = len(we.tokens["en"])
    f["we.d"] = w.d
    f["we.sqrt_d"] = derived.worked_sqrt_d
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
    others = tuple(i for i in range(len(we.tokens["en"])) if i != we.query)
    f["we.others"] = {lang: _joined(others, we.tokens, lang) for lang in we.tokens}
    for i, x in enumerate(derived.worked_exp):
        f[f"we.exp.{i}"] = float(x)
    f["we.exp_total"] = derived.worked_exp_total


def _fill_blank_numbers(numbers: Numbers, derived: Derived, f: dict[str, FactValue]) -> None:
    fb = numbers.fill_blank
    _lang_list("fb.token", fb.tokens, f)
    _lang_list("fb.feature", fb.features, f)
    _lang_list("fb.vfeature", fb.value_features, f)
    f["fb.n"] = len(fb.tokens["en"])
    f["fb.dims"] = len(fb.features["en"])
    f["fb.sqrt_dims"] = math.sqrt(len(fb.features["en"]))
    f["fb.query"] = _vec(fb.query)
    f["fb.shift"] = float(fb.shift)
    f["fb.d_model"] = fb.d_model
    f["fb.sqrt_d_model"] = derived.sqrt_d_model
    for rank, i in enumerate(derived.fill_order):
        f[f"fb.rank.{rank}"] = {lang: t[i] for lang, t in fb.tokens.items()}
        f[f"fb.rank_weight.{rank}"] = float(derived.fill_weights[i])
        f[f"fb.rank_shifted.{rank}"] = float(derived.fill_shifted[i])
        f[f"fb.rank_weight_scaled.{rank}"] = float(derived.fill_weights_scaled[i])
    for i in range(len(fb.K)):
        f[f"fb.k.{i}"] = _vec(fb.K[i])
        f[f"fb.v.{i}"] = _vec(fb.V[i])
        f[f"fb.score.{i}"] = float(derived.fill_scores[i])
        f[f"fb.shifted_score.{i}"] = float(derived.fill_shifted_scores[i])
        f[f"fb.shifted.{i}"] = float(derived.fill_shifted[i])
        f[f"fb.weight.{i}"] = float(derived.fill_weights[i])
        f[f"fb.exp.{i}"] = float(derived.fill_exp[i])
        f[f"fb.shifted_alt.{i}"] = float(derived.fill_shifted_alt[i])
        f[f"fb.weight_scaled.{i}"] = float(derived.fill_weights_scaled[i])
    f["fb.exp_total"] = derived.fill_exp_total
    f["fb.output"] = _vec(derived.fill_output)
    f["fb.min_score"] = derived.fill_score_min
    f["fb.max_score"] = derived.fill_score_max
    f["fb.shift_alt"] = derived.shift_alt
    for j, x in enumerate(fb.query):
        f[f"fb.query.{j}"] = float(x)
    for i, row in enumerate(fb.K):
        for j, x in enumerate(row):
            f[f"fb.k.{i}.{j}"] = float(x)
    f["fb.output_scaled"] = _vec(derived.fill_output_scaled)


def _fill_blank_claims(numbers: Numbers, derived: Derived, f: dict[str, FactValue]) -> None:
    """What the example's numbers say in words: what the blank asks for, what each key
    matches, which word is lowest, what shifting the scores changes, what the output mixes."""
    fb = numbers.fill_blank
    feats, vfeats = fb.features, fb.value_features
    wants = list(derived.fill_query_has)
    f["fb.wants"] = claim(
        bool(wants),
        {"zh": "要的是" + _quoted([feats["zh"][j] for j in wants], "zh", ""),
         "en": "it asks for " + _quoted([feats["en"][j] for j in wants], "en", "")},
        {"zh": "哪个特征都不要", "en": "it asks for none of them"})
    for i, shared in enumerate(derived.fill_shared):
        f[f"fb.match.{i}"] = {lang: _match_count(len(shared), lang) for lang in feats}
        f[f"fb.shared.{i}"] = {lang: _quoted([feats[lang][j] for j in shared], lang,
                                             "没有一处" if lang == "zh" else "nothing")
                               for lang in feats}
    for i, has in enumerate(derived.fill_value_has):
        f[f"fb.v_has.{i}"] = {lang: _quoted([vfeats[lang][j] for j in has], lang,
                                            "什么也没有" if lang == "zh" else "nothing")
                              for lang in vfeats}
    for i, row in enumerate(fb.K):  # a key's tags: the features it has
        f[f"fb.tags.{i}"] = {lang: _quoted([feats[lang][j] for j in range(len(row)) if row[j] > 0],
                                           lang, "没有标签" if lang == "zh" else "no tags")
                             for lang in feats}
    f["fb.low_token"] = {lang: t[derived.fill_low] for lang, t in fb.tokens.items()}
    f["fb.low_note"] = claim(
        float(derived.fill_scores[derived.fill_low]) < 0,
        {"zh": "不但不相关，还和空格要的相反",
         "en": "not just unrelated, but pointing the other way"},
        {"zh": "是这几个里最低的", "en": "the lowest of them all"})
    kept = derived.shift_alt_unchanged
    f["fb.alt_changes"] = claim(
        not kept,
        {"zh": "每个词的比例全都变了", "en": "every share changes"},
        {"zh": f"比例跟着变了，只有{_joined(kept, fb.tokens, 'zh')}碰巧没动",
         "en": f"the shares move; only {_joined(kept, fb.tokens, 'en')} happens to stay put"})
    f["fb.out_mix"] = _mix(fb.value_features, derived.fill_output_main,
                           derived.fill_output_traces, derived.fill_output_majority)
    f["fb.out_mix_scaled"] = _mix(fb.value_features, derived.fill_output_scaled_main,
                                  derived.fill_output_scaled_traces,
                                  derived.fill_output_scaled_majority)


def _projection_facts(numbers: Numbers, derived: Derived, f: dict[str, FactValue]) -> None:
    """The asking word's x gives the blank's query, France's x its key and value."""
    pj = numbers.projections
    f["pj.x_query"] = _vec(pj.x_query)
    f["pj.x_key"] = _vec(pj.x_key)
    for name, vec in (("q", derived.proj_q), ("k", derived.proj_k), ("v", derived.proj_v)):
        f[f"pj.{name}"] = _vec(vec)
        for j, x in enumerate(vec):
            f[f"pj.{name}.{j}"] = float(x)


def _scaling_facts(numbers: Numbers, derived: Derived, f: dict[str, FactValue]) -> None:
    for i, row in enumerate(derived.scaling_rows):
        f[f"sc.d.{i}"] = row.d
        f[f"sc.sqrt_d.{i}"] = row.sqrt_d
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
        f[f"sc.amp_top_raw.{i}"] = row.top_raw
        f[f"sc.amp_top_scaled.{i}"] = row.top_scaled
