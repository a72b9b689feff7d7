"""One lesson: once the scaling scene has taught ÷√d, every share the video says or shows
is the real formula's, for whatever numbers it is rendered from."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from narration.facts import build_facts
from narration.numfmt import percent
from narration.placeholders import placeholder_names
from narration.scripts import SCRIPTS_DIR, load_script
from qkv_math.derived import derive
from qkv_math.numbers import DEFAULT_NUMBERS, load_numbers
from scenes.registry import discover

# Facts holding the shares (or what is mixed by them) before ÷√d: only the scenes that
# teach softmax and √d may name them.
UNSCALED = re.compile(r"^fb\.(weight|rank_weight|shifted|rank_shifted|output|out_mix)"
                      r"(\.\d+)?$")
# where the undivided shares are still the lesson: up to and including the scaling scene,
# and in the overview up to its √d beat (ov_softmax)
TAUGHT = {"full": "scaling", "overview": "ov_softmax"}


def _after(cut: str) -> list[str]:
    ids = [s.scene_id for s in discover(cut=cut)]
    return ids[ids.index(TAUGHT[cut]) + 1:]


def _templates(scene_id: str, lang: str) -> list[str]:
    data = tomllib.loads((SCRIPTS_DIR / lang / f"{scene_id}.toml").read_text("utf-8"))
    out = [data.get("title", "")]
    for value in data.get("screen", {}).values():
        out += value if isinstance(value, list) else [value]
    out += [b["text"] for b in data.get("beat", [])]
    return out


@pytest.mark.parametrize("cut", ["full", "overview"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_undivided_share_after_sqrt_d_is_taught(cut, lang):
    for scene_id in _after(cut):
        for template in _templates(scene_id, lang):
            named = [n for n in placeholder_names(template) if UNSCALED.match(n)]
            assert not named, (scene_id, named, template)


def _numbers_file(tmp_path: Path, others: list[list[int]]) -> Path:
    """The built-in numbers with the other words' keys replaced."""
    text = DEFAULT_NUMBERS.read_text("utf-8")
    line = next(x for x in text.splitlines() if x.startswith("K_others"))
    path = tmp_path / "numbers.toml"
    path.write_text(text.replace(line, f"K_others = {others}"), "utf-8")
    return path


@pytest.mark.parametrize("others", [None, [[3, 3, 0], [0, 0, 1], [-2, -1, 0]],
                                    [[1, 0, 0], [0, 2, 1], [-2, 0, -1]]])
def test_weighted_sum_and_quiz_say_the_real_formulas_shares(tmp_path, others):
    """The shares said after the scaling scene are softmax(q·k/√d) of the file's numbers,
    computed here by hand; changed keys change them."""
    path = DEFAULT_NUMBERS if others is None else _numbers_file(tmp_path, others)
    numbers = load_numbers(path)
    fb = numbers.fill_blank
    if others is not None:
        assert [list(k) for k in fb.K[1:]] == others  # the file really changed
    scores = np.array([sum(a * b for a, b in zip(fb.query, k, strict=True)) for k in fb.K])
    d = len(fb.query)
    exps = [math.exp(s / math.sqrt(d)) for s in scores]
    shares = [e / sum(exps) for e in exps]
    facts = build_facts(numbers, derive(numbers))
    for lang in ("zh", "en"):
        ws = load_script("weighted_sum", lang, facts)
        said = " ".join(b.text.display for b in ws.beats)
        for share in shares:
            assert percent(share, lang).display in said, (lang, share, said)
        quiz = load_script("recap_quiz", lang, facts)
        a1 = next(b for b in quiz.beats if b.id == "a1").text.display
        top = int(np.argmax(shares))
        assert percent(shares[top], lang).display in a1
        assert fb.tokens[lang][top] in a1
