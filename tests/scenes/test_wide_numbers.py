"""Numbers files with wider numbers than the shipped one lay out inside the frame (issue 29):
scores of two digits with their signs, e-powers up to the widest the loader accepts, shares
near 100%; a score whose e-power no table can lay out is refused at load, in one line.

The scenes are built with Manim's animations skipped (their final states, which the layout
check reads at the end of every beat, are the same), so the family stays quick.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import tempconfig

from qkv_math.derived import derive
from qkv_math.numbers import DEFAULT_NUMBERS, EXP_WIDEST, NumbersError, load_numbers
from scenes.registry import SceneInfo, discover
from tests.scenes.conftest import load_scene_class

ROOT = Path(__file__).resolve().parents[2]
K_OTHERS = "K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]"  # Beijing, grew up, I
W_K = "W_K = [[0, 0, 1], [1, 1, -2], [1, 0, 0]]"  # France's key is x_key = [2, 1, 0] times this
WORKED_K = "K = [[0, 1], [1, 0], [1, 2]]"
SHIFT = "shift = 3 "

# name -> (substitutions in the shipped file, the scenes whose tables and bars show what it
# changes). Every file is valid; each pushes a different width.
FAMILY: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    # issue 29's file: France's key [3, 3, 0], a score of 6, e^6 = 403.43
    "france_6": (((W_K, "W_K = [[1, 1, 0], [1, 1, 0], [1, 0, 0]]"),),
                 ("dot_product", "softmax", "ov_scores", "ov_softmax", "weighted_sum")),
    # the widest e-power accepted, in another row (Beijing: e^20 = 485165195.41), and the
    # worked example's scaled score near it (28 / √2 = 19.80)
    "score_20": (((K_OTHERS, "K_others = [[20, 0, 0], [0, 0, 1], [-2, -1, 0]]"),
                  (WORKED_K, "K = [[0, 28], [1, 0], [1, 2]]")),
                 ("dot_product", "softmax", "ov_softmax", "scaling", "worked_example",
                  "formula", "soft_attention")),
    # two-digit negative scores with their signs (I: −20), a 9 in another row, and the
    # naive attempt's constant as large (+20, +21)
    "negative_20": (((K_OTHERS, "K_others = [[9, 0, 0], [0, 0, 1], [-19, -1, 0]]"),
                     (SHIFT, "shift = 20 ")),
                    ("dot_product", "softmax", "ov_softmax", "soft_attention")),
}
CASES = [(name, scene, lang) for name, (_subs, scenes) in FAMILY.items() for scene in scenes
         for lang in ("zh", "en")]


def _write(path: Path, subs: tuple[tuple[str, str], ...]) -> Path:
    text = DEFAULT_NUMBERS.read_text("utf-8")
    for old, new in subs:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, "utf-8")
    return path


@pytest.fixture(scope="module")
def family(tmp_path_factory) -> dict[str, Path]:
    """The family's numbers files, written once for every case."""
    d = tmp_path_factory.mktemp("wide_numbers")
    return {name: _write(d / f"{name}.toml", subs) for name, (subs, _) in FAMILY.items()}


def test_the_family_is_as_wide_as_described(family):
    france = derive(load_numbers(family["france_6"]))
    assert np.array_equal(load_numbers(family["france_6"]).fill_blank.K[0], [3, 3, 0])
    assert france.fill_scores[0] == 6 and round(float(france.fill_exp[0]), 2) == 403.43
    top = derive(load_numbers(family["score_20"]))
    assert top.fill_scores.max() == EXP_WIDEST  # the widest accepted, exactly
    assert 19.5 < top.worked.scaled.max() <= EXP_WIDEST
    low = derive(load_numbers(family["negative_20"]))
    assert low.fill_scores.min() == -20 and 9 in low.fill_scores


def _build(info: SceneInfo, lang: str, numbers: Path, media: Path, monkeypatch):
    monkeypatch.setenv("QKV_LANG", lang)
    monkeypatch.setattr("scenes.context.load_numbers", lambda _p=None: load_numbers(numbers))
    cls = load_scene_class(info)
    with tempconfig({"dry_run": True, "quality": "low_quality", "media_dir": str(media),
                     "disable_caching": True, "progress_bar": "none", "verbosity": "ERROR"}):
        scene = cls(skip_animations=True)
        scene.render()
    return scene


def _texts(scene) -> set[str]:
    """Every text on screen at some point of the scene that the test can name: the texts of
    the scene's attributes (columns, cells, bars), searched through their families."""
    found: set[str] = set()
    for value in vars(scene).values():
        for m in _mobjects(value):
            found.update(t.text for t in m.get_family() if hasattr(t, "text"))
    return found


def _mobjects(value) -> list:
    from manim import Mobject

    if isinstance(value, Mobject):
        return [value]
    if isinstance(value, (list, tuple)):
        return [m for v in value for m in _mobjects(v)]
    if hasattr(value, "__dict__") and type(value).__name__ == "Table":  # the dot product's
        return [m for v in vars(value).values() for m in _mobjects(v)]
    return []


@pytest.mark.parametrize(("name", "scene_id", "lang"), CASES,
                         ids=[f"{n}-{s}-{lang}" for n, s, lang in CASES])
def test_wider_numbers_lay_out_inside_the_frame(name, scene_id, lang, family, tmp_path,
                                                 monkeypatch):
    info = next(s for s in discover(cut=None) if s.scene_id == scene_id)
    scene = _build(info, lang, family[name], tmp_path, monkeypatch)
    assert scene.layout_issues == []
    assert [b.id for b in scene._times] == [b.id for b in scene.script.beats]
    shown = _texts(scene)  # as Manim keeps a text: without its spaces
    d = scene.derived
    if scene_id in ("dot_product", "ov_scores"):  # every score, with its sign
        assert {scene.num(s) for s in d.fill_scores} <= shown
    if scene_id in ("softmax", "ov_softmax"):  # every e-power and the total beside them
        assert {scene.num(v) for v in d.fill_exp} <= shown
        assert scene.s("divide_by").replace(" ", "") in shown
        assert scene.bar_len > 2.0  # bars shortened to fit, but still bars
    if scene_id == "worked_example":
        assert {scene.num(v, 2) for v in d.worked_exp} <= shown


@pytest.mark.parametrize(("old", "new", "key", "value"), [
    (K_OTHERS, "K_others = [[21, 0, 0], [0, 0, 1], [-2, -1, 0]]", "fill_blank.K_others",
     "'Beijing' is 21"),
    # France's score comes from the projections: x_key [2, 1, 0] times W_K is [11, 11, 0]
    (W_K, "W_K = [[5, 5, 0], [1, 1, 0], [1, 0, 0]]", "projections", "'France' is 22"),
    (WORKED_K, "K = [[0, 30], [1, 0], [1, 2]]", "worked_example.K", "'cat' is 21.21"),
    (K_OTHERS, "K_others = [[1, 0, 0], [0, 0, 1], [-51, -1, 0]]", "fill_blank.K_others",
     "'I' is -52"),
])
def test_a_score_past_what_the_tables_lay_out_is_refused_in_one_line(tmp_path, old, new, key,
                                                                    value):
    path = _write(tmp_path / "wide.toml", ((old, new),))
    with pytest.raises(NumbersError) as err:
        load_numbers(path)
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"{path}: {key}: ") and value in line


def test_render_refuses_it_before_any_voice_or_scene_work(tmp_path):
    path = _write(tmp_path / "wide.toml",
                  ((K_OTHERS, "K_others = [[21, 0, 0], [0, 0, 1], [-2, -1, 0]]"),))
    out, cache = tmp_path / "out", tmp_path / "cache"
    p = subprocess.run([sys.executable, str(ROOT / "render.py"), "--numbers", str(path),
                        "--out", str(out), "--cache", str(cache), "--tts", "offline"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert str(path) in lines[0] and "fill_blank.K_others" in lines[0] and "21" in lines[0]
    assert not out.exists() and not cache.exists()
