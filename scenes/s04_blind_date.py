"""The speed-dating analogy: every guest carries a checklist (Q), a badge (K) and a story (V).

You are a guest too: while you read their badges, they read yours. That is the bridge to
the projections: every word makes its own q, k and v. No numbers of the example are used.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    ArcBetweenPoints,
    Circle,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Polygon,
    Rectangle,
    RoundedRectangle,
    UpdateFromAlphaFunc,
    VGroup,
    smooth,
    there_and_back,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

YOU_X = -5.3
GUEST_X0, GUEST_STEP = -2.1, 2.55
HEAD_Y, BODY_Y, BUBBLE_Y = 1.15, -0.03, 1.92
BODY_W, BODY_H = 2.1, 1.55
MINI_Y = -1.42
LIST_TOP = -0.95
LEGEND_Y = -2.28
WORD_Y, CELL_Y = 1.0, -0.35
SKIN = ("#d9c2a7", "#b9c6d6", "#c4d3b0", "#d6b9c9")


def pulse(m: Mobject, scale: float = 1.12) -> Animation:
    """Grow and shrink back: a highlight that keeps a filled panel's text readable."""
    return m.animate(rate_func=there_and_back).scale(scale)


class BlindDateScene(NarratedScene):
    scene_id = "blind_date"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        n = len(fb.tokens[self.lang])  # one guest per earlier word of the sentence
        xs = [GUEST_X0 + GUEST_STEP * i for i in range(n)]

        with self.beat("intro") as b:
            self.title_card(b)
            wants = self.items("wants")
            guests = [self._guest(self.items(f"badge_{i}"), SKIN[i % len(SKIN)], theme.MUTED,
                                  wants) for i in range(n)]
            for g, x in zip(guests, xs, strict=True):
                g.shift(RIGHT * x)
            self.play(*[FadeIn(g.person, shift=0.15 * UP) for g in guests],
                      run_time=min(b.rt(0.15, 1.0), b.time_to("you")))
            you = self._guest(self.items("your_badge"), theme.FG, theme.FG, ())
            you.shift(RIGHT * YOU_X)
            you_label = theme.text(self.s("you"), theme.LABEL_SIZE, theme.BG, weight="BOLD")
            you.person[0].scale(max(1.0, (you_label.width + 0.12) / you.person[0].width))
            you_label.move_to(you.person[0])
            b.until("you")
            self.play(FadeIn(VGroup(you.person, you_label), shift=0.15 * RIGHT),
                      run_time=b.rt(0.1, 0.7))
            checklist = self._checklist(wants)
            checklist.next_to(UP * LIST_TOP, DOWN, buff=0).set_x(YOU_X)
            b.until("wants")
            self.play(FadeIn(checklist, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.8))
            b.until("q")
            self.play(*widgets.light(checklist.items, theme.Q_COLOR), run_time=b.rt(0.1, 0.8))

        with self.beat("badges") as b:
            b.until("badges")
            self.play(*[FadeIn(g.badge, scale=0.8) for g in guests], run_time=b.rt(0.1, 0.9))
            self.play(*[pulse(g.badge) for g in guests], run_time=b.rt(0.08, 0.7))
            b.until("match")
            hits = [[chip for chip, word in zip(g.chips, g.words, strict=True) if word in wants]
                    for g in guests]
            ticked = [item for item, word in zip(checklist.items, wants, strict=True)
                      if any(word in g.words for g in guests)]
            self.play(*[chip[0].animate.set_fill(theme.K_COLOR, 0.4) for h in hits for chip in h],
                      *[Indicate(item, color=theme.Q_COLOR) for item in ticked],
                      run_time=b.rt(0.12, 0.9))
            b.until("stories")
            most = max(len(h) for h in hits)
            self.play(LaggedStart(*[FadeIn(g.bubble, shift=0.1 * UP) for g in guests],
                                  lag_ratio=0.2), run_time=b.rt(0.12, 1.0))
            self.play(*[pulse(g.bubble, 1.2)
                        for g, h in zip(guests, hits, strict=True) if len(h) == most and most],
                      run_time=b.rt(0.08, 0.8))

        with self.beat("everyone") as b:
            b.until("theirs")
            self.play(LaggedStart(*[FadeIn(g.mini, shift=0.1 * UP) for g in guests],
                                  lag_ratio=0.2), run_time=b.rt(0.12, 1.0))
            legend = widgets.qkv_legend(self.items("legend"), RIGHT, theme.SMALL_SIZE, arrow=False)
            # beside your checklist, never over it: tighter gaps first, then the fit
            left = checklist.get_right()[0] + 0.3
            avail = theme.FRAME_W / 2 - theme.MARGIN - left
            if legend.width > avail:
                legend.arrange(RIGHT, buff=0.3)
            theme.fit(legend, avail)
            legend.move_to(UP * LEGEND_Y + RIGHT * (left + theme.FRAME_W / 2 - theme.MARGIN) / 2)
            if legend.get_top()[1] < checklist.get_bottom()[1] - 0.1:  # below it: centred
                legend.set_x((xs[0] + xs[-1]) / 2)
            widgets.keep_inside_x(legend)
            parts = {"q": [g.mini for g in guests], "k": [g.badge for g in guests],
                     "v": [g.bubble for g in guests]}
            for row, key in zip(legend, ("q", "k", "v"), strict=True):
                b.until(key)
                self.play(FadeIn(row, shift=0.1 * RIGHT), *[pulse(m) for m in parts[key]],
                          run_time=b.rt(0.1, 0.8))

        with self.beat("you_too") as b:
            b.until("yourbadge")
            self.play(FadeIn(you.badge, scale=0.8), FadeIn(you.bubble, shift=0.1 * UP),
                      run_time=b.rt(0.15, 0.8))
            b.until("watched")
            # your checklist (as an icon) goes to each badge; then theirs come to yours
            # they leave from a column beside it, never over its words or over each other
            looks = [self._mini_checklist().scale(0.45).next_to(checklist, RIGHT, buff=0.12)
                     .shift(UP * 0.36 * (i - (n - 1) / 2)) for i in range(n)]
            self.play(*[m.animate.move_to(g.badge).scale(0.6).set_opacity(0)
                        for m, g in zip(looks, guests, strict=True)],
                      pulse(checklist, 1.06), run_time=min(b.rt(0.2, 1.0), b.time_to("others")))
            self.remove(*looks)
            self.play(*[pulse(g.badge) for g in guests],
                      run_time=min(b.rt(0.08, 0.5), b.time_to("others")))
            b.until("others")
            # their checklists fly to your badge on nested arcs (farther guests higher) and
            # line up in a column at its right edge, so they never overlap on the way or there
            back = [g.mini.copy() for g in guests]
            step = 0.36
            col_x = you.badge.get_right()[0] + 0.36
            spots = [RIGHT * col_x + UP * (you.badge.get_y() + step * (i - (n - 1) / 2))
                     for i in range(n)]
            self.play(LaggedStart(*[self._fly(m, spot, 0.6 + 0.25 * i)
                                    for i, (m, spot) in enumerate(zip(back, spots, strict=True))],
                                  lag_ratio=0.15),
                      run_time=b.rt(0.3, 1.6))
            self.play(pulse(you.badge, 1.15), *[FadeOut(m) for m in back],
                      run_time=b.rt(0.1, 0.7))

        with self.beat("bridge") as b:
            # the party's heading goes as the guests become a sentence's words
            self.play(FadeOut(legend), *self.retitle(self.s("bridge_title")),
                      run_time=b.rt(0.05, 0.4))
            names = [*fb.tokens[self.lang], self.s("you_word")]
            words = [self._word(name, x) for name, x in zip(names, [*xs, YOU_X], strict=True)]
            people = [*guests, you]
            b.until("words")
            # each part of a guest leaves towards the cell it becomes, then the cells come in:
            # a badge's words never melt into the letters
            swaps = []
            for p, w in zip(people, words, strict=True):
                parts = ((VGroup(p.person, *([you_label] if p is you else [])), w.chip),
                         (checklist if p is you else p.mini, w.q), (p.badge, w.k),
                         (p.bubble, w.v))
                for old, new in parts:
                    way = new.get_center() - old.get_center()
                    swaps += widgets.out_then_in(
                        old, new, shift=0.4 * way / max(float(np.linalg.norm(way)), 1e-6))
            self.play(*swaps, run_time=b.rt(0.15, 1.4))
            for key in ("ask", "found", "read"):
                b.until(key)
                cells = [getattr(w, {"ask": "q", "found": "k", "read": "v"}[key]) for w in words]
                self.play(*[pulse(c, 1.25) for c in cells],
                          run_time=b.rt(0.08, 0.7))
            nxt = theme.text(self.s("next"), theme.BODY_SIZE, theme.ACCENT, qkv=True)
            nxt.move_to(UP * (CELL_Y - 1.3))
            b.until("next")
            self.play(FadeIn(nxt, shift=0.1 * UP), run_time=b.rt(0.1, 0.7))

    # -- pieces ---------------------------------------------------------------------------------
    @staticmethod
    def _fly(m: Mobject, target: np.ndarray, angle: float, scale: float = 0.4) -> Animation:
        """Move ``m`` upright along an arc to ``target``, shrinking it to ``scale``."""
        start = m.copy()
        path = ArcBetweenPoints(m.get_center(), target, angle=angle)

        def step(mob: Mobject, a: float) -> None:
            t = smooth(a)
            size = 1 - (1 - scale) * t
            mob.become(start.copy().scale(size).move_to(path.point_from_proportion(t)))

        return UpdateFromAlphaFunc(m, step)

    @staticmethod
    def _person(head_color: str, outline: str) -> VGroup:
        head = Circle(radius=0.3).set_stroke(outline, width=2).set_fill(head_color, 1)
        body = RoundedRectangle(corner_radius=0.35, width=BODY_W, height=BODY_H)
        body.set_stroke(outline, width=2).set_fill(theme.PANEL, 1)
        head.move_to(UP * HEAD_Y)
        body.move_to(UP * BODY_Y)
        return VGroup(head, body)

    def _guest(self, words: tuple[str, ...], skin: str, outline: str,
               wants: tuple[str, ...]) -> VGroup:
        """A person at x = 0 with a name badge (K), a speech bubble (V) and a small
        checklist of their own (Q); the parts are kept apart, each appears when named.
        The bubble grows with how many badge words are on ``wants`` (you talk longer);
        with no ``wants`` (your own card) it has the middle size."""
        person = self._person(skin, outline)
        chips = VGroup()
        for word in words:
            label = theme.text(word, theme.SMALL_SIZE, theme.K_COLOR)
            box = RoundedRectangle(corner_radius=0.08, width=label.width + 0.12, height=0.4)
            box.set_stroke(width=0).set_fill(theme.K_COLOR, 0)  # lit when the word matches
            chips.add(widgets.boxed(label, box))
        chips.arrange(DOWN, buff=0.06)
        card = theme.panel(BODY_W - 0.2, chips.height + 0.2, color=theme.K_COLOR, fill=theme.BG)
        theme.fit(chips, card.width - 0.1)
        badge = widgets.boxed(chips, card).move_to(person[1]).shift(DOWN * 0.08)
        hits = sum(w in wants for w in words) if wants else 1
        bubble = self._bubble(hits).move_to(UP * BUBBLE_Y)
        mini = self._mini_checklist().move_to(UP * MINI_Y)
        guest = VGroup(person, badge, bubble, mini)
        guest.person, guest.badge, guest.bubble, guest.mini = person, badge, bubble, mini
        guest.chips, guest.words = chips, words
        return guest

    @staticmethod
    def _bubble(hits: int) -> VGroup:
        """A speech bubble: tiny and faint for no match, longer with more dots per match."""
        hits = min(hits, 2)
        width, ndots = (0.5, 1) if hits == 0 else (0.75 + 0.6 * hits, 1 + 2 * hits)
        fill = 0.1 if hits == 0 else 0.25
        box = RoundedRectangle(corner_radius=0.2, width=width, height=0.55 if hits else 0.4)
        box.set_stroke(theme.V_COLOR, width=2, opacity=1 if hits else 0.5)
        box.set_fill(theme.V_COLOR, fill)
        tail = Polygon(LEFT * 0.1, RIGHT * 0.1, DOWN * 0.18 + LEFT * 0.06)
        tail.set_stroke(theme.V_COLOR, width=2, opacity=1 if hits else 0.5)
        tail.set_fill(theme.V_COLOR, fill)
        tail.next_to(box, DOWN, buff=-0.02).shift(LEFT * min(0.2, width / 4))
        dots = VGroup(*[Circle(radius=0.055).set_stroke(width=0)
                        .set_fill(theme.FG, 1 if hits else 0.5)
                        for _ in range(ndots)]).arrange(RIGHT, buff=0.14).move_to(box)
        return VGroup(box, tail, dots)

    @staticmethod
    def _mini_checklist() -> VGroup:
        """A guest's own checklist, drawn as an icon: two ticked boxes and lines."""
        box = theme.panel(1.0, 0.7, color=theme.Q_COLOR, fill=theme.BG)
        rows = VGroup()
        for w in (0.44, 0.32):
            square = Rectangle(width=0.14, height=0.14).set_stroke(theme.Q_COLOR, width=2)
            bar = Rectangle(width=w, height=0.05).set_stroke(width=0).set_fill(theme.FG, 0.8)
            rows.add(VGroup(square, bar).arrange(RIGHT, buff=0.1))
        rows.arrange(DOWN, aligned_edge=LEFT, buff=0.14).move_to(box)
        return VGroup(box, rows)

    def _checklist(self, wants: tuple[str, ...]) -> VGroup:
        title = theme.text(self.s("list_title"), theme.SMALL_SIZE, theme.Q_COLOR)
        items = VGroup()
        for w in wants:
            square = Rectangle(width=0.26, height=0.26).set_stroke(theme.Q_COLOR, width=2)
            items.add(VGroup(square, theme.text(w, theme.SMALL_SIZE, theme.FG))
                      .arrange(RIGHT, buff=0.15))
        items.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        body = VGroup(title, items).arrange(DOWN, buff=0.16)
        theme.fit(body, 2.2)
        panel = widgets.boxed(body, theme.panel(2.5, body.height + 0.25, color=theme.Q_COLOR))
        panel.items = items
        return panel

    @staticmethod
    def _word(name: str, x: float) -> VGroup:
        """A word of the sentence with its own q, k and v cells below it."""
        chip = widgets.chip(name, size=theme.BODY_SIZE, height=0.8, pad=0.4, min_width=1.7)
        chip.move_to(RIGHT * x + UP * WORD_Y)
        cells = [widgets.letter_badge(letter, size=theme.BODY_SIZE, radius=0.3, square=True)
                 for letter in "qkv"]
        row = VGroup(*cells).arrange(RIGHT, buff=0.1).move_to(RIGHT * x + UP * CELL_Y)
        link = Line(chip.get_bottom(), row.get_top()).set_stroke(theme.MUTED, width=2)
        word = VGroup(VGroup(chip, link), *cells)
        word.chip, word.q, word.k, word.v = VGroup(chip, link), *cells
        return word
