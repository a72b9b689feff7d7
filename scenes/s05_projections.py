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
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

SEED = 5  # random look of the untrained matrices (not a value of the example)
COLUMN_MARKS = ("first", "second")  # cue marks where each column of W_Q is worked out


class ProjectionsScene(NarratedScene):
    scene_id = "projections"

    # -- pieces ---------------------------------------------------------------------------------
    def _row(self, xs, color: str) -> VGroup:
        return widgets.matrix([[self.num(v) for v in xs]], color)

    def _mat(self, m: np.ndarray, color: str) -> VGroup:
        return widgets.matrix([[self.num(v) for v in row] for row in m], color)

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

    def _grid(self, color: str, rng: np.random.Generator, rows: int, cols: int) -> VGroup:
        cells = VGroup(*[
            Rectangle(width=0.62, height=0.62).set_stroke(color, 1.5)
            .set_fill(color, float(rng.uniform(0.1, 0.85)))
            for _ in range(rows * cols)
        ])
        return cells.arrange_in_grid(rows=rows, cols=cols, buff=0.08)

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
        header = self._intro_and_q()
        self._every_word(header)
        self._context(header)
        self._training(header)
        self._metaphor(header)

    def _intro_and_q(self) -> Mobject:
        pj, d = self.numbers.projections, self.derived
        with self.beat("intro") as b:
            header = self.title_card(b)
            word_lab = theme.text(self.s("word"), theme.BODY_SIZE)
            card = theme.panel(word_lab.width + 0.8, 0.8, theme.FG)
            word = VGroup(card, word_lab.move_to(card)).move_to(UP * 1.6)
            x = self._row(pj.x, theme.FG).move_to(DOWN * 0.4)
            x_lab = theme.text(self.s("x_label"), theme.SMALL_SIZE).next_to(x, DOWN, buff=0.25)
            arrow = Arrow(word.get_bottom(), x.get_top(), buff=0.15, color=theme.MUTED)
            self.fade_in(word, b=b)
            b.until("x")
            self.play(GrowArrow(arrow), FadeIn(x_lab), run_time=b.rt(0.1, 0.6))
            self.play(FadeIn(x, shift=0.2 * DOWN), run_time=b.rt(0.1, 0.6))

        with self.beat("multiply_q") as b:
            eq_q = self._equation(pj.W_Q, d.proj_q, theme.Q_COLOR, "W_Q", self.s("q_label"))
            theme.fit(eq_q).move_to(UP * 1.3)
            x_new, times, mat, eqs, res, labels = eq_q
            self.play(FadeOut(word), FadeOut(arrow), FadeOut(x_lab),
                      x.animate.move_to(x_new), run_time=b.rt(0.08, 0.7))
            self.remove(x)
            self.add(x_new)
            res[1].set_opacity(0)
            res_label = labels[1]
            self.play(FadeIn(VGroup(times, mat, eqs, res, labels[0], labels[2:])),
                      run_time=b.rt(0.08, 0.8))
            rule = theme.text(self.s("col_rule"), theme.SMALL_SIZE, theme.MUTED)
            rule.move_to(DOWN * 0.35)
            n_rows, n_cols = pj.W_Q.shape
            x_box = SurroundingRectangle(x_new, color=theme.FG, buff=0.1)
            b.until("mat")
            self.play(Create(x_box), FadeIn(rule), run_time=b.rt(0.06, 0.6))
            calc: Mobject | None = None
            col_box: Mobject | None = None
            for j in range(n_cols):
                col = VGroup(*[mat[1][r * n_cols + j] for r in range(n_rows)])
                new_box = widgets.cell_frame(col, theme.Q_COLOR, 0.22)
                pairs = [(self.num(a), self.num(w)) for a, w in zip(pj.x, pj.W_Q[:, j],
                                                                    strict=True)]
                new_calc = widgets.product_line(pairs, self.num(d.proj_q[j]),
                                                (theme.FG, theme.Q_COLOR))
                new_calc.next_to(rule, DOWN, buff=0.35)
                if j < len(COLUMN_MARKS):  # the narration names the first columns
                    b.until(COLUMN_MARKS[j], lead=0.9)
                if col_box is None or calc is None:
                    self.play(Create(new_box), FadeIn(new_calc, shift=0.1 * DOWN),
                              run_time=b.rt(0.05, 0.45))
                    col_box = new_box
                else:  # old box and line out first, then the new ones in (no morph)
                    self.play(FadeOut(col_box), FadeOut(calc), run_time=b.rt(0.04, 0.3))
                    self.play(Create(new_box), FadeIn(new_calc, shift=0.1 * DOWN),
                              run_time=b.rt(0.04, 0.35))
                    col_box = new_box
                widgets.land(self, new_calc[-1], res[1][j], b.rt(0.05, 0.45))
                calc = new_calc
            b.until("q")
            self.play(FadeOut(VGroup(x_box, col_box)), FadeIn(res_label),
                      Indicate(res, color=theme.Q_COLOR), run_time=b.rt(0.1, 0.8))
            widgets.regroup(self, eq_q)

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
            for e, name, e_color in zip(eqs_more, "kv", (theme.K_COLOR, theme.V_COLOR),
                                        strict=True):
                e[4][1].set_opacity(0)
                if name == "v":
                    b.until(name)
                self.play(FadeIn(e), run_time=b.rt(0.07, 0.7))
                b.until(f"{name}v", lead=0.7)
                rt = b.rt(0.1, 0.7)
                self.play(Indicate(e[0][1], color=theme.FG), Indicate(e[2][1], color=e_color),
                          e[4][1].animate.set_opacity(1), run_time=rt)
                widgets.regroup(self, e)
            results = VGroup(eq_q[4], *[e[4] for e in eqs_more])
            b.until("distinct")
            colors = (theme.Q_COLOR, theme.K_COLOR, theme.V_COLOR)
            boxes = VGroup(*[SurroundingRectangle(r, color=c, buff=0.06)
                             for r, c in zip(results, colors, strict=True)])
            self.play(*[Create(bx) for bx in boxes],
                      *[Indicate(r, color=c, scale_factor=1.1)
                        for r, c in zip(results, colors, strict=True)],
                      run_time=b.rt(0.1, 1.0))
        return header

    def _every_word(self, header: Mobject) -> None:
        fb = self.numbers.fill_blank
        with self.beat("every_word") as b:
            self.clear_content(b, keep=(header,))
            cards = VGroup(*[widgets.word_chip(t, min_width=1.5) for t in fb.tokens[self.lang]])
            cards.arrange(RIGHT, buff=0.7).move_to(UP * 2.25)
            theme.fit(cards)
            mats = VGroup(*[theme.formula(n, 34, c) for n, c in (
                ("W_Q", theme.Q_COLOR), ("W_K", theme.K_COLOR), ("W_V", theme.V_COLOR))])
            mats.arrange(RIGHT, buff=0.6)
            box = theme.panel(cards.width + 0.4, 0.85, theme.MUTED)
            box.move_to(UP * 0.9)
            every = theme.text(self.s("every"), theme.SMALL_SIZE, theme.MUTED)
            VGroup(mats, every).arrange(RIGHT, buff=0.6).move_to(box)
            chips = VGroup()
            for card in cards:
                trio = VGroup(*[widgets.letter_badge(c, radius=0.25, outline=True) for c in "qkv"])
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
            # Why three matrices, not x with x: the word's x, then its q and k side by side,
            # then the matrices that make them differ.
            b.until("why")
            self.play(*[Indicate(c, color=theme.FG, scale_factor=1.08) for c in cards],
                      run_time=b.rt(0.08, 0.8))
            b.until("same")
            self.play(*[Indicate(VGroup(t[0], t[1]), color=theme.ACCENT) for t in chips],
                      run_time=b.rt(0.08, 0.8))
            b.until("differ")
            self.play(Indicate(mats, scale_factor=1.12), run_time=b.rt(0.08, 0.8))
            legends = VGroup(*[
                VGroup(widgets.letter_badge(ch, c, radius=0.25, outline=True),
                       theme.text(self.s(key), theme.SMALL_SIZE, c)).arrange(RIGHT, buff=0.2)
                for ch, c, key in (("q", theme.Q_COLOR, "asks"), ("k", theme.K_COLOR, "matched"),
                                   ("v", theme.V_COLOR, "hands"))])
            legends.arrange(RIGHT, buff=1.0).move_to(DOWN * 1.75)
            theme.fit(legends)
            for i, (mark, color) in enumerate((("ask", theme.Q_COLOR), ("kk", theme.K_COLOR),
                                               ("vv", theme.V_COLOR))):
                b.until(mark)
                self.play(FadeIn(legends[i], shift=0.1 * UP),
                          *[Indicate(t[i], color=color) for t in chips], run_time=b.rt(0.1, 0.9))

    def _context(self, header: Mobject) -> None:
        """Why France's key can already mean "where I grew up": earlier layers mixed its
        neighbours into its vector."""
        fb = self.numbers.fill_blank
        home = fb.tokens[self.lang][0]
        with self.beat("context") as b:
            self.clear_content(b, keep=(header,))
            # the later layer: France's x, times W_K, gives a k that reads "where I grew up"
            x_card = widgets.word_chip(self.s("ctx_x"), theme.FG)
            times = theme.formula("times W_K", 34, theme.K_COLOR)
            k_chip = widgets.letter_badge("k", radius=0.25, outline=True)
            says = theme.text(self.s("k_label_says"), theme.BODY_SIZE, theme.K_COLOR)
            ask = theme.text("？" if self.lang == "zh" else "?", theme.BODY_SIZE, theme.K_COLOR,
                             weight="BOLD")
            bubble_in = VGroup(says, ask).arrange(RIGHT, buff=0.12)
            bubble = theme.panel(bubble_in.width + 0.6, bubble_in.height + 0.45, theme.K_COLOR)
            bubble_g = VGroup(bubble, bubble_in.move_to(bubble))
            arrow1 = Arrow(LEFT * 0.5, RIGHT * 0.5, color=theme.MUTED, buff=0)
            row_b = VGroup(x_card, times, arrow1, k_chip, bubble_g).arrange(RIGHT, buff=0.3)
            theme.fit(row_b, theme.CONTENT_W - 2.2)
            later = theme.text(self.s("later"), theme.SMALL_SIZE, theme.MUTED)
            row_b.move_to(RIGHT * 1.0 + DOWN * 1.0)
            later.next_to(row_b, LEFT, buff=0.4)
            # the earlier layer: the sentence, with the neighbours flowing into France
            words = self.items("ctx_words")
            row_a = VGroup(*[widgets.word_chip(w) for w in words]).arrange(RIGHT, buff=0.35)
            row_a.move_to(RIGHT * 1.0 + UP * 1.4)
            earlier = theme.text(self.s("earlier"), theme.SMALL_SIZE, theme.MUTED)
            earlier.next_to(row_a, LEFT, buff=0.4).align_to(later, LEFT)
            target = row_a[words.index(home)]
            flows = VGroup(*[
                CurvedArrow(c.get_top() + UP * 0.05, target.get_top() + UP * 0.05,
                            angle=-0.9 if c.get_x() < target.get_x() else 0.9,
                            color=theme.ACCENT, stroke_width=3, tip_length=0.18)
                for c in row_a if c is not target])
            down = Arrow(target.get_bottom(), x_card.get_top(), buff=0.12, color=theme.ACCENT)
            note = theme.text(self.s("ctx_note"), theme.SMALL_SIZE, theme.ACCENT)
            note.next_to(x_card, DOWN, buff=0.3)

            self.play(FadeIn(later), FadeIn(x_card), GrowArrow(arrow1), FadeIn(times),
                      FadeIn(k_chip), run_time=b.rt(0.06, 0.7))
            self.play(FadeIn(bubble_g, shift=0.1 * LEFT), run_time=b.rt(0.06, 0.6))
            self.play(Indicate(ask, color=theme.K_COLOR, scale_factor=1.4),
                      run_time=b.rt(0.06, 0.8))
            b.until("mix")
            self.play(FadeIn(earlier), FadeIn(row_a, shift=0.1 * DOWN), run_time=b.rt(0.06, 0.7))
            self.play(*[Create(f) for f in flows], run_time=b.rt(0.1, 1.2))
            self.play(target[0].animate.set_fill(theme.ACCENT, 0.45).set_stroke(theme.ACCENT),
                      run_time=b.rt(0.06, 0.6))
            self.play(GrowArrow(down), x_card[0].animate.set_stroke(theme.ACCENT),
                      run_time=b.rt(0.06, 0.7))
            b.until("ctx")
            self.play(FadeIn(note, shift=0.1 * UP), x_card[0].animate.set_fill(theme.ACCENT, 0.45),
                      run_time=b.rt(0.06, 0.7))
            self.play(FadeOut(ask), Indicate(says, color=theme.K_COLOR, scale_factor=1.1),
                      run_time=b.rt(0.08, 0.9))

    def _training(self, header: Mobject) -> None:
        pj, fb = self.numbers.projections, self.numbers.fill_blank
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
            left.move_to(LEFT * 3.5 + UP * 0.5)
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
            predict = VGroup(box, inner.move_to(box)).move_to(RIGHT * 3.4 + UP * 0.5)
            theme.fit(predict, 5.6)
            cross = Cross(guess[1], stroke_color=theme.V_COLOR, stroke_width=5)
            b.until("guess")
            self.play(FadeIn(box), FadeIn(sent), FadeIn(guess), run_time=b.rt(0.06, 0.8))
            b.until("wrong")
            self.play(Create(cross), FadeIn(answer), run_time=b.rt(0.06, 0.8))
            back = CurvedArrow(predict.get_bottom() + DOWN * 0.1 + LEFT * 0.4,
                               blocks.get_bottom() + DOWN * 0.15,
                               angle=-1.0, color=theme.V_COLOR)
            nudge = theme.text(self.s("nudge"), theme.SMALL_SIZE, theme.V_COLOR)
            nudge.move_to(DOWN * 2.2)
            b.until("nudge")
            self.play(Create(back), FadeIn(nudge), run_time=b.rt(0.06, 0.7))
            self._nudge(grids, rng, b.rt(0.06, 0.7))

            b.until("grow")
            self.play(FadeOut(VGroup(predict, cross, back, nudge, rand_lab)),
                      run_time=b.rt(0.03, 0.4))  # gone before the blocks spread under it
            self.play(blocks.animate.arrange(RIGHT, buff=2.6, aligned_edge=DOWN).move_to(UP * 0.6),
                      run_time=b.rt(0.03, 0.5))
            self._nudge(grids, rng, b.rt(0.04, 0.5), spread=0.15)
            for i, block in enumerate(blocks):
                role = theme.text(self.items("roles")[i], theme.SMALL_SIZE,
                                  (theme.Q_COLOR, theme.K_COLOR, theme.V_COLOR)[i])
                role.next_to(block, DOWN, buff=0.4)
                b.until(("role_q", "role_k", "role_v")[i])
                self.play(FadeIn(role, shift=0.1 * UP), Indicate(block[1], color=role.color),
                          run_time=b.rt(0.05, 0.6))

    def _metaphor(self, header: Mobject) -> None:
        fb = self.numbers.fill_blank
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
                vec = widgets.vector_column([self.num(v) for v in xs], color, label=owner)
                side = VGroup(bubble_g, vec).arrange(DOWN, buff=0.45)
                sides.add(side)
                bubbles.add(bubble_g)
                vectors.add(vec)
            sides.arrange(RIGHT, buff=1.6, aligned_edge=UP).move_to(UP * 0.55)
            theme.fit(sides)
            self.play(FadeIn(bubbles, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.8))
            b.until("meta")
            crosses = VGroup(*[Cross(bb, stroke_color=theme.MUTED, stroke_width=4)
                               for bb in bubbles])
            self.play(Create(crosses), bubbles.animate.set_opacity(0.35),
                      run_time=b.rt(0.1, 0.9))
            only = theme.text(self.s("only_numbers"), theme.BODY_SIZE, theme.FG)
            only.next_to(sides, DOWN, buff=0.35)
            underline = Line(only.get_left(), only.get_right(), color=theme.ACCENT)
            underline.next_to(only, DOWN, buff=0.08)
            b.until("only")
            self.play(FadeIn(vectors, shift=0.1 * UP), run_time=b.rt(0.1, 0.8))
            self.play(theme.reveal(only), Create(underline), run_time=b.rt(0.1, 1.0))

    def _down_arrow(self, x: float, y0: float, y1: float) -> Arrow:
        return Arrow(RIGHT * x + UP * y0, RIGHT * x + UP * y1, buff=0.04, color=theme.MUTED,
                     stroke_width=3, max_tip_length_to_length_ratio=0.35)
