"""Pointing at what the voice names: ``{@see_<name>}`` marks indicate it as it is said."""

from __future__ import annotations

import pytest
from manim import FadeIn

from narration.numfmt import LANGS
from scenes import pointing, theme
from scenes.base import LATE
from scenes.registry import discover
from tests.scenes.test_layout_check import _first_beat_does

SCENES = discover(cut=None)


def test_a_name_stands_for_a_screen_string_a_list_or_one_of_its_items() -> None:
    screen = {"want": "deep learning", "tags": ("AI", "stats"), "tags_0": "own key"}
    assert pointing.screen_strings(screen, "want") == ("deep learning",)
    assert pointing.screen_strings(screen, "tags") == ("AI", "stats")
    assert pointing.screen_strings(screen, "tags_1") == ("stats",)
    assert pointing.screen_strings(screen, "tags_0") == ("own key",)  # a key of its own wins
    assert pointing.screen_strings(screen, "tags_2") == ()
    assert pointing.screen_strings(screen, "nothing") == ()


def test_only_texts_that_read_the_string_and_show_are_found() -> None:
    a, b = theme.text("France"), theme.text("Germany")
    hidden = theme.text("France").set_opacity(0)
    found = pointing.texts_reading([a, b, hidden], ("France",))
    assert found == [a]


def test_a_group_picked_out_of_what_is_on_screen_is_on_stage() -> None:
    from manim import VGroup

    sentence = theme.text("France and Germany")
    picked = VGroup(*sentence[:6])  # never added itself
    assert pointing.on_stage(picked, [sentence])
    assert not pointing.on_stage(VGroup(*theme.text("Spain")), [sentence])


def _with_cue(monkeypatch, first: str, later: str, at: float) -> None:
    """The first beat points at ``first``, every later beat at ``later``, ``at`` s after its
    start."""
    def cues(marks, start):
        name = first if start == 0 else later
        return [pointing.Cue(start + at, name, f"see_{name}")]

    monkeypatch.setattr(pointing, "cues", cues)


def test_a_mark_points_at_the_text_it_names_inside_the_beats_wait(dry_run_scene,
                                                                  monkeypatch) -> None:
    def shows_the_answer(scene) -> None:
        scene.play(FadeIn(theme.text(scene.script.title)))  # a text the mark does not name
        scene.target("answer", theme.text("42").shift(theme.DOWN))
        scene.add(scene.targets["answer"])

    _with_cue(monkeypatch, "answer", "question", at=1.5)
    scene = dry_run_scene(_first_beat_does(monkeypatch, shows_the_answer), "en")
    first = scene._times[0]
    pointed = [p for p in scene.pointed if p[0] == first.id]
    assert [p[1] for p in pointed] == ["answer"]
    assert first.start + 1.5 - pointing.LEAD - 0.1 <= pointed[0][2] <= first.start + 1.5
    # the beat still lasts what its narration does; later beats name nothing on screen
    assert first.end - first.start == pytest.approx(scene.ctx.durations[first.id], abs=0.1)
    assert any("{@see_question} names nothing on screen" in w for w in scene.warnings)
    assert not any("{@see_answer}" in w for w in scene.warnings)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("info", SCENES, ids=[s.scene_id for s in SCENES])
def test_every_see_mark_points_at_something_as_it_is_said(info, lang, shipped_scene) -> None:
    scene = shipped_scene(info, lang)
    starts = {t.id: t.start for t in scene._times}
    due = sorted((starts[beat] + t, beat, m[len(pointing.PREFIX):])
                 for beat, marks in scene.ctx.marks.items() for m, t in marks.items()
                 if m.startswith(pointing.PREFIX))
    assert [(b, n) for _, b, n in due] == [(b, n) for b, n, _ in scene.pointed]
    for (at, beat, name), (_, _, played) in zip(due, scene.pointed, strict=True):
        assert at - pointing.LEAD - 0.1 <= played <= at + LATE, (beat, name)
    assert not [w for w in scene.warnings if "point" in w or "names nothing" in w]


@pytest.mark.parametrize("s", ["√d", "除以 √d：排名不变，份额不会更极端"])
def test_a_named_thing_at_its_peak_stays_inside_the_outline_drawn_round_it(s: str) -> None:
    """Scaling's caption, seven units wide, grew 1.05x past the outline circled round it
    (seen touching 除 and 端 in the review): the pulse is smaller for a long thing."""
    from manim import Circumscribe

    text = theme.text(s, theme.BODY_SIZE)
    left, right = text.get_left()[0], text.get_right()[0]
    anims = pointing.indication([text], 1.0).animations
    pulse = next(a for a in anims if not isinstance(a, Circumscribe))
    pulse.begin()
    pulse.interpolate(0.5)  # there and back: the peak at the middle
    grown = (text.get_left()[0], text.get_right()[0])
    assert grown[0] < left and grown[1] > right  # it does grow ...
    # ... each side by at most half the outline's room
    assert max(left - grown[0], grown[1] - right) <= pointing.BUFF / 2 + 1e-6


def test_the_outline_round_a_named_thing_keeps_clear_of_a_text_close_by() -> None:
    """'what the blank receives' was circled 0.14 units out, across '→ on to the next
    layer' 0.1 below it: the outline now passes between them; alone, it keeps its room."""
    from manim import DOWN, Circumscribe

    named = theme.text("what the blank receives", theme.LABEL_SIZE)
    below = theme.text("→ on to the next layer", theme.LABEL_SIZE).next_to(named, DOWN,
                                                                           buff=0.1)
    box = (below.get_left()[0], below.get_bottom()[1], below.get_right()[0],
           below.get_top()[1])

    def outline(neighbours):
        anims = pointing.indication([named], 1.0, neighbours).animations
        return next(a for a in anims if isinstance(a, Circumscribe)).animations[0].mobject

    assert outline([box]).get_bottom()[1] > below.get_top()[1]
    assert outline([]).get_bottom()[1] < below.get_top()[1]  # (the old room crossed it)
