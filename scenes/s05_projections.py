"""Where Q, K and V come from: a word's vector x times three learned matrices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    Create,
    Cross,
    CurvedArrow,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    Line,
    Mobject,
    MoveToTarget,
    Rectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes import theme
from scenes.base import NarratedScene

SEED = 5  # random look of the untrained matrices (not a value of the example)


def bracketed(rows: Sequence[Sequence[str]], color: str, size: float = theme.NUM_SIZE) -> VGroup:
    """A matrix (or a row vector: one row) of numbers in square brackets.

    Returns VGroup(left bracket, cells, right bracket); cells are row-major.
    """
    n_rows, n_cols = len(rows), len(rows[0])
    cells = VGroup(*[theme.text(e, size, color) for row in rows for e in row])
    cells.arrange_in_grid(rows=n_rows, cols=n_cols, buff=(0.4, 0.16))
    h = max(cells.height + 0.3, 0.62)

    left = theme.bracket(h, color, 0.06).next_to(cells, LEFT, buff=0.1)
    right = theme.bracket(h, color, 0.06).flip(UP).next_to(cells, RIGHT, buff=0.1)
    return VGroup(left, cells, right)


class ProjectionsScene(NarratedScene):
    scene_id = "projections"

    # -- pieces ---------------------------------------------------------------------------------
    def _row(self, xs, color: str) -> VGroup:
        return bracketed([[self.num(v) for v in xs]], color)

    def _mat(self, m: np.ndarray, color: str) -> VGroup:
        return bracketed([[self.num(v) for v in row] for row in m], color)

    def _equation(self, w: np.ndarray, result: np.ndarray, color: str, w_name: str,
                  res_label: str, x_label: bool = True) -> VGroup:
        """x · W = r with labels (x and W above, r to the right): VGroup(x, ×, W, =, r, labels)."""
        x = self._row(self.numbers.projections.x, theme.FG)
        times = theme.text("×", theme.NUM_SIZE)
        mat = self._mat(w, color)
        eq = theme.text("=", theme.NUM_SIZE)
        res = self._row(result, color)
        VGroup(x, times, mat, eq, res).arrange(RIGHT, buff=0.3)
        labels = VGroup(
            theme.formula(w_name, 34, color).next_to(mat, UP, buff=0.15),
            theme.text(res_label, theme.SMALL_SIZE, color).next_to(res, RIGHT, buff=0.3),
        )
        if x_label:
            lab = theme.text(self.s("x_label"), theme.SMALL_SIZE, theme.FG)
            labels.add(lab.next_to(x, UP, buff=0.2).align_to(labels[0], DOWN))
        return VGroup(x, times, mat, eq, res, labels)

    def _products(self, x: Sequence[float], col: Sequence[float], total: float,
                  color: str) -> VGroup:
        """x_1×w_1 + x_2×w_2 + ... = total, x entries in FG and matrix entries in colour."""
        parts: list[Mobject] = []
        for i, (a, w) in enumerate(zip(x, col, strict=True)):
            if i:
                parts.append(theme.text("+", theme.NUM_SIZE, theme.MUTED))
            parts.append(VGroup(theme.text(self.num(a), theme.NUM_SIZE, theme.FG),
                                theme.text("×", theme.NUM_SIZE, theme.MUTED),
                                theme.text(self.num(w), theme.NUM_SIZE, color)
                                ).arrange(RIGHT, buff=0.08))
        parts.append(theme.text("=", theme.NUM_SIZE, theme.MUTED))
        parts.append(theme.text(self.num(total), theme.NUM_SIZE, color, weight="BOLD"))
        return VGroup(*parts).arrange(RIGHT, buff=0.18)

    def _grid(self, color: str, rng: np.random.Generator, rows: int, cols: int) -> VGroup:
        cells = VGroup(*[
            Rectangle(width=0.46, height=0.46).set_stroke(color, 1.5)
            .set_fill(color, float(rng.uniform(0.1, 0.85)))
            for _ in range(rows * cols)
        ])
        return cells.arrange_in_grid(rows=rows, cols=cols, buff=0.06)

    def _nudge(self, grids: Sequence[VGroup], rng: np.random.Generator, run_time: float,
               spread: float = 0.25) -> None:
        anims = []
        for g in grids:
            for c in g:
                op = float(np.clip(c.get_fill_opacity() + rng.normal(0, spread), 0.08, 0.9))
                anims.append(c.animate.set_fill(opacity=op))
        self.play(*anims, run_time=run_time)

    # -- the scene ------------------------------------------------------------------------------
    def narrate(self) -> None:
        pj = self.numbers.projections
        d = self.derived
        fb = self.numbers.fill_blank
        header: Mobject

        with self.beat("intro") as b:
            header = self.title_card(b)
            word_lab = theme.text(self.s("word"), theme.BODY_SIZE)
            card = theme.panel(word_lab.width + 0.8, 0.8, theme.FG)
            word = VGroup(card, word_lab.move_to(card)).move_to(UP * 1.6)
            x = self._row(pj.x, theme.FG).move_to(DOWN * 0.4)
            x_lab = theme.text(self.s("x_label"), theme.SMALL_SIZE).next_to(x, DOWN, buff=0.25)
            arrow = Arrow(word.get_bottom(), x.get_top(), buff=0.15, color=theme.MUTED)
            self.fade_in(word, b=b)
            self.play(GrowArrow(arrow), FadeIn(x, shift=0.2 * DOWN), FadeIn(x_lab),
                      run_time=b.rt(0.15, 1.0))

        with self.beat("multiply_q") as b:
            eq_q = self._equation(pj.W_Q, d.proj_q, theme.Q_COLOR, "W_Q", self.s("q_label"))
            theme.fit(eq_q).move_to(UP * 1.3)
            x_new, times, mat, eqs, res, labels = eq_q
            self.play(FadeOut(word), FadeOut(arrow), FadeOut(x_lab),
                      x.animate.move_to(x_new), run_time=b.rt(0.08, 0.7))
            self.remove(x)
            self.add(x_new)
            res[1].set_opacity(0)
            self.play(FadeIn(VGroup(times, mat, eqs, res, labels)), run_time=b.rt(0.08, 0.8))
            rule = theme.text(self.s("col_rule"), theme.SMALL_SIZE, theme.MUTED)
            rule.move_to(DOWN * 0.35)
            n_rows, n_cols = pj.W_Q.shape
            x_box = SurroundingRectangle(x_new[1], color=theme.FG, buff=0.08)
            calc: Mobject | None = None
            col_box: Mobject | None = None
            for j in range(n_cols):
                col = VGroup(*[mat[1][r * n_cols + j] for r in range(n_rows)])
                new_box = SurroundingRectangle(col, color=theme.Q_COLOR, buff=0.08)
                new_calc = self._products(pj.x, pj.W_Q[:, j], d.proj_q[j], theme.Q_COLOR)
                new_calc.next_to(rule, DOWN, buff=0.35)
                if col_box is None or calc is None:
                    self.play(Create(x_box), Create(new_box), FadeIn(rule),
                              run_time=b.rt(0.06, 0.6))
                    col_box = new_box
                else:
                    self.play(col_box.animate.become(new_box), FadeOut(calc),
                              run_time=b.rt(0.06, 0.6))
                self.play(FadeIn(new_calc, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.9))
                self._land(new_calc[-1], res[1][j], b.rt(0.06, 0.6))
                calc = new_calc
            self.play(FadeOut(VGroup(x_box, col_box)), run_time=b.rt(0.04, 0.4))
            self._regroup(eq_q)

        with self.beat("k_and_v") as b:
            eqs_more = [
                self._equation(w, r, color, name, lab, x_label=False)
                for w, r, color, name, lab in (
                    (pj.W_K, d.proj_k, theme.K_COLOR, "W_K", self.s("k_label")),
                    (pj.W_V, d.proj_v, theme.V_COLOR, "W_V", self.s("v_label")),
                )
            ]
            eq_q.generate_target()
            stack = VGroup(eq_q.target, *eqs_more).arrange(DOWN, buff=0.12)
            for e in eqs_more:
                e.shift(RIGHT * (eq_q.target[2].get_x() - e[2].get_x()))
            stack.scale_to_fit_height(theme.CONTENT_H - 0.1)
            stack.move_to(theme.CONTENT_CENTER)
            self.play(FadeOut(rule), FadeOut(calc), MoveToTarget(eq_q), run_time=b.rt(0.08, 0.7))
            for e in eqs_more:
                e[4][1].set_opacity(0)
                self.play(FadeIn(e), run_time=b.rt(0.07, 0.7))
                self._land(VGroup(e[0][1], e[2][1]), e[4][1], b.rt(0.1, 0.9))
                self._regroup(e)
            results = VGroup(eq_q[4], *[e[4] for e in eqs_more])
            self.play(*[Indicate(r, scale_factor=1.1) for r in results], run_time=b.rt(0.1, 1.0))

        with self.beat("every_word") as b:
            self.clear_content(b, keep=(header,))
            tokens = fb.tokens[self.lang]
            cards = VGroup()
            for t in tokens:
                lab = theme.text(t, theme.BODY_SIZE)
                card = theme.panel(max(lab.width + 0.5, 1.5), 0.75, theme.FG)
                cards.add(VGroup(card, lab.move_to(card)))
            cards.arrange(RIGHT, buff=0.7).move_to(UP * 2.25)
            theme.fit(cards)
            mats = VGroup(*[theme.formula(n, 34, c) for n, c in (
                ("W_Q", theme.Q_COLOR), ("W_K", theme.K_COLOR), ("W_V", theme.V_COLOR))])
            mats.arrange(RIGHT, buff=0.6)
            box = theme.panel(cards.width + 0.4, 0.85, theme.MUTED)
            box.move_to(UP * 0.9)
            every = theme.text(self.s("every"), theme.SMALL_SIZE, theme.MUTED)
            mats.move_to(box)
            VGroup(mats, every).arrange(RIGHT, buff=0.6).move_to(box)
            chips = VGroup()
            for card in cards:
                trio = VGroup(*[self._chip(ch, c) for ch, c in (
                    ("q", theme.Q_COLOR), ("k", theme.K_COLOR), ("v", theme.V_COLOR))])
                trio.arrange(RIGHT, buff=0.12).next_to(card, DOWN, buff=0.1).set_y(-0.45)
                chips.add(trio)
            arrows_in = VGroup(*[self._down_arrow(c.get_x(), c.get_bottom()[1], box.get_top()[1])
                                 for c in cards])
            arrows_out = VGroup(*[self._down_arrow(t.get_x(), box.get_bottom()[1], t.get_top()[1])
                                  for t in chips])
            self.play(FadeIn(cards, shift=0.1 * DOWN), run_time=b.rt(0.08, 0.7))
            self.play(*[GrowArrow(a) for a in arrows_in], FadeIn(box), FadeIn(mats),
                      FadeIn(every), run_time=b.rt(0.1, 0.9))
            self.play(*[GrowArrow(a) for a in arrows_out], FadeIn(chips, shift=0.1 * DOWN),
                      run_time=b.rt(0.1, 0.9))
            legend_q = VGroup(self._chip("q", theme.Q_COLOR),
                              theme.text(self.s("asks"), theme.SMALL_SIZE, theme.Q_COLOR)
                              ).arrange(RIGHT, buff=0.2)
            legend_kv = VGroup(self._chip("k", theme.K_COLOR), self._chip("v", theme.V_COLOR),
                               theme.text(self.s("found"), theme.SMALL_SIZE, theme.K_COLOR)
                               ).arrange(RIGHT, buff=0.2)
            VGroup(legend_q, legend_kv).arrange(RIGHT, buff=1.2).move_to(DOWN * 1.75)
            self.play(FadeIn(legend_q), *[Indicate(t[0], color=theme.Q_COLOR) for t in chips],
                      run_time=b.rt(0.1, 1.0))
            self.play(FadeIn(legend_kv),
                      *[Indicate(VGroup(t[1], t[2]), color=theme.K_COLOR) for t in chips],
                      run_time=b.rt(0.1, 1.0))

        rng = np.random.default_rng(SEED)
        with self.beat("random") as b:
            self.clear_content(b, keep=(header,))
            grids = []
            blocks = VGroup()
            for name, color in (("W_Q", theme.Q_COLOR), ("W_K", theme.K_COLOR),
                                ("W_V", theme.V_COLOR)):
                g = self._grid(color, rng, *pj.W_Q.shape)
                lab = theme.formula(name, 32, color).next_to(g, UP, buff=0.2)
                grids.append(g)
                blocks.add(VGroup(g, lab))
            blocks.arrange(RIGHT, buff=0.55, aligned_edge=DOWN)
            rand_lab = theme.text(self.s("random"), theme.SMALL_SIZE, theme.MUTED)
            left = VGroup(rand_lab.next_to(blocks, UP, buff=0.35), blocks)
            left.move_to(LEFT * 3.7 + UP * 0.6)
            self.play(FadeIn(blocks, shift=0.1 * DOWN), FadeIn(rand_lab), run_time=b.rt(0.08, 0.8))

            sent = theme.text(self.s("sentence"), theme.SMALL_SIZE)
            guess = VGroup(theme.text(self.s("guess"), theme.SMALL_SIZE, theme.MUTED),
                           theme.text(fb.value_features[self.lang][1], theme.BODY_SIZE)
                           ).arrange(RIGHT, buff=0.2)
            answer = VGroup(theme.text(self.s("answer"), theme.SMALL_SIZE, theme.MUTED),
                            theme.text(fb.value_features[self.lang][0], theme.BODY_SIZE,
                                       theme.GOOD)).arrange(RIGHT, buff=0.2)
            inner = VGroup(sent, guess, answer).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
            box = theme.panel(inner.width + 0.6, inner.height + 0.6, theme.MUTED)
            predict = VGroup(box, inner.move_to(box)).move_to(RIGHT * 3.6 + UP * 0.6)
            theme.fit(predict, 5.6)
            cross = Cross(guess[1], stroke_color=theme.V_COLOR, stroke_width=5)
            self.play(FadeIn(box), FadeIn(sent), FadeIn(guess), run_time=b.rt(0.08, 0.8))
            self.play(Create(cross), FadeIn(answer), run_time=b.rt(0.08, 0.8))
            back = CurvedArrow(predict.get_bottom() + DOWN * 0.1 + LEFT * 0.4,
                               blocks.get_bottom() + DOWN * 0.15,
                               angle=-1.0, color=theme.V_COLOR)
            nudge = theme.text(self.s("nudge"), theme.SMALL_SIZE, theme.V_COLOR)
            nudge.move_to(DOWN * 1.95)
            self.play(Create(back), FadeIn(nudge), run_time=b.rt(0.08, 0.8))
            self._nudge(grids, rng, b.rt(0.08, 0.8))
            self._nudge(grids, rng, b.rt(0.08, 0.8))

        with self.beat("learned") as b:
            self.play(FadeOut(VGroup(predict, cross, back, nudge, rand_lab)),
                      blocks.animate.arrange(RIGHT, buff=2.6, aligned_edge=DOWN).move_to(UP * 1.1),
                      run_time=b.rt(0.1, 0.9))
            for _ in range(3):
                self._nudge(grids, rng, b.rt(0.06, 0.5), spread=0.15)
            roles = VGroup()
            for block, role, color in zip(blocks, self.items("roles"),
                                          (theme.Q_COLOR, theme.K_COLOR, theme.V_COLOR),
                                          strict=True):
                roles.add(theme.text(role, theme.SMALL_SIZE, color).next_to(block, DOWN, buff=0.4))
            self.play(*[FadeIn(r, shift=0.1 * UP) for r in roles], run_time=b.rt(0.1, 0.9))

        with self.beat("metaphor") as b:
            self.clear_content(b, keep=(header,))
            sides = VGroup()
            bubbles = VGroup()
            vectors = VGroup()
            for meta, owner, xs, color in (
                (self.s("q_meta"), self.s("q_owner"), fb.query, theme.Q_COLOR),
                (self.s("k_meta"), self.s("k_owner"), fb.K[0], theme.K_COLOR),
            ):
                words = theme.text(meta, theme.BODY_SIZE, color)
                bubble = theme.panel(words.width + 0.6, words.height + 0.5, color)
                bubble_g = VGroup(bubble, words.move_to(bubble))
                vec = theme.vector_column([self.num(v) for v in xs], color, label=owner)
                side = VGroup(bubble_g, vec).arrange(DOWN, buff=0.45)
                sides.add(side)
                bubbles.add(bubble_g)
                vectors.add(vec)
            sides.arrange(RIGHT, buff=1.6, aligned_edge=UP).move_to(UP * 0.55)
            theme.fit(sides)
            self.play(FadeIn(bubbles, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(vectors, shift=0.1 * UP), run_time=b.rt(0.1, 0.8))
            crosses = VGroup(*[Cross(bb, stroke_color=theme.MUTED, stroke_width=4)
                               for bb in bubbles])
            self.play(Create(crosses), bubbles.animate.set_opacity(0.35),
                      run_time=b.rt(0.1, 0.9))
            only = theme.text(self.s("only_numbers"), theme.BODY_SIZE, theme.FG)
            only.next_to(sides, DOWN, buff=0.35)
            underline = Line(only.get_left(), only.get_right(), color=theme.ACCENT)
            underline.next_to(only, DOWN, buff=0.08)
            self.play(Write(only), Create(underline), run_time=b.rt(0.1, 1.0))
            self.play(*[Indicate(v[1], color=theme.FG) for v in vectors], run_time=b.rt(0.1, 1.0))

    def _land(self, src: Mobject, target: Mobject, run_time: float) -> None:
        """Move a copy of ``src`` onto the hidden ``target``, then show ``target`` itself."""
        moving = src.copy()
        self.play(Transform(moving, target.copy().set_opacity(1)), run_time=run_time)
        self.remove(moving)
        target.set_opacity(1)

    def _regroup(self, group: Mobject) -> None:
        """Replace top-level pieces of ``group`` on stage by ``group`` itself."""
        family = {id(m) for m in group.get_family()}
        for m in list(self.mobjects):
            if id(m) in family:
                self.remove(m)
        self.add(group)

    def _down_arrow(self, x: float, y0: float, y1: float) -> Arrow:
        return Arrow(RIGHT * x + UP * y0, RIGHT * x + UP * y1, buff=0.04, color=theme.MUTED,
                     stroke_width=3, max_tip_length_to_length_ratio=0.35)

    def _chip(self, letter: str, color: str) -> VGroup:
        c = Circle(radius=0.25).set_stroke(color, 2).set_fill(color, 0.25)
        return VGroup(c, theme.text(letter, theme.SMALL_SIZE, color).move_to(c))
