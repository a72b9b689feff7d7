"""The hook: a fill-in-the-blank sentence whose blank looks back and scores every word."""

from __future__ import annotations

import re
from string import ascii_lowercase

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowFromEdge,
    Indicate,
    Line,
    Rectangle,
    Underline,
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

SENTENCE_SIZE = 30
CHIP_Y = -0.1
BAR_BASE = -2.3
BAR_MAX = 1.2


def _chip(s: str, color: str, stroke: str | None = None) -> VGroup:
    return widgets.chip(s, color, stroke=stroke, size=theme.BODY_SIZE, height=0.62, pad=0.5,
                        min_width=1.4)


class HookScene(NarratedScene):
    scene_id = "hook"

    def narrate(self) -> None:
        self._intro()
        self._answer()
        self._scores()
        self._question()
        self._qkv()

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self) -> None:
        tokens = self.numbers.fill_blank.tokens[self.lang]
        with self.beat("intro") as b:
            self.title_card(b)
            self.lines, self.spans, self.where, self.blank = self._sentence(tokens)
            lines, blank = self.lines, self.blank
            # the first line alone sits across the middle of the content area (alone in its
            # place above, the screen's lower half stood empty); it rises as the second comes
            rise = theme.CONTENT_CENTER[1] - lines[0].get_center()[1]
            lines[0].shift(UP * rise)
            self.play(theme.reveal(lines[0]), run_time=min(b.rt(0.25, 1.6), b.time_to("second")))
            b.until("second")
            # the first line makes room before the second is written (moving together, the
            # second was written over the first for half a second)
            run = b.rt(0.25, 1.6)
            self.play(lines[0].animate.shift(DOWN * rise), run_time=min(0.4, run / 3))
            self.play(theme.reveal(lines[1]), run_time=run - min(0.4, run / 3))
            b.until("blank")
            self.play(Indicate(blank, color=theme.Q_COLOR, scale_factor=1.3),
                      run_time=b.rt(0.1, 0.8))

    def _answer(self) -> None:
        spans, blank = self.spans, self.blank
        with self.beat("answer") as b:
            answer = theme.text(self.s("answer"), theme.BODY_SIZE, theme.GOOD, weight="BOLD")
            widgets.keep_inside_x(answer.next_to(blank, DOWN, buff=0.3))
            b.until("answer")
            self.play(FadeIn(answer, shift=0.1 * UP), run_time=b.rt(0.1, 0.6))
            # The clue and the lure are the words the narration names (token 0 and token 1).
            clue = self._word_line(spans[0], theme.GOOD)
            lure = self._word_line(spans[1], theme.MUTED)
            b.until("clue")
            self.play(Create(clue), Indicate(spans[0], color=theme.GOOD, scale_factor=1.1),
                      run_time=b.rt(0.12, 0.8))
            b.until("lure")
            self.play(Create(lure), run_time=b.rt(0.12, 0.8))
            wrong = theme.text(self.s("wrong"), theme.LABEL_SIZE, theme.MUTED)
            widgets.keep_inside_x(wrong.next_to(lure, DOWN, buff=0.12))
            strike = Line(wrong.get_left(), wrong.get_right()).set_stroke(theme.MUTED, width=3)
            b.until("wrong")
            self.play(FadeIn(wrong, shift=0.1 * DOWN), run_time=b.rt(0.08, 0.5))
            self.play(Create(strike), run_time=b.rt(0.08, 0.5))
            self.marked = (answer, clue, lure, wrong, strike)

    def _scores(self) -> None:
        tokens = self.numbers.fill_blank.tokens[self.lang]
        weights = self.derived.fill_weights
        lines, spans, where, blank = self.lines, self.spans, self.where, self.blank
        with self.beat("scores") as b:
            order = sorted(range(len(tokens)), key=lambda i: where[i])
            chips, blank_chip = self._chips(tokens, order)
            lead = b.time_to("look")
            self.play(*[FadeOut(m) for m in self.marked],
                      run_time=min(0.3, lead / 4))
            self.play(lines.animate.move_to(UP * (theme.CONTENT_TOP - 0.15 - lines.height / 2))
                      .set_opacity(0.55), run_time=min(0.6, lead / 3))
            self.play(*[FadeTransform(spans[i].copy(), chips[i]) for i in order],
                      FadeTransform(blank.copy(), blank_chip),
                      run_time=max(1 / 15, min(1.0, b.time_to("look"))))
            arcs = {}
            for i in order:
                start = blank_chip.get_top() + 0.06 * UP
                end = chips[i].get_top() + 0.06 * UP
                arc = ArcBetweenPoints(start, end, angle=0.6)
                arc.set_stroke(theme.Q_COLOR, width=3)
                arc.add_tip(tip_length=0.18, tip_width=0.16)
                arcs[i] = arc
            label = theme.text(self.s("share"), theme.SMALL_SIZE, theme.MUTED)
            baseline = Line(LEFT * (theme.CONTENT_W / 2), RIGHT * (theme.CONTENT_W / 2))
            baseline.set_stroke(theme.MUTED, width=2).set_y(BAR_BASE)
            label.next_to(baseline, UP, buff=0.1).set_x(blank_chip.get_x())
            # "at the blank": it lights; "it looks back": its arcs to the words; "gives
            # each a share": the scale the shares stand on (the overview's script may not
            # split the sentence so)
            split = "back" in b.marks and "share" in b.marks
            if split:
                b.until("look")
                self.play(Indicate(blank_chip[1], color=theme.Q_COLOR, scale_factor=1.15),
                          run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to("back"))))
                b.until("back")
            else:
                b.until("look")
            self.play(*[Create(arcs[i]) for i in reversed(order)],
                      *([] if split else [Create(baseline), FadeIn(label)]),
                      run_time=b.rt(0.1, 1.2))
            if split:
                b.until("share")
                self.play(Create(baseline), FadeIn(label), run_time=b.rt(0.06, 0.6))
            top_w = float(weights.max())
            bar_mobs: dict[int, VGroup] = {}
            for i in range(len(tokens)):
                h = max(0.03, float(weights[i]) / top_w * BAR_MAX)
                rect = Rectangle(width=0.9, height=h).set_stroke(width=0)
                # the shares before ÷ √d: drawn in theme.COMPARE_COLOR, as in every scene
                rect.set_fill(theme.COMPARE_COLOR, 0.85).move_to(chips[i].get_x() * RIGHT)
                rect.align_to(baseline, DOWN)
                pct = theme.text(self.pct(weights[i]), theme.SMALL_SIZE, theme.FG)
                pct.next_to(rect, UP, buff=0.1)
                bar_mobs[i] = VGroup(rect, pct)
            for i in range(len(tokens)):  # in the order the voice reads them
                b.until(f"w{ascii_lowercase[i]}")  # marks wa, wb, ...
                self.play(GrowFromEdge(bar_mobs[i], DOWN),
                          arcs[i].animate.set_stroke(width=1 + 9 * float(weights[i]) / top_w),
                          Indicate(chips[i][1], color=theme.COMPARE_COLOR, scale_factor=1.15),
                          run_time=b.rt(0.06, 0.6))
        self.chips, self.bar_mobs = chips, bar_mobs

    def _question(self) -> None:
        ranks, lines = self.derived.fill_order, self.lines
        chips, bar_mobs = self.chips, self.bar_mobs
        with self.beat("question") as b:
            question = theme.text(self.s("question"), theme.EMPH_SIZE, theme.FG, weight="BOLD")
            theme.fit(question, theme.CONTENT_W)
            question.move_to(lines.get_center())
            b.until("ask")
            # the sentence out, then the question in at its place (at once, they read as one
            # garble mid-way)
            self.play(*widgets.out_then_in(lines, question, shift=0.1 * DOWN),
                      run_time=b.rt(0.12, 0.8))
            best, worst = ranks[0], ranks[-1]
            b.until("top")
            self.play(Indicate(chips[best][1], color=theme.GOOD, scale_factor=1.1),
                      *widgets.light_bar(bar_mobs[best], theme.GOOD, across=0),
                      run_time=b.rt(0.12, 0.9))
            b.until("bottom")
            self.play(Indicate(chips[worst][1], color=theme.GOOD, scale_factor=1.1),
                      *widgets.light_bar(bar_mobs[worst], theme.GOOD, across=0),
                      run_time=b.rt(0.12, 0.9))

    def _qkv(self) -> None:
        with self.beat("qkv") as b:
            # the puzzle's heading goes with the puzzle: the cards get their own
            self.clear_content(b, keep=(self.header_mob,))
            cards = VGroup(*[
                self._role_card(letter, self.s(f"{key}_name"), self.s(f"{key}_role"), color)
                for letter, key, color in (("Q", "q", theme.Q_COLOR), ("K", "k", theme.K_COLOR),
                                           ("V", "v", theme.V_COLOR))
            ]).arrange(RIGHT, buff=0.45)
            theme.place_in_content(cards)
            # "three vectors every word carries": three empty frames at once, then each fills
            # as its name is said (the screen was empty for the first seconds).
            self.play(*self.retitle(self.s("qkv_title")), *[FadeIn(card[0]) for card in cards],
                      run_time=b.rt(0.08, 0.6))
            for card, mark in zip(cards, ("q", "k", "v"), strict=True):
                b.until(mark)
                self.play(FadeIn(VGroup(*card[1:]), shift=0.15 * UP), run_time=b.rt(0.1, 0.7))

    # -- pieces ---------------------------------------------------------------------------------
    def _sentence(self, tokens):
        """The sentence lines, each token's glyphs (first mention), their positions, the blank."""
        raw = self.items("sentence")
        lines = VGroup(*[
            theme.glyph_text(s, SENTENCE_SIZE)  # one glyph per character, spaces included
            for s in raw
        ]).arrange(DOWN, aligned_edge=LEFT, buff=0.32)
        theme.fit(lines, theme.CONTENT_W)
        lines.move_to(theme.CONTENT_CENTER + UP * 0.5)
        found = [self._find(raw, lines, tok) for tok in tokens]
        spans = [glyphs for glyphs, _ in found]
        where = [pos for _, pos in found]
        blank, _ = self._find(raw, lines, "_", blank=True)
        blank.set_color(theme.Q_COLOR)
        return lines, spans, where, blank

    def _find(self, raw, lines, tok: str, blank: bool = False) -> tuple[VGroup, tuple[int, int]]:
        for row, (line_str, line) in enumerate(zip(raw, lines, strict=True)):
            if blank:
                m = re.search(r"_+", line_str)
            elif self.lang == "zh":
                m = re.search(re.escape(tok), line_str)
            else:
                m = re.search(rf"(?<!\w){re.escape(tok)}(?!\w)", line_str)
            if m:
                return VGroup(*line[m.start():m.end()]), (row, m.start())
        raise ValueError(f"{self.script.source}: screen.sentence does not contain {tok!r}")

    def _chips(self, tokens, order) -> tuple[dict[int, VGroup], VGroup]:
        n = len(order) + 1
        span = theme.CONTENT_W - 2.2
        xs = [-span / 2 + span * k / (n - 1) for k in range(n)]
        # a long word's chip shrinks to keep clear of its neighbours and of the side margins
        room = min(span / (n - 1) - 0.2, theme.CONTENT_W - span)
        chips: dict[int, VGroup] = {}
        for k, i in enumerate(order):
            chips[i] = theme.fit(_chip(tokens[i], theme.FG, theme.MUTED), room).move_to(
                RIGHT * xs[k] + UP * CHIP_Y)
        blank_chip = theme.fit(_chip(self.s("blank"), theme.Q_COLOR), room)
        blank_chip.move_to(RIGHT * xs[-1] + UP * CHIP_Y)
        return chips, blank_chip

    @staticmethod
    def _word_line(glyphs: VGroup, color: str) -> Line:
        """A word of the sentence marked by a line under it: a frame round it cut into the
        characters on either side (the words sit a glyph's spacing apart)."""
        return Underline(glyphs, color=color, buff=0.1, stroke_width=5)

    @staticmethod
    def _role_card(letter: str, name: str, role: str, color: str) -> VGroup:
        box = theme.panel(3.8, 2.8, color=color)
        big = theme.text(letter, theme.DISPLAY_SIZE, color, weight="BOLD")
        name_m = theme.fit(theme.text(name, theme.BODY_SIZE, color), box.width - 0.4)
        role_m = theme.label(role, box.width - 0.4)
        big.move_to(box.get_top() + DOWN * 0.75)
        name_m.move_to(box.get_center() + DOWN * 0.2)
        role_m.next_to(name_m, DOWN, buff=0.15)
        return VGroup(box, big, name_m, role_m)

