"""Pointing at what the voice names, as it names it: cue marks ``{@see_<name>}`` in a script.

A beat's text says ``… {@see_france}France's score …``; as the voice reaches the mark, the
scene kit (:class:`scenes.base.NarratedScene`) indicates the thing called ``france``: a
mobject the scene registered under that name (``scene.target("france", row)``), or else the
text on screen that reads the script's on-screen string ``france`` (``[screen]`` key, or
``key_N`` for item N of a list). No scene code waits for these marks: the kit plays the
indication inside the waits the beat already has, so every scene gets it from its script.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from manim import (
    AnimationGroup,
    Circumscribe,
    Mobject,
    VMobject,
    there_and_back,
)

from scenes import overlap, theme

PREFIX = "see_"
"""Cue marks whose name starts with this are indications the kit plays."""
LEAD = 0.15
"""Seconds before the named word that the indication starts: it peaks as the word is said."""
RUN = 1.0
"""Seconds an indication lasts (less when the beat ends sooner)."""
PULSE = 1.05
"""How much the named thing grows at the indication's peak (it shrinks back): a result
beside its "=" or a cell between brackets must not touch its neighbours."""
BUFF = 0.14
"""Room between the named thing and the outline drawn round it (a tighter one sat on the
glyphs)."""
MIN_BUFF = 0.07
"""The least room, where another text is close (half the gap to it, down to this)."""
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Cue:
    """One indication due in the beat: when (scene seconds), what (its name) and the mark."""

    at: float
    name: str
    mark: str


def cues(marks: Mapping[str, float], start: float) -> list[Cue]:
    """The indication marks among a beat's ``marks`` (seconds from its ``start``), in time
    order."""
    return sorted((Cue(start + t, m[len(PREFIX):], m) for m, t in marks.items()
                   if m.startswith(PREFIX)), key=lambda c: c.at)


def screen_strings(screen: Mapping[str, object], name: str) -> tuple[str, ...]:
    """The on-screen string(s) a name stands for: a ``[screen]`` key (a list stands for all
    its items) or ``key_N``, item N of a list key. Empty when the script has no such key."""
    value = screen.get(name)
    if value is None and "_" in name:
        key, _, index = name.rpartition("_")
        items = screen.get(key)
        if index.isdigit() and isinstance(items, Sequence) and not isinstance(items, str):
            return (str(items[int(index)]),) if int(index) < len(items) else ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence):
        return tuple(str(v) for v in value)
    return ()


def _showing(m: Mobject) -> bool:
    return any(isinstance(g, VMobject) and (g.get_fill_opacity() > 0.05
                                            or g.get_stroke_opacity() > 0.05)
               for g in m.family_members_with_points())


def texts_reading(mobjects: Iterable[Mobject], strings: Sequence[str]) -> list[Mobject]:
    """The texts on screen (tagged by ``theme.text``) that read one of ``strings``."""
    wanted = set(strings)
    found, seen = [], set()
    for top in mobjects:
        for m in top.get_family():
            if id(m) in seen or not getattr(m, "type_root", False):
                continue
            seen.add(id(m))
            if m.type_root_text in wanted and _showing(m):
                found.append(m)
    return found


def on_stage(mob: Mobject, mobjects: Iterable[Mobject]) -> bool:
    """Whether ``mob`` shows and all it draws is on screen: the group itself need not have
    been added (a part picked out of a formula, cells faded in one by one)."""
    stage = {id(m) for top in mobjects for m in top.get_family()}
    parts = mob.family_members_with_points()
    return bool(parts) and all(id(p) in stage for p in parts) and _showing(mob)


def _pulse(m: Mobject, buff: float = BUFF) -> float:
    """``PULSE``, less for a long thing: grown, each side moves at most a third of ``buff``
    (a sentence 7 units wide at 1.05 crossed the outline drawn round it)."""
    return min(PULSE, 1 + 2 * buff / 3 / max(m.width, m.height, 1e-6))


def _buff(m: Mobject, neighbours: Sequence[Box]) -> float:
    """``BUFF``, less where another text is near: the outline passes between them, not
    across the neighbour ("what the blank receives" circled across "→ on to the next
    layer" just below it)."""
    box = (m.get_left()[0], m.get_bottom()[1], m.get_right()[0], m.get_top()[1])
    gaps = [g for n in neighbours if (g := overlap.gap(box, n)) > 0]
    return max(MIN_BUFF, min(BUFF, min(gaps) / 2)) if gaps else BUFF


def indication(mobs: Sequence[Mobject], run_time: float,
               neighbours: Sequence[Box] = ()) -> AnimationGroup:
    """Grow each named thing a little and back, while a line is drawn round it: a pointer
    that keeps its colours (Q yellow, K teal, V red stay so). ``neighbours``: the boxes
    (left, bottom, right, top) of the other texts on stage, which the line keeps clear of."""
    anims = []
    for m in mobs:
        buff = _buff(m, neighbours)
        anims += [m.animate(rate_func=there_and_back).scale(_pulse(m, buff)),
                  # drawn, then faded: an outline traced and untraced leaves a stray dash
                  # at its ends
                  Circumscribe(m, color=theme.ACCENT, buff=buff, stroke_width=3,
                               fade_out=True)]
    return AnimationGroup(*anims, run_time=run_time)
