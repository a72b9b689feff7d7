"""The speed-dating analogy: your checklist (Q), name badges (K), the guests' stories (V)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    Line,
    Polygon,
    Rectangle,
    RoundedRectangle,
    VGroup,
)

from scenes import theme
from scenes.base import NarratedScene

YOU_X = -5.3
GUEST_X0, GUEST_STEP = -2.1, 2.55
HEAD_Y, BODY_Y, BUBBLE_Y = 1.4, 0.22, 2.17
BODY_W, BODY_H = 2.1, 1.55
BAR_BASE, BAR_MAX = -2.3, 1.15
SKIN = ("#d9c2a7", "#b9c6d6", "#c4d3b0", "#d6b9c9")


class BlindDateScene(NarratedScene):
    scene_id = "blind_date"

    def narrate(self) -> None:
        shares = np.sort(self.derived.fill_weights)[::-1]  # one share per guest, best match first
        top = float(shares[0])
        n = len(shares)

        with self.beat("intro") as b:
            header = self.title_card(b)
            guests = VGroup(*[self._guest(i) for i in range(n)])
            you = self._person(theme.FG, theme.Q_COLOR)
            you_label = theme.text(self.s("you"), theme.SMALL_SIZE, theme.Q_COLOR).move_to(you[1])
            you = VGroup(you, you_label).move_to(RIGHT * YOU_X + UP * 1.05)
            self.play(*[FadeIn(g, shift=0.15 * UP) for g in guests], run_time=b.rt(0.15, 1.0))
            self.play(FadeIn(you, shift=0.15 * RIGHT), run_time=b.rt(0.1, 0.7))

        with self.beat("checklist") as b:
            wants = self.items("wants")
            checklist = self._checklist(wants)
            checklist.next_to(you, DOWN, buff=0.3).set_x(YOU_X)
            self.play(FadeIn(checklist, shift=0.1 * DOWN), run_time=b.rt(0.15, 0.9))
            self.play(Indicate(checklist.items, color=theme.Q_COLOR), run_time=b.rt(0.12, 0.8))

        with self.beat("badges") as b:
            self.play(*[FadeIn(g.badge, scale=0.8) for g in guests], run_time=b.rt(0.15, 1.0))
            self.play(*[Indicate(g.badge, color=theme.K_COLOR, scale_factor=1.1) for g in guests],
                      run_time=b.rt(0.15, 1.0))

        with self.beat("match") as b:
            for g in guests:
                hits = [chip for chip, word in zip(g.chips, g.words, strict=True)
                        if word in wants]
                ticks = [item for item, word in zip(checklist.items, wants, strict=True)
                         if word in g.words]
                anims = [chip[0].animate.set_fill(theme.K_COLOR, 0.4) for chip in hits]
                anims += [chip[1].animate.set_color(theme.FG) for chip in hits]
                anims += [Indicate(item, color=theme.Q_COLOR) for item in ticks]
                anims.append(Indicate(g.badge[0], color=theme.K_COLOR, scale_factor=1.05))
                self.play(*anims, run_time=b.rt(0.1, 0.8))

        with self.beat("listen") as b:
            time_label = theme.text(self.s("time_label"), theme.SMALL_SIZE, theme.MUTED)
            baseline = Line(RIGHT * (GUEST_X0 - 1.0), RIGHT * (theme.FRAME_W / 2 - theme.MARGIN))
            baseline.set_stroke(theme.MUTED, width=2).set_y(BAR_BASE)
            time_label.next_to(baseline, LEFT, buff=0.25)
            bars = VGroup()
            for g, w in zip(guests, shares, strict=True):
                rect = Rectangle(width=0.8, height=max(0.03, float(w) / top * BAR_MAX))
                rect.set_stroke(width=0).set_fill(theme.Q_COLOR, 0.85)
                rect.move_to(RIGHT * g.get_x()).align_to(baseline, DOWN)
                pct = theme.text(self.pct(w), theme.SMALL_SIZE, theme.FG)
                pct.next_to(rect, UP, buff=0.1)
                bars.add(VGroup(rect, pct))
            self.play(Create(baseline), FadeIn(time_label), run_time=b.rt(0.08, 0.5))
            self.play(*[GrowFromEdge(bar, DOWN) for bar in bars],
                      *[g.bubble[0].animate.set_fill(theme.V_COLOR, 0.15 + 0.75 * float(w) / top)
                        for g, w in zip(guests, shares, strict=True)], run_time=b.rt(0.3, 1.6))
            self.play(Indicate(guests[0].bubble, color=theme.V_COLOR, scale_factor=1.15),
                      run_time=b.rt(0.1, 0.8))

        with self.beat("soft") as b:
            for bar in bars:
                self.play(Indicate(bar, color=theme.GOOD, scale_factor=1.1),
                          run_time=b.rt(0.07, 0.5))

        with self.beat("recap") as b:
            keep = (header, you, checklist, guests[0], guests[0].badge)
            self.play(*[FadeOut(m) for m in self.mobjects if m not in keep],
                      run_time=b.rt(0.1, 0.6))
            legend = theme.qkv_legend(self.items("legend"), buff=0.16)
            right_l = guests[0].get_right()[0] + 0.5
            legend.move_to(UP * theme.CONTENT_CENTER[1])
            legend.set_x((right_l + theme.FRAME_W / 2 - theme.MARGIN) / 2)
            theme.fit(legend, theme.FRAME_W / 2 - theme.MARGIN - right_l)
            tags = VGroup(
                self._letter("Q", theme.Q_COLOR).next_to(checklist, RIGHT, buff=0.15),
                self._letter("K", theme.K_COLOR).next_to(guests[0].badge, RIGHT, buff=0.25),
                self._letter("V", theme.V_COLOR).next_to(guests[0].bubble, RIGHT, buff=0.2),
            )
            for tag, row in zip(tags, legend, strict=True):
                self.play(FadeIn(row, shift=0.1 * RIGHT), FadeIn(tag, scale=0.6),
                          run_time=b.rt(0.08, 0.5))

    # -- pieces ---------------------------------------------------------------------------------
    @staticmethod
    def _person(head_color: str, outline: str) -> VGroup:
        head = Circle(radius=0.3).set_stroke(outline, width=2).set_fill(head_color, 1)
        body = RoundedRectangle(corner_radius=0.35, width=BODY_W, height=BODY_H)
        body.set_stroke(outline, width=2).set_fill(theme.PANEL, 1)
        head.move_to(UP * (HEAD_Y - BODY_Y))
        return VGroup(head, body)

    def _guest(self, i: int) -> VGroup:
        """A guest: head, body, a name badge (K) and a speech bubble for their stories (V)."""
        person = self._person(SKIN[i % len(SKIN)], theme.MUTED)
        person.shift(RIGHT * (GUEST_X0 + GUEST_STEP * i) + UP * (BODY_Y - person[1].get_y()))
        words = self.items(f"badge_{i}")
        chips = VGroup()
        for word in words:
            label = theme.text(word, theme.SMALL_SIZE, theme.K_COLOR)
            box = RoundedRectangle(corner_radius=0.08, width=label.width + 0.12, height=0.4)
            box.set_stroke(width=0).set_fill(theme.K_COLOR, 0)
            chips.add(VGroup(box, label.move_to(box)))
        chips.arrange(DOWN, buff=0.06)
        card = theme.panel(BODY_W - 0.2, chips.height + 0.2, color=theme.K_COLOR, fill=theme.BG)
        theme.fit(chips, card.width - 0.1)
        badge = VGroup(card, chips.move_to(card)).move_to(person[1]).shift(DOWN * 0.08)
        bubble = self._bubble().move_to(RIGHT * person.get_x() + UP * BUBBLE_Y)
        guest = VGroup(bubble, person)  # the badge is kept apart: it appears in its own beat
        guest.badge, guest.chips, guest.words, guest.bubble = badge, chips, words, bubble
        return guest

    @staticmethod
    def _letter(letter: str, color: str) -> VGroup:
        dot = Circle(radius=0.2).set_stroke(width=0).set_fill(color, 1)
        return VGroup(dot, theme.text(letter, theme.SMALL_SIZE, theme.BG, weight="BOLD")
                      .move_to(dot))

    @staticmethod
    def _bubble() -> VGroup:
        box = RoundedRectangle(corner_radius=0.2, width=1.3, height=0.55)
        box.set_stroke(theme.V_COLOR, width=2).set_fill(theme.V_COLOR, 0.12)
        tail = Polygon(LEFT * 0.1, RIGHT * 0.1, DOWN * 0.18 + LEFT * 0.06)
        tail.set_stroke(theme.V_COLOR, width=2).set_fill(theme.V_COLOR, 0.12)
        tail.next_to(box, DOWN, buff=-0.02).shift(LEFT * 0.2)
        dots = VGroup(*[Circle(radius=0.055).set_stroke(width=0).set_fill(theme.FG, 1)
                        for _ in range(3)]).arrange(RIGHT, buff=0.14).move_to(box)
        return VGroup(box, tail, dots)

    def _checklist(self, wants: tuple[str, ...]) -> VGroup:
        title = theme.text(self.s("list_title"), theme.SMALL_SIZE, theme.Q_COLOR)
        items = VGroup()
        for w in wants:
            square = Rectangle(width=0.26, height=0.26).set_stroke(theme.Q_COLOR, width=2)
            items.add(VGroup(square, theme.text(w, theme.SMALL_SIZE, theme.FG))
                      .arrange(RIGHT, buff=0.15))
        items.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        body = VGroup(title, items).arrange(DOWN, buff=0.18)
        theme.fit(body, 2.2)
        box = theme.panel(2.5, body.height + 0.35, color=theme.Q_COLOR)
        panel = VGroup(box, body.move_to(box))
        panel.items = items
        return panel
