"""The four steps as one line, scaled dot-product attention: softmax(QKᵀ/√d)·V, part by part."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    RoundedRectangle,
    Transform,
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

# The formula, built from labelled parts so each step can be lit on its own.
CELL = 1.45  # grid spacing across (keys)
DOT_MIN, DOT_MAX = 0.04, 0.29  # dot radii for the smallest and largest value
ROW_SP = 1.08  # grid spacing down (queries)
GRID_X = -3.4  # centre of the grid
TEXT_X = 1.0  # left edge of the explanation column
HEAD_GAP = 0.35  # the least room between two column heads


class FormulaScene(NarratedScene):
    scene_id = "formula"

    def narrate(self) -> None:
        # The worked example's words are introduced only in the next scene: here the rows and
        # columns are "word 1, 2, 3" (as many as the example has).
        n_words = len(self.numbers.worked_example.tokens[self.lang])
        tokens = [f"{self.s('word')}{i + 1}" for i in range(n_words)]
        n = len(tokens)

        with self.beat("intro") as b:
            self.title_card(b)
            f = theme.attention_formula(size=theme.FORMULA_DISPLAY_SIZE)
            f.move_to(UP * (theme.CONTENT_TOP - 0.05 - f.height / 2))
            grid_top = f.get_bottom()[1] - 0.35
            name = self._name()
            name.move_to([TEXT_X + name.width / 2, grid_top - name.height / 2, 0])
            step_top = name.get_bottom()[1] - 0.4
            # alone, the formula stands mid-frame (at its place above, the frame's lower
            # half stood empty for 3 s); it rises to its place as its name comes
            drop = f.get_y() - theme.CONTENT_CENTER[1]
            f.shift(DOWN * drop)
            self.play(theme.reveal(f), run_time=b.rt(0.2, 1.5))
            b.until("name")
            self.play(f.animate.shift(UP * drop), run_time=min(0.5, b.rt(0.05, 0.5)))
            self.play(LaggedStart(*[FadeIn(p, shift=0.1 * UP) for p in name], lag_ratio=0.4),
                      run_time=b.rt(0.2, 1.2))

        with self.beat("scores") as b:
            box = widgets.formula_tint(f, "qk")
            self.steps = widgets.StepLabel(TEXT_X, step_top, theme.BODY_SIZE, "BOLD")
            step = self.steps.make(self.s("step1"))
            b.until("qk")
            self.play(FadeIn(box), FadeIn(step), run_time=b.rt(0.1, 0.6))
            b.until("dot")
            self.play(name[1].animate.set_color(theme.ACCENT), run_time=b.rt(0.05, 0.4))
            self.play(Indicate(name[1], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.8))
            grid = self._grid(tokens, top=grid_top)
            b.until("q")
            self.play(Indicate(f.select("q"), color=theme.Q_COLOR, scale_factor=1.3),
                      FadeIn(grid["rows"], shift=0.1 * RIGHT), run_time=b.rt(0.06, 0.6))
            b.until("k")
            self.play(Indicate(f.select("k"), color=theme.K_COLOR, scale_factor=1.3),
                      FadeIn(grid["cols"], shift=0.1 * DOWN), run_time=b.rt(0.06, 0.6))
            b.until("t")
            self.play(Indicate(f.select("k"), color=theme.K_COLOR, scale_factor=1.4),
                      run_time=b.rt(0.1, 1.0))

        with self.beat("grid") as b:
            pairs = self._lines(self.items("pairs"), (theme.Q_COLOR, theme.K_COLOR, theme.FG))
            pairs.next_to(self.steps.mob, DOWN, buff=0.45, aligned_edge=LEFT)
            b.until("all")  # "all pairs at once": every pair's dot at once (the grid stood
            # empty, names only, for ten seconds)
            self.play(Indicate(box, color=theme.ACCENT, scale_factor=1.05),
                      FadeIn(grid["dots"], scale=0.5), run_time=b.rt(0.08, 0.8))
            b.until("rows")
            self.play(Indicate(grid["rows"], color=theme.Q_COLOR),
                      FadeIn(pairs[0], shift=0.1 * RIGHT), run_time=b.rt(0.08, 0.8))
            b.until("cols")
            self.play(Indicate(grid["cols"], color=theme.K_COLOR),
                      FadeIn(pairs[1], shift=0.1 * RIGHT), run_time=b.rt(0.08, 0.8))
            b.until("cells")
            self.play(widgets.pulse(grid["dots"], 1.06), FadeIn(pairs[2], shift=0.1 * RIGHT),
                      run_time=b.rt(0.1, 0.8))
            self.play(Indicate(grid["row_marks"][0], color=theme.Q_COLOR, scale_factor=1.0),
                      Indicate(grid["col_marks"][0], color=theme.K_COLOR, scale_factor=1.0),
                      run_time=b.rt(0.1, 0.8))

        with self.beat("scale") as b:
            b.until("sd")
            # step ①'s lines go with its heading (they stayed under "② scale")
            self.steps.swap(self, self.s("step2"), Transform(box, widgets.formula_tint(f, "sd")),
                            FadeOut(pairs), run_time=b.rt(0.1, 0.6))
            b.until("scaled")
            self.play(name[1].animate.set_color(theme.FG), name[0].animate.set_color(theme.ACCENT),
                      run_time=b.rt(0.05, 0.4))
            self.play(Indicate(name[0], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.8))
            b.until("shrink")
            self.play(*self._resize(grid, self.derived.worked_all.scaled, self._score_max),
                      run_time=b.rt(0.15, 1.0))

        with self.beat("softmax") as b:
            b.until("sm")
            self.steps.swap(self, self.s("step3"), Transform(box, widgets.formula_tint(f, "sm")),
                            name[0].animate.set_color(theme.FG),
                            run_time=b.rt(0.1, 0.6))
            rowsum = self._lines(self.items("rowsum"), (theme.FG, theme.Q_COLOR))
            rowsum.next_to(self.steps.mob, DOWN, buff=0.45, aligned_edge=LEFT)
            row_boxes = grid["row_boxes"]
            b.until("rows")
            self.play(LaggedStart(*[Create(rb) for rb in row_boxes], lag_ratio=0.5),
                      FadeIn(rowsum[0], shift=0.1 * RIGHT), run_time=b.rt(0.2, 1.5))
            b.until("sum")
            self.play(*self._resize(grid, self.derived.worked_all.weights, 1.0),
                      FadeIn(rowsum[1], shift=0.1 * RIGHT), run_time=b.rt(0.15, 1.0))

        with self.beat("weighted") as b:
            outs, arrows = VGroup(), VGroup()
            for i, t in enumerate(tokens):
                chip = theme.text(t, theme.SMALL_SIZE, theme.FG)
                panel = theme.panel(max(chip.width + 0.4, 1.0), 0.5, color=theme.GOOD)
                out = VGroup(panel, chip.move_to(panel))
                out.move_to([row_boxes.get_right()[0] + 1.45, row_boxes[i].get_y(), 0])
                arrows.add(Arrow(row_boxes[i].get_right(), out.get_left(), buff=0.1,
                                 color=theme.V_COLOR, stroke_width=3))
                outs.add(out)
            new = theme.text(self.s("new"), theme.SMALL_SIZE, theme.GOOD)
            new.next_to(outs, UP, buff=0.2)
            b.until("v")
            self.steps.swap(self, self.s("step4"),
                            Transform(box, widgets.formula_tint(f, "dot", "v")),
                            FadeOut(rowsum), run_time=b.rt(0.1, 0.6))
            mix = self._lines([self.s("mix")], (theme.V_COLOR,))
            mix.next_to(self.steps.mob, DOWN, buff=0.45, aligned_edge=LEFT)
            b.until("mix")
            self.play(LaggedStart(*[GrowArrow(a) for a in arrows], lag_ratio=0.3),
                      FadeIn(mix, shift=0.1 * RIGHT), run_time=b.rt(0.15, 1.2))
            self.target("new", outs)  # the new vectors, named as the next layer's input
            b.until("new")
            self.play(FadeIn(outs), FadeIn(new), run_time=b.rt(0.1, 0.8))

        with self.beat("parallel") as b:
            para = self._lines(self.items("parallel"), (theme.FG, theme.GOOD))
            para.move_to([TEXT_X + para.width / 2, step_top - para.height / 2, 0])
            b.until("indep")
            widgets.fade_through(self, VGroup(self.steps.mob, mix), para[0], FadeOut(box),
                                 run_time=b.rt(0.1, 0.6), shift=0.1 * RIGHT)
            b.until("all")
            # each row's box and arrow flash white; its output, a blend of V's, pulses in
            # V's red (lit green, the red boxes passed through yellow)
            self.play(*[Indicate(VGroup(row_boxes[i], arrows[i]), color=theme.FG,
                                 scale_factor=1.0) for i in range(n)],
                      *[widgets.pulse(outs[i], 1.08) for i in range(n)],
                      FadeIn(para[1], shift=0.1 * RIGHT), run_time=b.rt(0.15, 1.2))

    # -- pieces ---------------------------------------------------------------------------------
    def _name(self) -> VGroup:
        """The formula's name, one piece per word so each can be lit when it is explained."""
        # Chinese words close (no spaces between them) but clear of the box that lights one
        gap = 0.18 if self.lang == "zh" else 0.2
        parts = VGroup(*[theme.row_text(p, theme.EMPH_SIZE, theme.FG)
                         for p in self.items("name")])
        parts.arrange(RIGHT, buff=gap)
        return theme.fit(parts, theme.FRAME_W / 2 - theme.MARGIN - TEXT_X)

    def _lines(self, lines, colors) -> VGroup:
        group = VGroup(*[theme.text(t, theme.BODY_SIZE, c)
                         for t, c in zip(lines, colors, strict=True)])
        group.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        return theme.fit(group, theme.FRAME_W / 2 - theme.MARGIN - TEXT_X)

    @property
    def _score_max(self) -> float:
        return float(np.max(np.abs(self.derived.worked_all.scores))) or 1.0

    def _radius(self, value: float, top: float) -> float:
        """Dot radius for a value: its size shows the number (3Blue1Brown's grid of dots)."""
        return DOT_MIN + (DOT_MAX - DOT_MIN) * min(1.0, abs(value) / top)

    def _resize(self, grid: dict, values, top: float) -> list:
        return [
            dot.animate.scale_to_fit_width(2 * self._radius(values[i][j], top))
            for i, row in enumerate(grid["cells"]) for j, dot in enumerate(row)
        ]

    def _grid(self, tokens, top: float) -> dict:
        """Rows = queries (tokens in Q colour), columns = keys (K colour), a dot per pair,
        sized by that pair's score Q·Kᵀ from qkv_math; one fixed box per row for softmax."""
        n = len(tokens)
        scores = self.derived.worked_all.scores
        # column heads at the label size, each within its column with a clear gap (at the
        # body size "word 1 word 2 word 3" ran together), broken into lines if still too wide
        col_labels = VGroup(*[theme.label(t, CELL - HEAD_GAP, theme.LABEL_SIZE, theme.K_COLOR)
                              for t in tokens])
        row_labels = VGroup(*[theme.text(t, theme.LABEL_SIZE, theme.Q_COLOR) for t in tokens])
        first_row_y = top - col_labels.height - 0.2 - DOT_MAX - 0.15
        box_h = 2 * DOT_MAX + 0.26
        lowest = theme.CONTENT_BOTTOM + 0.1 + box_h / 2  # the last row's box clears the band
        row_sp = min(ROW_SP, (first_row_y - lowest) / max(1, n - 1))
        cells, row_boxes = VGroup(), VGroup()
        for i in range(n):
            y = first_row_y - i * row_sp
            row = VGroup(*[Dot([GRID_X + (j - (n - 1) / 2) * CELL, y, 0],
                               radius=self._radius(scores[i][j], self._score_max),
                               color=theme.FG) for j in range(n)])
            cells.add(row)
            rb = RoundedRectangle(corner_radius=0.12, width=(n - 1) * CELL + 2 * DOT_MAX + 0.4,
                                  height=box_h)
            row_boxes.add(rb.set_stroke(theme.Q_COLOR, 3).set_fill(opacity=0)
                          .move_to([GRID_X, y, 0]))
        for j, lab in enumerate(col_labels):
            lab.move_to([cells[0][j].get_x(), top - lab.height / 2, 0])
        for i, lab in enumerate(row_labels):
            lab.next_to(row_boxes[i], LEFT, buff=0.25)
        row_marks = VGroup(*[VGroup(row_labels[i], *cells[i]) for i in range(n)])
        col_marks = VGroup(*[VGroup(col_labels[j], *[cells[i][j] for i in range(n)])
                             for j in range(n)])
        return {"rows": row_labels, "cols": col_labels, "cells": cells, "row_boxes": row_boxes,
                "dots": VGroup(*[d for row in cells for d in row]),
                "row_marks": row_marks, "col_marks": col_marks}
