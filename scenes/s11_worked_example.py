"""The worked example: the four steps on a three-word sentence, every value from qkv_math."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    Rectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes import theme
from scenes.base import NarratedScene

ROW_H = 0.82
CELL = 34  # this scene's table is the focus: larger than the theme's body text
HEAD = 26
BAR_LEN = 3.2


class WorkedExampleScene(NarratedScene):
    scene_id = "worked_example"

    def narrate(self) -> None:
        we = self.numbers.worked_example
        att = self.derived.worked
        tokens = we.tokens[self.lang]
        qi = we.query
        n = len(tokens)

        with self.beat("intro") as b:
            self.header = self.title_card(b)
            self.table = self._build_table(tokens, we, att)
            self.play(FadeIn(VGroup(*self.table[:4]), shift=0.1 * DOWN), run_time=b.rt(0.2, 1.0))

        with self.beat("query") as b:
            row = VGroup(*[col[1][qi] for col in self.table])
            box = SurroundingRectangle(row, color=theme.Q_COLOR, buff=0.1)
            self.play(Write(box), run_time=b.rt(0.2, 0.8))
            self.play(Indicate(self.table[1][1][qi], color=theme.Q_COLOR), run_time=b.rt(0.2, 1.0))
            self.query_box = box

        with self.beat("scores") as b:
            step = self._step_label(self.s("step1"))
            self.play(FadeIn(step), run_time=b.rt(0.1, 0.5))
            col = self.table[4]
            self.add(col[0])
            calc = None
            for i in range(n):
                new_calc = self._dot_line(we.Q[qi], we.K[i], att.scores[i])
                swap = [FadeOut(calc)] if calc is not None else []
                self.play(*swap, FadeIn(new_calc), run_time=b.rt(0.06, 0.4))
                self.play(
                    TransformFromCopy(VGroup(self.table[1][1][qi], self.table[2][1][i]),
                                      col[1][i]),
                    Indicate(self.table[2][1][i], color=theme.K_COLOR),
                    run_time=b.rt(0.1, 0.7),
                )
                self.wait(b.rt(0.08, 0.8))
                calc = new_calc
            self.play(FadeOut(calc), run_time=b.rt(0.05, 0.3))
            self.step = step

        with self.beat("scale") as b:
            self._swap_step(self.s("step2"), b)
            col = self.table[5]
            self.play(FadeIn(col[0]), *[TransformFromCopy(self.table[4][1][i], col[1][i])
                                       for i in range(n)], run_time=b.rt(0.3, 1.2))

        with self.beat("softmax") as b:
            self._swap_step(self.s("step3"), b)
            col = self.table[6]
            self.play(FadeIn(col[0]), *[GrowFromEdge(m, LEFT) for m in col[1]],
                      run_time=b.rt(0.35, 1.5))
            self.weights_col = col

        with self.beat("weighted_sum") as b:
            self._swap_step(self.s("step4"), b)
            terms = VGroup()
            for i in range(n):
                w = theme.text(self.num(att.weights[i], 2), CELL, theme.Q_COLOR)
                times = theme.text("×", CELL)
                v = theme.text(self.vec(we.V[i]), CELL, theme.V_COLOR)
                term = VGroup(w, times, v).arrange(RIGHT, buff=0.1)
                terms.add(term)
                if i < n - 1:
                    terms.add(theme.text("+", CELL))
            eq = theme.text("=", CELL)
            out = theme.text(self.vec(att.output, 2), CELL, theme.GOOD, weight="BOLD")
            line = VGroup(*terms, eq, out).arrange(RIGHT, buff=0.18)
            theme.fit(line, theme.CONTENT_W)
            line.next_to(self.table, DOWN, buff=0.5).set_x(0)
            if line.get_bottom()[1] < theme.CONTENT_BOTTOM:
                line.shift(UP * (theme.CONTENT_BOTTOM - line.get_bottom()[1]))
            self.play(FadeIn(VGroup(*terms)), run_time=b.rt(0.25, 1.2))
            self.play(FadeIn(eq), Write(out), run_time=b.rt(0.2, 1.0))
            self.out = out

        with self.beat("meaning") as b:
            label = theme.text(self.s("result"), HEAD, theme.GOOD)
            label.next_to(self.out, DOWN, buff=0.15)
            if label.get_right()[0] > theme.FRAME_W / 2 - theme.MARGIN:
                label.align_to(self.out, RIGHT)
            self.play(FadeIn(label), Indicate(self.out, color=theme.GOOD), run_time=b.rt(0.3, 1.2))
            self.play(*[Indicate(m, color=theme.Q_COLOR) for m in self.weights_col[1]],
                      run_time=b.rt(0.3, 1.2))

    # -- layout helpers -------------------------------------------------------------------------
    def _build_table(self, tokens, we, att) -> VGroup:
        """All seven columns, laid out and centred once; later steps reveal columns 4-6."""
        bars = []
        for w in att.weights:
            rect = Rectangle(width=max(0.02, w * BAR_LEN), height=0.36)
            rect.set_stroke(width=0).set_fill(theme.Q_COLOR, 0.85)
            label = theme.text(self.pct(w), HEAD).next_to(rect, RIGHT, buff=0.1)
            bars.append(VGroup(rect, label))
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
            (self.s("weight"), bars, theme.Q_COLOR, True),
        ]
        table = VGroup()
        top = theme.CONTENT_TOP - 0.85
        x = 0.0
        for head, cells, color, align_left in cols:
            col = self._make_column(head, cells, color, top, align_left)
            col.shift(RIGHT * (x - col.get_left()[0]))
            table.add(col)
            x = col.get_right()[0] + 0.5
        theme.fit(table, theme.CONTENT_W)
        table.set_x(0)
        return table

    def _make_column(self, head, cells, color, top, align_left=False) -> VGroup:
        header = theme.text(head, HEAD, color)
        header.move_to(UP * top)
        body = VGroup(*cells)
        for i, cell in enumerate(cells):
            cell.move_to(UP * (top - ROW_H * (i + 1.1)))
        if align_left:
            for cell in cells:
                cell.align_to(header, LEFT)
        return VGroup(header, body)

    def _dot_line(self, q, k, score) -> VGroup:
        """q · k = a×b + c×d = score, in the Q/K colours, centred below the table."""
        parts: list = [theme.text(self.vec(q), CELL, theme.Q_COLOR), theme.text("·", CELL),
                       theme.text(self.vec(k), CELL, theme.K_COLOR), theme.text("=", CELL)]
        for j, (a, c) in enumerate(zip(q, k, strict=True)):
            if j:
                parts.append(theme.text("+", CELL))
            parts += [theme.text(self.num(a), CELL, theme.Q_COLOR), theme.text("×", CELL),
                      theme.text(self.num(c), CELL, theme.K_COLOR)]
        parts += [theme.text("=", CELL), theme.text(self.num(score), CELL, weight="BOLD")]
        line = VGroup(*parts).arrange(RIGHT, buff=0.14)
        theme.fit(line, theme.CONTENT_W)
        return line.next_to(self.table, DOWN, buff=0.5).set_x(0)

    def _step_label(self, s: str):
        label = theme.text(s, theme.BODY_SIZE, theme.ACCENT)
        label.to_edge(LEFT, buff=theme.MARGIN + 0.2).set_y(theme.CONTENT_TOP - 0.25)
        return label

    def _swap_step(self, s: str, b) -> None:
        new = self._step_label(s)
        self.play(self.step.animate.become(new), run_time=b.rt(0.1, 0.5))


