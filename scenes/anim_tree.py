"""Animations as a play receives them, flattened: the scene checks (overlap, role colours)
read the leaves of groups, not the groups."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def leaves(animations: Iterable[object]) -> Iterator[object]:
    """Every animation inside ``animations``, groups (AnimationGroup, LaggedStart,
    Succession: anything with an ``animations`` list) opened, in play order."""
    for anim in animations:
        inner = getattr(anim, "animations", None)
        if inner:
            yield from leaves(inner)
        else:
            yield anim
