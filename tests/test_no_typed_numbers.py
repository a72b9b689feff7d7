"""No number of the examples is typed by hand into narration or scene code.

Narration and on-screen strings may hold digits only inside placeholders. Scene code may not
contain, as a string or a float literal, any value the examples produce (scores, weights,
percentages, outputs, vectors), in any of the ways the video formats them.
"""

from __future__ import annotations

import ast
import math
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from narration import numfmt
from narration.facts import build_facts
from narration.scripts import SCRIPTS_DIR
from qkv_math.derived import derive
from qkv_math.numbers import load_numbers
from scenes.registry import discover

PLACEHOLDER = re.compile(r"\{@[A-Za-z0-9_]*\}|\{[A-Za-z0-9_.]*(?::[A-Za-z0-9]*)?\}")
SCRIPT_FILES = sorted(SCRIPTS_DIR.glob("*/*.toml"))
SCENE_FILES = [s.path for s in discover(cut=None)]


def _strings(node: object, key: str = ""):
    if isinstance(node, str):
        yield key, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, f"{key}.{k}" if key else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, f"{key}[{i}]")


@pytest.mark.parametrize("path", SCRIPT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scripts_have_digits_only_in_placeholders(path: Path):
    data = tomllib.loads(path.read_text("utf-8"))
    for key, text in _strings(data):
        if key.endswith(".id"):
            continue
        bare = PLACEHOLDER.sub("", text)
        digits = re.findall(r"\S*\d\S*", bare)
        assert not digits, f"{path}: {key}: typed number(s) {digits}; use a placeholder"


def _example_values() -> tuple[set[str], list[float]]:
    """Strings: every numeric fact in every way the video writes it. Floats: the headline
    values a scene might be tempted to type (scores, shares, outputs); layout numbers such
    as 0.25 or 0.5 are exact short decimals and are not judged."""
    numbers = load_numbers()
    derived = derive(numbers)
    facts = build_facts(numbers, derived)
    strings: set[str] = set()
    for value in facts.values():
        if isinstance(value, tuple):
            for lang in numfmt.LANGS:
                for dec in (None, 1, 2):
                    strings.add(numfmt.vector(value, lang, dec).display)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            x = float(value)
            for dec in (None, 1, 2):
                s = numfmt.number(x, "en", dec).display
                if len(s.lstrip("−")) >= 2:  # single digits are too common to judge
                    strings.add(s)
                    strings.add(s.replace("−", "-"))
            if 0 <= x <= 1:
                strings.add(numfmt.percent(x, "en").display)
    w = derived.worked
    headline = [w.scores, w.scaled, w.weights, w.output, derived.fill_scores,
                derived.fill_weights, derived.fill_shifted, derived.fill_output,
                [derived.sqrt_d_model, math.sqrt(w.d)]]
    floats = [float(x) for arr in headline for x in np.ravel(arr) if round(float(x), 2) != x]
    return strings, floats


EXAMPLE_STRINGS, EXAMPLE_FLOATS = _example_values()


def _style_arguments(tree: ast.AST) -> set[int]:
    """ids of the constants passed as keyword arguments (``buff=0.14``, ``width=0.62``):
    sizes and gaps of the drawing, never a value of the example, which is passed to
    ``num``/``pct``/``text`` positionally or typed into a list or an expression."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            v = node.value
            if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub):
                v = v.operand
            if isinstance(v, ast.Constant):
                ids.add(id(v))
    return ids


def _offending(tree: ast.AST) -> list[str]:
    found = []
    style = _style_arguments(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in style:
            continue
        v = node.value
        if isinstance(v, str):
            for s in EXAMPLE_STRINGS:
                if re.search(rf"(?<![\d.]){re.escape(s)}(?![\d.%])", v):
                    found.append(f"line {node.lineno}: string {v!r} holds {s!r}")
        elif isinstance(v, float):
            decimals = len(repr(v).split(".")[1]) if "." in repr(v) else 0
            if decimals >= 2 and any(round(x, decimals) == v for x in EXAMPLE_FLOATS):
                found.append(f"line {node.lineno}: float {v!r} equals an example value")
    return found


@pytest.mark.parametrize("path", SCENE_FILES, ids=lambda p: p.name)
def test_scene_code_types_no_example_numbers(path: Path):
    found = _offending(ast.parse(path.read_text("utf-8")))
    assert not found, f"{path}: " + "; ".join(found)


def test_the_check_catches_a_typed_number():
    weight = derive(load_numbers()).fill_weights[0]
    typed = numfmt.percent(float(weight), "zh").display
    assert _offending(ast.parse(f"label = {typed!r}"))
    assert round(float(weight), 2) != float(weight)
    typed_share = round(float(weight), 2)
    assert _offending(ast.parse(f"share = {typed_share!r}"))
    assert _offending(ast.parse(f"label = self.pct({typed_share!r})"))
    assert _offending(ast.parse(f"bar = share_bar({typed_share!r}, label, 3.0)"))
    assert not _offending(ast.parse("buff = 0.25"))
    # the same digits as a gap or a size passed by keyword are drawing, not data
    assert not _offending(ast.parse(f"row.arrange(RIGHT, buff={typed_share!r})"))
