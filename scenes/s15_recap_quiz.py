"""Recap of the four steps on the formula, four questions, and a closing card.

The recap writes the formula as the formula scene does and lights each part as its step is
named. Each question is on screen as it is read; a "pause and think" prompt and a countdown
of THINK_SECONDS follow, then the answer is revealed line by line as the voice reaches it.
The closing card holds the formula in one line and points to multi-head attention.
"""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    TAU,
    UP,
    AddTextLetterByLetter,
    Animation,
    Arc,
    Circle,
    FadeIn,
    FadeOut,
    Group,
    Mobject,
    ReplacementTransform,
    Succession,
    ValueTracker,
    VGroup,
    always_redraw,
    config,
    rate_functions,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

THINK_SECONDS = 8  # silence to think after each prompt is spoken (a timing, not a value)
RING_R = 1.0
RING_CENTER = DOWN * 1.0
QUESTION_Y = 1.6
LINE_MARKS = "bcd"  # answer line i + 1 appears at cue mark LINE_MARKS[i]; the first at once
# The formula, labelled like the formula scene's so each step's part can be lit.
STEP_PARTS = ("qk", "sd", "sm", "v")  # the formula part of each of the four steps
STEP_MARKS = ("score", "scale", "share", "blend")  # the cue mark naming each step
ROW_SP = 0.68  # recap rows spacing


class RecapQuizScene(NarratedScene):
    scene_id = "recap_quiz"

    def narrate(self) -> None:
        self._recap()
        self._quiz()
        self._outro()

    # -- the beats ------------------------------------------------------------------------------
    def _recap(self) -> None:
        with self.beat("recap") as b:
            self.header = self.title_card(b)
            f = theme.attention_formula(size=theme.FORMULA_DISPLAY_SIZE)
            f.move_to(UP * (theme.CONTENT_TOP - 0.15 - f.height / 2))
            name = theme.text(self.s("name"), theme.BODY_SIZE, theme.ACCENT)
            name.next_to(f, DOWN, buff=0.3)
            rows = self._recap_rows()
            theme.fit(rows, theme.CONTENT_W, name.get_bottom()[1] - 0.45 - theme.CONTENT_BOTTOM
                      - 0.1)
            rows.next_to(name, DOWN, buff=0.45)
            # the formula and its name stand mid-frame while alone (in the top half for 3 s
            # they left the screen's lower half empty) and rise to their place with the rows
            top = VGroup(f, name)
            drop = top.get_y() - theme.CONTENT_CENTER[1]
            top.shift(DOWN * drop)
            b.until("f")
            self.play(theme.reveal(f), run_time=max(0.5, min(1.2, b.time_to("name"))))
            b.until("name")
            self.play(FadeIn(name, shift=0.1 * UP), run_time=b.rt(0.05, 0.6))
            lit = None
            for k, (row, part, mark) in enumerate(zip(rows, STEP_PARTS, STEP_MARKS, strict=True),
                                                  start=1):
                b.until(mark)
                if k == 1:
                    self.play(top.animate.shift(UP * drop), run_time=b.rt(0.04, 0.4))
                box = widgets.formula_tint(f, part)
                light = [ReplacementTransform(lit, box) if lit else FadeIn(box)]
                if k > 1:
                    light.append(rows[k - 2][0].animate.set_color(theme.MUTED))
                self.play(*light, FadeIn(row, shift=0.1 * RIGHT), run_time=b.rt(0.05, 0.6))
                lit = box
            self.recap = VGroup(f, name, rows, lit)

    def _quiz(self) -> None:
        header = self.header
        questions = self.items("q")
        labels = self.items("qlabel")
        line_colors = {
            1: (theme.GOOD, theme.FG, theme.FG, theme.FG),
            2: (theme.FG, theme.FG, theme.GOOD, theme.GOOD),
            3: (theme.FG, theme.FG, theme.GOOD),
            4: (theme.K_COLOR, theme.V_COLOR, theme.Q_COLOR),
        }
        for n, (label, question) in enumerate(zip(labels, questions, strict=True), start=1):
            with self.beat(f"q{n}") as b:
                tag = theme.text(label, theme.LABEL_SIZE, theme.ACCENT, weight="BOLD")
                corner = tag.copy().to_edge(LEFT, buff=theme.MARGIN + 0.2)
                corner.set_y(theme.CONTENT_TOP - 0.3)
                q = theme.wrap(question, theme.CONTENT_W - 1.0, theme.EMPH_SIZE, theme.FG,
                               qkv=True)
                for line in q:
                    line.set_x(0)
                # read out alone, the question sits in the middle of the content area; it
                # rises to QUESTION_Y as the countdown comes in below it
                q.move_to(theme.CONTENT_CENTER)
                # on screen as it is read: the old answer goes and the question comes at once
                # (the old out, then the new in: the questions sit at one place)
                gone = [m for m in self.mobjects if m is not header]
                # the label comes first where the question will be, and steps aside to its
                # corner as the question is read ({@q}), written as it is read
                tag.move_to(theme.CONTENT_CENTER)
                widgets.fade_through(self, Group(*gone) if gone else None, tag,
                                     run_time=0.4, shift=0.1 * DOWN)
                b.until("q")
                self._type_on(q, self.ctx.speech[b.id] - b.elapsed - 0.3,
                              tag.animate(run_time=0.5).move_to(corner))

            # the prompt is spoken first: the silence to think comes after its speech
            think = f"think{n}"
            # +0.4 s: the beat's end is rounded down to a whole frame, and the voice's last
            # syllable decays past its clip's measured end (the rendered soundtrack gave
            # 8.00-8.10 s of silence with +0.1; tests/test_render_e2e.py measures it)
            with self.beat(think, at_least=self.ctx.speech[think] + THINK_SECONDS + 0.4) as b:
                prompt = theme.text(self.s("pause"), theme.BODY_SIZE, theme.ACCENT)
                prompt.move_to(RING_CENTER + UP * (RING_R + 0.5))
                self.play(FadeIn(prompt, shift=0.1 * UP), q.animate.set_y(QUESTION_Y),
                          run_time=0.3)
                # the ring runs out as the beat ends (it sat empty at "1" for the length
                # of the spoken prompt when it kept one second a step)
                clock = VGroup(prompt, self._countdown(b.remaining - 1 / config.frame_rate))

            with self.beat(f"a{n}") as b:
                panel = self._answer(self.items(f"a{n}"), line_colors[n], q)
                self.play(FadeOut(clock), run_time=b.rt(0.02, 0.2))
                self.play(FadeIn(panel[0]), FadeIn(panel[1]), run_time=b.rt(0.04, 0.4))
                # each line is written as the voice says it: the first at once, line i + 1
                # from cue mark LINE_MARKS[i], each done a little before the voice moves on
                lines = panel[2]
                marks = [None, *LINE_MARKS[:len(lines) - 1]]
                ends = [b.mark(m) for m in marks[1:]] + [self.ctx.speech[b.id]]
                for mark, line, end in zip(marks, lines, ends, strict=True):
                    if mark is not None:
                        b.until(mark)
                    span = end - b.elapsed
                    self._type_on(line, min(span - 0.25, max(span - 2.0, 0.6 * span)))

    def _outro(self) -> None:
        with self.beat("outro") as b:
            # The closing card: the whole idea in one line, and where to go next.
            self.clear_content(b, keep=(self.header,))
            f = theme.attention_formula(size=theme.FORMULA_DISPLAY_SIZE + 4)
            f.move_to(UP * 0.9)
            line = theme.text(self.s("one_line"), theme.BODY_SIZE, theme.MUTED)
            line.next_to(f, UP, buff=0.5)
            ahead = theme.text(self.s("next"), theme.EMPH_SIZE, theme.ACCENT, weight="BOLD")
            ahead.next_to(f, DOWN, buff=0.9)
            gloss = theme.text(self.s("next_gloss"), theme.LABEL_SIZE, theme.FG, qkv=True)
            theme.fit(gloss, theme.CONTENT_W)
            gloss.next_to(ahead, DOWN, buff=0.3)
            b.until("f")
            self.play(FadeIn(line), theme.reveal(f), run_time=min(0.7, b.time_to("qk")))
            # the voice reads the formula: a patch lights each part it names
            lit = None
            for part in ("qk", "sd", "v"):
                b.until(part)
                box = widgets.formula_tint(f, part)
                self.play(ReplacementTransform(lit, box) if lit else FadeIn(box),
                          run_time=b.rt(0.05, 0.4))
                lit = box
            b.until("next")
            self.play(FadeIn(ahead, shift=0.1 * UP), FadeOut(lit), run_time=b.rt(0.08, 0.6))
            b.until("gloss")
            self._type_on(gloss, self.ctx.speech[b.id] - b.elapsed - 0.3)

    # -- pieces ---------------------------------------------------------------------------------
    def _recap_rows(self) -> VGroup:
        """One row per step: its mark, its name and a short gloss in a second column."""
        heads = [VGroup(theme.text(m, theme.EMPH_SIZE, theme.ACCENT, weight="BOLD"),
                        theme.text(s, theme.BODY_SIZE, theme.FG, weight="BOLD")
                        ).arrange(RIGHT, buff=0.25)
                 for m, s in zip(self.items("marks"), self.items("steps"), strict=True)]
        glosses = [theme.text(g, 28, theme.MUTED, qkv=True) for g in self.items("glosses")]
        col = max(h.width for h in heads) + 0.6
        rows = VGroup()
        for k, (h, g) in enumerate(zip(heads, glosses, strict=True)):
            h.move_to(DOWN * ROW_SP * k, aligned_edge=LEFT)
            g.move_to(RIGHT * col + DOWN * ROW_SP * k, aligned_edge=LEFT)
            g.align_to(h[1], DOWN)
            rows.add(VGroup(h[0], h[1], g))
        theme.fit(rows, theme.CONTENT_W - 1.0)
        return rows.set_x(0)

    def _type_on(self, text: Mobject, run_time: float, *others: Animation) -> None:
        """Write ``text`` (a text, or a group of lines) letter by letter in ``run_time``,
        as the voice reads it; ``others`` play alongside, each in its own run time."""
        lines = list(text) if isinstance(text, VGroup) and not hasattr(text, "text") else [text]
        run_time = max(0.4, run_time)
        for line in lines:  # letters left to right (a glyph like √ is not always in order)
            line.submobjects.sort(key=lambda m: m.get_left()[0])
        total = sum(len(line) for line in lines)
        self.play(Succession(*[AddTextLetterByLetter(line, run_time=run_time * len(line) / total)
                               for line in lines], run_time=run_time), *others)

    def _countdown(self, seconds: float) -> VGroup:
        """A ring that empties and a digit that counts down from THINK_SECONDS, over
        ``seconds`` (the rest of its beat: the spoken prompt, then the silence to think
        that the beat is extended to hold with ``at_least``). One animation, the digit
        following the ring: a play per digit rounded each to whole frames and overran."""
        total = THINK_SECONDS
        left = ValueTracker(1.0)
        track = Circle(radius=RING_R, stroke_color=theme.MUTED, stroke_width=8,
                       stroke_opacity=0.4).move_to(RING_CENTER)

        def ring() -> Arc:
            arc = Arc(radius=RING_R, start_angle=PI / 2, angle=-TAU * max(left.get_value(), 1e-3),
                      stroke_color=theme.ACCENT, stroke_width=10)
            arc.shift(RING_CENTER - arc.arc_center)
            return arc

        arc = always_redraw(ring)
        digit = always_redraw(
            lambda: self._digit(max(1, math.ceil(left.get_value() * total - 1e-6))))
        fade = 0.3
        self.play(FadeIn(track), FadeIn(arc), FadeIn(digit), run_time=fade)
        frame = 1 / config.frame_rate
        self.play(left.animate.set_value(0.0), rate_func=rate_functions.linear,
                  run_time=max(frame, seconds - fade - frame))
        arc.clear_updaters()
        digit.clear_updaters()
        return VGroup(track, arc, digit)

    @staticmethod
    def _digit(k: int) -> Mobject:
        return theme.text(str(k), 64, theme.FG, weight="BOLD").move_to(RING_CENTER)

    def _answer(self, lines: tuple[str, ...], colors: tuple[str, ...], above: Mobject
                ) -> VGroup:
        """A panel below the question; its lines are returned unshown, in order."""
        texts = VGroup(*[theme.text(s, 32, c, qkv=True)
                         for s, c in zip(lines, colors, strict=True)])
        texts.arrange(DOWN, aligned_edge=LEFT, buff=0.32)
        top = above.get_bottom()[1] - 0.45
        room = top - theme.CONTENT_BOTTOM - 0.1
        # the "Answer" label sits inside the panel, at its top left, the lines below it (on
        # the border it read as a text crossing a filled shape)
        label = theme.text(self.s("answer"), theme.SMALL_SIZE, theme.GOOD, weight="BOLD")
        inset, gap, bottom = 0.25, 0.25, 0.45
        spare = inset + label.height + gap + bottom
        theme.fit(texts, theme.CONTENT_W - 2.0, room - spare)
        box = theme.panel(max(texts.width + 1.2, label.width + 0.8, 6.5), texts.height + spare,
                          theme.GOOD)
        box.move_to(UP * (top - room / 2))  # centred in the room below the question
        label.move_to(box.get_corner(UP + LEFT), aligned_edge=UP + LEFT)
        label.shift(RIGHT * 0.3 + DOWN * inset)
        texts.next_to(label, DOWN, buff=gap).set_x(box.get_x())
        return VGroup(box, VGroup(label), texts)
