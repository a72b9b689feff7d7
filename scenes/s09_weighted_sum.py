"""Step ④: each share times that word's V, added up; and why not just take the top word."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Create,
    CurvedArrow,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Mobject,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from qkv_math.derived import Derived
from qkv_math.numbers import FillBlank
from scenes import theme, widgets
from scenes.base import NarratedScene

ROW_H = 0.62
TOKEN_RIGHT = -4.3  # the token names end here
WEIGHT_X = -3.45
TIMES_X = -2.6
V_X = (-1.85, -0.5, 0.85)
EQ_X = 1.8
P_X = (2.85, 4.2, 5.55)  # centres of the share × V cells
CELL_W = 1.2
CELL_H = 0.5


LEFT_EDGE = -theme.FRAME_W / 2 + theme.MARGIN


@dataclass(frozen=True)
class Context:
    """What every beat reads: the example's values (the real formula's shares and what the
    blank receives) and where the table's rows sit."""

    d: Derived
    fb: FillBlank
    feat_y: float
    features: tuple[str, ...]
    n: int
    out: np.ndarray
    row_y: list[float]
    tokens: tuple[str, ...]
    top_y: float
    weights: np.ndarray


class WeightedSumScene(NarratedScene):
    scene_id = "weighted_sum"

    def narrate(self) -> None:
        ctx = self._context()
        self._intro(ctx)
        self._values(ctx)
        self._multiply(ctx)
        self._sum(ctx)
        self._why_not_top(ctx)

    def _context(self) -> Context:
        """What every beat reads: the example's values and where the rows sit."""
        fb = self.numbers.fill_blank
        d = self.derived
        tokens = fb.tokens[self.lang]
        features = fb.value_features[self.lang]
        weights = d.fill_weights_scaled  # the real formula's: after the scaling scene
        out = d.fill_output_scaled
        n = len(tokens)
        top_y = theme.CONTENT_TOP - 0.05
        feat_y = top_y - 0.62  # the feature heads may take two lines
        row_y = [feat_y - 0.78 - i * ROW_H for i in range(n)]

        return Context(
            d=d, fb=fb, feat_y=feat_y, features=features, n=n, out=out, row_y=row_y, tokens=tokens,
            top_y=top_y, weights=weights)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self, ctx: Context) -> None:
        feat_y, row_y = ctx.feat_y, ctx.row_y
        tokens, top_y, weights = ctx.tokens, ctx.top_y, ctx.weights
        with self.beat("intro") as b:
            self.header = self.title_card(b)
            self.names = VGroup(*[theme.row_text(t, theme.BODY_SIZE) for t in tokens])
            for name, y in zip(self.names, row_y, strict=True):
                name.move_to([TOKEN_RIGHT - name.width / 2, y, 0])
            # the words come in with the rule: the title card alone takes most of the time
            # before the rule's mark (Chinese reaches it after 最后一步是加权求和)
            b.until("rule")
            rule = theme.formula("sum_i {{ w_i : w }} dot {{ V_i : v }}", theme.FORMULA_SIZE,
                                 theme.FG)
            rule.select("w").set_color(theme.SHARE_COLOR)
            rule.select("v").set_color(theme.V_COLOR)
            self.target("w", rule.select("w")[0])  # "… or weights, w": the rule's w
            rule.move_to([(TOKEN_RIGHT + LEFT_EDGE) / 2 + 0.6, row_y[-1] - 1.0, 0])
            w_head = theme.text(self.s("weight"), theme.SMALL_SIZE, theme.SHARE_COLOR)
            w_head.move_to([WEIGHT_X, feat_y, 0])
            self.note = theme.text(self.s("scaled_note"), theme.SMALL_SIZE, theme.MUTED)
            self._place_note(top_y)
            self.w_cells = VGroup(*[
                theme.text(self.pct(w), theme.NUM_SIZE, theme.SHARE_COLOR).move_to([WEIGHT_X, y, 0])
                for w, y in zip(weights, row_y, strict=True)
            ])
            # alone, the words, their shares and the rule sit in the middle of the screen;
            # they slide to the table's left columns as the V columns come (``_values``)
            self.intro_group = VGroup(self.names, rule, w_head, self.w_cells, self.note)
            self.intro_shift = -self.intro_group.get_center()[0]
            self.intro_group.shift(RIGHT * self.intro_shift)
            self.target("wcells", self.w_cells)  # "the blank's shares"
            self.play(theme.reveal(rule), FadeIn(self.names), run_time=b.rt(0.12, 1.0))
            b.until("shares")
            self.play(FadeIn(w_head), FadeIn(self.w_cells, shift=0.2 * RIGHT),
                      run_time=b.rt(0.1, 0.8))
            if "note" in b.marks:  # "divided by the square root of d" (not in the overview)
                b.until("note")
            self.play(FadeIn(self.note), run_time=b.rt(0.06, 0.5))

    def _values(self, ctx: Context) -> None:
        fb, feat_y, features = ctx.fb, ctx.feat_y, ctx.features
        n, row_y = ctx.n, ctx.row_y
        with self.beat("values") as b:
            v_title = self.v_title
            v_heads = VGroup(*[
                theme.label(f, CELL_W + 0.1, color=theme.V_COLOR)
                .move_to([x, feat_y, 0])
                for f, x in zip(features, V_X, strict=True)
            ])
            self.v_rows = VGroup()
            for i, y in enumerate(row_y):
                self.v_rows.add(VGroup(*[
                    theme.text(self.num(v), theme.NUM_SIZE, theme.V_COLOR).move_to([x, y, 0])
                    for v, x in zip(fb.V[i], V_X, strict=True)
                ]))
            # one matrix: a pair of brackets around all the rows, which fill in as named
            brackets = widgets.brackets_around(self.v_rows, theme.V_COLOR, pad=0.2)
            # words, shares and V alone stand mid-frame (the right 40 % stood empty until
            # the products came); ``_multiply`` moves them to the table's left part
            values = VGroup(v_title, v_heads, brackets, self.v_rows)
            left = self.intro_group.get_left()[0] - self.intro_shift
            self.values_dx = -(left + values.get_right()[0]) / 2
            values.shift(RIGHT * self.values_dx)
            self.values = VGroup(self.intro_group, values)
            self.play(self.intro_group.animate.shift(LEFT * (self.intro_shift - self.values_dx)),
                      run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(v_title), FadeIn(v_heads), FadeIn(brackets),
                      run_time=b.rt(0.08, 0.6))
            for i in range(n):
                b.until("v" + "abcd"[i])
                has = [j for j, v in enumerate(fb.V[i]) if v != 0]
                anims = [FadeIn(self.v_rows[i], shift=0.1 * DOWN)]
                # the word and the features it brings lit each in place (lit as one group,
                # they would scale about its centre and a heading would rise over the title)
                if has:
                    # the word in the pointer's colour, not V's: it is a word, not content
                    anims.append(Indicate(self.names[i], color=theme.ACCENT, scale_factor=1.05))
                    anims += [Indicate(v_heads[j], color=theme.V_COLOR, scale_factor=1.05)
                              for j in has]
                self.play(*anims, run_time=b.rt(0.08, 0.7))

    def _multiply(self, ctx: Context) -> None:
        fb, feat_y, features = ctx.fb, ctx.feat_y, ctx.features
        row_y, top_y, weights = ctx.row_y, ctx.top_y, ctx.weights
        with self.beat("multiply") as b:
            times = VGroup(*[theme.text("×", theme.NUM_SIZE, theme.MUTED).move_to([TIMES_X, y, 0])
                             for y in row_y])
            eqs = VGroup(*[theme.text("=", theme.NUM_SIZE, theme.MUTED).move_to([EQ_X, y, 0])
                           for y in row_y])
            p_title = theme.text(self.s("product"), theme.SMALL_SIZE, theme.FG, qkv=True)
            p_title.move_to([P_X[1], top_y, 0])
            self.p_heads = VGroup(*[
                theme.label(f, CELL_W + 0.1, color=theme.V_COLOR)
                .move_to([x, feat_y, 0])
                for f, x in zip(features, P_X, strict=True)
            ])
            # the values slide to their place as the product columns' heads come in (one
            # play: the overview's English reaches the first row 0.6 s into the beat)
            widgets.regroup(self, self.values)
            self.play(self.values.animate.shift(LEFT * self.values_dx),
                      FadeIn(times), FadeIn(eqs), FadeIn(p_title), FadeIn(self.p_heads),
                      run_time=min(b.rt(0.08, 0.6), max(0.2, b.time_to("ma"))))
            self.products = VGroup()
            for i, y in enumerate(row_y):
                cells = VGroup(*[self._cell(weights[i] * v, x, y, theme.V_COLOR)
                                 for v, x in zip(fb.V[i], P_X, strict=True)])
                self.products.add(cells)
                b.until("m" + "abcd"[i])
                # the row's share and V light up, its products fade in: no glyph morph;
                # done by the next row's mark (the overview's English says them a word apart)
                run = b.rt(0.08, 0.8)
                if i + 1 < len(row_y):
                    run = min(run, max(0.2, b.time_to("m" + "abcd"[i + 1])))
                # pulsed in their colours (lit white, V's red was lost for a moment)
                self.play(widgets.pulse(self.w_cells[i], 1.1), widgets.pulse(self.v_rows[i], 1.1),
                          FadeIn(cells, shift=0.3 * RIGHT), run_time=run)
            # working: each row's share times its V (each said by the next row's mark)
            marks = ["m" + "abcd"[i] for i in range(1, len(row_y))]
            for i, cells in enumerate(self.products):
                self.show_working(b, cells, marks[i] if i < len(marks) else None)

    def _sum(self, ctx: Context) -> None:
        d, n, out, row_y = ctx.d, ctx.n, ctx.out, ctx.row_y
        with self.beat("sum") as b:
            sum_y = row_y[-1] - 0.9
            line = Line([P_X[0] - CELL_W / 2, row_y[-1] - 0.45, 0],
                        [P_X[-1] + CELL_W / 2, row_y[-1] - 0.45, 0], color=theme.MUTED)
            total = theme.text(self.s("total"), theme.BODY_SIZE, theme.GOOD)
            total.move_to([EQ_X - 0.3 - total.width / 2, sum_y, 0])
            sums = VGroup(*[self._cell(o, x, sum_y, theme.GOOD)
                            for o, x in zip(out, P_X, strict=True)])
            b.until("sum")
            self.play(Write(line), FadeIn(total), run_time=b.rt(0.06, 0.5))
            for j in range(len(P_X)):  # column by column, as the voice reads them
                column = VGroup(*[self.products[i][j] for i in range(n)])
                self.play(*[widgets.pulse(m, 1.05) for m in column],  # V's red kept
                          FadeIn(sums[j], shift=0.3 * DOWN), run_time=b.rt(0.07, 0.8))
            result = theme.text(self.s("result"), theme.SMALL_SIZE, theme.GOOD)
            result.next_to(sums, DOWN, buff=0.2)
            if result.get_right()[0] > theme.FRAME_W / 2 - theme.MARGIN:
                result.align_to(sums, RIGHT)
            box = SurroundingRectangle(sums, color=theme.GOOD, buff=0.08)
            self.play(Create(box), FadeIn(result), run_time=b.rt(0.08, 0.6))
            b.until("mix")
            self.show_working(b, sums, "mix")  # the column sums are said before this mark
            # a column's sum and its feature light up each in place (one Indicate of the
            # pair would scale them about their common centre, far apart: the sum would grow
            # over the label below it and the heading rise over the title above)
            main = d.fill_output_scaled_main
            self.play(*self._light(sums[main], self.p_heads[main], 1.1),
                      run_time=b.rt(0.12, 1.0))
            traces = d.fill_output_scaled_traces
            if traces:
                self.play(*[a for j in traces for a in self._light(sums[j], self.p_heads[j])],
                          run_time=b.rt(0.1, 0.8))
            b.until("next")  # "this vector"
            if "onward" in b.marks:  # the overview's script says it in one word
                self.play(widgets.pulse(VGroup(box, sums), 1.05),  # its V-red sums stay red
                          run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to("onward"))))
            onward = theme.text(self.s("next_layer"), theme.SMALL_SIZE, theme.GOOD)
            onward.next_to(box, RIGHT, buff=0.3)
            if onward.get_right()[0] > theme.FRAME_W / 2 - theme.MARGIN:
                onward.next_to(result, DOWN, buff=0.15).align_to(result, RIGHT)
            if "onward" in b.marks:
                b.until("onward")  # "goes on to the next layer"
            self.play(FadeIn(onward, shift=0.2 * RIGHT), run_time=b.rt(0.08, 0.6))

    def _why_not_top(self, _ctx: Context) -> None:
        with self.beat("why_not_top") as b:
            self.hold_working()
            self.clear_content(b, keep=(self.header,))
            question = theme.text(self.s("question"), theme.EMPH_SIZE, theme.FG)
            theme.fit(question, theme.CONTENT_W)
            # The question alone: a "mix / top only" pair of chip rows shown here for the
            # two seconds before {@spread} read as a glitch (both reviews); soft attention
            # sets the two side by side later, with time to read them.
            question.move_to(theme.CONTENT_CENTER)
            self.play(theme.reveal(question), run_time=b.rt(0.1, 0.9))
            b.until("spread")
            self.play(question.animate.move_to(UP * (theme.CONTENT_TOP - 0.4)),
                      run_time=b.rt(0.05, 0.4))
            spread = theme.text(self.s("spread"), theme.BODY_SIZE, theme.FG)
            theme.fit(spread, theme.CONTENT_W)
            spread.next_to(question, DOWN, buff=0.45)
            widgets.fade_through(self, None, spread, run_time=b.rt(0.06, 0.6), shift=0.1 * UP)
            adjs = self.items("adj")
            cards = VGroup(*[self._card(a, theme.K_COLOR) for a in adjs],
                           self._card(self.s("noun"), theme.Q_COLOR))
            cards.arrange(RIGHT, buff=0.7).move_to(UP * (spread.get_bottom()[1] - 1.7))
            noun = cards[-1]
            arrows = VGroup(*[
                CurvedArrow(noun.get_top() + 0.1 * UP, c.get_top() + 0.1 * UP,
                            angle=0.9 + 0.3 * k, color=theme.Q_COLOR, stroke_width=4)
                for k, c in enumerate(cards[:-1][::-1])
            ])
            # "spread over several words": the words come with the sentence; "the apple
            # needs both": its arrows to them
            self.play(FadeIn(cards, shift=0.1 * DOWN), run_time=b.rt(0.06, 0.6))
            b.until("apple")
            self.play(*[Create(a) for a in arrows], run_time=b.rt(0.08, 0.9))
            lost = theme.text(self.s("lost"), theme.BODY_SIZE, theme.WARN)
            theme.fit(lost, theme.CONTENT_W)
            lost.next_to(cards, DOWN, buff=0.35)
            b.until("lost")
            self.play(FadeOut(arrows[-1]), cards[0].animate.set_opacity(0.25), FadeIn(lost),
                      run_time=b.rt(0.08, 0.8))
            later = theme.text(self.s("later"), theme.SMALL_SIZE, theme.GOOD)
            theme.fit(later, theme.CONTENT_W)
            later.next_to(lost, DOWN, buff=0.3)
            b.until("later")
            self.play(FadeIn(later, shift=0.1 * UP), run_time=b.rt(0.08, 0.6))

    # -- pieces ---------------------------------------------------------------------------------
    def _place_note(self, y: float) -> None:
        """The "÷ √d" note over the shares, and the V title (shown in the next beat) over
        the V columns, on one line: the note inside the left margin, then as far left as
        it needs to clear the title; the title moves right if that is not enough."""
        self.v_title = theme.text(self.s("v_title"), theme.SMALL_SIZE, theme.V_COLOR)
        self.v_title.move_to([V_X[1], y, 0])
        self.note.move_to([WEIGHT_X, y, 0])
        widgets.keep_inside_x(self.note)
        gap = self.note.get_right()[0] + 0.35 - self.v_title.get_left()[0]
        if gap > 0:
            step = min(gap, self.note.get_left()[0] - LEFT_EDGE)
            self.note.shift(LEFT * step)
            gap -= step
        if gap > 0:
            self.v_title.shift(RIGHT * gap)

    @staticmethod
    def _light(cell: VGroup, head: Mobject, scale: float = 1.05) -> list[Animation]:
        """A sum cell and its column's heading pulsed, each in place and in its colours (lit
        green, V's red headings passed through yellow and the other headings stayed red)."""
        return [widgets.pulse(cell, scale), widgets.pulse(head, 1.1)]

    def _cell(self, value: float, x: float, y: float, color: str) -> VGroup:
        """A number over a bar whose length is its value (a share of the cell width)."""
        frame = Rectangle(width=CELL_W, height=CELL_H).set_stroke(theme.MUTED, 1, opacity=0.5)
        frame.move_to([x, y, 0])
        fill = Rectangle(width=max(float(value) * CELL_W, 0.01), height=CELL_H)
        fill.set_stroke(width=0).set_fill(color, 0.45)
        fill.move_to(frame, aligned_edge=LEFT)
        shade = theme.FG if value else theme.MUTED
        label = theme.text(self.num(value, 2), theme.NUM_SIZE, shade).move_to(frame)
        return VGroup(frame, fill, label)

    def _card(self, word: str, color: str) -> VGroup:
        return widgets.chip(word, theme.FG, stroke=color, size=theme.TITLE_SIZE, height=1.2,
                            pad=0.8, min_width=1.6)
