"""The overlap check: text over text, across a filled shape, and cross-fade overprints."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    Rectangle,
    ReplacementTransform,
    Transform,
    VGroup,
)

from scenes import overlap, theme
from tests.scenes.test_layout_check import _first_beat_does


def _label(s: str):
    return theme.text(s, theme.LABEL_SIZE)


def test_two_labels_on_top_of_each_other_collide_and_apart_they_do_not() -> None:
    a, b = _label("share"), _label("weight").shift(RIGHT * 0.2)
    assert overlap.collisions([a, b]) == ["'share' overlaps 'weight'"]
    b.next_to(a, RIGHT, buff=0.2)
    assert overlap.collisions([a, b]) == []


def test_a_label_across_a_bar_collides_and_one_inside_a_panel_does_not() -> None:
    bar = Rectangle(width=2, height=0.5).set_fill(theme.K_COLOR, 0.9).set_stroke(width=0)
    label = _label("52%").move_to(bar.get_right())
    assert overlap.collisions([bar, label]) == ["'52%' crosses the edge of a filled shape"]
    panel = theme.panel(4, 2).set_fill(theme.PANEL, 1.0)
    inside = _label("inside").move_to(panel)
    assert overlap.collisions([panel, inside]) == []
    outline = Rectangle(width=2, height=0.5)  # a box drawn around text is not a fill
    assert overlap.collisions([outline, _label("52%").move_to(outline.get_right())]) == []


def test_a_small_icon_over_one_word_of_a_long_text_collides() -> None:
    """kv_separate (en): a book icon came in over 'neither' in 'does neither job well' for
    4 s; it covered under a fifth of the sentence's box, so only the glyphs show it."""
    sentence = theme.text("does neither job well", theme.BODY_SIZE)
    word = sentence.get_left() + RIGHT * 0.3 * sentence.width
    book = Rectangle(width=0.5, height=0.9).set_fill(theme.V_COLOR, 0.9).set_stroke(width=0)
    book.move_to(word + DOWN * 0.45)  # its top half over the word
    found = overlap.collisions([sentence, book])
    assert found == ["'does neither job well' crosses the edge of a filled shape"]
    book.next_to(sentence, DOWN, buff=0.3)  # under the sentence: no collision
    assert overlap.collisions([sentence, book]) == []


def test_a_label_fading_out_where_another_fades_in_is_an_overprint() -> None:
    old = _label("66%")
    new = _label("52%").move_to(old)
    before = overlap.shown_texts([old])
    assert overlap.overprints(before, overlap.shown_texts([new])) == [
        "'66%' fades out under '52%'"]
    new.shift(DOWN * 1.5)  # comes in elsewhere
    assert overlap.overprints(before, overlap.shown_texts([new])) == []
    old.shift(LEFT)  # the same text, moved: not an overprint
    assert overlap.overprints(before, overlap.shown_texts([old])) == []
    same = _label("66%").move_to(old)  # a copy of itself
    assert overlap.overprints(before, overlap.shown_texts([same])) == []


def test_transforming_a_text_into_another_is_a_morph_and_moving_it_is_not() -> None:
    a, b = _label("① scores"), _label("② scale")
    assert overlap.morphs([Transform(a, b)]) == ["'① scores' morphs into '② scale'"]
    assert overlap.morphs([ReplacementTransform(a, a.copy().shift(UP))]) == []


def test_a_scene_reports_a_cross_fade_and_labels_left_on_top_of_each_other(
        dry_run_scene, monkeypatch) -> None:
    def garbled(scene) -> None:
        old = _label("first label")
        scene.add(old)
        new = _label("second label").move_to(old)
        scene.play(FadeOut(old), FadeIn(new))
        scene.play(FadeIn(_label("third label").move_to(new).shift(RIGHT * 0.3)))

    scene = dry_run_scene(_first_beat_does(monkeypatch, garbled), "en")
    first = scene.script.beats[0].id
    assert any(f".{first} at " in o and "'first label' fades out under 'second label'" in o
               for o in scene.overlaps)
    assert any("'second label' overlaps 'third label'" in o for o in scene.overlaps)
    assert scene.times.overlaps == tuple(scene.overlaps)


def test_a_word_lit_over_itself_in_its_sentence_is_not_an_overlap() -> None:
    sentence = theme.glyph_text("the language there: French", theme.BODY_SIZE)
    word = theme.text("French", theme.BODY_SIZE, theme.K_COLOR).move_to(sentence[-6:])
    assert overlap.collisions([sentence, word]) == []
    other = theme.text("German", theme.BODY_SIZE).move_to(sentence[-6:])
    assert overlap.collisions([sentence, other]) == [
        "'the language there: French' overlaps 'German'"]


def test_a_badge_on_its_disc_and_an_out_then_in_swap_are_not_counted() -> None:
    from manim import Circle

    from scenes import widgets

    disc = Circle(radius=0.22).set_fill(theme.ACCENT, 1.0).set_stroke(width=0)
    assert overlap.collisions([disc, _label("①").move_to(disc)]) == []
    old, new = _label("×1"), _label("×2")
    new.move_to(old)
    anims = widgets.out_then_in(old, new)
    before = overlap.shown_texts([old])
    assert overlap.overprints(before, overlap.shown_texts([new]), overlap.halves(anims)) == []
    assert overlap.overprints(before, overlap.shown_texts([new])) == ["'×1' fades out under '×2'"]


def test_labels_a_few_pixels_apart_touch_and_a_clear_gap_does_not() -> None:
    """Stop 39's review: '16.1' sat on the labels under it, a 52% box cut the 95% bar, the
    'body text' head sat on its card's edge: legible at 1080p, one blur on a phone."""
    a, b = _label("16.1"), _label("256")
    b.next_to(a, DOWN, buff=0.01)  # about 1 px at 1080p
    assert overlap.collisions([a, b]) == []  # not an overlap ...
    assert overlap.crowding([a, b]) == ["'16.1' touches '256'"]  # ... but touching
    b.next_to(a, DOWN, buff=0.1)
    assert overlap.crowding([a, b]) == []


def test_a_label_on_or_across_a_box_edge_touches_it_and_a_framed_label_does_not() -> None:
    from manim import SurroundingRectangle

    head = _label("body text")
    card = Rectangle(width=4, height=1).next_to(head, DOWN, buff=0.01)
    assert overlap.crowding([card, head]) == ["'body text' touches the edge of a box"]
    card.next_to(head, DOWN, buff=0.15)
    assert overlap.crowding([card, head]) == []
    tight = SurroundingRectangle(head, buff=0.005)
    assert overlap.crowding([tight, head]) == ["'body text' touches the edge of its box"]
    across = Rectangle(width=1, height=1).move_to(head.get_right())
    assert overlap.crowding([across, head]) == ["'body text' crosses the edge of a box"]
    assert overlap.crowding([SurroundingRectangle(head, buff=0.1), head]) == []
    # a highlight box 0.05 clear (about 3 px of gap left inside its stroke on a phone)
    assert overlap.crowding([SurroundingRectangle(head, buff=0.05), head]) == [
        "'body text' touches the edge of its box"]


def test_words_of_one_phrase_a_tinted_cell_and_a_shadow_are_not_crowding() -> None:
    words = VGroup(*[theme.text(w, theme.EMPH_SIZE) for w in ("缩放", "点积", "注意力")])
    words.arrange(RIGHT, buff=0.02)  # Chinese: one line, set word by word
    assert overlap.crowding([words]) == []
    cell = _label("0.29")
    tint = Rectangle(width=0.3, height=0.5).set_fill(theme.V_COLOR, 0.35).set_stroke(width=0)
    tint.move_to(cell.get_left())  # a share shaded in under its number
    assert overlap.crowding([tint, cell]) == []
    shadow = Rectangle(width=0.4, height=1).move_to(cell.get_right())
    assert overlap.crowding([shadow, cell]) != []
    assert overlap.crowding([overlap.behind(shadow), cell]) == []
