"""Recap of the four steps, then four questions, each with a countdown before its answer."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    TAU,
    UP,
    Arc,
    Circle,
    FadeIn,
    FadeOut,
    LaggedStart,
    Mobject,
    ValueTracker,
    VGroup,
    always_redraw,
    rate_functions,
)

from scenes import theme
from scenes.base import NarratedScene

COUNTDOWN_SECONDS = 5  # the silent pause before each answer (a timing, not an example value)
RING_R = 1.0
RING_CENTER = DOWN * 0.4
QUESTION_Y = 1.6


class RecapQuizScene(NarratedScene):
    scene_id = "recap_quiz"

    def narrate(self) -> None:
        with self.beat("recap") as b:
            header = self.title_card(b)
            lines = self._recap_lines()
            formula = theme.formula('"softmax"((Q K^T) / sqrt(d)) V', 52)
            formula.next_to(lines, DOWN, buff=0.6)
            VGroup(lines, formula).move_to(theme.CONTENT_CENTER)
            self.play(LaggedStart(*[FadeIn(line, shift=0.1 * RIGHT) for line in lines],
                                  lag_ratio=0.9), run_time=b.rt(0.6, 9.0))
            self.play(FadeIn(formula, shift=0.1 * UP), run_time=b.rt(0.1, 0.8))

        answer_colors = {
            4: (theme.K_COLOR, theme.V_COLOR, theme.Q_COLOR),
        }
        questions = self.items("q")
        labels = self.items("qlabel")
        for n, (label, question) in enumerate(zip(labels, questions, strict=True), start=1):
            with self.beat(f"q{n}") as b:
                self.clear_content(b, keep=(header,))
                tag = theme.text(label, 26, theme.ACCENT, weight="BOLD")
                tag.to_edge(LEFT, buff=theme.MARGIN + 0.2).set_y(theme.CONTENT_TOP - 0.3)
                q = theme.wrap(question, theme.CONTENT_W - 1.0, 34, theme.FG)
                for line in q:
                    line.set_x(0)
                q.move_to(UP * QUESTION_Y)
                self.play(FadeIn(tag), run_time=b.rt(0.1, 0.5))
                self.play(FadeIn(q, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.9))

            with self.beat(f"think{n}", at_least=COUNTDOWN_SECONDS + 0.5):
                clock = self._countdown()

            with self.beat(f"a{n}") as b:
                self.play(FadeOut(clock), run_time=b.rt(0.1, 0.4))
                colors = answer_colors.get(n)
                panel = self._answer(self.items(f"a{n}"), colors)
                self.play(FadeIn(panel[0]), FadeIn(panel[1]), run_time=b.rt(0.1, 0.6))
                for line in panel[2]:
                    self.play(FadeIn(line, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.9))
                    self.wait(b.rt(0.1, 2.5))

    # -- pieces ---------------------------------------------------------------------------------
    def _recap_lines(self) -> VGroup:
        rows = VGroup()
        for mark, step in zip(self.items("marks"), self.items("steps"), strict=True):
            m = theme.text(mark, 38, theme.ACCENT, weight="BOLD")
            t = theme.text(step, 36, theme.FG)
            rows.add(VGroup(m, t).arrange(RIGHT, buff=0.3))
        rows.arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        theme.fit(rows, theme.CONTENT_W - 1.0)
        return rows

    def _countdown(self) -> VGroup:
        """A ring that empties and a digit that counts down, one second per step.

        The countdown lasts COUNTDOWN_SECONDS whatever the prompt's length; its beat is
        extended to hold it (``at_least``), the extra time being a silent pause to think.
        """
        total = COUNTDOWN_SECONDS
        left = ValueTracker(1.0)
        track = Circle(radius=RING_R, stroke_color=theme.MUTED, stroke_width=8,
                       stroke_opacity=0.4).move_to(RING_CENTER)

        def ring() -> Arc:
            arc = Arc(radius=RING_R, start_angle=PI / 2, angle=-TAU * max(left.get_value(), 1e-3),
                      stroke_color=theme.ACCENT, stroke_width=10)
            arc.shift(RING_CENTER - arc.arc_center)
            return arc

        arc = always_redraw(ring)
        digit = self._digit(total)
        self.play(FadeIn(track), FadeIn(arc), FadeIn(digit), run_time=0.3)
        for k in range(total, 0, -1):
            digit.become(self._digit(k))
            self.play(left.animate.set_value((k - 1) / total), run_time=1.0 if k < total else 0.7,
                      rate_func=rate_functions.linear)
        arc.clear_updaters()
        return VGroup(track, arc, digit)

    @staticmethod
    def _digit(k: int) -> Mobject:
        return theme.text(str(k), 64, theme.FG, weight="BOLD").move_to(RING_CENTER)

    def _answer(self, lines: tuple[str, ...], colors: tuple[str, ...] | None) -> VGroup:
        colors = colors or (theme.GOOD,) + (theme.FG,) * (len(lines) - 1)
        texts = VGroup(*[theme.text(s, 30, c) for s, c in zip(lines, colors, strict=True)])
        texts.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        theme.fit(texts, theme.CONTENT_W - 2.0)
        box = theme.panel(max(texts.width + 1.0, 6.0), texts.height + 0.9, theme.GOOD)
        box.move_to(RING_CENTER + DOWN * 0.2)
        texts.move_to(box).shift(DOWN * 0.1)
        label = theme.text(self.s("answer"), theme.SMALL_SIZE, theme.GOOD, weight="BOLD")
        label.next_to(box.get_corner(UP + LEFT), RIGHT, buff=0.3)
        label.set_y(box.get_top()[1])
        backing = theme.panel(label.width + 0.3, label.height + 0.2, theme.BG, fill=theme.BG)
        backing.set_stroke(width=0).move_to(label)
        return VGroup(box, VGroup(backing, label), texts)
