"""The worked example: the four steps on three words, every value from qkv_math, each one
shown as the voice reads it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    SurroundingRectangle,
    Underline,
    VGroup,
)

from qkv_math.attention import Attention
from qkv_math.numbers import WorkedExample
from scenes import theme, widgets
from scenes.base import MARK_LEAD, SAFE, NarratedScene

ROW_H = 0.76
CELL = 34  # this scene's table is the focus: larger than the theme's body text
HEAD = 26
BAR_LEN = 3.0
CALC_Y = theme.CONTENT_BOTTOM + 0.6  # the line where each step's arithmetic is written out
BESIDE = 0.6  # between the working lines and what is shown beside them
STACK_GAP = 0.12  # between the scores' lines, stacked up from the content's bottom
# table columns
TOKEN, QCOL, KCOL, VCOL, SCORE, SCALED, EXP, WEIGHT = range(8)



@dataclass(frozen=True)
class Worked:
    """What every beat of the scene reads: the query row's attention, e to its scaled scores
    and their total, the tokens in this language, which one asks and the others."""

    att: Attention
    exps: np.ndarray
    n: int
    others: list[int]
    qi: int
    tokens: tuple[str, ...]
    total: float
    we: WorkedExample


class WorkedExampleScene(NarratedScene):
    scene_id = "worked_example"

    def narrate(self) -> None:
        we = self.numbers.worked_example
        att = self.derived.worked
        tokens = we.tokens[self.lang]
        qi = we.query
        n = len(tokens)
        exps, total = self.derived.worked_exp, self.derived.worked_exp_total
        others = [i for i in range(n) if i != qi]

        ctx = Worked(
            att=att, exps=exps, n=n, others=others, qi=qi, tokens=tokens, total=total, we=we)
        self._intro(ctx)
        self._query(ctx)
        self._scores(ctx)
        self._scale(ctx)
        self._softmax(ctx)
        self._weights(ctx)
        self._weighted_sum(ctx)
        self._meaning(ctx)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self, ctx: Worked) -> None:
        att, exps, n, tokens, total, we = ctx.att, ctx.exps, ctx.n, ctx.tokens, ctx.total, ctx.we
        with self.beat("intro") as b:
            self.title_card(b)
            self.table = self._build_table(tokens, we, att, exps, total)
            # the words and their Q, K and V, alone while the query is picked: centred in the
            # content area; they slide to their places in the table when the steps begin
            self.first = VGroup(*[self.table[c] for c in (TOKEN, QCOL, KCOL, VCOL)])
            self.first_shift = theme.CONTENT_CENTER - self.first.get_center()
            self.first.shift(self.first_shift)
            marks = ("ta", "tb", "tc")
            for i in range(n):
                if i < len(marks):
                    b.until(marks[i])
                first = [FadeIn(self.table[TOKEN][0])] if i == 0 else []
                self.play(*first, FadeIn(self.table[TOKEN][1][i], shift=0.1 * RIGHT),
                          run_time=b.rt(0.03, 0.3))
            # each column as the voice names it: Q, then K, then V
            for col, mark, after in ((QCOL, "qkv", "k"), (KCOL, "k", "v"), (VCOL, "v", None)):
                b.until(mark)
                run = b.rt(0.06, 0.5)
                if after is not None:
                    run = min(run, max(0.2, b.time_to(after)))
                self.play(FadeIn(self.table[col], shift=0.1 * DOWN), run_time=run)

    def _query(self, ctx: Worked) -> None:
        qi = ctx.qi
        with self.beat("query") as b:
            row = VGroup(*[self.table[c][1][qi] for c in (TOKEN, QCOL, KCOL, VCOL)])
            self.q_box = box = SurroundingRectangle(row, color=theme.Q_COLOR, buff=0.12)
            b.until("query")
            self.play(Create(box), run_time=b.rt(0.1, 0.6))
            b.until("q")
            self.play(Indicate(self.table[QCOL][1][qi], color=theme.FG), run_time=b.rt(0.15, 1.0))
            self.keys = SurroundingRectangle(self.table[KCOL][1], color=theme.K_COLOR, buff=0.12,
                                        corner_radius=0.08)
            b.until("keys")
            self.play(Create(self.keys), run_time=b.rt(0.1, 0.7))

    def _scores(self, ctx: Worked) -> None:
        att, n, qi, we = ctx.att, ctx.n, ctx.qi, ctx.we
        with self.beat("scores") as b:
            self.steps = widgets.StepLabel(-theme.FRAME_W / 2 + theme.MARGIN + 0.2,
                                           theme.CONTENT_TOP - 0.25, y_is_top=False)
            b.until("step")
            # steps one and two fill the columns up to the scaled scores: those stand
            # mid-frame (at the full table's place the right third stood empty for 20 s)
            # and move to their place when softmax's columns come (``_softmax``)
            table = self.table
            self.mid_dx = -(table[TOKEN].get_left()[0] - self.first_shift[0]  # its place
                            + table[SCALED].get_right()[0]) / 2
            VGroup(*[table[c] for c in (SCORE, SCALED, EXP, WEIGHT)]).shift(
                RIGHT * self.mid_dx)  # not on stage yet: placed, not moved
            self.play(VGroup(self.first, self.q_box, self.keys).animate.shift(
                RIGHT * self.mid_dx - self.first_shift), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(self.steps.make(self.s("step1"))), FadeIn(self.table[SCORE][0]),
                      FadeOut(self.keys), run_time=b.rt(0.08, 0.5))
            # one line per word, stacked and kept: the voice reads the results a second or
            # so apart, so each line stays until every score has been read out
            marks = ("sa", "sb", "sc")
            lines = [self._dot_line(we.Q[qi], we.K[i], att.scores[i])
                     for i in range(min(n, len(marks)))]
            h = max(line.height for line in lines)
            for i, line in enumerate(lines):  # the first on top, the last at the bottom
                line.set_y(theme.CONTENT_BOTTOM + 0.1 + h / 2
                           + (h + STACK_GAP) * (len(lines) - 1 - i))
            self.calc = VGroup()
            # the first word's line is worked as the rule is said: its two vectors at
            # "multiply entry by entry", their products at "then add"; its sum at its mark
            b.until("mul")
            self.play(FadeIn(lines[0][0]), Indicate(self.table[QCOL][1][qi], color=theme.FG),
                      Indicate(self.table[KCOL][1][0], color=theme.FG),
                      run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to("add"))))
            b.until("add")
            self.play(FadeIn(lines[0][1], shift=0.1 * RIGHT),
                      run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to(marks[0]))))
            for i, (mark, line) in enumerate(zip(marks, lines, strict=False)):
                b.until(mark)
                # entry by entry: the two vectors, then the products, then their sum
                if i:
                    self.play(FadeIn(line[0]), Indicate(self.table[KCOL][1][i], color=theme.FG),
                              run_time=b.rt(0.04, 0.4))
                    self.play(FadeIn(line[1], shift=0.1 * RIGHT), run_time=b.rt(0.04, 0.4))
                self.play(FadeIn(line[2], shift=0.1 * RIGHT), run_time=b.rt(0.03, 0.3))
                # the result lights up and the table's cell shows it: nothing flies across
                # the lines stacked above (a copy moving up would cross their digits)
                self.play(Indicate(line[2][-1], color=theme.FG, scale_factor=1.15),
                          FadeIn(self.table[SCORE][1][i], shift=0.15 * RIGHT),
                          run_time=b.rt(0.05, 0.45))
                # the voice has said this word's score by the next word's mark
                self.show_working(b, line, marks[i + 1] if i + 1 < len(lines) else None)
                self.calc.add(line)

    def _scale(self, ctx: Worked) -> None:
        with self.beat("scale") as b:
            div = VGroup(theme.text(self.s("scaled"), CELL, theme.ACCENT), theme.text("≈", CELL),
                         theme.text(self.num(self.derived.worked.d ** 0.5, 2), CELL,
                                    theme.ACCENT))
            div.arrange(RIGHT, buff=0.18).move_to(UP * CALC_Y)
            b.until("sqrt")
            # the scores' lines once they have shown long enough, then the step's label as
            # they go (under "② scale" they read as step ②'s working); the division where
            # they were (Chinese reaches {@about} 1.5 s in, right after)
            if (self.working_left(self.calc) > b.time_to("about") - MARK_LEAD
                    and self.calc.get_right()[0] + BESIDE + div.width <= SAFE.right):
                # the lines are still being read when the voice gives √d's value: the
                # division beside them as it is said, into their place once they have gone
                div.next_to(self.calc, RIGHT, buff=BESIDE)
                b.until("about")
                self.play(FadeIn(div, shift=0.1 * UP), run_time=b.rt(0.05, 0.4))
                self.hold_working(self.calc)
                self.steps.swap(self, self.s("step2"), FadeIn(self.table[SCALED][0]),
                                FadeOut(self.calc), run_time=b.rt(0.03, 0.25))
                self.play(div.animate.move_to(UP * CALC_Y), run_time=b.rt(0.03, 0.3))
            else:
                self.hold_working(self.calc)
                self.steps.swap(self, self.s("step2"), FadeIn(self.table[SCALED][0]),
                                FadeOut(self.calc), run_time=b.rt(0.03, 0.25))
                if b.time_to("about") > 0.3:
                    self.play(FadeIn(div[0], shift=0.1 * UP), run_time=b.rt(0.05, 0.3))
                    b.until("about")
                    self.play(FadeIn(div[1:], shift=0.1 * LEFT), run_time=b.rt(0.05, 0.4))
                else:
                    b.until("about")
                    self.play(FadeIn(div, shift=0.1 * UP), run_time=b.rt(0.05, 0.4))
            b.until("scaled")
            self.play(*widgets.light(self.table[SCORE][1], theme.ACCENT, 1.05),
                      run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to("xa"))))
            # each scaled score as the voice reads it
            cells = self.table[SCALED][1]
            for i, mark in zip(range(len(cells)), ("xa", "xb", "xc"), strict=False):
                b.until(mark)
                self.play(FadeIn(cells[i], shift=0.3 * RIGHT), run_time=b.rt(0.05, 0.5))
            self.show_working(b, div, "scaled")  # √d's value is said before this mark
            self.calc = div

    def _softmax(self, ctx: Worked) -> None:
        n = ctx.n
        with self.beat("softmax") as b:
            b.until("exp")
            self.hold_working(self.calc)
            table = self.table
            VGroup(table[EXP], table[WEIGHT]).shift(LEFT * self.mid_dx)  # not on stage yet
            shown = VGroup(self.first, self.q_box, table[SCORE], table[SCALED])
            widgets.regroup(self, shown)
            self.play(shown.animate.shift(LEFT * self.mid_dx), run_time=b.rt(0.05, 0.5))
            self.steps.swap(self, self.s("step3"), FadeOut(self.calc),
                            FadeIn(self.table[EXP][0]), run_time=b.rt(0.1, 0.6))
            for i, mark in zip(range(n), ("ea", "eb", "ec"), strict=False):
                b.until(mark)
                self.play(FadeIn(self.table[EXP][1][i], shift=0.2 * RIGHT),
                          Indicate(self.table[SCALED][1][i], color=theme.ACCENT),
                          run_time=b.rt(0.06, 0.5))
            b.until("total")
            self.play(FadeIn(self.table[EXP][2], shift=0.1 * DOWN), run_time=b.rt(0.1, 0.6))

    def _weights(self, ctx: Worked) -> None:
        att, exps, n, total = ctx.att, ctx.exps, ctx.n, ctx.total
        with self.beat("weights") as b:
            divs = VGroup()
            for i in range(n):
                divs.add(VGroup(theme.text(self.num(exps[i], 2), CELL),
                                theme.text("÷", CELL), theme.text(self.num(total, 2), CELL),
                                theme.text("=", CELL),
                                theme.text(self.pct(att.weights[i]), CELL, theme.SHARE_COLOR))
                         .arrange(RIGHT, buff=0.12))
            divs.arrange(RIGHT, buff=0.6)
            theme.fit(divs, theme.CONTENT_W).move_to(UP * CALC_Y)
            b.until("div")
            self.play(Indicate(self.table[EXP][2], color=theme.FG), run_time=b.rt(0.08, 0.6))
            b.until("w")
            self.play(FadeIn(self.table[WEIGHT][0]), run_time=b.rt(0.04, 0.3))
            for i in range(n):
                self.play(FadeIn(divs[i], shift=0.1 * RIGHT),
                          GrowFromEdge(self.table[WEIGHT][1][i], LEFT), run_time=b.rt(0.08, 0.8))
            b.until("one")
            self.play(*[a for bar in self.table[WEIGHT][1]
                        for a in widgets.light_bar(bar, theme.SHARE_COLOR)],
                      run_time=b.rt(0.12, 1.0))
            self.show_working(b, divs, "one")  # every weight is said before this mark
            self.calc = divs

    def _weighted_sum(self, ctx: Worked) -> None:
        att, n, we = ctx.att, ctx.n, ctx.we
        with self.beat("weighted_sum") as b:
            self.terms = VGroup()
            for i in range(n):
                w = theme.text(self.num(att.weights[i], 2), CELL, theme.SHARE_COLOR)
                times = theme.text("×", CELL)
                v = theme.text(self.vec(we.V[i]), CELL, theme.V_COLOR)
                self.terms.add(VGroup(w, times, v).arrange(RIGHT, buff=0.1))
            pluses = [theme.text("+", CELL) for _ in range(n - 1)]
            eq = theme.text("=", CELL)
            self.out = theme.text(self.vec(att.output, 2), CELL, theme.GOOD, weight="BOLD")
            self.parts = [self.terms[0]]
            for i in range(1, n):
                self.parts += [pluses[i - 1], self.terms[i]]
            line = VGroup(*self.parts, eq, self.out).arrange(RIGHT, buff=0.18)
            theme.fit(line, theme.CONTENT_W).move_to(UP * CALC_Y)
            b.until("mix")
            self.hold_working(self.calc)
            self.steps.swap(self, self.s("step4"), FadeOut(self.calc),
                            run_time=b.rt(0.08, 0.5))
            # "weight each word's V": the terms one by one, each word's V lit in the table
            b.until("wv")
            run = min(b.rt(0.1, 0.6), max(0.2, b.time_to("add") / n))
            for i in range(n):
                self.play(FadeIn(self.terms[i], shift=0.1 * UP),
                          Indicate(self.table[VCOL][1][i], color=theme.FG, scale_factor=1.1),
                          run_time=run)
            b.until("add")  # "and add them up"
            self.play(*[FadeIn(p, scale=1.3) for p in pluses],
                      run_time=min(b.rt(0.08, 0.6), max(0.2, b.time_to("out"))))
            # "the result is": the terms lit in turn, then their sum
            b.until("out")
            self.play(LaggedStart(*[widgets.pulse(t, 1.1) for t in self.terms],
                                  lag_ratio=0.5),
                      run_time=b.rt(0.12, 1.0))
            self.play(FadeIn(eq), FadeIn(self.out, scale=1.2), run_time=b.rt(0.08, 0.6))
            self.show_working(b, line)  # the result is read out by the end of the beat

    def _meaning(self, ctx: Worked) -> None:
        others = ctx.others
        with self.beat("meaning") as b:
            label = theme.text(self.s("result"), HEAD, theme.GOOD)
            label.next_to(self.out, UP, buff=0.25).align_to(self.out, RIGHT)
            b.until("new")
            run = b.rt(0.15, 1.0)  # the total goes before the label comes where it was
            self.play(FadeOut(self.table[EXP][2]), run_time=run / 3)
            self.play(FadeIn(label, shift=0.1 * UP), Indicate(self.out, color=theme.GOOD),
                      run_time=2 * run / 3)
            # the other words' parts of the blend: their rows in the table, their terms
            # (terms underlined: a frame round one sat on the + and = beside it)
            boxes = VGroup(*[Underline(self.terms[i], color=theme.GOOD, buff=0.1,
                                       stroke_width=4) for i in others])
            rows = VGroup(*[SurroundingRectangle(self.table[TOKEN][1][i], color=theme.GOOD,
                                                 buff=0.12, corner_radius=0.06)
                            for i in others])
            # "no longer a word on its own": its own part of the blend lit; "but a blend
            # with the others": their rows and terms boxed
            b.until("blend")
            self.play(Indicate(self.table[TOKEN][1][ctx.qi], color=theme.GOOD, scale_factor=1.08),
                      widgets.pulse(self.terms[ctx.qi], 1.1),  # each in place, in its colours
                      run_time=min(b.rt(0.12, 0.9), max(0.2, b.time_to("mixed"))))
            b.until("mixed")
            self.play(LaggedStart(*[Create(m) for pair in zip(rows, boxes, strict=True)
                                    for m in pair], lag_ratio=0.3), run_time=b.rt(0.2, 1.5))

    # -- layout helpers -------------------------------------------------------------------------
    def _build_table(self, tokens, we, att, exps, total) -> VGroup:
        """All eight columns, laid out and centred once; the steps reveal them one by one.
        The eˣ column carries a third part: the total under it."""
        bars = []
        for w in att.weights:
            bars.append(widgets.share_bar(w, self.pct(w), BAR_LEN, height=0.36, size=HEAD))
        cols = [
            (self.s("token"), [theme.text(t, CELL) for t in tokens], theme.FG, False),
            ("Q", [theme.text(self.vec(r), CELL, theme.Q_COLOR) for r in we.Q], theme.Q_COLOR,
             False),
            ("K", [theme.text(self.vec(r), CELL, theme.K_COLOR) for r in we.K], theme.K_COLOR,
             False),
            ("V", [theme.text(self.vec(r), CELL, theme.V_COLOR) for r in we.V], theme.V_COLOR,
             False),
            (self.s("score"), [theme.text(self.num(x), CELL) for x in att.scores], theme.FG,
             False),
            (self.s("scaled"), [theme.text(self.num(x, 2), CELL) for x in att.scaled],
             theme.ACCENT, False),
            (self.s("exp"), [theme.text(self.num(x, 2), CELL) for x in exps], theme.FG, False),
            (self.s("weight"), bars, theme.SHARE_COLOR, True),
        ]
        table = VGroup()
        top = theme.CONTENT_TOP - 0.85
        x = 0.0
        for head, cells, color, align_left in cols:
            col = widgets.table_column(head, cells, color, top, ROW_H, HEAD, align_left)
            col.shift(RIGHT * (x - col.get_left()[0]))
            table.add(col)
            x = col.get_right()[0] + 0.45
        natural = table.width
        theme.fit(table, theme.CONTENT_W)
        table.set_x(0)
        k = table.width / natural  # the fit's scale, for the pieces added below
        exp_col = table[EXP]
        value = theme.text(self.num(total, 2), CELL, weight="BOLD").scale(k)
        name = theme.text(self.s("total"), HEAD, theme.MUTED).scale(k)
        rule = Line(LEFT, RIGHT, color=theme.MUTED, stroke_width=2)
        rule.width = exp_col[1].width + 0.2
        rule.next_to(exp_col[1], DOWN, buff=0.2).set_x(exp_col[1].get_x())
        value.next_to(rule, DOWN, buff=0.14).set_x(exp_col[1].get_x())
        name.next_to(value, LEFT, buff=0.2)
        exp_col.add(VGroup(rule, name, value))
        return table

    def _dot_line(self, q, k, score) -> VGroup:
        """q · k = a×b + c×d = score, in three parts (vectors, products, sum) on the calc line."""
        vecs = VGroup(theme.text(self.vec(q), CELL, theme.Q_COLOR), theme.text("·", CELL),
                      theme.text(self.vec(k), CELL, theme.K_COLOR), theme.text("=", CELL))
        prods = VGroup()
        for j, (a, c) in enumerate(zip(q, k, strict=True)):
            if j:
                prods.add(theme.text("+", CELL))
            prods.add(theme.text(self.num(a), CELL, theme.Q_COLOR), theme.text("×", CELL),
                      theme.text(self.num(c), CELL, theme.K_COLOR))
        total = VGroup(theme.text("=", CELL), theme.text(self.num(score), CELL))
        for g in (vecs, prods, total):
            g.arrange(RIGHT, buff=0.14)
        line = VGroup(vecs, prods, total).arrange(RIGHT, buff=0.14)
        theme.fit(line, theme.CONTENT_W)
        return line.move_to(UP * CALC_Y)
