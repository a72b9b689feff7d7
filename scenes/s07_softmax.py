"""Step ②: scores become shares; the naive add-a-constant attempt, then softmax."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    Mobject,
    Rectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from qkv_math.attention import shift_normalize
from scenes import theme
from scenes.base import NarratedScene

ROW_H = 0.64
BAR_LEN = 4.0  # length of a 100% bar; one scale for every bar so the shares compare



class SoftmaxScene(NarratedScene):
    scene_id = "softmax"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        d = self.derived
        tokens = fb.tokens[self.lang]
        scores = d.fill_scores
        n = len(tokens)
        alt_shift = fb.shift + 1
        alt_shares = shift_normalize(scores, alt_shift)
        exps = np.exp(scores)

        y_cap = theme.CONTENT_TOP - 0.2
        y_head = theme.CONTENT_TOP - 0.85
        y_rows = [y_head - 0.6 - ROW_H * i for i in range(n)]
        y_low = y_rows[-1] - 0.85
        x_name, x_score = -5.0, -3.55

        def column(head: str, cells: Sequence[str], x: float, color: str,
                   head_color: str = theme.MUTED) -> VGroup:
            h = theme.text(head, theme.SMALL_SIZE, head_color).move_to(RIGHT * x + UP * y_head)
            body = VGroup(*[theme.text(c, theme.NUM_SIZE, color).move_to(RIGHT * x + UP * y)
                            for c, y in zip(cells, y_rows, strict=True)])
            return VGroup(h, body)

        def bar_col(head: str, shares: Sequence[float], x0: float, color: str) -> VGroup:
            h = theme.text(head, theme.SMALL_SIZE, color)
            h.move_to(UP * y_head).align_to(RIGHT * x0, LEFT)
            body = VGroup()
            for s, y in zip(shares, y_rows, strict=True):
                bar = theme.bar(float(s), self.pct(s), BAR_LEN, color)
                bar.align_to(RIGHT * x0, LEFT).set_y(y)
                body.add(bar)
            return VGroup(h, body)

        def caption(s: str, color: str = theme.FG) -> Mobject:
            return theme.text(s, theme.BODY_SIZE, color).move_to(UP * y_cap)

        with self.beat("intro") as b:
            self.title_card(b)
            names = VGroup(*[theme.row_text(t, theme.BODY_SIZE).move_to(UP * y)
                             for t, y in zip(tokens, y_rows, strict=True)])
            for m in names:
                m.align_to(RIGHT * (x_name + 0.6), RIGHT)
            word_head = theme.text(self.s("word"), theme.SMALL_SIZE, theme.MUTED)
            word_head.move_to(UP * y_head).align_to(names, RIGHT)
            score_col = column(self.s("score"), [self.num(s) for s in scores], x_score, theme.FG)
            self.play(FadeIn(VGroup(word_head, names)), FadeIn(score_col),
                      run_time=b.rt(0.1, 0.8))
            cap = caption(self.s("goal"), theme.ACCENT)
            slots = VGroup(*[
                Rectangle(width=BAR_LEN / n, height=0.34).set_stroke(theme.MUTED, 2)
                .move_to(RIGHT * (x_score + 1.3 + BAR_LEN / (2 * n)) + UP * y)
                for y in y_rows])
            self.play(Write(cap), run_time=b.rt(0.12, 1.0))
            self.play(Create(slots), run_time=b.rt(0.08, 0.8))

        with self.beat("naive") as b:
            self.play(Transform(cap, caption(self.s("naive"), theme.ACCENT)), FadeOut(slots),
                      run_time=b.rt(0.06, 0.6))
            x_plus = x_score + 1.1
            plus_col = column(self.s("plus"), [self.num(s + fb.shift) for s in scores],
                              x_plus, theme.ACCENT, theme.ACCENT)
            self._copy_into(score_col[1], plus_col, b.rt(0.1, 1.0))
            naive_bars = bar_col(self.s("share"), d.fill_shifted, x_plus + 0.7, theme.ACCENT)
            self.play(FadeIn(naive_bars[0]),
                      *[GrowFromEdge(m, LEFT) for m in naive_bars[1]], run_time=b.rt(0.15, 1.5))

        with self.beat("which_constant") as b:
            x_alt = naive_bars.get_right()[0] + 0.75
            alt_col = column(self.s("plus_alt"), [self.num(s + alt_shift) for s in scores],
                             x_alt, theme.MUTED, theme.MUTED)
            alt_bars = bar_col(self.s("share"), alt_shares, x_alt + 0.7, theme.MUTED)
            p1 = theme.text(self.s("problem1"), theme.BODY_SIZE, theme.V_COLOR)
            p1.move_to(UP * y_low)
            self.play(FadeIn(p1), run_time=b.rt(0.06, 0.6))
            self._copy_into(score_col[1], alt_col, b.rt(0.1, 1.0))
            self.play(FadeIn(alt_bars[0]), *[GrowFromEdge(m, LEFT) for m in alt_bars[1]],
                      run_time=b.rt(0.15, 1.5))
            self.play(*[Indicate(VGroup(naive_bars[1][i][1], alt_bars[1][i][1]),
                                 color=theme.V_COLOR) for i in range(n)],
                      run_time=b.rt(0.1, 1.0))

        with self.beat("flattened") as b:
            p2 = theme.text(self.s("problem2"), theme.BODY_SIZE, theme.V_COLOR)
            p2.next_to(p1, DOWN, buff=0.25)
            top = int(np.argmax(scores))
            box = SurroundingRectangle(VGroup(names[top], naive_bars[1][top]),
                                       color=theme.V_COLOR, buff=0.1)
            self.play(FadeIn(p2), Create(box), run_time=b.rt(0.1, 0.8))
            self.play(Indicate(naive_bars[1][top][1], color=theme.V_COLOR, scale_factor=1.4),
                      run_time=b.rt(0.1, 1.0))

        with self.beat("exp") as b:
            gone = VGroup(plus_col, naive_bars, alt_col, alt_bars, p1, p2, box)
            self.play(FadeOut(gone), Transform(cap, caption(self.s("exp_title"), theme.Q_COLOR)),
                      run_time=b.rt(0.06, 0.6))
            x_exp = x_score + 1.6
            exp_col = column(self.s("exp_head"), [self.num(v) for v in exps], x_exp, theme.FG,
                             theme.Q_COLOR)
            self._copy_into(score_col[1], exp_col, b.rt(0.1, 1.0))
            pos = theme.text(self.s("always_pos"), theme.SMALL_SIZE, theme.GOOD)
            pos.next_to(exp_col[1], DOWN, buff=0.3)
            self.play(FadeIn(pos), Indicate(exp_col[1], color=theme.GOOD),
                      run_time=b.rt(0.08, 0.8))
            steps = VGroup()
            x_arc = exp_col.get_right()[0] + 0.15
            for i in range(n - 1):
                if scores[i] - scores[i + 1] != 1:
                    continue
                arc = ArcBetweenPoints(RIGHT * x_arc + UP * (y_rows[i + 1] + 0.06),
                                       RIGHT * x_arc + UP * (y_rows[i] - 0.06), angle=2.2,
                                       color=theme.Q_COLOR, stroke_width=3)
                arc.add_tip(tip_length=0.14, tip_width=0.14)
                lab = theme.text(self.s("times_e"), theme.SMALL_SIZE, theme.Q_COLOR)
                lab.next_to(arc, RIGHT, buff=0.1)
                steps.add(VGroup(arc, lab))
            for st in steps:
                self.play(Create(st[0]), FadeIn(st[1]), run_time=b.rt(0.06, 0.7))

        with self.beat("divide") as b:
            self.play(Transform(cap, caption(self.s("divide"), theme.Q_COLOR)),
                      run_time=b.rt(0.06, 0.5))
            x_bar = max(exp_col.get_right()[0], steps.get_right()[0] if steps else 0) + 0.5
            sm_bars = bar_col(self.s("weight"), d.fill_weights, x_bar, theme.Q_COLOR)
            ghosts = VGroup()
            for s, bar in zip(d.fill_shifted, sm_bars[1], strict=True):
                if s > 0:
                    r = Rectangle(width=s * BAR_LEN, height=bar[0].height)
                    r.set_stroke(theme.FG, 2).align_to(bar[0], LEFT).set_y(bar[0].get_y())
                    ghosts.add(DashedVMobject(r, num_dashes=24))
                    end = max(bar[0].get_right()[0], r.get_right()[0])
                    bar[1].next_to(RIGHT * end + UP * bar[0].get_y(), RIGHT, buff=0.12)
            self.play(FadeIn(sm_bars[0]), *[GrowFromEdge(m, LEFT) for m in sm_bars[1]],
                      run_time=b.rt(0.15, 1.5))
            legend = theme.text(self.s("naive_ghost"), theme.SMALL_SIZE, theme.MUTED)
            legend.move_to(UP * y_low).align_to(sm_bars, LEFT)
            self.play(Create(ghosts), FadeIn(legend), run_time=b.rt(0.1, 1.0))
            top = int(np.argmax(d.fill_weights))
            self.play(Indicate(sm_bars[1][top], color=theme.Q_COLOR, scale_factor=1.15),
                      run_time=b.rt(0.08, 1.0))

        with self.beat("formula") as b:
            f = theme.formula(r'"softmax"(x_i) = e^(x_i) / (sum_j e^(x_j))', 40, theme.FG)
            frame = theme.panel(f.width + 0.8, f.height + 0.45, theme.Q_COLOR)
            formula = VGroup(frame, f.move_to(frame))
            formula.move_to(UP * (theme.CONTENT_BOTTOM + formula.height / 2 + 0.1))
            self.play(FadeOut(legend), FadeOut(pos), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(frame), Write(f), run_time=b.rt(0.15, 1.5))
            self.play(Indicate(sm_bars[1], color=theme.Q_COLOR, scale_factor=1.05),
                      run_time=b.rt(0.1, 1.0))

    def _copy_into(self, sources: Sequence[Mobject], col: VGroup, run_time: float) -> None:
        """Copies of ``sources`` move onto the cells of ``col`` while its header fades in."""
        movers = [m.copy() for m in sources]
        self.play(FadeIn(col[0]),
                  *[Transform(m, t.copy()) for m, t in zip(movers, col[1], strict=True)],
                  run_time=run_time)
        self.remove(*movers)
        self.add(col)
