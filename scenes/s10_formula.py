"""The four steps as one line: Attention(Q, K, V) = softmax(QKᵀ/√d)·V, part by part."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes import theme
from scenes.base import NarratedScene

# The formula, built from labelled parts so each step can be lit on its own.
EXPR = (
    '"Attention"({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = {{ "softmax" : sm }} '
    "( {{ {{ Q : q }} {{ K^T : k }} : qk }} / {{ sqrt(d) : sd }} ) "
    "{{ dot : dot }} {{ V : v }}"
)
CELL = 1.2  # grid spacing across (keys)
DOT_MIN, DOT_MAX = 0.04, 0.25  # dot radii for the smallest and largest value
ROW_SP = 0.9  # grid spacing down (queries)
GRID_X = -3.7  # centre of the grid
TEXT_X = 0.9  # left edge of the explanation column


class FormulaScene(NarratedScene):
    scene_id = "formula"

    def narrate(self) -> None:
        tokens = self.numbers.worked_example.tokens[self.lang]
        n = len(tokens)

        with self.beat("intro") as b:
            self.title_card(b)
            f = theme.formula(EXPR, size=52)
            theme.fit(f, theme.CONTENT_W)
            f.move_to(UP * (theme.CONTENT_TOP - 0.1 - f.height / 2))
            self.play(Write(f), run_time=b.rt(0.15, 1.5))
            self.play(
                f.select("q1").animate.set_color(theme.Q_COLOR),
                f.select("q").animate.set_color(theme.Q_COLOR),
                f.select("k1").animate.set_color(theme.K_COLOR),
                f.select("k").animate.set_color(theme.K_COLOR),
                f.select("v1").animate.set_color(theme.V_COLOR),
                f.select("v").animate.set_color(theme.V_COLOR),
                run_time=b.rt(0.1, 0.8),
            )

        with self.beat("scores") as b:
            part = f.select("qk")
            box = SurroundingRectangle(part, color=theme.ACCENT, buff=0.08)
            grid_top = f.get_bottom()[1] - 0.4
            step = self._step_label(self.s("step1"), grid_top)
            self.play(Write(box), FadeIn(step), run_time=b.rt(0.12, 0.8))
            self.play(Indicate(f.select("k"), color=theme.K_COLOR, scale_factor=1.3),
                      run_time=b.rt(0.12, 1.0))

        with self.beat("grid") as b:
            grid = self._grid(tokens, top=grid_top)
            pairs = self._lines(self.items("pairs"), (theme.Q_COLOR, theme.K_COLOR, theme.FG))
            pairs.next_to(step, DOWN, buff=0.45, aligned_edge=LEFT)
            self.play(FadeIn(grid["rows"]), FadeIn(grid["cols"]), run_time=b.rt(0.1, 0.7))
            self.play(Indicate(box, color=theme.ACCENT), FadeIn(grid["dots"], scale=0.5),
                      run_time=b.rt(0.12, 1.0))
            for line in pairs:
                self.play(FadeIn(line, shift=0.1 * RIGHT), run_time=b.rt(0.06, 0.5))
            self.play(Indicate(grid["row_marks"][0], color=theme.Q_COLOR),
                      Indicate(grid["col_marks"][0], color=theme.K_COLOR),
                      run_time=b.rt(0.1, 0.8))

        with self.beat("scale") as b:
            self.play(Transform(box, self._box(f.select("sd"))),
                      Transform(step, self._step_label(self.s("step2"), grid_top)),
                      run_time=b.rt(0.12, 0.8))
            self.play(*self._resize(grid, self.derived.worked_all.scaled, self._score_max),
                      run_time=b.rt(0.15, 1.0))

        with self.beat("softmax") as b:
            self.play(Transform(box, self._box(f.select("sm"))),
                      Transform(step, self._step_label(self.s("step3"), grid_top)),
                      FadeOut(pairs), run_time=b.rt(0.1, 0.8))
            row_boxes = VGroup(*[
                SurroundingRectangle(VGroup(*grid["cells"][i]), color=theme.Q_COLOR, buff=0.15,
                                     corner_radius=0.1)
                for i in range(n)
            ])
            rowsum = self._lines(self.items("rowsum"), (theme.FG, theme.Q_COLOR))
            rowsum.next_to(step, DOWN, buff=0.45, aligned_edge=LEFT)
            for rb in row_boxes:
                self.play(FadeIn(rb), run_time=b.rt(0.07, 0.5))
            self.play(*self._resize(grid, self.derived.worked_all.weights, 1.0),
                      run_time=b.rt(0.15, 1.0))
            self.play(FadeIn(rowsum, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.7))

        with self.beat("weighted") as b:
            self.play(Transform(box, self._box(VGroup(f.select("dot"), f.select("v")))),
                      Transform(step, self._step_label(self.s("step4"), grid_top)),
                      FadeOut(rowsum), run_time=b.rt(0.1, 0.8))
            outs, arrows = VGroup(), VGroup()
            for i, t in enumerate(tokens):
                y = grid["cells"][i][0].get_y()
                chip = theme.text(t, theme.SMALL_SIZE, theme.FG)
                panel = theme.panel(max(chip.width + 0.4, 1.0), 0.5, color=theme.GOOD)
                out = VGroup(panel, chip.move_to(panel))
                out.move_to([row_boxes.get_right()[0] + 1.6, y, 0])
                arrows.add(Arrow(row_boxes[i].get_right(), out.get_left(), buff=0.1,
                                 color=theme.V_COLOR, stroke_width=3))
                outs.add(out)
            new = theme.text(self.s("new"), theme.SMALL_SIZE, theme.GOOD)
            new.next_to(outs, UP, buff=0.2)
            self.play(*[FadeIn(a) for a in arrows], run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(outs), FadeIn(new), run_time=b.rt(0.1, 0.8))

        with self.beat("parallel") as b:
            self.play(FadeOut(box), FadeOut(step), run_time=b.rt(0.06, 0.5))
            para = self._lines(self.items("parallel"), (theme.FG, theme.GOOD))
            para.next_to(outs, RIGHT, buff=0.6).align_to(row_boxes, UP)
            theme.fit(para, theme.FRAME_W / 2 - theme.MARGIN - para.get_left()[0])
            para.next_to(outs, RIGHT, buff=0.6).align_to(row_boxes, UP)
            self.play(FadeIn(para, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.7))
            self.play(*[Indicate(VGroup(row_boxes[i], arrows[i], outs[i]), color=theme.GOOD)
                        for i in range(n)], run_time=b.rt(0.15, 1.2))
            self.play(*[Indicate(VGroup(row_boxes[i], arrows[i], outs[i]), color=theme.GOOD)
                        for i in range(n)], run_time=b.rt(0.15, 1.2))

    # -- pieces ---------------------------------------------------------------------------------
    def _box(self, part) -> SurroundingRectangle:
        return SurroundingRectangle(part, color=theme.ACCENT, buff=0.08)

    def _step_label(self, s: str, top: float) -> VGroup:
        label = theme.text(s, theme.BODY_SIZE + 4, theme.ACCENT, weight="BOLD")
        return label.move_to([TEXT_X + label.width / 2, top - label.height / 2, 0])

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
        sized by that pair's score Q·Kᵀ from qkv_math."""
        n = len(tokens)
        scores = self.derived.worked_all.scores
        col_labels = VGroup(*[theme.text(t, theme.BODY_SIZE, theme.K_COLOR) for t in tokens])
        row_labels = VGroup(*[theme.text(t, theme.BODY_SIZE, theme.Q_COLOR) for t in tokens])
        first_row_y = top - col_labels.height - 0.5
        cells = VGroup()
        for i in range(n):
            y = first_row_y - i * ROW_SP
            row = VGroup(*[Dot([GRID_X + (j - (n - 1) / 2) * CELL, y, 0],
                               radius=self._radius(scores[i][j], self._score_max),
                               color=theme.FG) for j in range(n)])
            cells.add(row)
        for j, lab in enumerate(col_labels):
            lab.move_to([cells[0][j].get_x(), top - lab.height / 2, 0])
        for i, lab in enumerate(row_labels):
            lab.next_to(cells[i][0], LEFT, buff=0.4)
        row_marks = VGroup(*[VGroup(row_labels[i], *cells[i]) for i in range(n)])
        col_marks = VGroup(*[VGroup(col_labels[j], *[cells[i][j] for i in range(n)])
                             for j in range(n)])
        return {"rows": row_labels, "cols": col_labels, "cells": cells,
                "dots": VGroup(*[d for row in cells for d in row]),
                "row_marks": row_marks, "col_marks": col_marks}
