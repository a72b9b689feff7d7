"""Q yellow, K teal, V red throughout: an animation that lights a role's item in another
colour breaks that for as long as it runs (an Indicate toward green passes through yellow
on V's red, one in blue turns K's teal blue).

:func:`flashes` reads the animations of one ``play`` and names each item in a role's colour
that an Indicate lights in a colour other than its own, white or grey (a white or grey flash
reads as "this one", not as another role). ``widgets.pulse`` lights a thing in its own
colours. A scene calls it on every ``play`` (``NarratedScene.play``).
"""

from __future__ import annotations

from collections.abc import Iterable

from manim import Animation, Indicate, Mobject

from narration import style
from scenes.anim_tree import leaves

ROLES = {style.Q_COLOR.lower(): "Q", style.K_COLOR.lower(): "K", style.V_COLOR.lower(): "V"}
NEUTRAL = frozenset({style.FG.lower(), style.MUTED.lower()})

__all__ = ["flashes"]


def _hex(c) -> str:
    return c.to_hex().lower() if hasattr(c, "to_hex") else str(c).lower()


def _label(m: Mobject) -> str:
    text = getattr(m, "text", None) or getattr(m, "tex_string", None)
    return repr(text) if text else type(m).__name__


def flashes(animations: Iterable[Animation]) -> list[str]:
    """What ``animations`` light out of its role's colour, one line each."""
    found = []
    for a in leaves(animations):
        if not isinstance(a, Indicate):
            continue
        to = _hex(a.color)
        if to in NEUTRAL:
            continue
        roles = sorted({ROLES[c] for m in a.mobject.family_members_with_points()
                        if (c := _hex(m.get_fill_color())) in ROLES and c != to})
        if roles:
            found.append(f"{_label(a.mobject)} ({', '.join(roles)}) lit {to}, "
                         "out of its role's colour")
    return found
