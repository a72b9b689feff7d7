"""Where Q, K and V come from: a word's vector x times three learned matrices.

The scene works on the fill-in-the-blank example: the word that asks (the last word before
the blank) gives the blank's query, and France's x gives its key and value, all computed by
``qkv_math`` from the word vectors and matrices of the numbers file, so the vectors the later
scenes use are the ones computed here.
"""

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
    Rectangle,
    SurroundingRectangle,
    VGroup,
    config,
)

from scenes import theme, widgets
from scenes.base import WORKING_HOLD, BeatClock, NarratedScene, WorkingLine

SEED = 5  # random look of the untrained matrices (not a value of the example)
RESULT_MARKS = ("r0", "r1", "r2")  # cue marks where the voice says each entry of q
LINE_LEAD = 1.1  # a working line enters this long before the voice says its result
RANDOM_W = 6.2  # width of the three random matrices beside the guess panel
TABLE_TOP, ROW_H = -0.65, 0.64  # the feature table's first row and row pitch, under the equation


class ProjectionsScene(NarratedScene):
    scene_id = "projections"

    # -- pieces ---------------------------------------------------------------------------------
    def _row(self, xs, color: str) -> VGroup:
        return widgets.matrix([[self.num(v) for v in xs]], color)

    def _mat(self, m: np.ndarray, color: str) -> VGroup:
        return widgets.matrix([[self.num(v) for v in row] for row in m], color)

    def _equation(self, x: np.ndarray, w: np.ndarray, result: np.ndarray, color: str,
                  w_name: str, res_label: str, x_label: str | None) -> VGroup:
        """x · W = r with labels (x and W above, r to the right): VGroup(x, ×, W, =, r, labels)."""
        xs = self._row(x, theme.FG)
        times = theme.text("×", theme.NUM_SIZE)
        mat = self._mat(w, color)
        eq = theme.text("=", theme.NUM_SIZE)
        res = self._row(result, color)
        VGroup(xs, times, mat, eq, res).arrange(RIGHT, buff=0.3)
        labels = VGroup(
            theme.formula(w_name, theme.FORMULA_LABEL_SIZE, color).next_to(mat, UP, buff=0.15),
            theme.text(res_label, theme.SMALL_SIZE, color).next_to(res, RIGHT, buff=0.3),
        )
        if x_label is not None:
            lab = theme.text(x_label, theme.SMALL_SIZE, theme.FG)
            labels.add(lab.next_to(xs, UP, buff=0.2).align_to(labels[0], DOWN))
        return VGroup(xs, times, mat, eq, res, labels)

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

    def _clear_working(self, b: BeatClock, keep: tuple[Mobject, ...]) -> None:
        """Fade out everything but ``keep``; the working lines leave now, never sooner than
        ``WORKING_HOLD`` after the voice said their results (waiting for it if need be)."""
        shown = [line for line in self.working if line.gone_at is None]
        if shown:
            left = max(line.said_at for line in shown) + WORKING_HOLD - self.now
            if left > 0:
                self.wait(left + 1 / config.frame_rate)  # a frame more: never a hair short
        for line in shown:
            line.gone_at = self.now
        self.clear_content(b, keep=keep)

    # -- the scene ------------------------------------------------------------------------------
    def narrate(self) -> None:
        header, eq_q = self._intro_and_q()
        _table, k_col = self._features(header, eq_q)
        self._k_and_v(eq_q, k_col)
        self._every_word(header)
        self._context(header)
        self._training(header)
        self._metaphor(header)

    def _intro_and_q(self) -> tuple[Mobject, VGroup]:
        pj, d = self.numbers.projections, self.derived
        with self.beat("intro") as b:
            header = self.title_card(b)
            # the end of the hook's sentence: the word before the blank is the one that asks
            tail = VGroup(theme.text(self.s("tail"), theme.BODY_SIZE, theme.MUTED),
                          theme.text(self.s("asker"), theme.BODY_SIZE),
                          theme.text(self.s("blank"), theme.BODY_SIZE, theme.MUTED))
            tail.arrange(RIGHT, buff=0.3).move_to(UP * 1.9)  # room for the box around the word
            asker = tail[1]
            asker_box = SurroundingRectangle(asker, color=theme.Q_COLOR, buff=0.12)
            x = self._row(pj.x_query, theme.FG).move_to(UP * 0.15)
            x_lab = theme.text(self.s("x_label"), theme.SMALL_SIZE).next_to(x, DOWN, buff=0.25)
            arrow = Arrow(asker_box.get_bottom(), x.get_top(), buff=0.1, color=theme.MUTED)
            note = VGroup(*[theme.text(line, theme.SMALL_SIZE, theme.ACCENT)
                            for line in self.items("asker_note")]).arrange(DOWN, buff=0.15)
            note.next_to(x_lab, DOWN, buff=0.45)
            theme.fit(note)
            self.play(FadeIn(tail, shift=0.1 * DOWN), run_time=b.rt(0.1, 0.6))
            b.until("x")
            self.play(Create(asker_box), GrowArrow(arrow), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(x, shift=0.2 * DOWN), FadeIn(x_lab), run_time=b.rt(0.06, 0.5))
            b.until("asker")
            self.play(Indicate(tail[2], color=theme.MUTED), run_time=b.rt(0.06, 0.6))
            self.play(asker.animate.set_color(theme.Q_COLOR), FadeIn(note, shift=0.1 * UP),
                      run_time=b.rt(0.06, 0.7))
            b.until("next")
            self.play(Indicate(tail[2], color=theme.Q_COLOR, scale_factor=1.15),
                      run_time=b.rt(0.06, 0.8))

        with self.beat("multiply_q") as b:
            eq_q = self._equation(pj.x_query, pj.W_Q, d.proj_q, theme.Q_COLOR, "W_Q",
                                  self.s("q_label"), self.s("x_asker"))
            theme.fit(eq_q).move_to(UP * 1.55)
            x_new, times, mat, eqs, res, labels = eq_q
            self.play(FadeOut(VGroup(tail, asker_box, arrow, x_lab, note)),
                      x.animate.move_to(x_new), run_time=b.rt(0.08, 0.7))
            self.remove(x)
            self.add(x_new)
            res[1].set_opacity(0)
            res_label = labels[1]
            self.play(FadeIn(VGroup(times, mat, eqs, res, labels[0], labels[2:])),
                      run_time=b.rt(0.08, 0.8))
            rule = theme.text(self.s("col_rule"), theme.SMALL_SIZE, theme.MUTED)
            rule.next_to(eq_q, DOWN, buff=0.35)
            n_rows, n_cols = pj.W_Q.shape
            x_box = SurroundingRectangle(x_new, color=theme.FG, buff=0.1)
            b.until("mat")
            self.play(Create(x_box), FadeIn(rule), run_time=b.rt(0.06, 0.6))
            col_box: Mobject | None = None
            lines = VGroup()
            for j in range(n_cols):
                col = VGroup(*[mat[1][r * n_cols + j] for r in range(n_rows)])
                new_box = widgets.cell_frame(col, theme.Q_COLOR, 0.22)
                pairs = [(self.num(a), self.num(w)) for a, w in zip(pj.x_query, pj.W_Q[:, j],
                                                                    strict=True)]
                line = widgets.product_line(pairs, self.num(d.proj_q[j]),
                                            (theme.FG, theme.Q_COLOR))
                # every line stays: stacked under the rule, each in its column's order
                line.next_to(lines if len(lines) else rule, DOWN, buff=0.3)
                line.set_x(0)
                lines.add(line)
                mark = RESULT_MARKS[j] if j < len(RESULT_MARKS) else None
                if mark is not None:  # the narration names the first columns' results
                    b.until(mark, lead=LINE_LEAD)
                anims = [Create(new_box), FadeIn(line, shift=0.1 * DOWN)]
                if col_box is not None:
                    anims.append(FadeOut(col_box))
                self.play(*anims, run_time=b.rt(0.04, 0.4))
                col_box = new_box
                # up round the right of the lines above (straight up, the third line's 0
                # crossed the first line's 1 and read as "1⁰")
                widgets.land(self, line[-1], res[1][j], b.rt(0.04, 0.4), path_arc=1.2)
                if mark is not None:
                    self.working.append(WorkingLine("multiply_q", mark, b.start + b.mark(mark)))
            b.until("q")
            self.play(FadeOut(x_box), *([FadeOut(col_box)] if col_box else []),
                      FadeIn(res_label), Indicate(res, color=theme.Q_COLOR),
                      run_time=b.rt(0.1, 0.8))
            widgets.regroup(self, eq_q)
        return header, eq_q

    def _table(self) -> tuple[VGroup, VGroup, VGroup]:
        """The feature table under the equation: the feature names, one row each, and the
        columns of the blank's q and of France's k on the same rows (q's and k's numbers are
        the same features). Returns (names, q column, k column); each column is
        (left bracket, numbers, right bracket, label)."""
        fb, d = self.numbers.fill_blank, self.derived
        ys = [TABLE_TOP - i * ROW_H for i in range(len(fb.features[self.lang]))]
        names = VGroup(*[theme.row_text(f, theme.BODY_SIZE).move_to(UP * y)
                         for f, y in zip(fb.features[self.lang], ys, strict=True)])
        for n in names[1:]:
            n.align_to(names[0], RIGHT)
        cols = []
        for xs, color, label in ((d.proj_q, theme.Q_COLOR, self.s("q_label")),
                                 (d.proj_k, theme.K_COLOR, self.s("k_owner"))):
            nums = VGroup(*[theme.text(self.num(v), theme.NUM_SIZE, color).move_to(UP * y)
                            for v, y in zip(xs, ys, strict=True)])
            col = widgets.in_brackets(nums, color, pad=0.22)  # room for a frame inside
            col.add(theme.text(label, theme.SMALL_SIZE, color).next_to(col, UP, buff=0.4))
            cols.append(col)
        q_col, k_col = cols
        q_col.next_to(names, RIGHT, buff=0.5 + max(0.0, (q_col[3].width - q_col.width) / 2),
                      coor_mask=RIGHT)  # across only: its numbers stay on the rows
        gap = (q_col[3].width + k_col[3].width) / 2 + 0.5
        k_col.shift(RIGHT * (q_col[1].get_x() + gap - k_col[1].get_x()))
        full = VGroup(names, q_col, k_col)
        theme.fit(full)
        full.set_x(0)
        return names, q_col, k_col

    def _features(self, header: Mobject, eq_q: VGroup) -> tuple[VGroup, VGroup]:
        """q's numbers, one feature each: the feature table with the blank's q as a column."""
        with self.beat("features") as b:
            self._clear_working(b, keep=(header, eq_q))
            names, q_col, k_col = self._table()
            head = theme.text(self.s("feat_head"), theme.SMALL_SIZE, theme.MUTED)
            head.align_to(names, RIGHT).align_to(q_col[3], DOWN)
            # the result's name moves up with its numbers: shown at both, it read twice; the
            # name moves, and the numbers left behind are dimmed as their copies leave (a
            # copy leaving a fading or full-strength original drew it twice, offset)
            self.play(FadeIn(q_col[0]), FadeIn(q_col[2]), FadeIn(head),
                      *widgets.hand_over(self, [eq_q[5][1]], [q_col[3]], left=0),
                      *widgets.hand_over(self, eq_q[4][1], q_col[1], left=0.35),
                      run_time=b.rt(0.1, 0.9))
            for i, name in enumerate(names):
                mark = f"f{i}"
                if mark in b.marks:
                    b.until(mark)
                self.play(FadeIn(name, shift=0.1 * RIGHT),
                          Indicate(q_col[1][i], color=theme.Q_COLOR), run_time=b.rt(0.05, 0.5))
        return VGroup(names, q_col, head), k_col

    def _k_and_v(self, eq_q: VGroup, k_col: VGroup) -> None:
        """France's x gives its key (into the table, beside the blank's q) and its value."""
        pj, d = self.numbers.projections, self.derived
        with self.beat("k_and_v") as b:
            eq_k, eq_v = (
                self._equation(pj.x_key, w, r, color, name, self.s(lab), self.s("ctx_x"))
                for w, r, color, name, lab in (
                    (pj.W_K, d.proj_k, theme.K_COLOR, "W_K", "k_label"),
                    (pj.W_V, d.proj_v, theme.V_COLOR, "W_V", "v_label")))
            for e in (eq_k, eq_v):
                theme.fit(e).move_to(eq_q)
                e[4][1].set_opacity(0)
            # France's x in place of the asking word's; q stays in the table below
            self.play(FadeOut(eq_q), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(VGroup(eq_k[:4], eq_k[4][0], eq_k[4][2], eq_k[5])),
                      run_time=b.rt(0.06, 0.6))
            b.until("kv", lead=0.6)
            self.play(Indicate(eq_k[0][1], color=theme.FG),
                      Indicate(eq_k[2][1], color=theme.K_COLOR),
                      eq_k[4][1].animate.set_opacity(1), run_time=b.rt(0.08, 0.7))
            widgets.regroup(self, eq_k)
            b.until("tags")
            self.play(FadeIn(k_col[0]), FadeIn(k_col[2]), FadeIn(k_col[3]),
                      *widgets.hand_over(self, eq_k[4][1], k_col[1], left=0.35),
                      run_time=b.rt(0.08, 0.8))
            tagged = [i for i, v in enumerate(d.proj_k) if v > 0]
            tags = VGroup(*[widgets.highlight(k_col[1][i], theme.K_COLOR, 0.1, square=False)
                            for i in tagged])
            self.play(*[Create(f) for f in tags], run_time=b.rt(0.06, 0.6))
            b.until("v")
            self.play(FadeOut(eq_k), run_time=b.rt(0.04, 0.4))
            self.play(FadeIn(VGroup(eq_v[:4], eq_v[4][0], eq_v[4][2], eq_v[5])),
                      run_time=b.rt(0.06, 0.5))
            b.until("vv", lead=0.6)
            self.play(Indicate(eq_v[0][1], color=theme.FG),
                      Indicate(eq_v[2][1], color=theme.V_COLOR),
                      eq_v[4][1].animate.set_opacity(1), run_time=b.rt(0.08, 0.7))
            widgets.regroup(self, eq_v)
            b.until("content")
            content = theme.text(self.s("v_content"), theme.SMALL_SIZE, theme.V_COLOR)
            content.next_to(eq_v[5][1], DOWN, buff=0.25).align_to(eq_v[5][1], LEFT)
            self.play(FadeIn(content, shift=0.1 * UP), Indicate(eq_v[4], color=theme.V_COLOR),
                      run_time=b.rt(0.08, 0.7))

    def _every_word(self, header: Mobject) -> None:
        fb = self.numbers.fill_blank
        with self.beat("every_word") as b:
            self.clear_content(b, keep=(header,))
            cards = VGroup(*[widgets.word_chip(t, min_width=1.5) for t in fb.tokens[self.lang]])
            cards.arrange(RIGHT, buff=0.7).move_to(UP * 2.25)
            theme.fit(cards)
            mats = VGroup(*[theme.formula(n, theme.FORMULA_LABEL_SIZE, c) for n, c in (
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
            b.until("trio")
            self.play(*[GrowArrow(a) for a in arrows_out], FadeIn(chips, shift=0.1 * DOWN),
                      run_time=b.rt(0.1, 0.9))
            # Why three matrices, not x with x: the word's x, then its q and k side by side,
            # then the matrices that make them differ.
            b.until("why")
            self.play(*[widgets.pulse(c, 1.08) for c in cards],  # lit white, chip and label merged
                      run_time=b.rt(0.08, 0.8))
            b.until("same")
            # q and k pulse in their own colours (lit in the pointer's blue, they flashed
            # out of Q yellow and K teal)
            self.play(*[Indicate(t[i], color=c, scale_factor=1.15) for t in chips
                        for i, c in ((0, theme.Q_COLOR), (1, theme.K_COLOR))],
                      run_time=b.rt(0.08, 0.8))
            b.until("differ")
            self.play(*[widgets.pulse(m, 1.12) for m in mats], run_time=b.rt(0.08, 0.8))
            legends = VGroup(*[
                VGroup(widgets.letter_badge(ch, c, radius=0.25, outline=True),
                       theme.text(self.s(key), theme.SMALL_SIZE, c)).arrange(RIGHT, buff=0.2)
                for ch, c, key in (("q", theme.Q_COLOR, "asks"), ("k", theme.K_COLOR, "matched"),
                                   ("v", theme.V_COLOR, "hands"))])
            legends.arrange(RIGHT, buff=1.0).move_to(DOWN * 1.75)
            theme.fit(legends)
            # what the three now do differently: q asks, k is matched, v hands over
            self.play(FadeIn(legends, shift=0.1 * UP), run_time=b.rt(0.08, 0.8))

    def _context(self, header: Mobject) -> None:
        """Why France's key can already mean "where I grew up": earlier layers mixed its
        neighbours into its vector."""
        fb = self.numbers.fill_blank
        home = fb.tokens[self.lang][0]
        with self.beat("context") as b:
            self.clear_content(b, keep=(header,))
            # the later layer: France's x, times W_K, gives a k that reads "where I grew up"
            x_card = widgets.word_chip(self.s("ctx_x"), theme.FG)
            times = theme.formula("times W_K", theme.FORMULA_LABEL_SIZE, theme.K_COLOR)
            k_chip = widgets.letter_badge("k", radius=0.25, outline=True)
            says = theme.label(self.s("k_label_says"), 3.6, theme.BODY_SIZE, theme.K_COLOR)
            ask = theme.text("？" if self.lang == "zh" else "?", theme.BODY_SIZE, theme.K_COLOR,
                             weight="BOLD")
            bubble_in = VGroup(says, ask).arrange(RIGHT, buff=0.12)
            bubble = theme.panel(bubble_in.width + 0.6, bubble_in.height + 0.45, theme.K_COLOR)
            bubble_g = VGroup(bubble, bubble_in.move_to(bubble))
            arrow1 = Arrow(LEFT * 0.5, RIGHT * 0.5, color=theme.MUTED, buff=0)
            row_b = VGroup(x_card, times, arrow1, k_chip, bubble_g).arrange(RIGHT, buff=0.3)
            theme.fit(row_b, theme.CONTENT_W - 2.2)
            later = theme.text(self.s("later"), theme.LABEL_SIZE, theme.MUTED)
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
                lab = theme.formula(name, theme.FORMULA_LABEL_SIZE, color)
                lab.next_to(g, UP, buff=0.2)
                grids.append(g)
                blocks.add(VGroup(g, lab))
            blocks.arrange(RIGHT, buff=0.55, aligned_edge=DOWN)
            rand_lab = theme.text(self.s("random"), theme.LABEL_SIZE, theme.MUTED)
            # the guess panel takes the right half: the grids shrink to fit, their labels not
            lab_h = [blk[1].height for blk in blocks]
            theme.fit(blocks, RANDOM_W, theme.CONTENT_H - 1.6)
            for blk, h in zip(blocks, lab_h, strict=True):
                blk[1].scale(h / blk[1].height).next_to(blk[0], UP, buff=0.2)
            left = VGroup(rand_lab.next_to(blocks, UP, buff=0.35), blocks)
            left.move_to(UP * 0.5).to_edge(LEFT, buff=theme.MARGIN + 0.1)
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
            cross = Cross(guess[1], stroke_color=theme.WARN, stroke_width=5)
            b.until("guess")
            self.play(FadeIn(box), FadeIn(sent), FadeIn(guess), run_time=b.rt(0.06, 0.8))
            b.until("wrong")
            self.play(Create(cross), FadeIn(answer), run_time=b.rt(0.06, 0.8))
            back = CurvedArrow(predict.get_bottom() + DOWN * 0.1 + LEFT * 0.4,
                               blocks.get_bottom() + DOWN * 0.15,
                               angle=-1.0, color=theme.WARN)
            nudge = theme.text(self.s("nudge"), theme.SMALL_SIZE, theme.WARN)
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
